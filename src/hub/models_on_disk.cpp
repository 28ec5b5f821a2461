#include "hub/models_on_disk.h"

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

}  // namespace ma
