// SAM-HQ (model_type sam_hq: SamHQModel, syscv-community/sam-hq-vit-base, -large, -huge; sam_hq_vision_model:
// SamHQVisionModel). transformers builds SamModel's module tree unchanged (its vision encoder only also
// returns the global layers' outputs) and extends the mask decoder, after SAM's own modules, by the
// high-quality output token, its hypernetwork MLP and the global-local fusion: transposed convolutions that
// bring the first global ViT layer's features (vit_dim wide) and the image embedding up to the mask
// resolution, and two 3 x 3 convolutions refining the upscaled embedding.
#include <string>

#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/segment_anything.h"

namespace ma::families {
namespace {

// SamHQMaskDecoder's modules after SamMaskDecoder's, under mask_decoder., from the decoder config `d`.
void sam_hq_mask_decoder_extras(const ModelConfig& d, ModelTemplate& t) {
  const std::string p = "mask_decoder.";
  const uint64_t h = d.dim_or("hidden_size", 256);
  // SamHQMaskDecoderConfig's default vit_dim is ViT-B's width (768); the large and huge checkpoints set
  // 1024 and 1280. transformers does not check it against vision_config.hidden_size.
  const uint64_t vit = d.dim_or("vit_dim", 768);
  blocks::embedding(t, p + "hq_token.weight", 1, h);
  sam_feed_forward(t, p + "hq_mask_mlp.", h, h, h / 8, 3);
  // The ViT features and the image embedding each go up 4x through two transposed convolutions with a
  // channels-first LayerNorm between (compress_vit_*, encoder_*), ...
  sam_upscale_conv(t, p + "compress_vit_conv1", vit, h);
  blocks::norm(t, p + "compress_vit_norm", h, true);
  sam_upscale_conv(t, p + "compress_vit_conv2", h, h / 8);
  sam_upscale_conv(t, p + "encoder_conv1", h, h / 4);
  blocks::norm(t, p + "encoder_norm", h / 4, true);
  sam_upscale_conv(t, p + "encoder_conv2", h / 4, h / 8);
  // ... and two padded 3 x 3 convolutions refine SAM's upscaled embedding before the sum.
  blocks::conv2d(t, p + "mask_conv1", h / 8, h / 4, 3);
  blocks::norm(t, p + "mask_norm", h / 4, true);
  blocks::conv2d(t, p + "mask_conv2", h / 4, h / 8, 3);
}

}  // namespace

void build_sam_hq(const ModelConfig& cfg, ModelTemplate& t) {
  sam_model_modules(cfg, "SamHQModel", t);
  sam_hq_mask_decoder_extras(sub_or_empty(cfg, "mask_decoder_config"), t);
}

void build_sam_hq_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  sam_vision_model_modules(cfg, "SamHQVisionModel", t);
}

}  // namespace ma::families
