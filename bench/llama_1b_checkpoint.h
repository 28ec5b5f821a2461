// The Llama-3.2-1B-shaped BF16 checkpoint the weight benchmarks read (embedding 128256 x 2048, 16 layers of
// q/k/v/o, gate/up/down and two norms, tied head: 1.24 B parameters, 2.47 GB), normal-distributed weights
// from a fixed seed, written once and reused while its size and header match.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace ma::bench {

// Writes (or reuses) the checkpoint at `path`; returns its size in bytes and its tensor count.
uint64_t ensure_llama_1b_checkpoint(const std::filesystem::path& path, size_t& tensor_count);

}  // namespace ma::bench
