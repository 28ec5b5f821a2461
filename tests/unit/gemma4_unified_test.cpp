// Gemma 4 12B (gemma4_unified, model/families/multimodal.cpp): Gemma 4's text layers without per-layer
// embeddings or experts, and no vision or audio encoder, only embedders. The independent figures are its
// checkpoint's: google/gemma-4-12B's model.safetensors holds 677 bf16 tensors of 11,959,730,224 values (the
// Hub's safetensors total; total_size 23,919,460,448), the 48 layer_scalar buffers among them, lm_head tied.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory.h"
#include "core/error.h"
#include "report_test_support.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// google/gemma-4-12B's config.json, the fields that shape tensors.
constexpr const char* kGemma4_12b = R"({"model_type":"gemma4_unified",
    "architectures":["Gemma4UnifiedForConditionalGeneration"],"tie_word_embeddings":true,"dtype":"bfloat16",
    "audio_config":{"audio_embed_dim":640,"model_type":"gemma4_unified_audio"},
    "vision_config":{"mm_embed_dim":3840,"mm_posemb_size":1120,"model_type":"gemma4_unified_vision",
      "output_proj_dims":3840,"patch_size":16,"pooling_kernel_size":3},
    "text_config":{"model_type":"gemma4_unified_text","attention_bias":false,"attention_k_eq_v":true,
      "enable_moe_block":false,"global_head_dim":512,"head_dim":256,"hidden_size":3840,
      "hidden_size_per_layer_input":0,"intermediate_size":15360,"max_position_embeddings":262144,
      "num_attention_heads":16,"num_global_key_value_heads":1,"num_hidden_layers":48,"num_key_value_heads":8,
      "num_kv_shared_layers":0,"sliding_window":1024,"use_double_wide_mlp":false,"vocab_size":262144}})";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(Gemma4Unified, CountsAsItsCheckpointHoldsIt) {
  EXPECT_EQ(parameters_of(kGemma4_12b), 11'959'730'224u - 48);
  const ModelTemplate t = template_of(kGemma4_12b);
  EXPECT_EQ(t.arch.architecture, "Gemma4UnifiedForConditionalGeneration");
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 677u);
  EXPECT_EQ(disk.elements, 11'959'730'224u);
  // The vision embedder: 48 x 48 x 3 raw values a patch, LayerNorms with biases, a factorised position
  // table; its checkpoint names it vision_embedder and the projection embed_vision.embedding_projection.
  const TemplateTensor* dense = find_tensor(t, "model.embed_vision.patch_dense.weight");
  EXPECT_EQ(dense->shape, Shape({3840, 6912}));
  EXPECT_EQ(stored_name(*dense), "model.vision_embedder.patch_dense.weight");
  EXPECT_EQ(find_tensor(t, "model.embed_vision.pos_embedding")->shape, Shape({1120, 2, 3840}));
  EXPECT_EQ(
      stored_name(*find_tensor(t, "model.embed_vision.multimodal_embedder.embedding_projection.weight")),
      "model.embed_vision.embedding_projection.weight");
  EXPECT_EQ(find_tensor(t, "model.embed_audio.embedding_projection.weight")->shape, Shape({3840, 640}));
  // Global layers (every sixth) keep keys as values: one key head of 512, no v_proj.
  const std::string global = "model.language_model.layers.5.self_attn.";
  EXPECT_EQ(find_tensor(t, global + "k_proj.weight")->shape, Shape({512, 3840}));
  EXPECT_EQ(find_tensor(t, global + "v_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.v_proj.weight")->shape,
            Shape({2048, 3840}));
}

// Its language model alone (gemma4_unified_text, Gemma4UnifiedForCausalLM) is the checkpoint less the
// embedders, counted here from their shapes: the vision embedder's LayerNorms over 48 x 48 x 3 values and
// 3,840, its dense layer, position table and projection, and the audio projection from 640 samples.
TEST(Gemma4Unified, TextModelAloneIsTheCheckpointLessItsEmbedders) {
  const std::string text =
      std::string(kGemma4_12b)
          .substr(std::string(kGemma4_12b).find(R"({"model_type":"gemma4_unified_text")"));
  const uint64_t raw = 48 * 48 * 3, width = 3840;
  const uint64_t vision =
      2 * raw + (raw * width + width) + 2 * width + 1120 * 2 * width + 2 * width + width * width;
  const uint64_t audio = 640 * width;
  EXPECT_EQ(parameters_of(text.substr(0, text.size() - 1)), 11'959'730'224u - 48 - vision - audio);
  const ModelTemplate t = template_of(text.substr(0, text.size() - 1));
  EXPECT_EQ(t.arch.architecture, "Gemma4UnifiedForCausalLM");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "model.embed_tokens_per_layer.weight"), nullptr);
}

// Its config's per-layer-embedding and expert keys are leftovers: without them Gemma4TextConfig's defaults
// (256-wide per-layer inputs) would add 3.36B parameters a Gemma4 text model has and this one does not.
TEST(Gemma4Unified, HasNoPerLayerEmbeddingsWhateverItsConfigOmits) {
  const std::string bare = replaced(replaced(kGemma4_12b, R"("hidden_size_per_layer_input":0,)", ""),
                                    R"("enable_moe_block":false,)", "");
  EXPECT_EQ(parameters_of(bare), parameters_of(kGemma4_12b));
  EXPECT_EQ(find_tensor(template_of(bare), "model.language_model.embed_tokens_per_layer.weight"), nullptr);
}

// transformers now writes the global layers' shape per layer; the count is the same, and a shape given to
// a sliding layer, or two global shapes, is named rather than guessed.
TEST(Gemma4Unified, PerLayerConfigGivesTheGlobalLayersTheirShape) {
  const std::string globals = R"("per_layer_config":{"05":{"head_dim":512,"num_key_value_heads":1},
      "11":{"head_dim":512,"num_key_value_heads":1},"17":{"head_dim":512,"num_key_value_heads":1},
      "23":{"head_dim":512,"num_key_value_heads":1},"29":{"head_dim":512,"num_key_value_heads":1},
      "35":{"head_dim":512,"num_key_value_heads":1},"41":{"head_dim":512,"num_key_value_heads":1},
      "47":{"head_dim":512,"num_key_value_heads":1}},)";
  const std::string written = replaced(replaced(kGemma4_12b, R"("global_head_dim":512,)", globals),
                                       R"("num_global_key_value_heads":1,)", "");
  EXPECT_EQ(parameters_of(written), parameters_of(kGemma4_12b));
  EXPECT_THROW(template_of(replaced(written, R"("47":)", R"("46":)")), Error);  // a sliding layer
  EXPECT_THROW(template_of(replaced(written, R"("47":{"head_dim":512)", R"("47":{"head_dim":256)")), Error);
}

// 40 sliding layers of 8 key/value heads of 256 and 8 global ones of one head of 512, in bf16: 40 x 8,192 +
// 8 x 2,048 = 344,064 bytes a token (336 KiB).
TEST(Gemma4Unified, CachesBothKindsOfLayer) {
  TempDir dir;
  write_file(dir / "config.json", kGemma4_12b);
  auto l = load_model(dir.path(), false);
  EXPECT_EQ(memory_of(*l, ReportOptions{}).kv_cache_per_token_bytes, 344'064u);
}

}  // namespace
}  // namespace ma::test
