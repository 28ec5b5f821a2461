#include "gguf_skeleton.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "formats/gguf_writer.h"

namespace ma::bench {
namespace {

std::vector<GgufValueToWrite> llama_metadata(uint32_t layers, uint32_t hidden, uint32_t ffn, uint32_t heads,
                                             uint32_t kv_heads, uint32_t vocab, bool tokenizer) {
  std::vector<GgufValueToWrite> kv = {
      gguf_string("general.architecture", "llama"),
      gguf_string("general.name", "bench"),
      gguf_u32("general.file_type", 15),  // LLAMA_FTYPE_MOSTLY_Q4_K_M
      gguf_u32("llama.block_count", layers),
      gguf_u32("llama.context_length", 8192),
      gguf_u32("llama.embedding_length", hidden),
      gguf_u32("llama.feed_forward_length", ffn),
      gguf_u32("llama.attention.head_count", heads),
      gguf_u32("llama.attention.head_count_kv", kv_heads),
      gguf_f32("llama.rope.freq_base", 500000.0f),
      gguf_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f),
      gguf_u32("llama.rope.dimension_count", hidden / heads),
      gguf_u32("llama.vocab_size", vocab),
  };
  if (!tokenizer) return kv;
  std::vector<std::string> tokens(vocab), merges(280147);
  std::vector<int32_t> types(vocab, 1);
  for (uint32_t i = 0; i < vocab; ++i) tokens[i] = "tok" + std::to_string(i);
  for (size_t i = 0; i < merges.size(); ++i) merges[i] = "a" + std::to_string(i) + " b" + std::to_string(i);
  for (uint32_t i = vocab - 256; i < vocab; ++i) types[i] = 3;  // Llama-3's reserved control tokens
  kv.push_back(gguf_string("tokenizer.ggml.model", "gpt2"));
  kv.push_back(gguf_string_array("tokenizer.ggml.tokens", tokens));
  kv.push_back(gguf_i32_array("tokenizer.ggml.token_type", types));
  kv.push_back(gguf_string_array("tokenizer.ggml.merges", merges));
  kv.push_back(gguf_u32("tokenizer.ggml.bos_token_id", 128000));
  kv.push_back(gguf_u32("tokenizer.ggml.eos_token_id", 128009));
  kv.push_back(gguf_string("tokenizer.chat_template", std::string(1500, 'x')));
  return kv;
}

// Q4_K blocks that look like llama.cpp's output for trained weights: fp16 super-block scales d and dmin
// between 2^-10 and 2^-8, random 6-bit group scales and mins, and each group's codes those of 32 normally
// distributed weights spread over 0..15 from their minimum to their maximum, as a quantizer fitting the
// group gives them (the middle codes frequent, the ends held by one or two elements). Random, not a repeating
// pattern: a periodic one would let branch predictors and caches learn what real data never repeats.
void fill_q4_k(std::string& bytes) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state] {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto normal = [&next] {  // Box-Muller
    const double u = (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53;
    const double v = static_cast<double>(next() >> 11) * 0x1p-53;
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
  };
  auto scale = [](uint64_t r) { return static_cast<uint16_t>((5 + r % 3) << 10 | ((r >> 8) & 0x3ff)); };
  for (size_t at = 0; at + 144 <= bytes.size(); at += 144) {
    char* b = bytes.data() + at;
    const uint16_t d = scale(next()), dmin = scale(next());
    const uint64_t s0 = next(), s1 = next();
    b[0] = static_cast<char>(d & 0xff), b[1] = static_cast<char>(d >> 8);
    b[2] = static_cast<char>(dmin & 0xff), b[3] = static_cast<char>(dmin >> 8);
    for (int k = 0; k < 12; ++k)
      b[4 + k] = static_cast<char>((k < 8 ? s0 >> (8 * k) : s1 >> (8 * (k - 8))) & 0xff);
    // Groups 2c and 2c + 1 share 32 bytes: 2c in the low nibbles, 2c + 1 in the high ones.
    for (int g = 0; g < 8; ++g) {
      double x[32];
      for (double& v : x) v = normal();
      const auto [lo, hi] = std::minmax_element(x, x + 32);
      const double low = *lo, step = (*hi - *lo) / 15;
      for (int k = 0; k < 32; ++k) {
        const auto code = static_cast<uint8_t>(std::lround((x[k] - low) / step));
        uint8_t& byte = reinterpret_cast<uint8_t&>(b[16 + 32 * (g / 2) + k]);
        byte = g % 2 ? static_cast<uint8_t>((byte & 0x0f) | code << 4) : code;
      }
    }
  }
}

TensorToWrite tensor(std::string name, DType dtype, Shape shape, bool data) {
  TensorToWrite t{std::move(name), dtype, std::move(shape), {}};
  if (data) {
    t.data.resize(dtype_bytes(numel(t.shape), dtype));
    if (dtype == DType::Q4_K) {
      fill_q4_k(t.data);
    } else {
      // Bytes below 0x40: every float is finite.
      for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<char>((i * 37 + 11) & 0x3f);
    }
  }
  return t;
}

std::vector<TensorToWrite> llama_tensors(uint32_t layers, uint64_t hidden, uint64_t ffn, uint64_t kv_width,
                                         uint64_t vocab, bool q4_k_m, bool data) {
  std::vector<TensorToWrite> t;
  t.push_back(tensor("token_embd.weight", DType::Q4_K, {vocab, hidden}, data));
  for (uint32_t l = 0; l < layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const DType v = q4_k_m ? DType::Q6_K : DType::Q4_K;
    const DType down = q4_k_m && l % 2 == 0 ? DType::Q6_K : DType::Q4_K;
    t.push_back(tensor(p + "attn_norm.weight", DType::F32, {hidden}, data));
    t.push_back(tensor(p + "attn_q.weight", DType::Q4_K, {hidden, hidden}, data));
    t.push_back(tensor(p + "attn_k.weight", DType::Q4_K, {kv_width, hidden}, data));
    t.push_back(tensor(p + "attn_v.weight", v, {kv_width, hidden}, data));
    t.push_back(tensor(p + "attn_output.weight", DType::Q4_K, {hidden, hidden}, data));
    t.push_back(tensor(p + "ffn_norm.weight", DType::F32, {hidden}, data));
    t.push_back(tensor(p + "ffn_gate.weight", DType::Q4_K, {ffn, hidden}, data));
    t.push_back(tensor(p + "ffn_up.weight", DType::Q4_K, {ffn, hidden}, data));
    t.push_back(tensor(p + "ffn_down.weight", down, {hidden, ffn}, data));
  }
  t.push_back(tensor("output_norm.weight", DType::F32, {hidden}, data));
  t.push_back(tensor("output.weight", q4_k_m ? DType::Q6_K : DType::Q4_K, {vocab, hidden}, data));
  return t;
}

}  // namespace

void write_llama70b_q4_k_m(const std::filesystem::path& path) {
  write_gguf(path, llama_metadata(80, 8192, 28672, 64, 8, 128256, true),
             llama_tensors(80, 8192, 28672, 1024, 128256, true, false));
}

void write_q4_k_layers(const std::filesystem::path& path, unsigned layers) {
  write_gguf(path, llama_metadata(layers, 4096, 11008, 32, 32, 32000, false),
             llama_tensors(layers, 4096, 11008, 4096, 32000, false, true));
}

}  // namespace ma::bench
