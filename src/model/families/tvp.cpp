// TVP (model_type tvp: TvpModel, TvpForVideoGrounding; Intel/tvp-base): text-visual prompting for temporal
// video grounding. A visual prompter adds learned pads to every frame (framepad: up, down, left and right
// bands of visual_prompt_size pixels; framedownpad: the bottom band only), a ResNet backbone (load_backbone
// over backbone_config, ResNet-50 with out_features ["stage4"] by default) and a bias-free 3 x 3 conv turn
// the frames into a grid of hidden_size features, and a BERT-like post-norm encoder reads ten learned text
// prompt vectors, the text and the grid. The grounding head is two Linears (hidden -> 2 x hidden -> 2).
// TvpConfig defines no type_vocab_size, which TvpTextInputEmbeddings reads: config.json must carry it.
#include <cstdint>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/depth.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_f.h"

namespace ma::families {
namespace {

// TvpConfig's backbone when config.json gives neither backbone_config nor backbone.
constexpr const char* kTvpDefaultBackbone = R"({"model_type":"resnet","out_features":["stage4"]})";

// TvpAttention (query, key, value, dense, layer_norm), TvpIntermediate and TvpOutputLayer.
LayerNames tvp_layer_names() {
  LayerNames n;
  n.q = "attention.query";
  n.k = "attention.key";
  n.v = "attention.value";
  n.o = "attention.dense";
  n.attn_norm = "attention.layer_norm";
  n.fc1 = "intermediate.dense";
  n.fc2 = "output.dense";
  n.ffn_norm = "output.layer_norm";
  return n;
}

// TvpVisionModel under `p`: the ResNetBackbone (trainable batch norms) and grid_encoder_conv, which reads
// backbone_config.hidden_sizes[-1] channels whatever stage out_features hands on.
void tvp_vision_model(const ModelConfig& cfg, const std::string& p, uint64_t hidden, uint64_t image,
                      ModelTemplate& t) {
  const ModelConfig bb = depth_backbone_config(cfg, kTvpDefaultBackbone, "resnet");
  const ResNetShape shape = read_resnet_shape(bb);
  const std::vector<uint64_t> features = transformers_resnet_body(bb, p + "backbone.", false, t);
  t.add(p + "grid_encoder_conv.weight", {hidden, shape.widths.back(), 3, 3});
  StackSpec& vision = t.arch.add_stack(StackRole::Vision, p + "backbone.encoder.stages", features.back());
  vision.image_size = image;
}

// The visual prompter's pads under `p`, by visual_prompter_type (TvpModel raises on any other).
void tvp_visual_prompter(const ModelConfig& cfg, const std::string& p, uint64_t image, ModelTemplate& t) {
  const std::string apply = cfg.string_or("visual_prompter_apply", "replace");
  if (apply != "add" && apply != "replace" && apply != "remove")
    cfg.fail("visual_prompter_apply", "must be add, replace or remove");
  const uint64_t band = cfg.dim_or("visual_prompt_size", 96);
  const std::string type = cfg.string_or("visual_prompter_type", "framepad");
  if (type == "framedownpad") {
    // TvpFrameDownPadPrompter reads config.frame_num, a field TvpConfig does not define.
    if (!cfg.has("frame_num")) cfg.fail("frame_num", "is required by the framedownpad visual prompter");
    t.add(p + "pad_down", {1, cfg.dim("frame_num"), 3, band, image});
    return;
  }
  if (type != "framepad") cfg.fail("visual_prompter_type", "must be framepad or framedownpad");
  if (2 * band > image) cfg.fail("visual_prompt_size", "must leave max_img_size room for two bands");
  const uint64_t frames = cfg.dim_or("num_frames", 48);
  t.add(p + "pad_up", {1, frames, 3, band, image});
  t.add(p + "pad_down", {1, frames, 3, band, image});
  t.add(p + "pad_left", {1, frames, 3, image - 2 * band, band});
  t.add(p + "pad_right", {1, frames, 3, image - 2 * band, band});
}

// TvpModel under `prefix`, in registration order: text_prompt (its own parameter, first in state_dict),
// vision_model, the text embeddings, the visual embeddings, the encoder, the pooler, the visual prompter.
void tvp_model(const ModelConfig& cfg, const std::string& prefix, const TextEncoderDims& d,
               ModelTemplate& t) {
  const uint64_t h = d.layer.hidden;
  const uint64_t image = cfg.dim_or("max_img_size", 448);
  t.add(prefix + "text_prompt", {1, 10, h});
  tvp_vision_model(cfg, prefix + "vision_model.", h, image, t);
  TextEncoderDims text = d;
  text.embedding_norm = false;  // TvpTextInputEmbeddings names it layer_norm, not LayerNorm
  text_embeddings(t, prefix + "embeddings.", text);
  blocks::norm(t, prefix + "embeddings.layer_norm", h, true);
  const std::string v = prefix + "visual_embeddings.";
  blocks::embedding(t, v + "position_embeddings.weight", d.max_positions, h);
  blocks::embedding(t, v + "row_position_embeddings.weight",
                    cfg.dim_or("max_grid_row_position_embeddings", 100), h);
  blocks::embedding(t, v + "col_position_embeddings.weight",
                    cfg.dim_or("max_grid_col_position_embeddings", 100), h);
  blocks::embedding(t, v + "token_type_embeddings.weight", 1, h);
  blocks::norm(t, v + "layer_norm", h, true);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, encoder.path + "." + std::to_string(i), tvp_layer_names(), d.layer);
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::linear(t, prefix + "pooler.dense", h, h, true);
  tvp_visual_prompter(cfg, prefix + "visual_prompter.", image, t);
}

}  // namespace

void build_tvp(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TvpModel");
  const std::string task = supported_task(cfg, cls, "Tvp", {"Model", "ForVideoGrounding"});
  // TvpConfig's defaults are BERT-base's; type_vocab_size has none (see above).
  if (!cfg.has("type_vocab_size"))
    cfg.fail("type_vocab_size", "is required: TvpTextInputEmbeddings reads it and TvpConfig has no default");
  const TextEncoderDims d = read_bert_dims(cfg, BertDefaults{});
  fill_encoder_record(t, cls, d);
  t.arch.activation = cfg.string_or("hidden_act", "gelu");
  t.arch.norm = NormKind::LayerNorm;
  t.arch.post_norm = true;
  t.arch.attention_bias = t.arch.mlp_bias = true;
  if (task == "Model") {
    tvp_model(cfg, "", d, t);
    return;
  }
  tvp_model(cfg, "model.", d, t);
  const uint64_t h = d.layer.hidden;
  blocks::linear(t, "video_grounding_head.layer_0", h, 2 * h, true);
  blocks::linear(t, "video_grounding_head.layer_1", 2 * h, 2, true);
}

}  // namespace ma::families
