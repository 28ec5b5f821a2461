#include "hub/download_choice.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/glob.h"
#include "formats/checkpoint.h"
#include "hub/gguf_catalog.h"
#include "hub/hub_api.h"
#include "hub/hub_cache.h"
#include "hub/hub_http.h"
#include "hub/model_info.h"
#include "hub/onnx_choice.h"
#include "hub/remote_model.h"
#include "hub/snapshot_listing.h"

namespace ma {
namespace {

struct RevisionFiles {
  std::vector<RepoFile> files;
  std::string commit;
  std::optional<HubModelInfo> online;  // the Hub's answer, when the list came from it
  std::vector<std::string> warnings;
};

// The revision's file list as the cache holds it: our record of the Hub's answer, else the files of a
// snapshot another tool wrote. nullopt when the cache knows nothing of the revision.
std::optional<RevisionFiles> cached_revision_files(const RepoRef& ref, const HubCache& cache) {
  const std::string commit =
      is_commit_hash(ref.revision) ? ref.revision : cache.read_ref(ref.revision).value_or("");
  if (commit.empty()) return std::nullopt;
  if (std::optional<std::string> body = cache.read_info(commit)) {
    HubModelInfo info =
        parse_model_info(std::move(*body), (cache.repo_dir() / "modelanalyzer/info").string());
    return RevisionFiles{std::move(info.files), commit, std::nullopt, {}};
  }
  std::vector<RepoFile> on_disk = snapshot_listing(cache.snapshot_dir(commit));
  if (on_disk.empty()) return std::nullopt;
  return RevisionFiles{std::move(on_disk), commit, std::nullopt, {}};
}

RevisionFiles revision_files(const RepoRef& ref, const HubSettings& settings,
                             const std::atomic<bool>* cancel) {
  const HubCache cache(settings.cache_root, ref.id);
  if (!settings.offline) {
    try {
      HubHttp http(settings);
      RevisionFiles listed;
      HubModelInfo info = fetch_model_info(http, ref, cache, cancel, &listed.warnings);
      listed.files = info.files;
      listed.commit = info.commit;
      listed.online = std::move(info);
      return listed;
    } catch (const Error& e) {
      // The Hub unreachable or failing: the cached revision still says which files to take (the download
      // itself then answers from the cache, or fails with its own error).
      if (e.kind() != ErrorKind::Network) throw;
      if (std::optional<RevisionFiles> cached = cached_revision_files(ref, cache)) return std::move(*cached);
      throw;
    }
  }
  if (std::optional<RevisionFiles> cached = cached_revision_files(ref, cache)) return std::move(*cached);
  throw Error(ErrorKind::NotFound, ref.id + "@" + ref.revision, "",
              "offline (HF_HUB_OFFLINE), and the cache holds neither a file list nor a snapshot of this "
              "revision");
}

// The download takes the chosen paths as --include globs: a path holding '*' or '?' would match other files
// too, and is refused rather than let it widen the download.
void require_literal_globs(const std::vector<std::string>& paths, const std::vector<RepoFile>& files,
                           const std::string& where) {
  for (const std::string& p : paths) {
    if (p.find_first_of("*?") == std::string::npos) continue;
    for (const RepoFile& f : files)
      if (f.path != p && glob_match(p, f.path))
        throw Error(ErrorKind::Unsupported, where, printable(p, 200),
                    "its name holds '*' or '?' and, as a download pattern, would also select other files: "
                    "choose the files with --include and --exclude");
  }
}

// The external data files the graph of `model` names, as repository paths: read from the graph itself
// (fetched whole, or from the cache, as an analysis reads it), since exporters name them as they like
// (torch's older exporter wrote one file per large initializer, named after it). Empty when the graph cannot
// be read (larger than a graph is fetched up to, malformed, not cached offline): the files named after the
// model are then all that is taken.
std::vector<std::string> onnx_external_files(const RepoRef& ref, const RevisionFiles& listed,
                                             const HubSettings& settings, const RepoFile& model) {
  RepoRef at = ref;
  at.revision = listed.commit;
  at.explicit_revision = true;
  at.file.reset();
  at.gguf_model.reset();
  RemoteOptions options;
  options.skip_tokenizer = true;
  options.onnx_file = model.path;
  if (listed.online) options.listed = &*listed.online;
  const std::string folder = std::filesystem::path(model.path).parent_path().generic_string();
  std::vector<std::string> out;
  try {
    const Checkpoint ck = read_checkpoint(open_remote_model(at, settings, options).files);
    if (ck.onnx)
      for (const std::string& location : ck.onnx->external_files)
        out.push_back(folder.empty() ? location : folder + "/" + location);
  } catch (const Error& e) {
    if (!is_input_fault(e)) throw;  // the network, the token, Ctrl-C: the download's own errors
  }
  return out;
}

// Adds `path` to `paths` unless it is there: a file can be a companion and an analysis file.
void take_path(const std::string& path, std::vector<std::string>& paths) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
}

bool listed_path(const std::vector<RepoFile>& files, std::string_view path) {
  return std::any_of(files.begin(), files.end(), [&](const RepoFile& f) { return f.path == path; });
}

// What the analysis of the repository reads beside its weights (config.json, the tokenizer, an index), as a
// Hub run fetches them: the snapshot then answers offline.
void take_analysis_files(const std::vector<RepoFile>& files, std::vector<std::string>& paths) {
  for (const RepoFile& f : files)
    if (is_analysis_file(f.path, false)) take_path(f.path, paths);
}

// The ONNX model `model` with its external data (named after it, or named by its graph) and companions,
// and the repository's analysis files.
void take_onnx_model(const RepoRef& ref, const RevisionFiles& listed, const HubSettings& settings,
                     const RepoFile& model, std::vector<std::string>& paths) {
  take_path(model.path, paths);
  for (const RepoFile* c : onnx_companions(listed.files, model)) take_path(c->path, paths);
  for (const std::string& path : onnx_external_files(ref, listed, settings, model))
    if (listed_path(listed.files, path)) take_path(path, paths);
  take_analysis_files(listed.files, paths);
}

DownloadChoice chosen(std::vector<std::string> paths, RevisionFiles& listed, const RepoRef& ref) {
  require_literal_globs(paths, listed.files, ref.id + "@" + ref.revision);
  DownloadChoice out;
  out.paths = std::move(paths);
  out.commit = listed.commit;
  out.listed_online = std::move(listed.online);
  out.warnings = std::move(listed.warnings);
  return out;
}

}  // namespace

DownloadChoice choose_needed_files(const RepoRef& ref, const HubSettings& settings,
                                   const std::atomic<bool>* cancel) {
  RevisionFiles listed = revision_files(ref, settings, cancel);
  RepoRef at = ref;  // the model as an analysis reads it, at the commit of the list
  at.revision = listed.commit;
  at.explicit_revision = true;
  RemoteOptions options;
  if (listed.online) options.listed = &*listed.online;  // asked once, not again for the analysis
  const RemoteModel m = open_remote_model(at, settings, options);
  const LocalModelFiles& files = m.files;
  const std::filesystem::path snapshot = HubCache(settings.cache_root, ref.id).snapshot_dir(listed.commit);
  std::vector<std::string> paths;
  if (files.format == CheckpointFormat::Onnx && !files.weight_files.empty()) {
    const std::string graph = files.weight_files.front().lexically_relative(snapshot).generic_string();
    for (const RepoFile& f : listed.files)
      if (f.path == graph) take_onnx_model(ref, listed, settings, f, paths);
    return chosen(std::move(paths), listed, ref);
  }
  // No weights read: an ONNX model too large to fetch as a graph (its initializers inline) is the one the
  // analysis would read once downloaded.
  if (files.format == CheckpointFormat::None && files.weight_files.empty())
    if (const RepoFile* onnx = repository_onnx_model(listed.files)) {
      take_onnx_model(ref, listed, settings, *onnx, paths);
      return chosen(std::move(paths), listed, ref);
    }
  take_analysis_files(listed.files, paths);
  if (listed_path(listed.files, "adapter_config.json")) take_path("adapter_config.json", paths);
  if (files.parsed_index) {
    // The index is at the top, so the shards it names are repository paths.
    for (const std::string& shard : files.parsed_index->shards) take_path(shard, paths);
  } else {
    for (const std::filesystem::path& w : files.weight_files)
      take_path(w.lexically_relative(snapshot).generic_string(), paths);
  }
  // No paths would mean no --include, and so every file: never that.
  if (paths.empty())
    throw Error(ErrorKind::NotFound, ref.id + "@" + ref.revision, "--needed",
                "the repository holds nothing an analysis reads");
  return chosen(std::move(paths), listed, ref);
}

DownloadChoice choose_download_files(const RepoRef& ref, const HubSettings& settings,
                                     const std::optional<std::string>& file,
                                     const std::optional<std::string>& selector, std::string_view spelled,
                                     const std::atomic<bool>* cancel) {
  RevisionFiles listed = revision_files(ref, settings, cancel);
  std::vector<std::string> paths;
  if (file) {
    if (!listed_path(listed.files, *file))
      throw Error(ErrorKind::NotFound, ref.id + "@" + ref.revision, printable(*file, 200),
                  "the URL names a file that is not in the repository at this revision");
    paths.push_back(*file);
  } else {
    if (!selector)
      throw Error(ErrorKind::Internal, ref.id, "", "choose_download_files: nothing to choose by");
    if (selector->ends_with(".onnx")) {
      take_onnx_model(ref, listed, settings, choose_onnx_model(listed.files, *selector, ref.id, spelled),
                      paths);
    } else {
      const GgufCatalog catalog(listed.files, ref.id);
      for (const RepoFile* part : catalog.parts(catalog.choose(*selector, spelled)))
        paths.push_back(part->path);
    }
  }
  return chosen(std::move(paths), listed, ref);
}

}  // namespace ma
