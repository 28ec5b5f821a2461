#include "cli/weights_source.h"

#include <filesystem>
#include <optional>

#include "cli/verbose_trace.h"
#include "core/error.h"
#include "hub/hub_cache.h"
#include "hub/hub_settings.h"
#include "hub/repo_ref.h"

namespace ma::cli {

// A Hub id names the weights only once they are downloaded: the cached snapshot when it has them.
LocalModelFiles local_weights(const std::string& model, const HubArgs& hub) {
  // A local directory's model is chosen by --file as a repository's is.
  if (path_is_present(model)) return open_model(model, HubArgs{{}, std::nullopt, hub.file}, true).files;
  std::optional<RepoRef> ref = parse_repo_ref(model);
  if (!ref) return locate_local_model(model);  // the "no such file" error
  // What to download: the model as named, with the file --file chose (a GGUF or ONNX model of several);
  // else, when MODEL names no file of its own (":Q4_K_M", a URL's), what an analysis of it reads (--needed:
  // not the copies a repository keeps beside its weights).
  const std::string download = "modelanalyzer download " + model +
                               (hub.file                       ? " --file " + *hub.file
                                : ref->gguf_model || ref->file ? ""
                                                               : " --needed");
  if (hub.revision) ref->revision = *hub.revision;
  {  // A revision never downloaded: say what to run, not that the cache is offline (this command reads it so)
    const HubCache cache(hub_settings(hub.flags).cache_root, ref->id);
    const std::optional<std::string> commit = cache.commit_of(ref->revision);
    std::error_code ec;
    if (!commit || !std::filesystem::is_directory(cache.snapshot_dir(*commit), ec))
      throw Error(ErrorKind::NotFound, model, "",
                  "this command reads the weights, and " + ref->id + "@" + ref->revision +
                      " is not downloaded: run `" + download + "` first");
  }
  OpenedModel opened = open_model(
      model, HubArgs{HubFlags{std::nullopt, std::nullopt, false, true}, hub.revision, hub.file}, true);
  const LocalModelFiles& f = opened.files;
  if (f.fetched_headers.empty() && f.format != CheckpointFormat::None) return opened.files;
  throw Error(ErrorKind::NotFound, model, "",
              "this command reads the weights: run `" + download + "` first (only headers are cached)");
}

PlannedWeights plan_weights(const std::string& model, const HubArgs& hub, const StatsSelection& selection,
                            const Output& out) {
  HubSettings settings = hub_settings(hub.flags);
  trace_http(settings);
  trace("locating the weights of " + model);
  std::vector<std::string> warnings;
  PlannedWeights w{weights_input(local_weights(model, hub), settings.cache_root, warnings), {}};
  w.plan = plan_scan(w.input, selection, warnings);
  print_warnings(warnings, out);
  return w;
}

}  // namespace ma::cli
