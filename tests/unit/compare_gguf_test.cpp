// `compare ORIGINAL.safetensors QUANTIZED.gguf`: an original written with Hugging Face names and a GGUF
// written from the same values the way llama.cpp's converter writes them (its names, q/k rows in its rotary
// order, a layer's two norms of one shape) must pair tensor for tensor and show exactly the error the
// quantization left: none for the F32 tensors, and for a Q8_0 tensor (scale 1, codes = rounded values) the
// rounding error computed here by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "analysis/weight_compare.h"
#include "formats/gguf_writer.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

constexpr uint64_t kHidden = 32, kHeads = 4, kHeadDim = 8, kKvHeads = 2, kFfn = 64, kVocab = 32;

std::vector<float> values(uint64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int32_t>(x >> 8) % 600) / 100.0f;  // [-6, 6) in steps of 0.01
  }
  return v;
}

std::string bytes_of(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// llama.cpp's converter stores original row h*hd + i*hd/2 + j of a q/k projection at h*hd + 2j + i.
std::vector<float> rotary_order(const std::vector<float>& w, uint64_t rows, uint64_t cols) {
  std::vector<float> out(w.size());
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t h = r / kHeadDim, in = r % kHeadDim, half = kHeadDim / 2;
    const uint64_t stored = h * kHeadDim + 2 * (in % half) + in / half;
    std::memcpy(&out[stored * cols], &w[r * cols], cols * 4);
  }
  return out;
}

// Q8_0 with every block's scale 1.0 (f16 0x3c00): the codes are the values rounded to integers.
std::string q8_0_of(const std::vector<float>& w, double& diff2) {
  std::string out;
  for (size_t b = 0; b < w.size(); b += 32) {
    out += std::string("\x00\x3c", 2);
    for (size_t i = b; i < b + 32; ++i) {
      const float q = std::nearbyint(w[i]);
      out += static_cast<char>(static_cast<int8_t>(q));
      diff2 += (static_cast<double>(q) - w[i]) * (static_cast<double>(q) - w[i]);
    }
  }
  return out;
}

TEST(CompareGguf, OriginalAndItsGgufPairByPlaceWithTheQuantizationError) {
  test::TempDir tmp;
  struct Weight {
    std::string hf, gguf;
    Shape shape;
  };
  const std::vector<Weight> weights = {
      {"model.embed_tokens.weight", "token_embd.weight", {kVocab, kHidden}},
      {"model.layers.0.input_layernorm.weight", "blk.0.attn_norm.weight", {kHidden}},
      {"model.layers.0.self_attn.q_proj.weight", "blk.0.attn_q.weight", {kHeads * kHeadDim, kHidden}},
      {"model.layers.0.self_attn.k_proj.weight", "blk.0.attn_k.weight", {kKvHeads * kHeadDim, kHidden}},
      {"model.layers.0.self_attn.v_proj.weight", "blk.0.attn_v.weight", {kKvHeads * kHeadDim, kHidden}},
      {"model.layers.0.self_attn.o_proj.weight", "blk.0.attn_output.weight", {kHidden, kHidden}},
      {"model.layers.0.post_attention_layernorm.weight", "blk.0.ffn_norm.weight", {kHidden}},
      {"model.layers.0.mlp.gate_proj.weight", "blk.0.ffn_gate.weight", {kFfn, kHidden}},
      {"model.layers.0.mlp.up_proj.weight", "blk.0.ffn_up.weight", {kFfn, kHidden}},
      {"model.layers.0.mlp.down_proj.weight", "blk.0.ffn_down.weight", {kHidden, kFfn}},
      {"model.norm.weight", "output_norm.weight", {kHidden}},
      {"lm_head.weight", "output.weight", {kVocab, kHidden}},
  };
  std::vector<TensorToWrite> hf, gguf;
  double up_a2 = 0, up_diff2 = 0;
  uint32_t seed = 1;
  for (const Weight& w : weights) {
    const std::vector<float> v = values(numel(w.shape), seed++);
    hf.push_back({w.hf, DType::F32, w.shape, bytes_of(v)});
    if (w.gguf == "blk.0.ffn_up.weight") {
      for (float x : v) up_a2 += static_cast<double>(x) * x;
      gguf.push_back({w.gguf, DType::Q8_0, w.shape, q8_0_of(v, up_diff2)});
    } else if (w.gguf == "blk.0.attn_q.weight" || w.gguf == "blk.0.attn_k.weight") {
      gguf.push_back({w.gguf, DType::F32, w.shape, bytes_of(rotary_order(v, w.shape[0], w.shape[1]))});
    } else {
      gguf.push_back({w.gguf, DType::F32, w.shape, bytes_of(v)});
    }
  }
  write_safetensors(tmp / "model.safetensors", hf);
  write_gguf(tmp / "model.gguf",
             {gguf_string("general.architecture", "llama"), gguf_u32("llama.embedding_length", kHidden),
              gguf_u32("llama.attention.head_count", kHeads),
              gguf_u32("llama.attention.head_count_kv", kKvHeads), gguf_u32("llama.block_count", 1)},
             gguf);

  std::vector<std::string> warnings;
  CompareOptions options;
  options.threads = 2;
  const WeightComparison c =
      compare_weights(locate_local_model((tmp / "model.safetensors").string()),
                      locate_local_model((tmp / "model.gguf").string()), options, warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(c.paired_by, "place");
  EXPECT_TRUE(c.missing_in_b.empty()) << c.missing_in_b.front();
  EXPECT_TRUE(c.extra_in_b.empty()) << c.extra_in_b.front();
  ASSERT_EQ(c.tensors.size(), weights.size());
  EXPECT_EQ(c.rotary_reordered, 2u);  // q and k
  EXPECT_EQ(c.paired_by_names, 2u);   // the layer's two norms: llama.cpp's attn_norm and ffn_norm say which
  EXPECT_EQ(c.paired_by_values, 0u);
  std::map<std::string, const TensorDrift*> by_name;
  for (const TensorDrift& d : c.tensors) by_name[d.name] = &d;
  for (const Weight& w : weights) {
    SCOPED_TRACE(w.hf);
    ASSERT_TRUE(by_name.count(w.hf));
    EXPECT_EQ(by_name[w.hf]->name_b, w.gguf);
    if (w.gguf != "blk.0.ffn_up.weight") {
      EXPECT_EQ(by_name[w.hf]->rel_l2, 0.0);
    }
  }
  EXPECT_NEAR(by_name["model.layers.0.mlp.up_proj.weight"]->rel_l2, std::sqrt(up_diff2 / up_a2), 1e-12);
  ASSERT_EQ(c.by_dtype_b.size(), 2u);
  const DTypeDrift& q8 = c.by_dtype_b[0].dtype == DType::Q8_0 ? c.by_dtype_b[0] : c.by_dtype_b[1];
  EXPECT_EQ(q8.dtype, DType::Q8_0);
  EXPECT_EQ(q8.tensors, 1u);
  EXPECT_EQ(q8.numel, kFfn * kHidden);
  EXPECT_NEAR(q8.snr_db, 10 * std::log10(up_a2 / up_diff2), 1e-9);
}

}  // namespace
}  // namespace ma
