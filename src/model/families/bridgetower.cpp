// BridgeTower (bridgetower; BridgeTower/bridgetower-base and its -itm-mlm / -itc heads): a CLIP ViT-B/16
// image encoder in OpenAI's module layout (nn.MultiheadAttention, ln_1 / mlp.c_fc / c_proj / ln_2) and a
// RoBERTa text encoder, whose top layers feed, through link towers, two stacks of BERT layers with
// cross-attention (one over the text attending to the image, one over the image attending to the text).
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_d.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// BridgeTowerVisionTransformer under `p` ("bridgetower.vision_model.visual."): CLIP's embeddings
// (class_embedding, a bias-free patch conv, a position table), ln_pre, resblocks (torch's MultiheadAttention
// with one in_proj for q, k and v, then ln_1, the 4x QuickGELU MLP, ln_2, in registration order), ln_post,
// and a LayerNorm per layer when share_layernorm is false. Returns the width.
uint64_t bridgetower_vision(const ModelConfig& v, ModelTemplate& t, const std::string& p) {
  const uint64_t h = v.dim_or("hidden_size", 768);
  const uint64_t layers = v.layers_or("num_hidden_layers", 12, 0);
  const uint64_t image = v.dim_or("image_size", 288);  // BridgeTowerVisionConfig: bridgetower-base's 288
  const uint64_t patch = v.dim_or("patch_size", 16);
  if (patch > image) v.fail("patch_size", "must not exceed image_size");
  // nn.MultiheadAttention(hidden, hidden // 64): at least one head, and the heads must divide the width.
  const uint64_t heads = h / 64;
  if (heads == 0 || h % heads != 0)
    v.fail("hidden_size", "must be at least 64 and divisible by hidden_size // 64 (the attention's heads)");
  const uint64_t grid = image / patch;
  t.add(p + "embeddings.class_embedding", {h});
  t.add(p + "embeddings.patch_embedding.weight", {h, v.dim_or("num_channels", 3), patch, patch});
  blocks::embedding(t, p + "embeddings.position_embedding.weight", grid * grid + 1, h);
  blocks::norm(t, p + "ln_pre", h, true);
  // remove_last_layer drops the last resblock; the per-layer LayerNorms stay num_hidden_layers.
  const uint64_t blocks_built =
      v.flag_or("remove_last_layer", false) ? (layers == 0 ? 0 : layers - 1) : layers;
  for (uint64_t i = 0; i < blocks_built; ++i) {
    const std::string b = p + "transformer.resblocks." + std::to_string(i) + ".";
    t.add(b + "attn.in_proj_weight", {3 * h, h});
    t.add(b + "attn.in_proj_bias", {3 * h});
    blocks::linear(t, b + "attn.out_proj", h, h, true);
    blocks::norm(t, b + "ln_1", h, true);
    blocks::linear(t, b + "mlp.c_fc", h, 4 * h, true);
    blocks::linear(t, b + "mlp.c_proj", 4 * h, h, true);
    blocks::norm(t, b + "ln_2", h, true);
  }
  blocks::norm(t, p + "ln_post", h, true);
  if (!v.flag_or("share_layernorm", true))
    for (uint64_t i = 0; i < layers; ++i) blocks::norm(t, p + "ln_separate." + std::to_string(i), h, true);
  record_vision_tower(t, p + "transformer.resblocks", h, blocks_built, heads, h / heads, 4 * h, patch, image);
  return h;
}

// BridgeTowerBertCrossLayer: BERT's layer with a cross-attention (crossattention.self / .output) between its
// self-attention and its MLP.
LayerNames bridgetower_cross_layer_names() {
  LayerNames n = bert_layer_names();
  n.cross_q = "crossattention.self.query";
  n.cross_k = "crossattention.self.key";
  n.cross_v = "crossattention.self.value";
  n.cross_o = "crossattention.output.dense";
  n.cross_norm = "crossattention.output.LayerNorm";
  return n;
}

// `layers` cross layers of the text config's sizes under `path`, recorded as an encoder stack whose layers
// attend across.
void bridgetower_cross_layers(ModelTemplate& t, const std::string& path, uint64_t layers,
                              const LayerDims& d) {
  StackSpec& stack = t.arch.add_stack(StackRole::Encoder, path, d.hidden);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = d.heads;
  spec.attention.head_dim = d.hidden / d.heads;
  spec.ffn.intermediate = d.ffn;
  spec.cross_attention = spec.attention;
  for (uint64_t i = 0; i < layers; ++i) {
    transformer_layer(t, path + "." + std::to_string(i), bridgetower_cross_layer_names(), d);
    stack.layers.push_back(spec);
  }
}

// A linear, or num_hidden_layers of them under `p`.N when not shared.
void bridgetower_transform(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, bool shared,
                           uint64_t layers) {
  if (shared) return blocks::linear(t, p, in, out, true);
  for (uint64_t i = 0; i < layers; ++i) blocks::linear(t, p + "." + std::to_string(i), in, out, true);
}

// BridgeTowerLinkTower: scaled_add's scaled_factor or interpolate's beta (its own 0-dimensional parameter,
// first), then its LayerNorm.
void bridgetower_link_tower(ModelTemplate& t, const std::string& p, const std::string& type, uint64_t h) {
  if (type == "scaled_add") t.add(p + ".scaled_factor", {});
  if (type == "interpolate") t.add(p + ".beta", {});
  blocks::norm(t, p + ".LayerNorm", h, true);
}

struct BridgeTowerDims {
  TextEncoderDims text;
  uint64_t hidden = 0;  // BridgeTowerConfig.hidden_size: the cross-modal width
};

// BridgeTowerModel under `p`, in registration order: the cross-modal transforms, the modality token types,
// vision_model, text_model (RoBERTa's embeddings, BERT layers, pooler), the two cross-modal stacks, their
// poolers and LayerNorms, and the link towers between the encoders' top layers and the cross-modal layers.
BridgeTowerDims bridgetower_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  const ModelConfig text_cfg = sub_or_empty(cfg, "text_config");
  const ModelConfig vision_cfg = sub_or_empty(cfg, "vision_config");
  // BridgeTowerTextConfig's defaults are roberta-base's.
  BridgeTowerDims d;
  d.text = read_bert_dims(text_cfg, BertDefaults{.vocab = 50265, .positions = 514, .type_vocab = 1});
  // v5's BridgeTowerTextEmbeddings is RobertaEmbeddings: position_embeddings registered after its LayerNorm.
  d.text.positions_last = true;
  // BridgeTowerTextLayer adds a cross-attention when add_cross_attention (and refuses it without is_decoder);
  // BridgeTowerModel never feeds it, and it is not modelled.
  if (text_cfg.flag_or("add_cross_attention", false))
    text_cfg.fail("add_cross_attention", "text layers with cross-attention are not modelled");
  d.hidden = cfg.dim_or("hidden_size", 768);
  const uint64_t layers = cfg.layers_or("num_hidden_layers", 6, 1);
  const uint64_t vision_width = vision_cfg.dim_or("hidden_size", 768);
  // transformers reads vision_model.visual.cross_modal_ln_separate, which BridgeTowerVisionTransformer does
  // not have: the model cannot be built.
  if (!vision_cfg.flag_or("share_layernorm", true) &&
      cfg.flag_or("init_layernorm_from_vision_encoder", false))
    cfg.fail("init_layernorm_from_vision_encoder",
             "with vision_config.share_layernorm false, transformers fails to build the model");
  const std::string link = cfg.string_or("link_tower_type", "add");
  if (link != "add" && link != "scaled_add" && link != "interpolate")
    cfg.fail("link_tower_type", "must be add, scaled_add or interpolate");
  const bool shared_transforms = cfg.flag_or("share_cross_modal_transformer_layers", true);
  bridgetower_transform(t, p + "cross_modal_text_transform", d.text.layer.hidden, d.hidden, shared_transforms,
                        layers);
  bridgetower_transform(t, p + "cross_modal_image_transform", vision_width, d.hidden, shared_transforms,
                        layers);
  blocks::embedding(t, p + "token_type_embeddings.weight", 2, d.hidden);
  bridgetower_vision(vision_cfg, t, p + "vision_model.visual.");
  text_encoder_body(t, p + "text_model.", "encoder.layer", bert_layer_names(), d.text);
  blocks::linear(t, p + "text_model.pooler.dense", d.text.layer.hidden, d.text.layer.hidden, true);
  // Both cross-modal stacks are BridgeTowerBertCrossLayer(text_config): the text config's widths.
  bridgetower_cross_layers(t, p + "cross_modal_image_layers", layers, d.text.layer);
  bridgetower_cross_layers(t, p + "cross_modal_text_layers", layers, d.text.layer);
  blocks::linear(t, p + "cross_modal_image_pooler.dense", d.hidden, d.hidden, true);
  blocks::linear(t, p + "cross_modal_text_pooler.dense", d.hidden, d.hidden, true);
  blocks::norm(t, p + "cross_modal_text_layernorm", d.hidden, true);
  blocks::norm(t, p + "cross_modal_image_layernorm", d.hidden, true);
  if (cfg.flag_or("share_link_tower_layers", false)) {
    bridgetower_link_tower(t, p + "cross_modal_text_link_tower", link, d.hidden);
    bridgetower_link_tower(t, p + "cross_modal_image_link_tower", link, d.hidden);
  } else {
    // One per cross-modal layer after the first.
    for (uint64_t i = 0; i + 1 < layers; ++i)
      bridgetower_link_tower(t, p + "cross_modal_text_link_tower." + std::to_string(i), link, d.hidden);
    for (uint64_t i = 0; i + 1 < layers; ++i)
      bridgetower_link_tower(t, p + "cross_modal_image_link_tower." + std::to_string(i), link, d.hidden);
  }
  return d;
}

}  // namespace

void build_bridgetower(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BridgeTowerModel");
  const std::string task =
      supported_task(cfg, cls, "BridgeTower",
                     {"Model", "ForMaskedLM", "ForImageAndTextRetrieval", "ForContrastiveLearning"});
  const std::string p = task == "Model" ? "" : "bridgetower.";
  if (task == "ForContrastiveLearning") {
    // logit_scale: the head class's own parameter, listed before its modules'.
    t.add("logit_scale", {});
  }
  const BridgeTowerDims d = bridgetower_model(cfg, t, p);
  fill_encoder_record(t, cls, d.text);
  t.arch.post_norm = true;
  const uint64_t h = d.hidden;
  if (task == "ForMaskedLM") {
    // BridgeTowerMLMHead: its own bias (first), the transform, a bias-free decoder from the cross-modal width
    // to the text vocabulary, tied to the word embeddings only when tie_word_embeddings (BridgeTowerConfig:
    // false).
    const bool tied = cfg.flag_or("tie_word_embeddings", false);
    t.arch.tie_word_embeddings = tied;
    if (tied && h != d.text.layer.hidden)
      cfg.fail("tie_word_embeddings",
               "ties the decoder to word embeddings of another width (text_config.hidden_size)");
    t.add("mlm_score.bias", {d.text.vocab});
    blocks::linear(t, "mlm_score.transform.dense", h, h, true);
    blocks::norm(t, "mlm_score.transform.LayerNorm", h, true);
    if (tied)
      t.tie("mlm_score.decoder.weight", p + "text_model.embeddings.word_embeddings.weight");
    else
      t.add("mlm_score.decoder.weight", {d.text.vocab, h});
  } else if (task == "ForImageAndTextRetrieval") {
    blocks::linear(t, "itm_score.fc", 2 * h, 2, true);  // over the text and image [CLS] features side by side
  } else if (task == "ForContrastiveLearning") {
    // BridgeTowerConfig declares no contrastive_hidden_size: the class reads it from config.json (512 in
    // bridgetower-large-itm-mlm-itc) and fails without it.
    if (!cfg.has("contrastive_hidden_size"))
      cfg.fail("contrastive_hidden_size", "is required by BridgeTowerForContrastiveLearning");
    const uint64_t embed = cfg.dim("contrastive_hidden_size");
    // Likewise logit_scale_init_value, which initialises logit_scale.
    if (!cfg.has("logit_scale_init_value"))
      cfg.fail("logit_scale_init_value", "is required by BridgeTowerForContrastiveLearning");
    blocks::linear(t, "itc_text_head.fc", h, embed, true);
    blocks::linear(t, "itc_image_head.fc", h, embed, true);
    blocks::linear(t, "itc_cross_modal_head.fc", 2 * h, embed, true);
  }
}

}  // namespace ma::families
