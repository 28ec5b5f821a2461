// YOLOS (YolosModel, YolosForObjectDetection): a ViT whose modeling_yolos.py copy keeps transformers 4's
// layer modules, with detection tokens after the patches, positions for them too and, optionally, a
// position table added after every layer but the last (mid_position_embeddings); the detector reads the
// detection tokens with DETR's two MLP heads. YolosConfig's defaults are ViT-base's at 512 x 864 pixels with
// 100 detection tokens and mid-layer positions; hustvl/yolos-small and -tiny turn those off.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {
namespace {

// YolosMLPPredictionHead (DETR's): `layers` linears, hidden-wide but the last.
void yolos_mlp_head(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t out) {
  blocks::linear(t, p + ".layers.0", h, h, true);
  blocks::linear(t, p + ".layers.1", h, h, true);
  blocks::linear(t, p + ".layers.2", h, out, true);
}

}  // namespace

void build_yolos(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "YolosModel");
  const std::string task = supported_task(cfg, cls, "Yolos", {"Model", "ForObjectDetection"});
  const std::string prefix = task == "Model" ? "" : "vit.";
  TextEncoderDims d = vit_base_dims(cfg);
  // YolosEncoder reads image_size[0] * image_size[1] // patch_size**2 while it is built: a [height, width]
  // pair and an integer patch size only.
  const json::Value* image = cfg.raw("image_size");
  if (image && !image->is_null() && !image->is_array())
    cfg.fail("image_size", "must be [height, width]: YolosEncoder indexes it");
  if (const json::Value* patch = cfg.raw("patch_size"); patch && patch->is_array())
    cfg.fail("patch_size", "must be an integer: YolosEncoder squares it");
  const auto [image_h, image_w] =
      image && image->is_array() ? vit_pair(cfg, "image_size", 0) : std::pair<uint64_t, uint64_t>{512, 864};
  const uint64_t patch = cfg.dim_or("patch_size", 16);
  if (patch > image_h || patch > image_w) cfg.fail("patch_size", "must not exceed image_size");
  const uint64_t detection = cfg.dim_or("num_detection_tokens", 100);
  // YolosEmbeddings: [CLS], the patches, the detection tokens.
  d.max_positions = (image_h / patch) * (image_w / patch) + detection + 1;
  fill_encoder_record(t, cls, d);
  const uint64_t h = d.layer.hidden;
  t.add(prefix + "embeddings.cls_token", {1, 1, h});
  t.add(prefix + "embeddings.detection_tokens", {1, detection, h});
  t.add(prefix + "embeddings.position_embeddings", {1, d.max_positions, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight",
        {h, cfg.dim_or("num_channels", 3), patch, patch});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  // The encoder's own parameter precedes its layers. Its length divides the pixel count by patch_size**2
  // at once, unlike the embeddings' per-side division (the two differ when a side is not a multiple).
  if (cfg.flag_or("use_mid_position_embeddings", true)) {
    if (d.layers < 1) cfg.fail("num_hidden_layers", "must be at least 1 with use_mid_position_embeddings");
    t.add(prefix + "encoder.mid_position_embeddings",
          {d.layers - 1, 1, 1 + image_h * image_w / (patch * patch) + detection, h});
  }
  vit4_encoder(t, prefix + "encoder.layer", d.layers, d.layer, Vit4QkvBias::Linears);
  StackSpec& encoder = t.arch.stacks.back();
  encoder.patch_size = patch;
  encoder.image_size = image_h;
  blocks::norm(t, prefix + "layernorm", h, true);
  if (task == "Model") {
    blocks::linear(t, "pooler.dense", h, h, true);  // YolosModel(add_pooling_layer=True)
    return;
  }
  // One class more than num_labels: DETR's "no object".
  yolos_mlp_head(t, "class_labels_classifier", h, num_labels(cfg) + 1);
  yolos_mlp_head(t, "bbox_predictor", h, 4);
}

}  // namespace ma::families
