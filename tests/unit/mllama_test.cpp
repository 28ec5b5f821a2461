// Llama 3.2 Vision (model/families/mllama.cpp): the tiled tower, the projector and the language model's
// cross-attention layers, in memory and under the Hub checkpoints' names, and what cross-attention caches.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "analysis/architecture_details.h"
#include "analysis/memory_kv.h"
#include "analysis/perf/perf_model.h"
#include "analyzed_model.h"
#include "core/error.h"
#include "model/layer_shapes.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// meta-llama/Llama-3.2-11B-Vision's config.json: the fields a count depends on, as it states them.
constexpr const char* kLlama32Vision11b = R"({"model_type":"mllama",
    "text_config":{"vocab_size":128256,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":40,
      "num_attention_heads":32,"num_key_value_heads":8,"cross_attention_layers":[3,8,13,18,23,28,33,38]},
    "vision_config":{"hidden_size":1280,"num_hidden_layers":32,"num_global_layers":8,"attention_heads":16,
      "intermediate_size":5120,"image_size":560,"patch_size":14,"max_num_tiles":4,"vision_output_dim":7680,
      "supported_aspect_ratios":[[1,1],[1,2],[1,3],[1,4],[2,1],[2,2],[3,1],[4,1]]}})";

// The count its model cards give to the parameter (NVIDIA's card, the Hub's safetensors metadata):
// 10,670,220,835. By hand: the tower 863,567,379 (of which the tile-position table 9 x 4 x 1,601 x 1,280 is
// 73,774,080), the projector 31,461,376, the language model 9,249,855,504, the head 525,336,576.
TEST(Mllama, Llama32Vision11bCountsAsPublished) {
  const ParameterCounts c = counts_of(kLlama32Vision11b);
  EXPECT_EQ(c.total, 10'670'220'835u);
  EXPECT_EQ(c.towers, 863'567'379u + 31'461'376u);
}

TEST(Mllama, CrossAttentionLayersReplaceSelfAttention) {
  const ModelTemplate t = template_of(kLlama32Vision11b);
  const std::string lm = "model.language_model.";
  EXPECT_EQ(find_tensor(t, lm + "embed_tokens.weight")->shape, Shape({128264, 4096}));  // 8 image-token rows
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({128256, 4096}));
  EXPECT_EQ(find_tensor(t, lm + "layers.3.self_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, lm + "layers.3.cross_attn.k_proj.weight")->shape, Shape({1024, 4096}));
  EXPECT_EQ(find_tensor(t, lm + "layers.3.cross_attn.q_norm.weight")->shape, Shape({128}));
  EXPECT_EQ(find_tensor(t, lm + "layers.3.cross_attn_mlp_gate")->shape, Shape({1}));
  EXPECT_NE(find_tensor(t, lm + "layers.4.self_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(t.arch.layers()[3].mixer, Mixer::None);
  ASSERT_TRUE(t.arch.layers()[3].cross_attention);
  EXPECT_FALSE(t.arch.layers()[4].cross_attention);
  // The Hub's names are transformers 4's.
  EXPECT_EQ(stored_name(*find_tensor(t, lm + "layers.3.cross_attn.k_proj.weight")),
            "language_model.model.layers.3.cross_attn.k_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "lm_head.weight")), "language_model.lm_head.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.multi_modal_projector.weight")),
            "multi_modal_projector.weight");
  const TemplateTensor* tiles =
      find_tensor(t, "model.vision_model.gated_positional_embedding.tile_embedding.weight");
  ASSERT_NE(tiles, nullptr);
  EXPECT_EQ(tiles->shape, Shape({9, 4 * 1601 * 1280}));
  EXPECT_EQ(stored_name(*tiles), "vision_model.gated_positional_embedding.tile_embedding.weight");
  EXPECT_NE(find_tensor(t, "model.vision_model.global_transformer.layers.7.gate_ffn"), nullptr);
}

// Self-attention layers cache K/V per token; a cross-attention layer caches the image's features once: 8
// layers x 2 x 8 heads x 128 x 6,404 positions (4 tiles of 1,601) x 2 bytes.
TEST(Mllama, CrossAttentionCachesOneImagesFeatures) {
  const ModelTemplate t = template_of(kLlama32Vision11b);
  ArchitectureRecord a = t.arch;
  complete_layer_shapes(a);
  const KvCachePlan p = plan_kv_cache(a, DType::BF16, DType::BF16, 8192);
  EXPECT_EQ(p.per_token, 32u * 2 * 8 * 128 * 2);
  EXPECT_EQ(p.cross_per_sequence, 8u * 2 * 8 * 128 * 6404 * 2);
  // 8 of its 40 layers read the image: a decoder-only model beside a tower, not an encoder-decoder.
  EXPECT_EQ(describe_architecture(a, counts_of(kLlama32Vision11b), {}).architecture_type, "decoder-only");
}

// A decode step's cross-attention reads the image's cached K/V: its 8 K/V heads, not its 32 query heads.
TEST(Mllama, DecodeReadsTheCachedImageKeysAndValues) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << kLlama32Vision11b;
  ReportOptions o;
  o.kv_dtype = DType::BF16;
  const auto m = analyze_dir(dir.path(), o);
  PerfInputs in;
  in.batch = 1;
  in.kv_len = 256;
  Hardware hw;
  hw.name = "round";
  hw.peak_tflops[static_cast<int>(ComputeDType::BF16)] = 1000;
  hw.hbm_gbps = 1000;
  const PerfResult r = model_performance(m->inv, m->report, in, hw);
  int cross = 0;
  for (const OpCost& op : r.ops)
    if (op.name.ends_with(".cross_attention")) {
      ++cross;
      EXPECT_DOUBLE_EQ(op.bytes_kv, 6404.0 * 2 * 8 * 128 * 2) << op.name;
    }
  EXPECT_EQ(cross, 8);
}

TEST(Mllama, ConfigsTransformersCannotBuildAreRefused) {
  // embed_tokens and lm_head differ by 8 rows: they cannot be tied.
  EXPECT_THROW(template_of(R"({"model_type":"mllama","text_config":{"tie_word_embeddings":true}})"), Error);
  EXPECT_THROW(template_of(R"({"model_type":"mllama","text_config":{"num_hidden_layers":4,
      "cross_attention_layers":[4]}})"),
               Error);
  // The default aspect-ratio list is only valid for 4 tiles.
  EXPECT_THROW(template_of(R"({"model_type":"mllama","vision_config":{"max_num_tiles":2}})"), Error);
}

}  // namespace
}  // namespace ma::test
