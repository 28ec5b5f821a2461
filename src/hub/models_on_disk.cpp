#include "hub/models_on_disk.h"

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "hub/gguf_catalog.h"
#include "hub/onnx_choice.h"
#include "hub/snapshot_listing.h"

namespace ma {

std::string choose_model_on_disk(const std::filesystem::path& dir, std::string_view selector,
                                 const std::string& name, std::string_view holder, std::string_view spelled) {
  const std::vector<RepoFile> on_disk = snapshot_listing(dir);
  if (selector.ends_with(".onnx")) return choose_onnx_model(on_disk, selector, name, spelled, holder).path;
  return GgufCatalog(on_disk, name, std::string(holder)).choose(selector, spelled).path;
}

std::vector<GgufModelChoice> gguf_models_on_disk(const std::filesystem::path& dir, const std::string& name,
                                                 std::string_view holder) {
  const std::vector<RepoFile> on_disk = snapshot_listing(dir);
  const GgufCatalog ggufs(on_disk, name, std::string(holder));
  std::vector<GgufModelChoice> out;
  for (const RepoFile* model : ggufs.models()) {
    GgufModelChoice& c = out.emplace_back();
    c.file = model->path;
    c.bytes = ggufs.bytes(*model);
    try {
      for (const RepoFile* part : ggufs.parts(*model)) c.parts_on_disk.push_back(dir / part->path);
    } catch (const Error& e) {
      if (!is_input_fault(e)) throw;
      c.parts_on_disk.clear();
      c.error = e;
    }
  }
  return out;
}

std::vector<ListedOnnxModel> onnx_models_on_disk(const std::filesystem::path& dir,
                                                 const std::vector<std::filesystem::path>& models) {
  const std::vector<RepoFile> on_disk = snapshot_listing(dir);
  std::vector<ListedOnnxModel> out;
  for (const std::filesystem::path& model : models) {
    const std::string path = model.lexically_relative(dir).generic_string();
    const auto f =
        std::find_if(on_disk.begin(), on_disk.end(), [&](const RepoFile& r) { return r.path == path; });
    if (f != on_disk.end()) out.push_back(listed_onnx_model(on_disk, *f));
  }
  return out;
}

ModelOnDisk open_model_on_disk(const std::filesystem::path& dir, const std::optional<std::string>& selector,
                               bool list_models, const std::string& name, std::string_view holder,
                               std::string_view spelled) {
  ModelOnDisk out;
  if (selector) {
    out.files =
        locate_local_model((dir / choose_model_on_disk(dir, *selector, name, holder, spelled)).string());
    if (out.files.format == CheckpointFormat::Onnx && !out.files.config &&
        path_is_present(dir / "config.json"))
      out.files.config = dir / "config.json";
    return out;
  }
  try {
    out.files =
        locate_local_model(dir.string(), list_models ? SeveralModels::List : SeveralModels::AskForFile);
  } catch (const Error& e) {
    // Named as the user named it: a cache snapshot by its repository, not by its path in the cache.
    if (e.file() != dir.string()) throw;
    throw Error(e.kind(), name, e.field(), e.rule(), e.offset());
  }
  if (!out.files.gguf_models.empty()) out.gguf_models = gguf_models_on_disk(dir, name, holder);
  if (!out.files.onnx_models.empty()) {
    std::vector<ListedOnnxModel> listed = onnx_models_on_disk(dir, out.files.onnx_models);
    std::vector<std::string> paths;
    for (const ListedOnnxModel& m : listed) paths.push_back(m.path);
    if (out.files.config)
      out.notes.push_back(std::string(holder) + "'s ONNX models (" + onnx_model_paths(paths) +
                          ") are not read (the model is config.json's): name one with --file to read it");
    else
      out.onnx_models = std::move(listed);
  }
  return out;
}

}  // namespace ma
