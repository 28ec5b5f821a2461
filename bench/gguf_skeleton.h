// A Llama-3-70B-shaped GGUF for the benchmarks: llama.cpp's Q4_K_M type mix (Q4_K matrices, Q6_K for attn_v,
// half the ffn_down and the output, F32 norms), its 723 tensor infos and a full-size tokenizer in the header
// (128,256 tokens, 280,147 merges), written sparse: the ~40 GB of tensor data are holes.
#pragma once
#include <filesystem>

namespace ma::bench {

void write_llama70b_q4_k_m(const std::filesystem::path& path);

// A quantized GGUF with data in every block: `layers` Llama-2-7B-shaped layers of Q4_K matrices whose blocks
// look like llama.cpp's output for trained weights (each group's codes from normally distributed
// weights, finite scales; see gguf_skeleton.cpp).
void write_q4_k_layers(const std::filesystem::path& path, unsigned layers);

}  // namespace ma::bench
