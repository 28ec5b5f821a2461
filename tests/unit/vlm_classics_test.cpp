// GIT, IDEFICS and Kosmos-2 (model/families/git.cpp, idefics.cpp, kosmos2.cpp) on their Hub configs. The
// counts are those transformers' own classes give when instantiated from these configs (verify/ in the
// helper's folder compares every tensor's name, shape, order, tie and the total), cross-checked against the
// checkpoints' published sizes where known.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/git-base's config.json, its shape fields.
constexpr const char* kGitBase =
    R"({"model_type":"git","architectures":["GitForCausalLM"],"vocab_size":30522,"hidden_size":768,
    "num_hidden_layers":6,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":1024,
    "tie_word_embeddings":false,
    "vision_config":{"model_type":"git_vision_model","hidden_size":768,"intermediate_size":3072,
    "num_hidden_layers":12,"num_attention_heads":12,"image_size":224,"patch_size":16,"num_channels":3}})";

// HuggingFaceM4/idefics-9b's config.json (reconstructed), its shape fields.
constexpr const char* kIdefics9b =
    R"({"model_type":"idefics","architectures":["IdeficsForVisionText2Text"],"vocab_size":32000,
    "additional_vocab_size":2,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,
    "num_attention_heads":32,"cross_layer_interval":4,"qk_layer_norms":false,"alpha_type":"float",
    "alpha_initializer":"zeros","tie_word_embeddings":false,"use_resampler":true,
    "perceiver_config":{"resampler_depth":6,"resampler_head_dim":96,"resampler_n_heads":16,
    "resampler_n_latents":64,"qk_layer_norms_perceiver":false},
    "vision_config":{"embed_dim":1280,"image_size":224,"intermediate_size":5120,"num_attention_heads":16,
    "num_hidden_layers":32,"patch_size":14,"model_type":"idefics"}})";

// microsoft/kosmos-2-patch14-224's config.json, its shape fields.
constexpr const char* kKosmos2 =
    R"({"model_type":"kosmos-2","architectures":["Kosmos2ForConditionalGeneration"],"latent_query_num":64,
    "text_config":{"vocab_size":65037,"embed_dim":2048,"layers":24,"ffn_dim":8192,"attention_heads":32,
    "max_position_embeddings":2048},
    "vision_config":{"hidden_size":1024,"intermediate_size":4096,"num_hidden_layers":24,
    "num_attention_heads":16,"image_size":224,"patch_size":14}})";

// ---- GIT ----

// GitForCausalLM as transformers builds it: 176,619,066 parameters (4 bytes each: the 707 MB float32 file
// of microsoft/git-base); GitModel drops the 30,522 x 768 + 30,522 untied head.
TEST(VlmClassics, GitBaseCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGitBase), 176'619'066u);
  EXPECT_EQ(parameters_of(replaced(kGitBase, "GitForCausalLM", "GitModel")), 153'147'648u);
  const ModelTemplate t = template_of(kGitBase);
  ASSERT_NE(find_tensor(t, "output.bias"), nullptr);
  EXPECT_TRUE(find_tensor(t, "output.weight")->tied_to.empty());
  ASSERT_NE(find_tensor(t, "git.visual_projection.visual_projection.1.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 12u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
}

// The video checkpoints (git-base-vatex: 6 frames) add one [1, 1, 768] temporal embedding per frame.
TEST(VlmClassics, GitVideoAddsTemporalEmbeddings) {
  const std::string vatex = replaced(kGitBase, R"("tie_word_embeddings":false)",
                                     R"("tie_word_embeddings":false,"num_image_with_embedding":6)");
  EXPECT_EQ(parameters_of(vatex), 176'623'674u);
  EXPECT_NE(find_tensor(template_of(vatex), "git.img_temporal_embedding.5"), nullptr);
}

TEST(VlmClassics, GitTiesItsHeadWhenAsked) {
  const ModelTemplate t =
      template_of(replaced(kGitBase, R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)"));
  EXPECT_EQ(find_tensor(t, "output.weight")->tied_to, "git.embeddings.word_embeddings.weight");
}

// ---- IDEFICS ----

// IdeficsForVisionText2Text as transformers builds idefics-9b: 8,929,675,280 parameters (the Hub shows
// "9B"). The 2 additional token rows sit in their own table and head.
TEST(VlmClassics, Idefics9bCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kIdefics9b), 8'929'675'280u);
  EXPECT_EQ(parameters_of(replaced(kIdefics9b, "IdeficsForVisionText2Text", "IdeficsModel")), 8'798'595'088u);
  const ModelTemplate t = template_of(kIdefics9b);
  EXPECT_EQ(find_tensor(t, "model.embed_tokens.additional_embedding.weight")->shape, (Shape{2, 4096}));
  EXPECT_EQ(find_tensor(t, "lm_head.additional_fc.weight")->shape, (Shape{2, 4096}));
  // 32 layers, a gated cross-attention layer before every 4th: 8, reading the 1,280-wide ViT-H.
  EXPECT_NE(find_tensor(t, "model.gated_cross_attn_layers.7.alpha_dense"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.gated_cross_attn_layers.7.cross_attn.k_proj.weight")->shape,
            (Shape{4096, 1280}));
  EXPECT_EQ(find_tensor(t, "model.gated_cross_attn_layers.8.alpha_dense"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.perceiver_resampler.latents")->shape, (Shape{64, 1280}));
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 32u);
}

TEST(VlmClassics, IdeficsTiesBothHeadsWhenAsked) {
  const ModelTemplate t =
      template_of(replaced(kIdefics9b, R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)"));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.additional_fc.weight")->tied_to,
            "model.embed_tokens.additional_embedding.weight");
}

// ---- Kosmos-2 ----

// Kosmos2ForConditionalGeneration: 1,664,485,376 parameters, the paper's "1.6B" (and a 6.66 GB float32
// file); the head is tied to the token embeddings, so Kosmos2Model has the same count.
TEST(VlmClassics, Kosmos2CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kKosmos2), 1'664'485'376u);
  EXPECT_EQ(parameters_of(replaced(kKosmos2, "Kosmos2ForConditionalGeneration", "Kosmos2Model")),
            1'664'485'376u);
  const ModelTemplate t = template_of(kKosmos2);
  EXPECT_EQ(find_tensor(t, "text_model.lm_head.weight")->tied_to, "text_model.model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "image_to_text_projection.latent_query")->shape, (Shape{64, 2048}));
  EXPECT_EQ(find_tensor(t, "text_model.model.layers.0.ffn.ffn_layernorm.weight")->shape, (Shape{8192}));
}

// ---- hostile configs ----

TEST(VlmClassics, RefusesHostileConfigsNamingTheField) {
  EXPECT_EQ(
      refusal_of(replaced(kIdefics9b, R"("cross_layer_interval":4)", R"("cross_layer_interval":0)")).field,
      "cross_layer_interval");
  EXPECT_EQ(refusal_of(replaced(kIdefics9b, R"("alpha_type":"float")", R"("alpha_type":"matrix")")).field,
            "alpha_type");
  EXPECT_EQ(
      refusal_of(replaced(kIdefics9b, R"("num_attention_heads":32)", R"("num_attention_heads":3)")).field,
      "num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kIdefics9b, R"("resampler_depth":6)", R"("resampler_depth":-1)")).field,
            "perceiver_config.resampler_depth");
  EXPECT_EQ(refusal_of(replaced(kGitBase, R"("patch_size":16)", R"("patch_size":300)")).field,
            "vision_config.patch_size");
  EXPECT_EQ(refusal_of(replaced(kKosmos2, R"("attention_heads":32)", R"("attention_heads":3)")).field,
            "text_config.attention_heads");
  EXPECT_EQ(refusal_of(replaced(kKosmos2, R"("layers":24)", R"("layers":0)")).field, "text_config.layers");
  const Refusal r = refusal_of(replaced(kGitBase, "GitForCausalLM", "GitForMaskedLM"));
  EXPECT_EQ(r.kind, ErrorKind::Unsupported);
  EXPECT_EQ(r.field, "architectures");
}

}  // namespace
}  // namespace ma::test
