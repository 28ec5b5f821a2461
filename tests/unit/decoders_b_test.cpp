// Doge (doge), Gemma 4's assistants (gemma4_assistant, gemma4_unified_assistant): templates against what
// transformers builds. Totals, names, shapes and order were compared with torch's own named_parameters() and
// state_dict() of a mirror of the transformers classes' module construction (DogeForCausalLM,
// Gemma4AssistantForCausalLM, Gemma4UnifiedAssistantForCausalLM at the stored versions listed in
// /tmp/impl/decoders_b/verify/mirror.py; compare_out.txt); published figures are named where used.
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// A small Doge: 8 layers of 256, two query heads over one kv head, tied embeddings.
const std::string kSmallDoge = R"({"model_type":"doge","architectures":["DogeForCausalLM"],"vocab_size":32768,
  "hidden_size":256,"intermediate_size":1536,"num_hidden_layers":8,"num_attention_heads":2,
  "num_key_value_heads":1,"tie_word_embeddings":true,"keep_window_size":2048,"max_position_embeddings":2048})";

// The cross-domain MoE: 1,000 experts (31 product keys a side), biases everywhere, head_dim given.
const std::string kDogeMoe =
    R"({"model_type":"doge","vocab_size":5000,"hidden_size":128,"intermediate_size":256,
  "num_hidden_layers":3,"num_attention_heads":4,"num_key_value_heads":2,"is_moe":true,"num_experts":1000,
  "num_experts_per_tok":16,"attention_bias":true,"mlp_bias":true,"head_dim":48,"sliding_window":256})";

TEST(DecodersB, DogeRegistersItsResidualScalesBeforeItsModules) {
  // 19,410,184: DogeForCausalLM's parameters for this config (mirror count).
  EXPECT_EQ(parameters_of(kSmallDoge), 19410184u);
  // DogeConfig's defaults (the Doge-320M sizes, lm_head untied): 403,055,872.
  EXPECT_EQ(parameters_of(R"({"model_type":"doge"})"), 403055872u);
  const ModelTemplate t = template_of(kSmallDoge);
  EXPECT_EQ(t.arch.architecture, "DogeForCausalLM");
  ASSERT_GE(t.tensors.size(), 6u);
  EXPECT_EQ(t.tensors[1].name, "model.layers.0.input_residual");
  EXPECT_EQ(t.tensors[2].name, "model.layers.0.post_attention_residual");
  EXPECT_EQ(t.tensors[3].name, "model.layers.0.input_layernorm.weight");
  EXPECT_EQ(t.tensors[4].name, "model.layers.0.self_attn.A");
  EXPECT_EQ(t.tensors[4].shape, (Shape{1}));
  EXPECT_EQ(t.tensors[5].name, "model.layers.0.self_attn.q_proj.weight");
  // dt_proj turns the values (kv heads x head_dim) into one mask logit per kv head.
  EXPECT_EQ(find_tensor(t, "model.layers.7.self_attn.dt_proj.weight")->shape, (Shape{1, 128}));
  EXPECT_EQ(find_tensor(t, "model.layers.7.self_attn.k_norm.weight")->shape, (Shape{128}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.embed_tokens.weight");
  EXPECT_EQ(t.arch.layers().size(), 8u);
}

TEST(DecodersB, DogeMoeAddsRankOneExpertsBesideTheDenseMlp) {
  // 2,593,900 (mirror count); the router has 2 x floor(sqrt(1000)) = 62 outputs.
  EXPECT_EQ(parameters_of(kDogeMoe), 2593900u);
  const ModelTemplate t = template_of(kDogeMoe);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.router_gate.weight")->shape, (Shape{62, 128}));
  const TemplateTensor* down = find_tensor(t, "model.layers.2.mlp.down_embed.weight");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->shape, (Shape{1000, 128}));
  EXPECT_TRUE(down->routed_expert);
  EXPECT_TRUE(find_tensor(t, "model.layers.2.mlp.up_embed.weight")->routed_expert);
  EXPECT_EQ(find_tensor(t, "model.layers.2.mlp.gate_proj.bias")->shape, (Shape{256}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_proj.weight")->shape, (Shape{192, 128}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.dt_proj.bias")->shape, (Shape{2}));
  EXPECT_EQ(t.arch.num_experts, 1000u);
  EXPECT_EQ(t.arch.experts_per_token, 16u);
  // A token runs 16 of the 1,000 rows of each bank: 768,000 routed, 12,288 of them active.
  EXPECT_EQ(counts_of(kDogeMoe).active, std::optional<uint64_t>(2593900u - 768000u + 12288u));
  // DogeConfig's MoE defaults: 16,384 experts of 1,024 in 32 layers.
  EXPECT_EQ(parameters_of(R"({"model_type":"doge","is_moe":true})"), 1485186304u);
}

// google/gemma-4-E2B-it-assistant's config.json as its drafter notes list it (text_config: 4 layers of 256,
// [sliding x 3, full], 4 query heads, every layer KV-shared; backbone 1,536; ordered embeddings).
const std::string kE2bAssistant = R"({"architectures":["Gemma4AssistantForCausalLM"],
  "model_type":"gemma4_assistant","backbone_hidden_size":1536,"num_centroids":2048,
  "centroid_intermediate_top_k":32,"use_ordered_embeddings":true,"tie_word_embeddings":true,
  "text_config":{"model_type":"gemma4_text","num_hidden_layers":4,"hidden_size":256,"intermediate_size":2048,
  "num_attention_heads":4,"num_key_value_heads":1,"num_global_key_value_heads":null,"head_dim":256,
  "global_head_dim":512,"attention_k_eq_v":false,"sliding_window":512,"max_position_embeddings":131072,
  "layer_types":["sliding_attention","sliding_attention","sliding_attention","full_attention"],
  "num_kv_shared_layers":4,"hidden_size_per_layer_input":0,"vocab_size_per_layer_input":0,
  "enable_moe_block":false,"use_double_wide_mlp":false,"vocab_size":262144}})";

TEST(DecodersB, Gemma4E2bAssistantReadsEveryKeyAndValueFromItsTarget) {
  // 77,731,328 parameters (mirror count). Its model card says 78M: the checkpoint also stores the 262,144
  // int64 token_ordering entries and four layer scalars, 77,993,476 values in 50 tensors.
  EXPECT_EQ(parameters_of(kE2bAssistant), 77731328u);
  const ModelTemplate t = template_of(kE2bAssistant);
  EXPECT_EQ(t.arch.architecture, "Gemma4AssistantForCausalLM");
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 50u);
  EXPECT_EQ(d.elements, 77993476u);
  for (int i = 0; i < 4; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".self_attn.";
    EXPECT_EQ(find_tensor(t, p + "k_proj.weight"), nullptr);
    EXPECT_EQ(find_tensor(t, p + "v_proj.weight"), nullptr);
    EXPECT_EQ(find_tensor(t, p + "k_norm.weight"), nullptr);
    EXPECT_TRUE(t.arch.layers()[static_cast<size_t>(i)].attention.shares_cache);
  }
  EXPECT_EQ(find_tensor(t, "model.layers.3.self_attn.q_proj.weight")->shape, (Shape{2048, 256}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "pre_projection.weight")->shape, (Shape{256, 3072}));
  EXPECT_EQ(find_tensor(t, "post_projection.weight")->shape, (Shape{1536, 256}));
  EXPECT_EQ(find_tensor(t, "masked_embedding.centroids.weight")->shape, (Shape{2048, 256}));
  const TemplateTensor* ordering = find_tensor(t, "masked_embedding.token_ordering");
  ASSERT_NE(ordering, nullptr);
  EXPECT_EQ(ordering->kind, TensorKind::Buffer);
  ASSERT_EQ(ordering->disk.size(), 1u);
  EXPECT_EQ(ordering->disk.front().dtype, std::optional<DType>(DType::I64));
  // state_dict order: the embedder's own buffer before its centroids, each layer's scalar before its modules.
  EXPECT_EQ(t.tensors[t.tensors.size() - 2].name, "masked_embedding.token_ordering");
  EXPECT_EQ(t.tensors[1].name, "model.layers.0.layer_scalar");
  // E4B's drafter differs only in its backbone (2,560): 78,517,760; its card's 78.8M counts token_ordering.
  EXPECT_EQ(parameters_of(
                replaced(kE2bAssistant, R"("backbone_hidden_size":1536)", R"("backbone_hidden_size":2560)")),
            78517760u);
}

TEST(DecodersB, Gemma4LargeAssistantsShareKeysAsValuesWithoutACentroidHead) {
  // gemma-4-31B-it-assistant (about 0.5B by its card): 1,024 wide, 32 heads, K = V on the full layer, dense
  // tied head. 469,518,592 (mirror count).
  const std::string big = R"({"model_type":"gemma4_assistant","backbone_hidden_size":5376,
    "use_ordered_embeddings":false,"text_config":{"model_type":"gemma4_text","num_hidden_layers":4,
    "hidden_size":1024,"intermediate_size":8192,"num_attention_heads":32,"num_key_value_heads":16,
    "num_global_key_value_heads":4,"head_dim":256,"global_head_dim":512,"attention_k_eq_v":true,
    "sliding_window":1024,"layer_types":["sliding_attention","sliding_attention","sliding_attention",
    "full_attention"],"num_kv_shared_layers":4,"hidden_size_per_layer_input":0,
    "vocab_size_per_layer_input":0}})";
  EXPECT_EQ(parameters_of(big), 469518592u);
  const ModelTemplate t = template_of(big);
  EXPECT_EQ(find_tensor(t, "masked_embedding.centroids.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "pre_projection.weight")->shape, (Shape{1024, 10752}));
  // 26B-A4B's (about 0.4B by its card): 16 heads, backbone 2,816: 419,711,232.
  EXPECT_EQ(parameters_of(
                replaced(replaced(big, R"("backbone_hidden_size":5376)", R"("backbone_hidden_size":2816)"),
                         R"("num_attention_heads":32)", R"("num_attention_heads":16)")),
            419711232u);
}

TEST(DecodersB, Gemma4UnifiedAssistantKeepsKeysBelowItsSharedLayers) {
  // Gemma4UnifiedAssistantConfig checks nothing: with num_kv_shared_layers 2 of 6, layers 0-3 keep k_proj
  // (no v_proj on the K = V full layer) and the two shared layers get double-wide MLPs. 8,780,992 (mirror).
  const std::string partial = R"({"model_type":"gemma4_unified_assistant","backbone_hidden_size":1024,
    "tie_word_embeddings":false,"text_config":{"num_hidden_layers":6,"hidden_size":256,"intermediate_size":1024,
    "num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,"global_head_dim":128,"vocab_size":1000,
    "num_kv_shared_layers":2,"attention_k_eq_v":true,"num_global_key_value_heads":1,
    "use_double_wide_mlp":true,"attention_bias":true}})";
  EXPECT_EQ(parameters_of(partial), 8780992u);
  const ModelTemplate t = template_of(partial);
  EXPECT_EQ(t.arch.architecture, "Gemma4UnifiedAssistantForCausalLM");
  EXPECT_EQ(t.arch.model_type, "gemma4_unified_text");
  EXPECT_NE(find_tensor(t, "model.layers.3.self_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.5.self_attn.v_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.4.self_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.4.mlp.gate_proj.weight")->shape, (Shape{2048, 256}));
  EXPECT_EQ(find_tensor(t, "model.layers.3.mlp.gate_proj.weight")->shape, (Shape{1024, 256}));
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  // No text_config: a default Gemma4UnifiedTextConfig (30 layers of 2,304), every layer shared:
  // 2,872,140,800.
  EXPECT_EQ(parameters_of(R"({"model_type":"gemma4_unified_assistant"})"), 2872140800u);
}

TEST(DecodersB, Gemma4LayerScalarLeadsItsLayerAsInStateDict) {
  // Gemma4TextDecoderLayer registers the layer_scalar buffer after its norms, but state_dict() saves a
  // module's own tensors before its submodules'.
  const ModelTemplate t = template_of(R"({"model_type":"gemma4_text","num_hidden_layers":2,"hidden_size":128,
    "intermediate_size":256,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":64,"global_head_dim":128,
    "vocab_size":500,"vocab_size_per_layer_input":500,"hidden_size_per_layer_input":16})");
  ASSERT_GE(t.tensors.size(), 3u);
  EXPECT_EQ(t.tensors[1].name, "model.layers.0.layer_scalar");
  EXPECT_EQ(t.tensors[2].name, "model.layers.0.self_attn.q_proj.weight");
}

TEST(DecodersB, RefusesConfigsTransformersRejects) {
  EXPECT_EQ(refusal_of(R"({"model_type":"gemma4_assistant"})").field, "text_config");
  // Gemma4TextConfig's default per-layer inputs (256) fail Gemma4AssistantConfig.validate_architecture.
  EXPECT_EQ(refusal_of(R"({"model_type":"gemma4_assistant","text_config":{"num_hidden_layers":4,
    "vocab_size_per_layer_input":0}})")
                .field,
            "text_config.hidden_size_per_layer_input");
  EXPECT_EQ(refusal_of(R"({"model_type":"gemma4_assistant","text_config":{"num_hidden_layers":4,
    "vocab_size_per_layer_input":0,"hidden_size_per_layer_input":0,"num_kv_shared_layers":2}})")
                .field,
            "text_config.num_kv_shared_layers");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"gemma4_unified_assistant","text_config":{"model_type":"llama"}})").kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(
      refusal_of(R"({"model_type":"doge","is_moe":true,"num_experts":4,"num_experts_per_tok":8})").field,
      "num_experts_per_tok");
}

}  // namespace
}  // namespace ma::test
