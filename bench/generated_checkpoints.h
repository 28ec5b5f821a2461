// Checkpoints the weight benchmarks read, normal-distributed weights from a fixed seed, written once and
// reused while their size and header match:
//  - Llama-3.2-1B-shaped, BF16 (embedding 128256 x 2048, 16 layers of q/k/v/o, gate/up/down and two norms,
//    tied head: 1.24 B parameters, 2.47 GB);
//  - BERT-base-shaped, float32 (embeddings, 12 layers of q/k/v/o, intermediate and output with their biases
//    and two LayerNorms, pooler: 199 tensors, 110 M parameters, 438 MB), where most tensors are small: what a
//    scan pays per tensor shows there.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace ma::bench {

// Writes (or reuses) the checkpoint at `path`; returns its size in bytes and its tensor count.
uint64_t ensure_llama_1b_checkpoint(const std::filesystem::path& path, size_t& tensor_count);
uint64_t ensure_bert_base_checkpoint(const std::filesystem::path& path, size_t& tensor_count);

}  // namespace ma::bench
