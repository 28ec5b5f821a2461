// EdgeTAM (model_type edgetam: EdgeTamModel; edgetam_vision_model: EdgeTamVisionModel; edgetam_video:
// EdgeTamVideoModel, Sam2VideoModel's counterpart): Sam2Model with a
// timm RepViT in place of Hiera (EdgeTamVisionConfig's backbone_config is a timm_wrapper config naming
// timm/repvit_m1.dist_in1k). transformers builds that backbone with timm.create_model from the architecture's
// name, so its parameters are timm's model definition, not anything config.json spells; refused, as DETR's
// named timm backbones are that detr_backbone.cpp does not model.
#include <string>

#include "core/error.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam2.h"

namespace ma::families {
namespace {

[[noreturn]] void edgetam_refuse_timm_backbone(const ModelConfig& cfg, const ModelConfig& vision) {
  const ModelConfig backbone = sub_or_empty(vision, "backbone_config");
  // EdgeTamVisionConfig loads timm/repvit_m1.dist_in1k's config when backbone_config is absent.
  const std::string name = backbone.string_or("architecture", "repvit_m1.dist_in1k");
  unsupported(cfg, "EdgeTAM with the timm backbone " + printable(name) + " (" +
                       (backbone.path().empty() ? std::string("backbone_config") : backbone.path()) +
                       ".architecture), whose parameters config.json does not spell");
}

}  // namespace

void build_edgetam(const ModelConfig& cfg, ModelTemplate&) {
  edgetam_refuse_timm_backbone(cfg, sub_or_empty(cfg, "vision_config"));
}

void build_edgetam_vision_model(const ModelConfig& cfg, ModelTemplate&) {
  edgetam_refuse_timm_backbone(cfg, cfg);
}

void build_edgetam_video(const ModelConfig& cfg, ModelTemplate&) {
  edgetam_refuse_timm_backbone(cfg, sub_or_empty(cfg, "vision_config"));
}

}  // namespace ma::families
