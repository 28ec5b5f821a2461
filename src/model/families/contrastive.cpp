// Contrastive image-text models: CLIP (and MetaCLIP 2, CLIP's modules renamed), SigLIP and SigLIP 2, a text
// transformer and a vision transformer side by side whose pooled outputs are compared (cosine similarity
// scaled by logit_scale; SigLIP adds logit_bias for its sigmoid loss). Nothing generates: the record's
// encoder is the text tower, the vision tower a stack beside it.
#include <array>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// CLIPModel: both towers' pooled outputs projected, bias-free, to projection_dim; one learned temperature
// (a 0-dimensional parameter). `vision`: the vision tower's defaults.
void clip_model(const ModelConfig& cfg, ModelTemplate& t, const VitDefaults& vision) {
  t.add("logit_scale", {});  // the model's own parameter, listed before its modules'
  const uint64_t text = clip_text_tower(sub_or_empty(cfg, "text_config"), "text_model.", false, t);
  const uint64_t width = vit_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", vision, t);
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  blocks::linear(t, "visual_projection", width, projection, false);
  blocks::linear(t, "text_projection", text, projection, false);
}

void build_clip(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = architecture_of(cfg, "CLIPModel");
  supported_task(cfg, t.arch.architecture, "CLIP", {"Model"});
  clip_model(cfg, t, clip_vision_defaults());
}

// MetaClip2Model (facebook/metaclip-2-worldwide-*): CLIPModel's modules and config defaults under MetaCLIP 2
// class names. MetaClip2Config rebuilds its vision_config as a CLIP vision config whatever model_type it
// names (metaclip_2_vision_model).
void build_metaclip_2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = architecture_of(cfg, "MetaClip2Model");
  supported_task(cfg, t.arch.architecture, "MetaClip2", {"Model"});
  VitDefaults vision = clip_vision_defaults();
  vision.model_type = "clip_vision_model";
  vision.model_type_fixed = true;
  clip_model(cfg, t, vision);
}

// SiglipModel: no projections (each tower ends in a head of its own), a scale and a bias on the logits.
void build_siglip(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = architecture_of(cfg, "SiglipModel");
  supported_task(cfg, t.arch.architecture, "Siglip", {"Model"});
  t.add("logit_scale", {1});
  t.add("logit_bias", {1});
  clip_text_tower(sub_or_empty(cfg, "text_config"), "text_model.", true, t);
  vit_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", siglip_vision_defaults(), t);
}

// Siglip2Model: SigLIP's towers and logits, the vision tower NaFlex's (multimodal_towers.h). SigLIP 2's
// fixed-resolution checkpoints (siglip2-base-patch16-224 ...) are published as model_type siglip.
void build_siglip2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = architecture_of(cfg, "Siglip2Model");
  supported_task(cfg, t.arch.architecture, "Siglip2", {"Model"});
  t.add("logit_scale", {1});
  t.add("logit_bias", {1});
  clip_text_tower(sub_or_empty(cfg, "text_config"), "text_model.", true, t);
  VitDefaults d = siglip_vision_defaults();
  d.model_type = "siglip2_vision_model";
  vit_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", d, t);
}

constexpr std::array kContrastiveFamilies{
    FamilyBuilder{"clip", build_clip},
    FamilyBuilder{"metaclip_2", build_metaclip_2},
    FamilyBuilder{"siglip", build_siglip},
    FamilyBuilder{"siglip2", build_siglip2},
};

}  // namespace

std::span<const FamilyBuilder> contrastive() {
  return kContrastiveFamilies;
}

}  // namespace ma::families
