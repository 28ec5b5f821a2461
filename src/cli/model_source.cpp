#include "cli/model_source.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "analysis/model_weight_stats.h"
#include "analysis/parameter_counts.h"
#include "analysis/peft_adapter.h"
#include "cli/cli_common.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "formats/weight_format.h"
#include "hub/models_on_disk.h"
#include "hub/onnx_choice.h"
#include "hub/repo_ref.h"
#include "io/file_source.h"
#include "model/simulator_config.h"

namespace ma::cli {
namespace {

ModelMetadata metadata_of(const RemoteModel& m, const RepoRef& ref) {
  ModelMetadata md;
  md.repo_id = ref.id;
  md.revision = ref.revision;
  md.commit = m.info.commit;
  md.author = m.info.author;
  md.downloads = m.info.downloads;
  md.likes = m.info.likes;
  md.license = m.info.license;
  md.gated = m.info.gated;
  md.pipeline_tag = m.info.pipeline_tag;
  md.last_modified = m.info.last_modified;
  md.weight_files_bytes = m.weight_bytes;
  if (m.files.format != CheckpointFormat::Onnx) md.onnx_models = listed_onnx_models(m.info.files);
  return md;
}

// Warnings about the settings (a token on the command line, a token withheld or sent over plain http) are
// shown once per run, however many models a command opens: the first open_model takes them.
bool first_settings_warnings() {
  static std::atomic<bool> taken{false};
  return !taken.exchange(true);
}

// A command that fails never gets to print what open_model returns, so on failure the settings warnings are
// printed here, before the error line (never under --quiet).
void print_settings_warnings(const HubSettings& settings, bool quiet) {
  Output out;
  out.quiet = quiet;
  out.stderr_tty = ::isatty(STDERR_FILENO);
  print_warnings(settings.warnings, out);
}

// A local MODEL. A directory is read as a repository would be: --file chooses one of its models, and the
// report lists its several GGUF models where other commands ask which one is meant.
OpenedModel open_local_model(const std::string& arg, const HubArgs& hub) {
  OpenedModel out;
  trace("locating the model in " + arg);
  std::error_code ec;
  if (hub.file && !std::filesystem::is_directory(arg, ec))
    throw Error(ErrorKind::Usage, arg, "--file",
                "chooses one model of a directory or a Hub repository, and this names a file");
  if (hub.file || std::filesystem::is_directory(arg, ec)) {
    ModelOnDisk m = open_model_on_disk(arg, hub.file, hub.list_models, arg, "the directory", "--file");
    out.files = std::move(m.files);
    out.gguf_models = std::move(m.gguf_models);
    out.onnx_models = std::move(m.onnx_models);
    out.notes = std::move(m.notes);
  } else {
    out.files = locate_local_model(arg);
  }
  trace_files(out.files);
  return out;
}

}  // namespace

void trace_files(const LocalModelFiles& f) {
  if (!trace_enabled()) return;
  const std::string format(checkpoint_format_name(f.format));
  // With an index the shards are its to name: they are listed when the checkpoint is read.
  const std::string weights =
      f.index && f.weight_files.empty()
          ? "the " + format + " weight files named by " + f.index->filename().string()
          : std::to_string(f.weight_files.size()) + " " + format + " weight file(s)" +
                (f.index ? " named by " + f.index->filename().string() : std::string());
  trace("found: config " + (f.config ? f.config->filename().string() : std::string("none")) + ", " + weights +
        (f.fetched_headers.empty() ? ""
                                   : ", " + std::to_string(f.fetched_headers.size()) + " headers fetched"));
}

std::optional<std::string> model_file_selector(const RepoRef& ref, const HubArgs& hub) {
  // --file and a ":NAME" suffix (or a URL's file) name the same choice: both given, they must agree. A URL
  // naming another kind of file (config.json) names the repository's model, read as usual.
  std::optional<std::string> named = ref.gguf_model;
  std::string where = named ? "the model id names :" + printable(*named) : "";
  if (!named && ref.file && (ref.file->ends_with(".gguf") || ref.file->ends_with(".onnx"))) {
    named = ref.file;
    where = "the URL names " + printable(*ref.file);
  }
  if (hub.file && named && *hub.file != *named)
    throw Error(ErrorKind::Usage, "", "--file", "names " + printable(*hub.file) + " where " + where);
  return hub.file ? hub.file : named;
}

OpenedModel open_model(const std::string& arg, const HubArgs& hub, bool skip_tokenizer) {
  std::optional<RepoRef> ref;
  if (!path_is_present(arg)) ref = parse_repo_ref(arg);
  if (!ref) return open_local_model(arg, hub);
  OpenedModel out;
  if (hub.revision) {
    validate_revision(*hub.revision);
    ref->revision = *hub.revision;
    ref->explicit_revision = true;
  }
  HubSettings settings = hub_settings(hub.flags);
  trace_http(settings);
  trace("resolving " + ref->id + "@" + ref->revision + " on " + settings.endpoint +
        (settings.offline ? " (offline: the cache)" : ""));
  const bool warn = first_settings_warnings();
  RemoteOptions options;
  options.skip_tokenizer = skip_tokenizer;
  const std::optional<std::string> selector = model_file_selector(*ref, hub);
  (is_onnx_selector(selector) ? options.onnx_file : options.gguf_file) = selector;
  options.list_models = hub.list_models;
  RemoteModel m;
  try {
    m = open_remote_model(*ref, settings, options);
  } catch (...) {
    if (warn) print_settings_warnings(settings, hub.flags.quiet);
    throw;
  }
  if (warn) out.warnings = settings.warnings;  // the command prints them with its own --quiet
  for (std::string& w : m.warnings) out.warnings.push_back(std::move(w));
  out.notes = std::move(m.notes);
  out.metadata = metadata_of(m, *ref);
  out.stats = m.stats;
  out.files = std::move(m.files);
  out.gguf_models = std::move(m.gguf_models);
  out.onnx_models = std::move(m.onnx_models);
  trace_files(out.files);
  return out;
}

OpenedInventory open_inventory(const std::string& arg, const HubArgs& hub, const Output& out) {
  OpenedInventory r{open_model(arg, hub, true), nullptr};
  print_warnings(r.opened.warnings, out);
  print_notes(r.opened.notes, out);
  // A PEFT adapter runs merged into its base model, whose shapes it keeps: plan, perf and serve size and time
  // the base. The adapter's own few tensors are no model (they were timed as one: 1e9 tokens/s).
  if (is_peft_adapter(r.opened.files)) {
    std::vector<std::string> warnings;
    ModelWeightsInput in = weights_input(r.opened.files, hub_settings(hub.flags).cache_root, warnings);
    print_warnings(warnings, out);
    if (!in.frozen_base)
      throw Error(ErrorKind::NotFound, arg, "adapter_config.json",
                  "a PEFT adapter whose base model is not found: name the base model (the adapter, merged, "
                  "keeps its shapes)");
    print_notes({arg + ": a PEFT adapter: its base model at " + in.base_found_at.string() +
                 " is analysed (the adapter, merged, keeps its shapes)"},
                out);
    r.opened.files = std::move(*in.frozen_base);
  }
  trace("reading the configuration and the weight headers; building the inventory");
  r.inventory = &keep_until_exit(build_inventory(r.opened.files));
  // What the config reader left out, and where the checkpoint and its template or index disagree: perf, plan
  // and serve size the model on what was read, so they say so as the report does.
  print_warnings(r.inventory->warnings, out);
  print_notes(r.inventory->notes, out);
  return r;
}

OpenedInventory open_simulator_config(const std::string& path, const Output& out) {
  constexpr size_t kMaxConfigBytes = 16 << 20;
  trace("reading the simulator config and rebuilding its model");
  const SimulatorModel m = read_simulator_config(read_small_file(path, kMaxConfigBytes), path);
  OpenedInventory r;
  r.opened.files.display_name = path;
  Inventory& inv = keep_until_exit(inventory_from_config_text(m.hf_config_json, path));
  const uint64_t rebuilt = count_parameters(inv).total;
  std::string note = path + ": " + (m.name.empty() ? std::string("the model") : m.name) + " rebuilt as a " +
                     m.family + " model from its layer entries (" + std::to_string(rebuilt) + " parameters";
  if (m.total_params && m.total_params != rebuilt)
    note += "; the config states " + std::to_string(m.total_params) +
            ": what its classes do not carry (biases, extra norms) is left out";
  inv.notes.push_back(note + ")");
  print_notes(inv.notes, out);
  r.inventory = &inv;
  return r;
}

OpenedInventory open_model_or_config(const std::string& model, const std::string& config, const HubArgs& hub,
                                     const Output& out) {
  return config.empty() ? open_inventory(model, hub, out) : open_simulator_config(config, out);
}

}  // namespace ma::cli
