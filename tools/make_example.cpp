// Writes the built-in example model: a tiny Llama-architecture checkpoint (config.json + model.safetensors,
// bf16, seeded random weights) produced by our own safetensors writer, so the README's first command runs a
// real analysis offline.
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/safetensors_writer.h"
#include "io/atomic_file.h"

namespace {

constexpr const char* kConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 64,
  "intermediate_size": 160,
  "num_hidden_layers": 2,
  "num_attention_heads": 4,
  "num_key_value_heads": 2,
  "vocab_size": 512,
  "max_position_embeddings": 256,
  "rms_norm_eps": 1e-06,
  "hidden_act": "silu",
  "rope_theta": 10000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16"
}
)";

// bf16 of a float: the top 16 bits (round to nearest even).
uint16_t to_bf16(float f) {
  uint32_t u;
  static_assert(sizeof u == sizeof f);
  __builtin_memcpy(&u, &f, sizeof u);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

ma::TensorToWrite random_tensor(const std::string& name, ma::Shape shape, std::mt19937& rng, float stddev,
                                float mean = 0) {
  std::normal_distribution<float> dist(mean, stddev);
  uint64_t n = ma::numel(shape);
  std::string data(n * 2, '\0');
  for (uint64_t i = 0; i < n; ++i) {
    uint16_t b = stddev == 0 ? to_bf16(mean) : to_bf16(dist(rng));
    data[2 * i] = static_cast<char>(b & 0xff);
    data[2 * i + 1] = static_cast<char>(b >> 8);
  }
  return {name, ma::DType::BF16, std::move(shape), std::move(data)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ma-make-example OUTPUT_DIR\n");
    return 2;
  }
  try {
    std::filesystem::path dir(argv[1]);
    std::filesystem::create_directories(dir);
    std::mt19937 rng(20261126);
    const uint64_t H = 64, I = 160, V = 512, KV = 32;
    std::vector<ma::TensorToWrite> t;
    t.push_back(random_tensor("model.embed_tokens.weight", {V, H}, rng, 0.02f));
    for (int l = 0; l < 2; ++l) {
      std::string p = "model.layers." + std::to_string(l) + ".";
      t.push_back(random_tensor(p + "self_attn.q_proj.weight", {H, H}, rng, 0.02f));
      t.push_back(random_tensor(p + "self_attn.k_proj.weight", {KV, H}, rng, 0.02f));
      t.push_back(random_tensor(p + "self_attn.v_proj.weight", {KV, H}, rng, 0.02f));
      t.push_back(random_tensor(p + "self_attn.o_proj.weight", {H, H}, rng, 0.02f));
      t.push_back(random_tensor(p + "mlp.gate_proj.weight", {I, H}, rng, 0.02f));
      t.push_back(random_tensor(p + "mlp.up_proj.weight", {I, H}, rng, 0.02f));
      t.push_back(random_tensor(p + "mlp.down_proj.weight", {H, I}, rng, 0.02f));
      t.push_back(random_tensor(p + "input_layernorm.weight", {H}, rng, 0, 1));
      t.push_back(random_tensor(p + "post_attention_layernorm.weight", {H}, rng, 0, 1));
    }
    t.push_back(random_tensor("model.norm.weight", {H}, rng, 0, 1));
    t.push_back(random_tensor("lm_head.weight", {V, H}, rng, 0.02f));
    ma::write_safetensors(dir / "model.safetensors", t, {{"format", "pt"}});
    ma::write_file_atomically(dir / "config.json", kConfig);
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "ma-make-example: %s\n", e.what());
    return e.exit_code();
  }
  return 0;
}
