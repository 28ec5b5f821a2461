// How `compare ORIGINAL QUANTIZED.gguf` pairs the tensors that share a place (a layer's norms, of one shape)
// and reads a GGUF's q/k projections: llama.cpp's names say which norm is which, so a conversion that swapped
// two norms shows their difference instead of the zero that pairing by likeness finds; the values pair a
// place only where the names cannot tell, and never through a tensor whose values cannot be read; a GGUF
// whose q/k rows are not in the order its architecture's converter writes is flagged, not quietly read in the
// order that fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "analysis/tensor_pairing.h"
#include "analysis/weight_compare.h"
#include "formats/gguf_writer.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

constexpr uint64_t kCptHidden = 32, kCptHeads = 4, kCptHeadDim = 8, kCptKvHeads = 2;

// A tensor as the pairing sees it: a name, a shape, and whether it is a GGUF file's.
PairedSide cpt_side(const std::string& name, Shape shape, bool gguf) {
  PairedSide s;
  s.name = s.tensor = name;
  s.shape = std::move(shape);
  s.numel = numel(s.shape);
  s.gguf = gguf;
  return s;
}

// The pairs as (A's name, B's name), sorted.
std::vector<std::pair<std::string, std::string>> cpt_named_pairs(const TensorPairs& tp,
                                                                 const std::vector<PairedSide>& a,
                                                                 const std::vector<PairedSide>& b) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto [i, j] : tp.pairs) out.emplace_back(a[i].name, b[j].name);
  std::sort(out.begin(), out.end());
  return out;
}

// Deterministic values in [-1.5, 1.5) in steps of 0.01, shifted by `offset`.
std::vector<float> cpt_values(uint64_t n, uint32_t seed, float offset = 0) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 7;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = offset + static_cast<float>(static_cast<int32_t>((x >> 8) % 300) - 150) / 100.0f;
  }
  return v;
}

std::string cpt_bytes(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// llama.cpp's converter stores original row h*hd + i*hd/2 + j of a q/k projection at h*hd + 2j + i.
std::vector<float> cpt_rotary_rows(const std::vector<float>& w, uint64_t rows, uint64_t cols) {
  std::vector<float> out(w.size());
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t h = r / kCptHeadDim, in = r % kCptHeadDim, half = kCptHeadDim / 2;
    std::memcpy(&out[(h * kCptHeadDim + 2 * (in % half) + in / half) * cols], &w[r * cols], cols * 4);
  }
  return out;
}

std::vector<GgufValueToWrite> cpt_gguf_metadata(const std::string& arch) {
  return {gguf_string("general.architecture", arch), gguf_u32(arch + ".embedding_length", kCptHidden),
          gguf_u32(arch + ".attention.head_count", kCptHeads),
          gguf_u32(arch + ".attention.head_count_kv", kCptKvHeads), gguf_u32(arch + ".block_count", 1)};
}

WeightComparison cpt_compare(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::vector<std::string> warnings;
  CompareOptions options;
  options.threads = 2;
  return compare_weights(locate_local_model(a.string()), locate_local_model(b.string()), options, warnings);
}

const TensorDrift* cpt_find(const WeightComparison& c, const std::string& name) {
  for (const TensorDrift& d : c.tensors)
    if (d.name == name) return &d;
  return nullptr;
}

double cpt_rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double aa = 0, dd = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    aa += static_cast<double>(a[i]) * a[i];
    dd += (static_cast<double>(b[i]) - a[i]) * (static_cast<double>(b[i]) - a[i]);
  }
  return std::sqrt(dd / aa);
}

// A Llama layer's two norms, listed in B in another order: input_layernorm is attn_norm and
// post_attention_layernorm ffn_norm, by name, whatever their values.
TEST(ComparePairing, LlamaNormsPairByTheirGgufNames) {
  const std::vector<PairedSide> a = {cpt_side("model.layers.0.input_layernorm.weight", {64}, false),
                                     cpt_side("model.layers.0.post_attention_layernorm.weight", {64}, false)};
  const std::vector<PairedSide> b = {cpt_side("blk.0.ffn_norm.weight", {64}, true),
                                     cpt_side("blk.0.attn_norm.weight", {64}, true)};
  const TensorPairs tp = pair_by_place(a, b);
  EXPECT_TRUE(tp.ambiguous.empty());
  EXPECT_EQ(tp.paired_by_names, 2u);
  EXPECT_EQ(cpt_named_pairs(tp, a, b),
            (std::vector<std::pair<std::string, std::string>>{
                {"model.layers.0.input_layernorm.weight", "blk.0.attn_norm.weight"},
                {"model.layers.0.post_attention_layernorm.weight", "blk.0.ffn_norm.weight"}}));
}

// Gemma 2's four norms: post_attention_layernorm could be ffn_norm (as in Llama) or post_attention_norm, but
// pre_feedforward_layernorm can only be ffn_norm, so one pairing fits the names.
TEST(ComparePairing, GemmaTwoFourNormsHaveOnePairingThatFitsTheNames) {
  std::vector<PairedSide> a, b;
  for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                        "post_feedforward_layernorm"})
    a.push_back(cpt_side(std::string("model.layers.3.") + n + ".weight", {64}, false));
  for (const char* n : {"post_ffw_norm", "ffn_norm", "post_attention_norm", "attn_norm"})
    b.push_back(cpt_side(std::string("blk.3.") + n + ".weight", {64}, true));
  const TensorPairs tp = pair_by_place(a, b);
  EXPECT_TRUE(tp.ambiguous.empty());
  EXPECT_EQ(cpt_named_pairs(tp, a, b),
            (std::vector<std::pair<std::string, std::string>>{
                {"model.layers.3.input_layernorm.weight", "blk.3.attn_norm.weight"},
                {"model.layers.3.post_attention_layernorm.weight", "blk.3.post_attention_norm.weight"},
                {"model.layers.3.post_feedforward_layernorm.weight", "blk.3.post_ffw_norm.weight"},
                {"model.layers.3.pre_feedforward_layernorm.weight", "blk.3.ffn_norm.weight"}}));
}

// The names leave it to the values where the table does not know one (BitNet's sub-norms), or where two
// pairings fit them (two modules both written as ffn_norm).
TEST(ComparePairing, NamesThatCannotTellLeaveThePlaceToTheValues) {
  const std::vector<PairedSide> a = {cpt_side("model.layers.0.input_layernorm.weight", {64}, false),
                                     cpt_side("model.layers.0.post_attention_layernorm.weight", {64}, false)};
  const std::vector<PairedSide> unknown = {cpt_side("blk.0.attn_sub_norm.weight", {64}, true),
                                           cpt_side("blk.0.ffn_sub_norm.weight", {64}, true)};
  TensorPairs tp = pair_by_place(a, unknown);
  EXPECT_EQ(tp.paired_by_names, 0u);
  ASSERT_EQ(tp.ambiguous.size(), 1u);
  EXPECT_EQ(tp.ambiguous[0].size(), 4u);

  const std::vector<PairedSide> twice = {cpt_side("model.layers.0.ln_2.weight", {64}, false),
                                         cpt_side("model.layers.0.norm_2.weight", {64}, false)};
  const std::vector<PairedSide> ffn = {cpt_side("blk.0.ffn_norm.weight", {64}, true),
                                       cpt_side("blk.0.ffn_norm.weight", {64}, true)};
  tp = pair_by_place(twice, ffn);
  EXPECT_EQ(tp.paired_by_names, 0u);
  EXPECT_EQ(tp.ambiguous.size(), 1u);
}

// BERT's norm after attention sits in the attention block by its Hugging Face name and among the norms by its
// GGUF one: the places leave both of a layer's LayerNorms unpaired, and the names pair them.
TEST(ComparePairing, TensorsThePlacesLeaveUnpairedPairByName) {
  const std::vector<PairedSide> a = {
      cpt_side("bert.encoder.layer.0.attention.output.LayerNorm.weight", {64}, false),
      cpt_side("bert.encoder.layer.0.output.LayerNorm.weight", {64}, false)};
  const std::vector<PairedSide> b = {cpt_side("blk.0.layer_output_norm.weight", {64}, true),
                                     cpt_side("blk.0.attn_output_norm.weight", {64}, true)};
  const TensorPairs tp = pair_by_place(a, b);
  EXPECT_TRUE(tp.only_a.empty());
  EXPECT_TRUE(tp.only_b.empty());
  EXPECT_EQ(tp.paired_by_names, 2u);
  EXPECT_EQ(cpt_named_pairs(tp, a, b),
            (std::vector<std::pair<std::string, std::string>>{
                {"bert.encoder.layer.0.attention.output.LayerNorm.weight", "blk.0.attn_output_norm.weight"},
                {"bert.encoder.layer.0.output.LayerNorm.weight", "blk.0.layer_output_norm.weight"}}));
}

TEST(ComparePairing, SameWeightByNameNeedsOneGgufSideAndTheSameLeaf) {
  const PairedSide hf = cpt_side("model.layers.0.input_layernorm.weight", {64}, false);
  EXPECT_TRUE(same_weight_by_name(hf, cpt_side("blk.0.attn_norm.weight", {64}, true)));
  EXPECT_TRUE(same_weight_by_name(cpt_side("blk.0.attn_norm.weight", {64}, true), hf));
  EXPECT_FALSE(same_weight_by_name(hf, cpt_side("blk.0.attn_norm.bias", {64}, true)));
  EXPECT_FALSE(same_weight_by_name(hf, cpt_side("blk.0.ffn_norm.weight", {64}, true)));
  EXPECT_FALSE(same_weight_by_name(hf, hf));
  // Whole components: "layernorm" is not the tail of "input_layernorm".
  EXPECT_TRUE(same_weight_by_name(cpt_side("transformer.h.2.ln_1.weight", {64}, false),
                                  cpt_side("blk.2.attn_norm.weight", {64}, true)));
  EXPECT_TRUE(same_weight_by_name(cpt_side("model.norm.weight", {64}, false),
                                  cpt_side("output_norm.weight", {64}, true)));
}

// A conversion that wrote a layer's two norms under each other's names: paired by likeness, each found its
// own values under the other's name and read as a perfect copy; paired by name, the values show the swap.
TEST(ComparePairing, SwappedNormsInAGgufShowTheirDifference) {
  test::TempDir tmp;
  const std::vector<float> input = cpt_values(kCptHidden, 1, 1.0f), post = cpt_values(kCptHidden, 2, 1.0f);
  write_safetensors(
      tmp / "model.safetensors",
      {{"model.layers.0.input_layernorm.weight", DType::F32, {kCptHidden}, cpt_bytes(input)},
       {"model.layers.0.post_attention_layernorm.weight", DType::F32, {kCptHidden}, cpt_bytes(post)}});
  write_gguf(tmp / "swapped.gguf", cpt_gguf_metadata("llama"),
             {{"blk.0.attn_norm.weight", DType::F32, {kCptHidden}, cpt_bytes(post)},
              {"blk.0.ffn_norm.weight", DType::F32, {kCptHidden}, cpt_bytes(input)}});
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "swapped.gguf");
  EXPECT_EQ(c.paired_by_names, 2u);
  EXPECT_EQ(c.paired_by_values, 0u);
  const TensorDrift* in = cpt_find(c, "model.layers.0.input_layernorm.weight");
  const TensorDrift* pa = cpt_find(c, "model.layers.0.post_attention_layernorm.weight");
  ASSERT_TRUE(in && pa);
  EXPECT_EQ(in->name_b, "blk.0.attn_norm.weight");
  EXPECT_EQ(pa->name_b, "blk.0.ffn_norm.weight");
  EXPECT_NEAR(in->rel_l2, cpt_rel_l2(input, post), 1e-12);
  EXPECT_NEAR(pa->rel_l2, cpt_rel_l2(post, input), 1e-12);
  EXPECT_GT(in->max_abs_diff, 0.0);
}

struct CptQk {
  std::vector<float> q, k;
};

// An original with q and k, and a GGUF of architecture `arch` holding them with `rotary` rows or as stored.
CptQk cpt_write_qk(const test::TempDir& tmp, const std::string& arch, bool rotary, const std::string& file) {
  CptQk w{cpt_values(kCptHeads * kCptHeadDim * kCptHidden, 11),
          cpt_values(kCptKvHeads * kCptHeadDim * kCptHidden, 12)};
  const Shape qs{kCptHeads * kCptHeadDim, kCptHidden}, ks{kCptKvHeads * kCptHeadDim, kCptHidden};
  write_safetensors(tmp / "model.safetensors",
                    {{"model.layers.0.self_attn.q_proj.weight", DType::F32, qs, cpt_bytes(w.q)},
                     {"model.layers.0.self_attn.k_proj.weight", DType::F32, ks, cpt_bytes(w.k)}});
  write_gguf(
      tmp / file, cpt_gguf_metadata(arch),
      {{"blk.0.attn_q.weight", DType::F32, qs, cpt_bytes(rotary ? cpt_rotary_rows(w.q, qs[0], qs[1]) : w.q)},
       {"blk.0.attn_k.weight", DType::F32, ks,
        cpt_bytes(rotary ? cpt_rotary_rows(w.k, ks[0], ks[1]) : w.k)}});
  return w;
}

// A llama GGUF holds q/k in llama.cpp's rotary order: read in that order they match.
TEST(ComparePairing, LlamaQkInTheRotaryOrderMatch) {
  test::TempDir tmp;
  cpt_write_qk(tmp, "llama", true, "ok.gguf");
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "ok.gguf");
  ASSERT_EQ(c.tensors.size(), 2u);
  EXPECT_EQ(c.rotary_reordered, 2u);
  EXPECT_EQ(c.rotary_order_mismatch, 0u);
  for (const TensorDrift& d : c.tensors) {
    SCOPED_TRACE(d.name);
    EXPECT_EQ(d.rotary_order, "rotary");
    EXPECT_EQ(d.rel_l2, 0.0);
    EXPECT_GT(d.rel_l2_other_order, 1.0);
    EXPECT_FALSE(d.rotary_order_mismatch);
    EXPECT_FALSE(d.flagged);
  }
}

// A llama GGUF whose converter forgot to permute q/k: read in the order llama.cpp expects, they are wrong
// (and flagged as such), though as stored they equal the original.
TEST(ComparePairing, LlamaQkNotPermutedAreFlaggedNotReadAsStored) {
  test::TempDir tmp;
  const CptQk w = cpt_write_qk(tmp, "llama", false, "broken.gguf");
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "broken.gguf");
  ASSERT_EQ(c.tensors.size(), 2u);
  EXPECT_EQ(c.rotary_order_mismatch, 2u);
  EXPECT_EQ(c.rotary_reordered, 2u);
  const TensorDrift* q = cpt_find(c, "model.layers.0.self_attn.q_proj.weight");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->rotary_order, "rotary");
  EXPECT_TRUE(q->rotary_order_mismatch);
  EXPECT_EQ(q->rel_l2_other_order, 0.0);
  EXPECT_NEAR(q->rel_l2, cpt_rel_l2(w.q, cpt_rotary_rows(w.q, kCptHeads * kCptHeadDim, kCptHidden)), 1e-12);
  EXPECT_TRUE(q->flagged);
  EXPECT_TRUE(q->flagged_by & kRotaryOrderRule);
  EXPECT_STREQ(drift_rule_name(kRotaryOrderRule), "rotary_order");
}

// A Qwen 2 GGUF holds q/k as transformers does: read as stored; rows permuted the llama way are flagged.
TEST(ComparePairing, QwenQkAreExpectedAsStored) {
  {
    test::TempDir tmp;
    cpt_write_qk(tmp, "qwen2", false, "ok.gguf");
    const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "ok.gguf");
    EXPECT_EQ(c.rotary_reordered, 0u);
    EXPECT_EQ(c.rotary_order_mismatch, 0u);
    for (const TensorDrift& d : c.tensors) {
      EXPECT_EQ(d.rotary_order, "stored");
      EXPECT_EQ(d.rel_l2, 0.0);
    }
  }
  test::TempDir tmp;
  cpt_write_qk(tmp, "qwen2", true, "permuted.gguf");
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "permuted.gguf");
  EXPECT_EQ(c.rotary_order_mismatch, 2u);
  for (const TensorDrift& d : c.tensors) {
    EXPECT_EQ(d.rotary_order, "stored");
    EXPECT_TRUE(d.rotary_order_mismatch);
    EXPECT_EQ(d.rel_l2_other_order, 0.0);
  }
}

// Unrelated q/k (another model's) fit neither order: large errors, no rotary flag.
TEST(ComparePairing, UnrelatedQkAreNotARotaryMismatch) {
  test::TempDir tmp;
  cpt_write_qk(tmp, "llama", true, "ok.gguf");
  const Shape qs{kCptHeads * kCptHeadDim, kCptHidden}, ks{kCptKvHeads * kCptHeadDim, kCptHidden};
  write_gguf(tmp / "other.gguf", cpt_gguf_metadata("llama"),
             {{"blk.0.attn_q.weight", DType::F32, qs, cpt_bytes(cpt_values(numel(qs), 91))},
              {"blk.0.attn_k.weight", DType::F32, ks, cpt_bytes(cpt_values(numel(ks), 92))}});
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "other.gguf");
  EXPECT_EQ(c.rotary_order_mismatch, 0u);
  for (const TensorDrift& d : c.tensors) {
    EXPECT_GT(d.rel_l2, 1.0);
    EXPECT_FALSE(d.flagged_by & kRotaryOrderRule);
  }
}

// A place the names cannot settle (B's sub-norms are unknown to the table), where one of A's norms has no
// element values (complex64): it is neither compared nor used to pair the other, which pairs with its own
// values' counterpart; the B norm left over is listed as not compared too, and every tensor is accounted for.
TEST(ComparePairing, AnUnreadableTensorIsNotValuePaired) {
  test::TempDir tmp;
  const std::vector<float> input = cpt_values(kCptHidden, 1, 1.0f), post = cpt_values(kCptHidden, 2, 1.0f);
  write_safetensors(
      tmp / "model.safetensors",
      {{"model.layers.0.input_layernorm.weight",
        DType::C64,
        {kCptHidden},
        cpt_bytes(cpt_values(2 * kCptHidden, 3, 500.0f))},
       {"model.layers.0.post_attention_layernorm.weight", DType::F32, {kCptHidden}, cpt_bytes(post)}});
  write_gguf(tmp / "model.gguf", cpt_gguf_metadata("llama"),
             {{"blk.0.ffn_sub_norm.weight", DType::F32, {kCptHidden}, cpt_bytes(post)},
              {"blk.0.attn_sub_norm.weight", DType::F32, {kCptHidden}, cpt_bytes(input)}});
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "model.gguf");
  ASSERT_EQ(c.tensors.size(), 1u);
  EXPECT_EQ(c.tensors[0].name, "model.layers.0.post_attention_layernorm.weight");
  EXPECT_EQ(c.tensors[0].name_b, "blk.0.ffn_sub_norm.weight");
  EXPECT_EQ(c.tensors[0].rel_l2, 0.0);
  EXPECT_EQ(c.paired_by_values, 1u);
  ASSERT_EQ(c.not_compared.size(), 2u);
  std::map<std::string, const NotCompared*> by_name;
  for (const NotCompared& n : c.not_compared) by_name[n.in_a ? n.name : n.name_b] = &n;
  ASSERT_TRUE(by_name.count("model.layers.0.input_layernorm.weight"));
  const NotCompared& unreadable = *by_name["model.layers.0.input_layernorm.weight"];
  EXPECT_TRUE(unreadable.in_a);
  EXPECT_FALSE(unreadable.in_b);
  EXPECT_TRUE(test::contains(unreadable.reason, "no defined scalar values")) << unreadable.reason;
  EXPECT_TRUE(test::contains(unreadable.reason, "(in A)")) << unreadable.reason;
  ASSERT_TRUE(by_name.count("blk.0.attn_sub_norm.weight"));
  EXPECT_FALSE(by_name["blk.0.attn_sub_norm.weight"]->in_a);
  EXPECT_TRUE(by_name["blk.0.attn_sub_norm.weight"]->in_b);
  // A: 1 compared + 1 not compared; B: 1 compared + 1 not compared.
  size_t in_a = 0, in_b = 0;
  for (const NotCompared& n : c.not_compared) {
    in_a += n.in_a;
    in_b += n.in_b;
  }
  EXPECT_EQ(c.tensors.size() + in_a + c.missing_in_b.size() + c.shape_mismatch.size(), 2u);
  EXPECT_EQ(c.tensors.size() + in_b + c.extra_in_b.size() + c.shape_mismatch.size(), 2u);
}

// Every tensor of A at such a place unreadable: nothing there is compared, and B's are listed as left
// without a counterpart.
TEST(ComparePairing, APlaceWithNoReadableTensorOfAComparesNothing) {
  test::TempDir tmp;
  const std::string c64 = cpt_bytes(cpt_values(2 * kCptHidden, 3));
  write_safetensors(tmp / "model.safetensors",
                    {{"model.layers.0.input_layernorm.weight", DType::C64, {kCptHidden}, c64},
                     {"model.layers.0.post_attention_layernorm.weight", DType::C64, {kCptHidden}, c64}});
  write_gguf(
      tmp / "model.gguf", cpt_gguf_metadata("llama"),
      {{"blk.0.ffn_sub_norm.weight", DType::F32, {kCptHidden}, cpt_bytes(cpt_values(kCptHidden, 4))},
       {"blk.0.attn_sub_norm.weight", DType::F32, {kCptHidden}, cpt_bytes(cpt_values(kCptHidden, 5))}});
  const WeightComparison c = cpt_compare(tmp / "model.safetensors", tmp / "model.gguf");
  EXPECT_TRUE(c.tensors.empty());
  EXPECT_EQ(c.paired_by_values, 0u);
  ASSERT_EQ(c.not_compared.size(), 4u);
  size_t in_a = 0, in_b = 0;
  for (const NotCompared& n : c.not_compared) {
    in_a += n.in_a;
    in_b += n.in_b;
  }
  EXPECT_EQ(in_a, 2u);
  EXPECT_EQ(in_b, 2u);
}

}  // namespace
}  // namespace ma
