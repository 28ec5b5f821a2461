#include "golden_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <vector>

#include "cli_test_support.h"
#include "formats/safetensors_writer.h"

namespace ma::test {

namespace fs = std::filesystem;

fs::path golden_dir() {
  return fs::path(MA_SOURCE_DIR) / "tests" / "golden";
}

bool updating_goldens() {
  return std::getenv("UPDATE_GOLDEN") != nullptr;
}

void expect_golden(const std::string& got, const fs::path& relative) {
  const fs::path golden = golden_dir() / relative;
  if (updating_goldens()) {
    fs::create_directories(golden.parent_path());
    write_file(golden, got);
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " missing: run with UPDATE_GOLDEN=1, then check it by hand";
  EXPECT_EQ(got, read_file(golden)) << "output differs from " << golden;
}

void expect_output_goldens(const fs::path& dir, const std::string& command,
                           const std::vector<GoldenOutput>& outputs, const fs::path& stem, bool normalize) {
  for (const GoldenOutput& o : outputs) {
    const CommandResult r = run_cli_in(dir, command + o.flags);
    ASSERT_EQ(r.exit_code, 0) << command << o.flags << ": " << r.err;
    ASSERT_NO_FATAL_FAILURE(
        expect_golden(normalize ? normalize_run(r.out) : r.out, stem.string() + "." + o.ext));
  }
}

std::string normalize_run(std::string s) {
  static const std::regex timestamp(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)");
  static const std::regex seconds(R"("seconds":[-+0-9.eE]+)");
  static const std::regex rate(R"("gb_per_s":([-+0-9.eE]+|null))");
  s = std::regex_replace(std::regex_replace(s, timestamp, "TIMESTAMP"), seconds, "\"seconds\":\"SECONDS\"");
  return std::regex_replace(s, rate, "\"gb_per_s\":\"GB_PER_S\"");
}

namespace {

// Weight-like values without randomness: (k - 50) / 64 * scale for k = (37 i + 11 seed) mod 101, i.e. 101
// levels in [-0.78, 0.78] x scale, spread evenly in a scrambled order; with a power-of-two scale every value
// has at most 8 significant bits, so BF16 holds it exactly.
std::vector<float> levels(size_t n, uint32_t seed, float scale, float times = 1, float plus = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const auto k = static_cast<int>((37 * i + 11 * seed) % 101);
    v[i] = static_cast<float>(k - 50) / 64.0f * scale * times + plus;
  }
  return v;
}

TensorToWrite f32_tensor(const std::string& name, Shape shape, const std::vector<float>& v) {
  std::string data(v.size() * 4, '\0');
  std::memcpy(data.data(), v.data(), data.size());
  return {name, DType::F32, std::move(shape), std::move(data)};
}

// BF16 by truncation: exact for the values above.
TensorToWrite bf16_tensor(const std::string& name, Shape shape, const std::vector<float>& v) {
  std::string data;
  for (float x : v) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    data.push_back(static_cast<char>((bits >> 16) & 0xff));
    data.push_back(static_cast<char>(bits >> 24));
  }
  return {name, DType::BF16, std::move(shape), std::move(data)};
}

std::vector<TensorToWrite> fixed_checkpoint(bool b) {
  const uint64_t H = 16, I = 24, V = 32;
  std::vector<TensorToWrite> t;
  t.push_back(bf16_tensor("model.embed_tokens.weight", {V, H}, levels(V * H, 1, 0.5f)));
  for (uint32_t l = 0; l < 5; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const float q_scale = l == 3 ? 2.0f : 0.25f;
    t.push_back(
        f32_tensor(p + "self_attn.q_proj.weight", {H, H},
                   b && l == 2 ? levels(H * H, 2 + l, q_scale, 1.5f, 0.25f) : levels(H * H, 2 + l, q_scale)));
    std::vector<float> up = levels(I * H, 7 + l, 0.25f, b && l == 1 ? 1.25f : 1.0f);
    for (size_t i = 0; i < up.size(); i += 9) up[i] = 0;
    if (l == 4) {
      up[5] = NAN;
      up[50] = INFINITY;
    }
    t.push_back(b && l == 0 ? f32_tensor(p + "mlp.up_proj.weight", {I, H}, up)
                            : bf16_tensor(p + "mlp.up_proj.weight", {I, H}, up));
    std::vector<float> norm(H);
    for (size_t i = 0; i < H; ++i) norm[i] = 1.0f + static_cast<float>(i % 4) / 8;
    t.push_back(bf16_tensor(p + "input_layernorm.weight", {H}, norm));
    if (b && l == 4) t.push_back(f32_tensor(p + "self_attn.q_proj.bias", {H}, levels(H, 3, 0.125f)));
  }
  t.push_back(bf16_tensor("model.norm.weight", {H}, std::vector<float>(H, 1.0f)));
  if (!b) t.push_back(bf16_tensor("lm_head.weight", {V, H}, levels(V * H, 5, 0.5f)));
  return t;
}

}  // namespace

void write_fixed_checkpoints(const fs::path& dir) {
  write_safetensors(dir / "fixed-a.safetensors", fixed_checkpoint(false));
  write_safetensors(dir / "fixed-b.safetensors", fixed_checkpoint(true));
}

fs::path fixed_checkpoints_in(const TempDir& tmp) {
  const fs::path dir = tmp / "fixed";
  fs::create_directories(dir);
  write_fixed_checkpoints(dir);
  return dir;
}

void write_moe_sliding_window_config(const fs::path& dir) {
  write_file(dir / "config.json", R"({
  "architectures": ["GptOssForCausalLM"],
  "model_type": "gpt_oss",
  "hidden_size": 64,
  "intermediate_size": 96,
  "head_dim": 16,
  "num_attention_heads": 4,
  "num_key_value_heads": 2,
  "num_hidden_layers": 4,
  "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
  "sliding_window": 32,
  "num_local_experts": 4,
  "num_experts_per_tok": 2,
  "experts_per_token": 2,
  "vocab_size": 256,
  "max_position_embeddings": 512,
  "rms_norm_eps": 1e-05,
  "rope_theta": 150000,
  "attention_bias": true,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16"
}
)");
}

}  // namespace ma::test
