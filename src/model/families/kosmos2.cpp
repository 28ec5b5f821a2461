// Kosmos-2 (microsoft/kosmos-2-patch14-224): a CLIP ViT-L/14 (Kosmos2VisionModel), an image-to-text
// projection that lets latent_query_num learned queries attend over the projected patches (and themselves),
// and a MAGNETO-style (sub-LN) decoder (kosmos_text.h) with an extra LayerNorm before each self-attention's
// output projection.
#include <string>

#include "model/families/clip_like_tower.h"
#include "model/families/encoders_common.h"
#include "model/families/kosmos_text.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vlm_classics.h"

namespace ma::families {
namespace {

// Kosmos2VisionConfig's defaults (a ViT-L/14 at 224 pixels).
constexpr ClipLikeVision kKosmos2Vision{.hidden = 1024,
                                        .intermediate = 4096,
                                        .layers = 24,
                                        .heads = 16,
                                        .channels = 3,
                                        .image = 224,
                                        .patch = 14};

}  // namespace

void build_kosmos2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Kosmos2ForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Kosmos2", {"ForConditionalGeneration", "Model"});
  const ModelConfig tc = sub_or_empty(cfg, "text_config");
  t.arch.architecture = cls;
  // Kosmos2TextConfig's defaults.
  read_kosmos_text(
      cfg, tc, {.vocab = 65037, .positions = 2048, .embed = 2048, .layers = 24, .ffn = 8192, .heads = 32}, t);
  const ClipLikeVision v = read_clip_like_vision(sub_or_empty(cfg, "vision_config"), kKosmos2Vision);
  kosmos_text_model(t, {.cross_attention = tc.flag_or("add_cross_attention", false),
                        .lm_head = task == "ForConditionalGeneration"});
  clip_like_vision_tower(t, "vision_model.model.", v);
  kosmos_image_to_text_projection(t, cfg.dim_or("latent_query_num", 64), v.hidden);
}

}  // namespace ma::families
