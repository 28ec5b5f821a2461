// The largest checkpoint layout users name, for benchmarks: DeepSeek-V3 as 163 safetensors shards (one tensor
// per expert), written as sparse files from our template so the ~1.3 TB of zeros take no disk.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

inline constexpr int kSkeletonShards = 163;

// Writes config.json, model.safetensors.index.json and the shards into `dir`; returns the number of tensors
// and the bytes of header JSON over all shards.
std::pair<size_t, uint64_t> write_deepseek_skeleton(const std::filesystem::path& config_path,
                                                    const std::filesystem::path& dir);

// The default config: ../shared/data's DeepSeek-V3 config.json beside the checkout.
std::filesystem::path default_deepseek_config();
