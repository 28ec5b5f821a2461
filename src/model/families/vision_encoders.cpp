// Self-supervised vision backbones: DINOv2 (Dinov2Model, Dinov2ForImageClassification), a pre-norm ViT with
// a layer scale on both residual branches, a mask token, and a SwiGLU MLP in its giant size. ViT itself is
// with BERT in encoders.cpp.
#include "model/families/vision_encoders.h"

#include <array>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

void build_dinov2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Dinov2Model");
  const std::string task = supported_task(cfg, cls, "Dinov2", {"Model", "ForImageClassification"});
  const std::string prefix = task == "Model" ? "" : "dinov2.";
  const uint64_t h = dinov2_body(cfg, cls, prefix, t);
  // The classifier reads the class token beside the mean of the patch tokens: twice the width.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", 2 * h, labels, true);
}

constexpr std::array kVisionEncoderFamilies{
    FamilyBuilder{"dinov2", build_dinov2},
};

}  // namespace

uint64_t dinov2_body(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                     ModelTemplate& t, std::optional<uint64_t> image_size, const Dinov2Variant& variant) {
  read_base_encoder_record(cfg, cls, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  const bool swiglu = cfg.flag_or("use_swiglu_ffn", false);
  a.intermediate_size = dinov2_mlp_width(cfg, h);
  // Every released checkpoint embeds 518-pixel images (DINOv2's own configs); 224 is the class default. Other
  // sizes interpolate the table at run time.
  const uint64_t image = image_size ? *image_size : cfg.dim_or("image_size", 224);
  const uint64_t patch = cfg.dim_or("patch_size", variant.default_patch);
  if (patch > image) cfg.fail("patch_size", "must not exceed image_size (" + std::to_string(image) + ")");
  const uint64_t patches = (image / patch) * (image / patch);
  a.max_position_embeddings = patches + 1;
  const std::string e = prefix + "embeddings.";
  t.add(e + "cls_token", {1, 1, h});
  if (cfg.flag_or("use_mask_token", true)) t.add(e + "mask_token", {1, h});
  if (variant.register_tokens) t.add(e + "register_tokens", {1, *variant.register_tokens, h});
  t.add(e + "position_embeddings", {1, patches + 1, h});
  t.add(e + "patch_embeddings.projection.weight", {h, cfg.dim_or("num_channels", 3), patch, patch});
  t.add(e + "patch_embeddings.projection.bias", {h});
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  StackSpec& s = a.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  s.patch_size = patch;
  s.image_size = image;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    dinov2_layer(t, s.path + "." + std::to_string(i) + ".", h, a.intermediate_size, swiglu,
                 Dinov2AttentionNames::Dinov2, qkv_bias);
    LayerSpec l;
    l.ffn.gated = swiglu;
    s.layers.push_back(l);
  }
  blocks::norm(t, prefix + "layernorm", h, true);
  return h;
}

uint64_t dinov2_mlp_width(const ModelConfig& cfg, uint64_t hidden) {
  const double ratio = cfg.number_or("mlp_ratio", 4);
  if (!(ratio > 0 && ratio <= 64)) cfg.fail("mlp_ratio", "must be in (0, 64]");
  const auto wide = static_cast<uint64_t>(static_cast<double>(hidden) * ratio);  // int(hidden * mlp_ratio)
  // Dinov2SwiGLUFFN: two thirds of the MLP width, rounded up to a multiple of 8.
  const uint64_t width = cfg.flag_or("use_swiglu_ffn", false) ? (wide * 2 / 3 + 7) / 8 * 8 : wide;
  if (width == 0) cfg.fail("mlp_ratio", "leaves the MLP without a unit");
  return width;
}

void dinov2_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t ffn, bool swiglu,
                  Dinov2AttentionNames names, bool qkv_bias) {
  const uint64_t h = hidden;
  blocks::norm(t, p + "norm1", h, true);
  if (names == Dinov2AttentionNames::Dinov2) {
    for (const char* proj : {"query", "key", "value"})
      blocks::linear(t, p + "attention.attention." + proj, h, h, qkv_bias);
    blocks::linear(t, p + "attention.output.dense", h, h, true);
  } else {
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})  // SiglipAttention's order
      blocks::linear(t, p + "attention." + proj, h, h, true);
  }
  t.add(p + "layer_scale1.lambda1", {h});
  blocks::norm(t, p + "norm2", h, true);
  if (swiglu) {  // weights_in holds the gate and the value halves
    blocks::linear(t, p + "mlp.weights_in", h, 2 * ffn, true);
    blocks::linear(t, p + "mlp.weights_out", ffn, h, true);
  } else {
    blocks::linear(t, p + "mlp.fc1", h, ffn, true);
    blocks::linear(t, p + "mlp.fc2", ffn, h, true);
  }
  t.add(p + "layer_scale2.lambda1", {h});
}

std::span<const FamilyBuilder> vision_encoders() {
  return kVisionEncoderFamilies;
}

}  // namespace ma::families
