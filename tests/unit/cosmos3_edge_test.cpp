// Cosmos3-Edge (cosmos3_edge, cosmos3_edge_text, cosmos3_edge_vision; model/families/cosmos3_edge.cpp):
// templates against what transformers builds. Totals were counted from the module constructors of
// transformers' modeling_cosmos3_edge.py re-typed in torch on the meta device, and by hand (the state_dict
// keys, shapes and order matched: /tmp/impl/vlm_2026_b/verify, cosmos3_edge_torch.py).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// nvidia/Cosmos3-Edge's reasoner config.json, the fields that shape tensors: its sizes are
// Cosmos3EdgeTextConfig's and Cosmos3EdgeVisionConfig's defaults. Its projector_config
// (merger_intermediate_size 11520) is a key transformers no longer reads: the merger's width is
// projector_hidden_size, 11520 by default.
std::string cosmos3_edge() {
  return R"({"architectures":["Cosmos3EdgeForConditionalGeneration"],"model_type":"cosmos3_edge",
    "image_token_id":19,"video_token_id":18,"vision_start_token_id":20,"vision_end_token_id":21,
    "projector_config":{"input_hidden_size":1152,"merger_intermediate_size":11520,"out_hidden_size":2048,
      "spatial_merge_size":2,"use_postshuffle_norm":false},
    "text_config":{"eos_token_id":11,"hidden_size":2048,"max_position_embeddings":131072},
    "vision_config":{"hidden_act":"gelu_pytorch_tanh","hidden_size":1152,"intermediate_size":4304,
      "num_attention_heads":16,"num_channels":3,"num_hidden_layers":27,"num_patches":256,"patch_size":16,
      "spatial_merge_size":2}})";
}

// 2,435,616,496 (the catalog's 2.4356B): the language model 1,946,273,792 (two 131072 x 2048 tables and 28
// layers of 50,335,744), the tower 412,649,712 and the patch merger 76,692,992.
TEST(Cosmos3Edge, CountsAsTransformersBuildsIt) {
  const std::string config = cosmos3_edge();
  EXPECT_EQ(parameters_of(config), 2'435'616'496u);
  EXPECT_EQ(parameters_of(R"({"model_type":"cosmos3_edge"})"), 2'435'616'496u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(t.arch.architecture, "Cosmos3EdgeForConditionalGeneration");
  EXPECT_EQ(t.arch.hidden_size, 2048u);
  EXPECT_EQ(t.arch.num_layers, 28u);
  // Cosmos3EdgeModel registers visual, projector, language_model; the head comes last.
  EXPECT_EQ(t.tensors.front().name, "model.visual.embeddings.patch_embedding.weight");
  EXPECT_EQ(t.tensors.front().shape, (Shape{1152, 768}));  // a linear over 3 x 16 x 16 values
  EXPECT_EQ(t.tensors.back().name, "lm_head.weight");
  size_t projector = 0, language = 0;
  for (size_t i = 0; i < t.tensors.size(); ++i) {
    if (t.tensors[i].name == "model.projector.norm.weight") projector = i;
    if (t.tensors[i].name == "model.language_model.embed_tokens.weight") language = i;
  }
  EXPECT_LT(projector, language);
  EXPECT_EQ(find_tensor(t, "model.projector.linear_fc1.weight")->shape, (Shape{11520, 4608}));
  EXPECT_EQ(find_tensor(t, "model.projector.linear_fc2.bias")->shape, (Shape{2048}));
  EXPECT_EQ(find_tensor(t, "model.visual.embeddings.position_embedding.weight")->shape, (Shape{256, 1152}));
  EXPECT_NE(find_tensor(t, "model.visual.post_layernorm.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.visual.head.probe"), nullptr);  // SigLIP 2's tower without its head
  // The MLP: fc1 -> relu² -> fc2, no gate, no biases (mlp_bias false).
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.27.mlp.fc1.weight")->shape, (Shape{9216, 2048}));
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.27.mlp.fc1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.k_proj.weight")->shape,
            (Shape{1024, 2048}));
  EXPECT_EQ(place_tensor("model.projector.linear_fc1.weight").block, Block::VisionProjector);
  EXPECT_EQ(place_tensor("model.visual.encoder.layers.3.mlp.fc2.weight").block, Block::Vision);
}

// _tied_weights_keys is empty: tie_word_embeddings never ties the head. Cosmos3EdgeModel has none; the
// biases follow attention_bias and mlp_bias; the vision sub-config is Cosmos3EdgeVisionConfig whatever
// model_type it names (no SigLIP head).
TEST(Cosmos3Edge, HeadTiesNeverAndOptionsFollowTheConfig) {
  EXPECT_EQ(parameters_of(R"({"model_type":"cosmos3_edge","tie_word_embeddings":true})"), 2'435'616'496u);
  const ModelTemplate base =
      template_of(R"({"model_type":"cosmos3_edge","architectures":["Cosmos3EdgeModel"]})");
  EXPECT_EQ(find_tensor(base, "lm_head.weight"), nullptr);
  EXPECT_NE(find_tensor(base, "projector.linear_fc1.weight"), nullptr);
  EXPECT_EQ(parameters_of(R"({"model_type":"cosmos3_edge","architectures":["Cosmos3EdgeModel"]})"),
            2'435'616'496u - 131072u * 2048);
  const ModelTemplate biased = template_of(R"({"model_type":"cosmos3_edge",
      "text_config":{"attention_bias":true,"mlp_bias":true},"vision_config":{"model_type":"siglip2_vision_model"}})");
  EXPECT_EQ(find_tensor(biased, "model.language_model.layers.0.mlp.fc2.bias")->shape, (Shape{2048}));
  EXPECT_EQ(find_tensor(biased, "model.language_model.layers.0.self_attn.o_proj.bias")->shape, (Shape{2048}));
  EXPECT_EQ(find_tensor(biased, "model.visual.head.probe"), nullptr);
  // spatial_merge_size 3 joins nine patches; projector_hidden_size sets the merger's width.
  const ModelTemplate merged = template_of(
      R"({"model_type":"cosmos3_edge","projector_hidden_size":96,"vision_config":{"spatial_merge_size":3}})");
  EXPECT_EQ(find_tensor(merged, "model.projector.linear_fc1.weight")->shape, (Shape{96, 9 * 1152}));
}

// The sub-models alone: Cosmos3EdgeTextModel (1,677,838,336: no head) and Cosmos3EdgeVisionModel
// (412,649,712), under their own names.
TEST(Cosmos3Edge, TextModelAndVisionModelAlone) {
  const ModelTemplate text = template_of(R"({"model_type":"cosmos3_edge_text"})");
  EXPECT_EQ(text.arch.architecture, "Cosmos3EdgeTextModel");
  EXPECT_EQ(text.tensors.front().name, "embed_tokens.weight");
  EXPECT_EQ(find_tensor(text, "lm_head.weight"), nullptr);
  EXPECT_EQ(parameters_of(R"({"model_type":"cosmos3_edge_text"})"), 1'677'838'336u);
  const ModelTemplate vision = template_of(R"({"model_type":"cosmos3_edge_vision"})");
  EXPECT_EQ(vision.arch.architecture, "Cosmos3EdgeVisionModel");
  EXPECT_NE(find_tensor(vision, "encoder.layers.26.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(parameters_of(R"({"model_type":"cosmos3_edge_vision"})"), 412'649'712u);
}

TEST(Cosmos3Edge, RefusesWhatTransformersRefuses) {
  EXPECT_EQ(refusal_of(R"({"model_type":"cosmos3_edge","architectures":["Cosmos3EdgeForCausalLM"]})").kind,
            ErrorKind::Unsupported);
  // Cosmos3EdgeTextConfig.validate_architecture: heads divide hidden_size although head_dim is set apart.
  EXPECT_EQ(refusal_of(R"({"model_type":"cosmos3_edge","text_config":{"hidden_size":100}})").field,
            "text_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"cosmos3_edge","text_config":{"rope_parameters":{"rope_type":"yarn"}}})")
          .field,
      "text_config.rope_parameters.rope_type");
  // The default M-RoPE sections [24, 20, 20] need head_dim 128.
  EXPECT_EQ(refusal_of(R"({"model_type":"cosmos3_edge","text_config":{"head_dim":64}})").field,
            "text_config.head_dim");
  EXPECT_EQ(refusal_of(R"({"model_type":"cosmos3_edge","text_config":{"head_dim":64,
      "rope_parameters":{"rope_type":"default","mrope_section":[16,8,4]}}})")
                .field,
            "text_config.rope_parameters.mrope_section");
  EXPECT_EQ(refusal_of(R"({"model_type":"cosmos3_edge","vision_config":{"num_patches":250}})").field,
            "vision_config.num_patches");
  EXPECT_EQ(refusal_of(R"({"model_type":"cosmos3_edge","vision_config":{"num_attention_heads":7}})").field,
            "vision_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"cosmos3_edge","vision_config":{"spatial_merge_size":67108864}})").field,
      "vision_config.spatial_merge_size");
}

}  // namespace
}  // namespace ma::test
