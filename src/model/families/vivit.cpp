// ViViT (VivitModel, VivitForVideoClassification): modular_vivit.py builds ViTModel's transformers 5 modules
// (layers.N with q/k/v/o_proj and mlp.fc1/fc2; Hub checkpoints keep transformers 4's encoder.layer.N names)
// over tubelet embeddings: a Conv3d of kernel tubelet_size [frames, height, width], a [CLS] token and a
// learned position per tubelet. VivitConfig's defaults are google/vivit-b-16x2-kinetics400's (32 frames of
// 224 pixels in 2 x 16 x 16 tubelets).
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {

void build_vivit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VivitModel");
  const std::string task = supported_task(cfg, cls, "Vivit", {"Model", "ForVideoClassification"});
  const std::string prefix = task == "Model" ? "" : "vivit.";
  TextEncoderDims d = vit_base_dims(cfg);
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 224);
  const std::vector<uint64_t> tubelet = cfg.dims_or("tubelet_size", {2, 16, 16});
  if (tubelet.size() != 3) cfg.fail("tubelet_size", "must be [frames, height, width]");
  const uint64_t frames = cfg.dim_or("num_frames", 32);
  if (tubelet[0] > frames || tubelet[1] > image_h || tubelet[2] > image_w)
    cfg.fail("tubelet_size", "must not exceed [num_frames, image height, image width]");
  d.max_positions = (frames / tubelet[0]) * (image_h / tubelet[1]) * (image_w / tubelet[2]) + 1;
  fill_encoder_record(t, cls, d);
  const uint64_t h = d.layer.hidden;
  // VivitEmbeddings deletes ViTEmbeddings' mask_token; its own parameters precede the tubelet projection.
  t.add(prefix + "embeddings.cls_token", {1, 1, h});
  t.add(prefix + "embeddings.position_embeddings", {1, d.max_positions, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight",
        {h, cfg.dim_or("num_channels", 3), tubelet[0], tubelet[1], tubelet[2]});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  vit_encoder(t, prefix, d, tubelet[1], image_h);
  if (task == "Model") {  // ViTPooler; VivitForVideoClassification builds its VivitModel without one
    blocks::linear(t, "pooler.dense", h, cfg.dim_or("pooler_output_size", h), true);
    return;
  }
  if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", h, labels, true);
}

}  // namespace ma::families
