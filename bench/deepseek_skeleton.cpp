#include "deepseek_skeleton.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "formats/safetensors_writer.h"
#include "io/atomic_file.h"
#include "io/file_source.h"
#include "model/config.h"
#include "model/family_registry.h"

namespace fs = std::filesystem;

std::pair<size_t, uint64_t> write_deepseek_skeleton(const fs::path& config_path, const fs::path& dir) {
  fs::create_directories(dir);
  std::string config_text = ma::read_small_file(config_path, 1 << 20);
  ma::ModelTemplate t = ma::build_template(ma::ModelConfig::parse(config_text, config_path.string()));
  std::vector<ma::DiskTensor> disk = ma::disk_form(t);
  std::string index = "\"weight_map\":{";
  uint64_t header_bytes = 0, data_bytes = 0;
  size_t per_shard = (disk.size() + kSkeletonShards - 1) / kSkeletonShards;
  for (int s = 0; s < kSkeletonShards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%06d.safetensors", s + 1, kSkeletonShards);
    std::vector<ma::TensorToWrite> tensors;
    for (size_t i = s * per_shard; i < std::min(disk.size(), (s + 1) * per_shard); ++i) {
      tensors.push_back({disk[i].name, ma::DType::BF16, disk[i].shape, {}});
      data_bytes += ma::numel(disk[i].shape) * 2;
      index += (index.back() == '{' ? "\"" : ",\"") + disk[i].name + "\":\"" + name + "\"";
    }
    header_bytes += ma::safetensors_header_json(tensors, {{"format", "pt"}}).size();
    ma::write_safetensors(dir / name, tensors, {{"format", "pt"}});
  }
  index = "{\"metadata\":{\"total_size\":" + std::to_string(data_bytes) + "}," + index + "}}";
  ma::write_file_atomically(dir / "model.safetensors.index.json", index);
  ma::write_file_atomically(dir / "config.json", config_text);
  return {disk.size(), header_bytes};
}

fs::path default_deepseek_config() {
  return fs::path(MA_SOURCE_DIR) / "../shared/data/hf-configs/deepseek-ai__DeepSeek-V3/config.json";
}
