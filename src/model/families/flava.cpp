// FLAVA (flava; facebook/flava-full): a ViT image encoder, a BERT-embedded text encoder and a multimodal
// encoder over both, all three made of ViT's pre-norm layers (transformers 4's module names), with the
// projections between them. FlavaForPreTraining adds the DALL-E-style image codebook that labels masked
// patches and the masked-prediction, matching heads.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_d.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vit_relatives.h"

namespace ma::families {
namespace {

// FlavaConfig still accepts the transformers 4.2x spelling text_config_dict (and image_, multimodal_,
// image_codebook_): when present, the sub-config class built from it (its defaults filling the gaps)
// overwrites every field of `<key>`, so the dict alone decides.
ModelConfig flava_sub_config(const ModelConfig& cfg, const std::string& key) {
  if (cfg.has(key + "_dict")) return sub_or_empty(cfg, key + "_dict");
  return sub_or_empty(cfg, key);
}

// FlavaEncoder under `p`encoder.layer, then the final LayerNorm and the pooler (FlavaModel builds every
// tower with add_pooling_layer=True).
void flava_encoder_and_pooler(ModelTemplate& t, const std::string& p, const TextEncoderDims& d,
                              StackRole role) {
  vit4_encoder(t, p + "encoder.layer", d.layers, d.layer, Vit4QkvBias::Linears);
  t.arch.stacks.back().role = role;
  blocks::norm(t, p + "layernorm", d.layer.hidden, true);
  blocks::linear(t, p + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
}

// FlavaTextModel: BERT's embeddings (word, position, token type, LayerNorm), FLAVA's pre-norm layers.
TextEncoderDims flava_text_model(const ModelConfig& text, ModelTemplate& t, const std::string& p) {
  // Relative position types are declared by FlavaTextConfig but FlavaTextEmbeddings only builds absolute
  // positions; nothing to refuse.
  TextEncoderDims d = read_bert_dims(text, BertDefaults{});
  d.layer.qkv_bias = text.flag_or("qkv_bias", true);
  text_embeddings(t, p + "embeddings.", d);
  flava_encoder_and_pooler(t, p, d, StackRole::Encoder);
  return d;
}

// FlavaImageModel: FlavaImageEmbeddings' own cls_token, mask_token (FlavaImageConfig.mask_token, default
// true) and position_embeddings, then its patch convolution (biased), the layers, LayerNorm and pooler.
TextEncoderDims flava_image_model(const ModelConfig& image, ModelTemplate& t, const std::string& p) {
  const TextEncoderDims d = vit_base_dims(image);
  const uint64_t h = d.layer.hidden;
  const auto [image_h, image_w] = vit_pair(image, "image_size", 224);
  const auto [patch_h, patch_w] = vit_pair(image, "patch_size", 16);
  if (patch_h > image_h || patch_w > image_w) image.fail("patch_size", "must not exceed image_size");
  const uint64_t patches = (image_h / patch_h) * (image_w / patch_w);
  t.add(p + "embeddings.cls_token", {1, 1, h});
  if (image.flag_or("mask_token", true)) t.add(p + "embeddings.mask_token", {1, 1, h});
  t.add(p + "embeddings.position_embeddings", {1, patches + 1, h});
  const std::string conv = p + "embeddings.patch_embeddings.projection.";
  t.add(conv + "weight", {h, image.dim_or("num_channels", 3), patch_h, patch_w});
  t.add(conv + "bias", {h});
  flava_encoder_and_pooler(t, p, d, StackRole::Vision);
  StackSpec& vision = t.arch.stacks.back();
  vision.patch_size = patch_h;
  vision.image_size = image_h;
  return d;
}

// FlavaMultimodalModel: its own cls_token (use_cls_token, default true), six layers by default.
TextEncoderDims flava_multimodal_model(const ModelConfig& mm, ModelTemplate& t, const std::string& p) {
  BertDefaults defaults;
  defaults.layers = 6;
  TextEncoderDims d = read_bert_dims(mm, defaults);
  d.layer.qkv_bias = mm.flag_or("qkv_bias", true);
  if (mm.flag_or("use_cls_token", true)) t.add(p + "cls_token", {1, 1, d.layer.hidden});
  flava_encoder_and_pooler(t, p, d, StackRole::Encoder);
  return d;
}

// FlavaModel under `p`: logit_scale (its own parameter, listed first), the three towers, then the
// contrastive projections and the projections into the multimodal width, in registration order.
TextEncoderDims flava_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  t.add(p + "logit_scale", {});
  const TextEncoderDims text = flava_text_model(flava_sub_config(cfg, "text_config"), t, p + "text_model.");
  const TextEncoderDims image =
      flava_image_model(flava_sub_config(cfg, "image_config"), t, p + "image_model.");
  const TextEncoderDims mm =
      flava_multimodal_model(flava_sub_config(cfg, "multimodal_config"), t, p + "multimodal_model.");
  const uint64_t projection = cfg.dim_or("projection_dim", 768);
  blocks::linear(t, p + "image_projection", image.layer.hidden, projection, true);
  blocks::linear(t, p + "text_projection", text.layer.hidden, projection, true);
  blocks::linear(t, p + "image_to_mm_projection", image.layer.hidden, mm.layer.hidden, true);
  blocks::linear(t, p + "text_to_mm_projection", text.layer.hidden, mm.layer.hidden, true);
  return text;
}

// FlavaImageCodebook (DALL-E's encoder): a 7x7 input conv, four groups of num_blocks_per_group residual
// blocks widening 1x, 2x, 4x, 8x hidden_size (a 1x1 id_path conv where a block changes width; its res_path
// four convs through a quarter of the output width), and a 1x1 conv to the visual vocabulary. The pools and
// ReLUs have no weights; num_groups only scales the residuals (the groups are always four).
void flava_image_codebook(const ModelConfig& book, ModelTemplate& t, const std::string& p) {
  const uint64_t h = book.dim_or("hidden_size", 256);
  const uint64_t blocks_per_group = book.dim_or("num_blocks_per_group", 2);
  // A residual path is out // 4 wide (Python's floor): under 4 channels it would have none.
  if (h < 4) book.fail("hidden_size", "must be at least 4 (the residual paths are a quarter wide)");
  blocks::conv2d(t, p + "blocks.input", book.dim_or("input_channels", 3), h, 7);
  const uint64_t widths[] = {h, h, 2 * h, 4 * h, 8 * h};
  for (uint64_t g = 1; g <= 4; ++g) {
    for (uint64_t b = 1; b <= blocks_per_group; ++b) {
      const uint64_t in = b == 1 ? widths[g - 1] : widths[g];
      const uint64_t out = widths[g];
      const std::string block =
          p + "blocks.group_" + std::to_string(g) + ".group.block_" + std::to_string(b) + ".";
      if (in != out) blocks::conv2d(t, block + "id_path", in, out, 1);
      const std::string path = block + "res_path.path.";
      blocks::conv2d(t, path + "conv_1", in, out / 4, 3);
      blocks::conv2d(t, path + "conv_2", out / 4, out / 4, 3);
      blocks::conv2d(t, path + "conv_3", out / 4, out / 4, 3);
      blocks::conv2d(t, path + "conv_4", out / 4, out, 1);
    }
  }
  blocks::conv2d(t, p + "blocks.output.conv", 8 * h, book.dim_or("vocab_size", 8192), 1);
}

// FlavaMaskedPredictionHead: its own bias first, the transform (dense, LayerNorm), the decoder. The
// decoder's bias is that bias (FlavaForPreTraining._tied_weights_keys); its weight is its own.
void flava_masked_head(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t vocab) {
  t.add(p + "bias", {vocab});
  blocks::linear(t, p + "transform.dense", hidden, hidden, true);
  blocks::norm(t, p + "transform.LayerNorm", hidden, true);
  t.add(p + "decoder.weight", {vocab, hidden});
  t.tie(p + "decoder.bias", p + "bias");
}

}  // namespace

void build_flava(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "FlavaModel");
  const std::string task = supported_task(cfg, cls, "Flava", {"Model", "ForPreTraining"});
  const std::string p = task == "Model" ? "" : "flava.";
  const TextEncoderDims text = flava_model(cfg, t, p);
  fill_encoder_record(t, cls, text);
  if (task == "ForPreTraining") {
    // The codebook is built unless init_codebook is false (a caller may pass its own; config.json cannot).
    if (cfg.flag_or("init_codebook", true))
      flava_image_codebook(flava_sub_config(cfg, "image_codebook_config"), t, "image_codebook.");
    const ModelConfig image = flava_sub_config(cfg, "image_config");
    const uint64_t image_hidden = image.dim_or("hidden_size", 768);
    const uint64_t image_vocab = image.dim_or("vocab_size", 8192);
    flava_masked_head(t, "mim_head.", image_hidden, image_vocab);
    flava_masked_head(t, "mlm_head.", text.layer.hidden, text.vocab);
    // FlavaITMHead reads FlavaConfig's own hidden_size (768), not a tower's.
    const uint64_t itm = cfg.dim_or("hidden_size", 768);
    blocks::linear(t, "itm_head.pooler.dense", itm, itm, true);
    blocks::linear(t, "itm_head.seq_relationship", itm, 2, true);
    flava_masked_head(t, "mmm_image_head.", image_hidden, image_vocab);
    flava_masked_head(t, "mmm_text_head.", text.layer.hidden, text.vocab);
  }
}

}  // namespace ma::families
