// Step-3.7-Flash (step3p7), Muse Glimmer (muse_glimmer, muse_glimmer_text): templates against what
// transformers builds. Totals were counted by instantiating the real classes of the transformers mirror's
// HEAD (decba1d2) on the meta device (/tmp/impl/vlm_2026/verify, compare_out.txt); the others come from
// published figures.
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// stepfun-ai/Step-3.7-Flash, reconstructed: its text_config is Step-3.5-Flash's (recent_decoders_test), its
// vision_config the open_clip fields vLLM's and MLX's ports read (width 1536, 47 layers, 16 heads, 728 / 14).
std::string step37_flash() {
  std::string types, moe;
  for (int i = 0; i < 48; ++i)
    types += std::string(i ? "," : "") + (i % 4 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  for (int i = 3; i < 45; ++i) moe += std::string(i > 3 ? "," : "") + std::to_string(i);
  return R"({"model_type":"step3p7","architectures":["Step3p7ForConditionalGeneration"],"image_token_id":128001,
    "projector_bias":false,"text_config":{"model_type":"step3p5","hidden_size":4096,"intermediate_size":11264,
    "num_hidden_layers":45,"vocab_size":128896,"num_attention_heads":64,"num_attention_groups":8,"head_dim":128,
    "attention_other_setting":{"num_attention_heads":96,"num_attention_groups":8,"head_dim":128},
    "sliding_window":512,"num_nextn_predict_layers":3,"moe_num_experts":288,"moe_top_k":8,
    "moe_intermediate_size":1280,"share_expert_dim":1280,"layer_types":[)" +
         types + R"(],"moe_layers_enum":")" + moe + R"("},
    "vision_config":{"model_type":"perception_encoder","width":1536,"layers":47,"heads":16,"image_size":728,
    "patch_size":14,"mlp_ratio":5.833333333333333,"ls_init_value":0.1,"use_ln_pre":true,"use_ln_post":false}})";
}

// 198,937,133,056 as Step3p7ForConditionalGeneration's modules add up; the model card says 198B (196B
// language backbone + a 1.8B vision encoder). Its GGUF files split the same way: Step-3.7-flash-BF16.gguf
// (the language model, 196,956,118,272 x 2 bytes) is 394 GB and mmproj-Step-3.7-flash-f16.gguf (the tower and
// projector, 1,981,014,784 x 2 bytes) 4 GB.
TEST(Vlm2026, Step37FlashAddsThePerceptionTowerToStep35) {
  const ModelTemplate t = template_of(step37_flash());
  uint64_t total = 0, vision = 0;
  for (const TemplateTensor& x : t.tensors) {
    if (x.kind != TensorKind::Parameter || !x.tied_to.empty()) continue;
    total += numel(x.shape);
    if (!x.name.starts_with("model.language_model.") && x.name != "lm_head.weight") vision += numel(x.shape);
  }
  EXPECT_EQ(total, 198937133056u);
  EXPECT_EQ(total - vision, 196956118272u);
  EXPECT_EQ(t.arch.architecture, "Step3p7ForConditionalGeneration");
  EXPECT_EQ(t.arch.hidden_size, 4096u);
  EXPECT_EQ(t.arch.num_layers, 45u);
  // Sliding layers have 96 query heads and a per-head output gate.
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.1.self_attn.g_proj.weight")->shape,
            (Shape{96, 4096}));
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.layers.3.mlp.shared_experts.up_proj.weight")),
            "model.layers.3.share_expert.up_proj.weight");
  // The tower: layer-scale vectors, q/k/v fused on disk, two downsamplers to 4 x 1536, one linear projector.
  const TemplateTensor* q = find_tensor(t, "model.vision_model.layers.46.self_attn.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(stored_name(*q), "vision_model.transformer.resblocks.46.attn.in_proj_weight");
  EXPECT_EQ(q->disk.front().shape, (Shape{3 * 1536, 1536}));
  EXPECT_TRUE(find_tensor(t, "model.vision_model.layers.46.self_attn.k_proj.weight")->fused_on_disk);
  EXPECT_EQ(stored_name(*find_tensor(t, "model.vision_model.layers.0.lambda_2")),
            "vision_model.transformer.resblocks.0.ls_2.gamma");
  EXPECT_EQ(find_tensor(t, "model.vision_model.layers.0.mlp.fc1.weight")->shape, (Shape{8960, 1536}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.embeddings.position_embedding.weight")->shape,
            (Shape{52 * 52, 1536}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.downsampler2.weight")->shape, (Shape{6144, 3072, 3, 3}));
  const TemplateTensor* proj = find_tensor(t, "model.multi_modal_projector.weight");
  EXPECT_EQ(proj->shape, (Shape{4096, 6144}));
  EXPECT_EQ(stored_name(*proj), "vit_large_projector.weight");
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.bias"), nullptr);
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  // The three MTP layers checkpoints carry after layer 44 are known extras.
  size_t mtp = 0;
  for (const ModelTemplate::KnownExtra& e : t.known_extras) mtp += e.prefix.starts_with("model.layers.4");
  EXPECT_EQ(mtp, 3u);
}

// Step3p7Config's defaults (text 128,815 tokens, every layer full attention, no vision fields):
// 197,824,847,872 with the head, 197,297,221,632 for Step3p7Model, as transformers' classes count them.
TEST(Vlm2026, Step37DefaultsAndBaseModel) {
  EXPECT_EQ(parameters_of(R"({"model_type":"step3p7"})"), 197824847872u);
  const ModelTemplate base = template_of(R"({"model_type":"step3p7","architectures":["Step3p7Model"]})");
  EXPECT_EQ(find_tensor(base, "lm_head.weight"), nullptr);
  EXPECT_NE(find_tensor(base, "language_model.embed_tokens.weight"), nullptr);
  EXPECT_EQ(stored_name(*find_tensor(base, "vision_model.pre_layernorm.weight")),
            "vision_model.ln_pre.weight");
  // A small tied config with a projector bias: the head is the embedding, stored once.
  const ModelTemplate tied = template_of(R"({"model_type":"step3p7","tie_word_embeddings":true,
      "projector_bias":true,"text_config":{"hidden_size":64,"intermediate_size":96,"num_hidden_layers":5,
      "vocab_size":100,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,
      "num_sliding_attention_heads":6,"sliding_window":8,"layer_types":["sliding_attention","full_attention",
      "sliding_attention","full_attention","sliding_attention"],"mlp_layer_types":["dense","sparse","dense",
      "sparse","sparse"],"n_routed_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":32,
      "share_expert_dim":48,"attention_bias":true,"mlp_bias":true},"vision_config":{"hidden_size":32,
      "num_hidden_layers":2,"num_attention_heads":4,"image_size":56,"patch_size":14,"mlp_ratio":2.5,
      "num_channels":1,"intermediate_size":999}})");
  EXPECT_EQ(find_tensor(tied, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(tied, "model.vision_model.layers.1.mlp.fc1.weight")->shape, (Shape{80, 32}));
  uint64_t total = 0;
  for (const TemplateTensor& x : tied.tensors)
    if (x.kind == TensorKind::Parameter && x.tied_to.empty()) total += numel(x.shape);
  EXPECT_EQ(total, 350464u);
}

TEST(Vlm2026, Step37RefusesHostileConfigs) {
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","architectures":["Step3p7ForCausalLM"]})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","vision_config":{"width":100,"heads":16}})").field,
            "vision_config.heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","vision_config":{"mlp_ratio":-1}})").field,
            "vision_config.mlp_ratio");
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","vision_config":{"mlp_ratio":1e300}})").field,
            "vision_config.mlp_ratio");
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","vision_config":{"image_size":10}})").field,
            "vision_config.patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","vision_config":{"layers":0}})").field,
            "vision_config.layers");
  EXPECT_EQ(refusal_of(R"({"model_type":"step3p7","text_config":{"num_hidden_layers":0}})").field,
            "text_config.num_hidden_layers");
}

// meta-models/Muse-Glimmer-30B ("30B"): every dimension of its config equals MuseGlimmerConfig's defaults;
// 29,776,626,688 parameters as transformers' classes count them (26,509,949,440 in MuseGlimmerTextModel).
TEST(Vlm2026, MuseGlimmerGatesEveryAttentionOutput) {
  const ModelTemplate t = template_of(R"({"model_type":"muse_glimmer",
      "architectures":["MuseGlimmerForConditionalGeneration"]})");
  uint64_t total = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.tied_to.empty()) total += numel(x.shape);
  EXPECT_EQ(total, 29776626688u);
  EXPECT_EQ(t.arch.hidden_size, 6656u);
  EXPECT_EQ(t.arch.num_layers, 52u);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.gate_proj.weight")->shape,
            (Shape{32 * 128, 6656}));
  EXPECT_NE(find_tensor(t, "model.language_model.layers.0.pre_feedforward_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.q_norm.weight"), nullptr);  // weight-less
  EXPECT_NE(find_tensor(t, "model.language_model.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.vision_tower.patch_embedder.patch_embedding.weight")->shape,
            (Shape{1536, 2 * 3 * 14 * 14}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.patch_embedder.position_embedding_table.weight")->shape,
            (Shape{1024, 1536}));
  EXPECT_EQ(find_tensor(t, "model.vision_adapter.fc1.weight")->shape, (Shape{4096, 6144}));
  EXPECT_EQ(find_tensor(t, "model.vision_projection.weight")->shape, (Shape{6656, 4096}));
  // Every fourth layer counted back from the last attends fully, the others over 2,048 tokens.
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.at(51).attention.window, 0u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.at(50).attention.window, 2048u);
  const ModelTemplate text = template_of(R"({"model_type":"muse_glimmer_text"})");
  uint64_t text_total = 0;
  for (const TemplateTensor& x : text.tensors) text_total += numel(x.shape);
  EXPECT_EQ(text_total, 26509949440u);
  EXPECT_EQ(find_tensor(text, "lm_head.weight"), nullptr);
  EXPECT_EQ(parameters_of(R"({"model_type":"muse_glimmer","architectures":["MuseGlimmerModel"]})"),
            28431795200u);
}

TEST(Vlm2026, MuseGlimmerRefusesHostileConfigs) {
  EXPECT_EQ(
      refusal_of(R"({"model_type":"muse_glimmer_text","architectures":["MuseGlimmerForCausalLM"]})").kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"muse_glimmer","text_config":{"hidden_size":100}})").field,
            "text_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"muse_glimmer","text_config":{"num_hidden_layers":2,
      "layer_types":["full_attention","chunked"]}})")
                .field,
            "text_config.layer_types");
  EXPECT_EQ(refusal_of(R"({"model_type":"muse_glimmer","vision_config":{"num_attention_heads":7}})").field,
            "vision_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"muse_glimmer","vision_config":{"patch_size":67108864}})").field,
            "vision_config.patch_size");
}

}  // namespace
}  // namespace ma::test
