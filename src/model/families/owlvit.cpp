// OWL-ViT and OWLv2 (google/owlvit-*, google/owlv2-*): open-vocabulary detectors on CLIP. OwlViTModel is
// CLIPModel with OWL's defaults (a 16-token text tower; 768 x 768 images in 32-pixel patches, OWLv2's
// 960 x 960 in 16-pixel ones) and the pre-norm spelled pre_layernorm. The detector keeps every patch token:
// a class head maps each to the text width (plus a per-token logit shift and scale), a box head regresses
// four coordinates, OWLv2 adds an objectness head of the box head's shape, and a LayerNorm precedes them.
#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/clip_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

struct OwlKind {
  std::string_view family;        // class prefix: "OwlViT", "Owlv2"
  std::string_view attribute;     // the detector's attribute for the contrastive model: "owlvit", "owlv2"
  uint64_t image = 0, patch = 0;  // the vision config class's defaults
  bool objectness = false;        // OWLv2's objectness head
};

// OwlViTBoxPredictionHead: two width x width linears (GELU between) and one to `out` values per token.
void owl_box_head(ModelTemplate& t, const std::string& p, uint64_t width, uint64_t out) {
  blocks::linear(t, p + "dense0", width, width, true);
  blocks::linear(t, p + "dense1", width, width, true);
  blocks::linear(t, p + "dense2", width, out, true);
}

void owl_model(const ModelConfig& cfg, ModelTemplate& t, const OwlKind& k) {
  const std::string cls = architecture_of(cfg, std::string(k.family) + "Model");
  const std::string task = supported_task(cfg, cls, k.family, {"Model", "ForObjectDetection"});
  const std::string root = task == "Model" ? "" : std::string(k.attribute) + ".";
  t.add(root + "logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  // OwlViTTextConfig / Owlv2TextConfig: CLIPTextConfig's defaults but 16 positions.
  const uint64_t text = clip_text_tower(sub_or_empty(cfg, "text_config"), root + "text_model.", false, t, 16);
  ClipLikeVision d;
  d.image = k.image;
  d.patch = k.patch;
  ClipLikeVision v = read_clip_like_vision(sub_or_empty(cfg, "vision_config"), d);
  v.pre_norm = "pre_layernorm";
  clip_like_vision_tower(t, root + "vision_model.", v);
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  blocks::linear(t, root + "visual_projection", v.hidden, projection, false);
  blocks::linear(t, root + "text_projection", text, projection, false);
  t.arch.architecture = cls;
  if (task == "Model") return;
  // OwlViTClassPredictionHead: patch tokens to the text width, and a scalar shift and scale per token.
  blocks::linear(t, "class_head.dense0", v.hidden, text, true);
  blocks::linear(t, "class_head.logit_shift", v.hidden, 1, true);
  blocks::linear(t, "class_head.logit_scale", v.hidden, 1, true);
  owl_box_head(t, "box_head.", v.hidden, 4);
  if (k.objectness) owl_box_head(t, "objectness_head.", v.hidden, 1);
  blocks::norm(t, "layer_norm", v.hidden, true);
}

}  // namespace

void build_owlvit(const ModelConfig& cfg, ModelTemplate& t) {
  owl_model(cfg, t, {.family = "OwlViT", .attribute = "owlvit", .image = 768, .patch = 32});
}

void build_owlv2(const ModelConfig& cfg, ModelTemplate& t) {
  owl_model(cfg, t, {.family = "Owlv2", .attribute = "owlv2", .image = 960, .patch = 16, .objectness = true});
}

}  // namespace ma::families
