// CLIP's and SigLIP's towers as models of their own (CLIPVisionModel, CLIPTextModelWithProjection,
// SiglipVisionModel, Siglip2VisionModel ...): the tower config is config.json itself. transformers builds the
// base tower classes flat (embeddings, encoder ... at the model's root) and strips the vision_model. /
// text_model. prefix their checkpoints keep (conversion_mapping.py: PrefixChange for clip_vision_model and
// clip_text_model, which siglip_*, siglip2_* and chinese_clip_vision_model share); the WithProjection
// classes keep the tower under vision_model. / text_model. beside their projection. The towers are
// contrastive.cpp's (multimodal_towers.h).
#include "model/blocks.h"
#include "model/families/clip_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// A vision config class's defaults, its model_type fixed: the class of the tower is the builder's, whatever
// else the config names.
VitDefaults clip_towers_vision_defaults(VitDefaults d, std::string_view model_type) {
  d.model_type = model_type;
  d.model_type_fixed = true;
  return d;
}

// CLIPVisionConfig's and CLIPTextConfig's projection width (their WithProjection classes' bias-free linear).
uint64_t clip_towers_projection(const ModelConfig& cfg) {
  return cfg.dim_or("projection_dim", 512);
}

}  // namespace

void build_clip_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CLIPVisionModel");
  const std::string task = supported_task(cfg, cls, "CLIPVision", {"Model", "ModelWithProjection"});
  t.arch.architecture = cls;
  const bool projection = task == "ModelWithProjection";
  const uint64_t width =
      vit_tower(cfg, projection ? "vision_model." : "",
                clip_towers_vision_defaults(clip_vision_defaults(), "clip_vision_model"), t);
  if (projection)
    blocks::linear(t, "visual_projection", width, clip_towers_projection(cfg), false);
  else
    t.rename_on_disk("", "vision_model.");
}

void build_clip_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CLIPTextModel");
  const std::string task = supported_task(cfg, cls, "CLIPText", {"Model", "ModelWithProjection"});
  t.arch.architecture = cls;
  const bool projection = task == "ModelWithProjection";
  const uint64_t width = clip_text_tower(cfg, projection ? "text_model." : "", false, t);
  if (projection)
    blocks::linear(t, "text_projection", width, clip_towers_projection(cfg), false);
  else
    t.rename_on_disk("", "text_model.");
}

// SiglipVisionModel keeps the attention-pooling head unless the config sets vision_use_head false.
void build_siglip_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SiglipVisionModel");
  supported_task(cfg, cls, "SiglipVision", {"Model"});
  t.arch.architecture = cls;
  vit_tower(cfg, "", clip_towers_vision_defaults(siglip_vision_defaults(), "siglip_vision_model"), t);
  t.rename_on_disk("", "vision_model.");
}

void build_siglip_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SiglipTextModel");
  supported_task(cfg, cls, "SiglipText", {"Model"});
  t.arch.architecture = cls;
  clip_text_tower(cfg, "", true, t);
  t.rename_on_disk("", "text_model.");
}

// Siglip2VisionModel: SigLIP's layers and head behind the NaFlex patch embedding (a linear over flattened
// patches and a num_patches position table resized per image).
void build_siglip2_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Siglip2VisionModel");
  supported_task(cfg, cls, "Siglip2Vision", {"Model"});
  t.arch.architecture = cls;
  vit_tower(cfg, "", clip_towers_vision_defaults(siglip_vision_defaults(), "siglip2_vision_model"), t);
  t.rename_on_disk("", "vision_model.");
}

}  // namespace ma::families
