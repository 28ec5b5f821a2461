// Gemma 3n's language model (model/families/gemma3n.cpp), counted on the sizes of google/gemma-3n-E2B and
// -E4B (transformers' convert_gemma3n_weights.py: E2B 30 layers of MLP width 8,192 with 10 KV-shared ones,
// E4B Gemma3nTextConfig's defaults) and compared with the sizes llama.cpp's conversions report.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string e2b(const std::string& widths = "8192") {
  return R"({"model_type":"gemma3n_text","num_hidden_layers":30,"num_kv_shared_layers":10,
      "intermediate_size":)" +
         widths + "}";
}

// Ollama lists gemma3n:e2b at 4.46B and e4b at 6.87B: llama.cpp's conversion of the Hub checkpoints, which
// store every layer's keys and values. transformers (5.6 on) builds none for the KV-shared layers and drops
// them on load: 10 x (2 x 512 x 2048 + 256) = 20,974,080 fewer in E2B, 15 x that in E4B.
TEST(Gemma3n, CountsAsTransformersBuildsItAndStoresAsTheCheckpoints) {
  const ModelTemplate small = template_of(e2b());
  const ParameterCounts c = counts_of(e2b());
  EXPECT_EQ(c.total, 4'435'182'688u);
  EXPECT_EQ((disk_totals(small).elements + 5'000'000) / 10'000'000, 446u);
  EXPECT_EQ(disk_totals(small).elements - c.total, 10u * (2 * 512 * 2048 + 256));
  const std::string large = R"({"model_type":"gemma3n_text"})";
  EXPECT_EQ(parameters_of(large), 6'835'235'568u);
  EXPECT_EQ((disk_totals(template_of(large)).elements + 5'000'000) / 10'000'000, 687u);
  // The per-layer embedding table: 262,144 rows of 30 layers x 256.
  EXPECT_EQ(find_tensor(small, "model.embed_tokens_per_layer.weight")->shape, Shape({262144, 7680}));
  EXPECT_EQ(find_tensor(small, "model.altup_projections.2.weight")->shape, Shape({2048, 2048}));
  EXPECT_EQ(find_tensor(small, "model.altup_projections.3.weight"), nullptr);
  EXPECT_EQ(find_tensor(small, "model.layers.0.altup.prediction_coefs.weight")->shape, Shape({16, 4}));
  EXPECT_EQ(find_tensor(small, "model.layers.0.altup.correct_output_scale")->shape, Shape({2048}));
  EXPECT_EQ(find_tensor(small, "model.layers.0.laurel.linear_left.weight")->shape, Shape({64, 2048}));
  EXPECT_EQ(find_tensor(small, "model.layers.19.self_attn.k_proj.weight")->kind, TensorKind::Parameter);
  EXPECT_EQ(find_tensor(small, "model.layers.20.self_attn.k_proj.weight")->kind, TensorKind::Extra);
  EXPECT_TRUE(small.arch.tie_word_embeddings);
}

// The KV-shared layers read an earlier layer's cache: only the first 20 of E2B's 30 layers add keys and
// values, and every fifth layer attends fully.
TEST(Gemma3n, SharedLayersAddNothingToTheCache) {
  const ModelTemplate t = template_of(e2b());
  const KvCachePlan kv = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 0);
  EXPECT_EQ(kv.per_token, 20u * 2 * 2 * 256 * 2);
  EXPECT_EQ(t.arch.layers()[4].attention.window, 0u);
  EXPECT_EQ(t.arch.layers()[0].attention.window, 512u);
  EXPECT_TRUE(t.arch.layers()[20].attention.shares_cache);
}

// MatFormer slices (E2B-to-E4B mixes) give each layer its own MLP width; a list of the wrong length or a
// zero width is refused.
TEST(Gemma3n, PerLayerMlpWidths) {
  std::string widths = "[";
  for (int i = 0; i < 30; ++i) widths += std::string(i ? "," : "") + (i < 15 ? "8192" : "16384");
  const ModelTemplate t = template_of(e2b(widths + "]"));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.up_proj.weight")->shape, Shape({8192, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.29.mlp.up_proj.weight")->shape, Shape({16384, 2048}));
  EXPECT_EQ(t.arch.layers()[29].ffn.intermediate, 16384u);
  EXPECT_THROW(template_of(e2b("[8192, 8192]")), Error);
  std::string zero = "[0";
  for (int i = 1; i < 30; ++i) zero += ",8192";
  EXPECT_THROW(template_of(e2b(zero + "]")), Error);
  EXPECT_THROW(template_of(R"({"model_type":"gemma3n_text","num_hidden_layers":4,"num_kv_shared_layers":4})"),
               Error);
}

}  // namespace
}  // namespace ma::test
