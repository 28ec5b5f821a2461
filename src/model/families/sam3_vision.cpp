// SAM 3's image encoder (transformers' Sam3VisionModel): a plain ViT (Sam3ViTModel, 32 layers 1,024 wide at
// SAM 3's defaults) whose layers attend inside 24 x 24 windows but for every eighth, with 2-D rotary
// positions (buffers, not parameters) on top of a learned table of the 336-pixel pretraining grid that is
// tiled over the 1,008-pixel input; then a ViTDet-style simple FPN: one level per scale factor, upsampled by
// transposed convolutions (4x, 2x), kept (1x) or max-pooled (0.5x), each projected by a 1 x 1 and a 3 x 3
// convolution to fpn_hidden_size. Its sine position encoding has no weights.
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam3.h"
#include "model/families/segment_anything.h"

namespace ma::families {
namespace {

// One Sam3FPNLayer under `p` for `scale`: its scale_layers (a GELU or max-pool between them holds no
// weights but keeps its index), then proj1 and proj2.
void sam3_fpn_level(const ModelConfig& v, ModelTemplate& t, const std::string& p, uint64_t in, uint64_t fpn,
                    double scale) {
  uint64_t width = in;
  if (scale == 4.0) {
    sam_upscale_conv(t, p + "scale_layers.0", in, in / 2);
    sam_upscale_conv(t, p + "scale_layers.2", in / 2, in / 4);  // scale_layers.1 is the GELU
    width = in / 4;
  } else if (scale == 2.0) {
    sam_upscale_conv(t, p + "scale_layers.0", in, in / 2);
    width = in / 2;
  } else if (scale != 1.0 && scale != 0.5) {  // 0.5: a max-pool, no weights
    // Sam3FPNLayer raises NotImplementedError for any other factor.
    v.fail("scale_factors", "may only hold 4.0, 2.0, 1.0 and 0.5 (Sam3FPNLayer builds no other)");
  }
  blocks::conv2d(t, p + "proj1", width, fpn, 1);
  blocks::conv2d(t, p + "proj2", fpn, fpn, 3);
}

}  // namespace

std::vector<double> sam3_scale_factors(const ModelConfig& v) {
  const json::Value* raw = v.raw("scale_factors");
  if (raw == nullptr || raw->is_null()) return {4.0, 2.0, 1.0, 0.5};  // Sam3VisionConfig's default
  if (!raw->is_array()) v.fail("scale_factors", "must list the FPN levels' scale factors");
  std::vector<double> scales;
  for (const json::Value& x : raw->items()) {
    if (!x.is_number()) v.fail("scale_factors", "must list numbers");
    scales.push_back(x.as_double());
  }
  return scales;
}

uint64_t sam3_vit_width(const ModelConfig& b) {
  return b.dim_or("hidden_size", 1024);
}

uint64_t sam3_vit(const ModelConfig& b, const std::string& p, ModelTemplate& t) {
  // Sam3ViTConfig's defaults are SAM 3's (facebook/sam3).
  const uint64_t h = sam3_vit_width(b), inter = b.dim_or("intermediate_size", 4736);
  const uint64_t layers = b.layers_or("num_hidden_layers", 32), heads = b.dim_or("num_attention_heads", 16);
  const uint64_t channels = b.dim_or("num_channels", 3);
  const auto patch = vit_pair(b, "patch_size", 14);
  const auto pretrain = vit_pair(b, "pretrain_image_size", 336);
  const auto image = vit_pair(b, "image_size", 1008);
  // Sam3ViTRotaryEmbedding splits each head axially in four: it raises unless hidden_size //
  // num_attention_heads is a multiple of 4.
  if ((h / heads) % 4 != 0 || h / heads == 0)
    b.fail("num_attention_heads", "must leave heads of a multiple of 4 features (hidden_size " +
                                      std::to_string(h) + "), which the 2-D rotary embedding splits in four");
  // A global layer's rotary scale divides by the patch grid, window_size / (image_size // patch_size).
  if (image.first < patch.first || image.second < patch.second)
    b.fail("image_size", "must hold at least one patch (patch_size)");
  if (pretrain.first < patch.first || pretrain.second < patch.second)
    b.fail("pretrain_image_size", "must hold at least one patch (patch_size)");
  const uint64_t positions = (pretrain.first / patch.first) * (pretrain.second / patch.second);

  // Sam3ViTEmbeddings' own position table comes before its patch convolution.
  t.add(p + "embeddings.position_embeddings", {1, positions, h});
  t.add(p + "embeddings.patch_embeddings.projection.weight", {h, channels, patch.first, patch.second});
  blocks::norm(t, p + "layer_norm", h, true);  // before the layers, not after them
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    blocks::norm(t, l + "layer_norm1", h, true);
    sam_two_way_attention(t, l + "attention.", h, h, "o_proj");  // biased q, k, v, o
    blocks::norm(t, l + "layer_norm2", h, true);
    blocks::linear(t, l + "mlp.fc1", h, inter, true);
    blocks::linear(t, l + "mlp.fc2", inter, h, true);
  }
  record_vision_tower(t, p + "layers", h, layers, heads, h / heads, inter, patch.first, image.first);
  return h;
}

uint64_t sam3_vision(const ModelConfig& v, const std::string& p, ModelTemplate& t) {
  // Sam3VisionModel builds AutoModel.from_config(backbone_config): only the SAM 3 ViT is a backbone here.
  const ModelConfig backbone = sub_or_empty(v, "backbone_config");
  if (const std::string type = backbone.string_or("model_type", "sam3_vit_model"); type != "sam3_vit_model")
    unsupported(v, "SAM 3 with the backbone " + printable(type) + " (" + backbone.path() + ".model_type)");
  sam3_vit(backbone, p + "backbone.", t);
  return sam3_vision_neck(v, p + "neck.", t);
}

uint64_t sam3_vision_neck(const ModelConfig& v, const std::string& p, ModelTemplate& t) {
  sam3_fpn_levels(v, sam3_scale_factors(v), p + "fpn_layers.", t);
  return v.dim_or("fpn_hidden_size", 256);
}

void sam3_fpn_levels(const ModelConfig& v, const std::vector<double>& scales, const std::string& p,
                     ModelTemplate& t) {
  // Sam3FPNLayer reads backbone_config.hidden_size, whether or not the backbone is built beside it.
  const uint64_t in = sam3_vit_width(sub_or_empty(v, "backbone_config"));
  const uint64_t fpn = v.dim_or("fpn_hidden_size", 256);
  for (size_t i = 0; i < scales.size(); ++i)
    sam3_fpn_level(v, t, p + std::to_string(i) + ".", in, fpn, scales[i]);
}

void build_sam3_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Sam3VisionModel");
  sam3_vision(cfg, "", t);
  standalone_tower_dims(t, StackRole::Vision);
}

void build_sam3_vit_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Sam3ViTModel");
  sam3_vit(cfg, "", t);
  standalone_tower_dims(t, StackRole::Vision);
}

}  // namespace ma::families
