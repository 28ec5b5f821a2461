// The grounding_dino group (family_groups.h) and its two detectors, GroundingDinoForObjectDetection and
// MMGroundingDinoForObjectDetection, over the model body of grounding_dino_body.cpp. A detector builds a
// contrastive class head (text-image dot products: Grounding DINO's holds no parameter, MM Grounding DINO's
// a scalar bias) and a box MLP per decoder layer, then sets both lists on its decoder, so state_dict lists
// them in the decoder first and again at the top level, where checkpoints store them.
//
// transformers 5 ties the box MLPs through _tied_weights_keys: bbox_embed.N to bbox_embed.0 (Grounding DINO
// only with decoder_bbox_embed_share, its default; MM Grounding DINO always, whatever its checkpoints hold),
// and the decoder's lists to the detector's. tie_weights applies those ties when the text config
// (get_text_config: text_config, a BertConfig) says tie_word_embeddings, true by default. Transformers 4
// built Grounding DINO's shared heads as one module listed decoder_layers times: the same count.
#include "model/families/grounding_dino.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

constexpr std::array kGroundingDinoFamilies{
    FamilyBuilder{"grounding-dino", build_grounding_dino},
    FamilyBuilder{"mm-grounding-dino", build_mm_grounding_dino},
};

// Whether tie_weights applies the detectors' _tied_weights_keys (see above).
bool grounding_dino_ties_applied(const ModelConfig& cfg) {
  return sub_or_empty(cfg, "text_config").flag_or("tie_word_embeddings", true);
}

// The detector's own class_embed and bbox_embed lists: the decoder's modules, listed again after the model
// (tied copies of the decoder's parameters, of their tie target when those are themselves tied).
void grounding_dino_top_level_heads(ModelTemplate& t) {
  const std::string decoder = "model.decoder.";
  const size_t end = t.tensors.size();
  for (size_t i = 0; i < end; ++i) {
    const std::string name = t.tensors[i].name;
    if (!name.starts_with(decoder + "class_embed.") && !name.starts_with(decoder + "bbox_embed.")) continue;
    const std::string target = t.tensors[i].tied_to.empty() ? name : t.tensors[i].tied_to;
    t.tie(name.substr(decoder.size()), target);
  }
}

void build_grounding_dino_family(const ModelConfig& cfg, ModelTemplate& t, const std::string& family,
                                 GroundingDinoVariant v) {
  const std::string cls = architecture_of(cfg, family + "Model");
  const std::string task = supported_task(cfg, cls, family, {"Model", "ForObjectDetection"});
  t.arch.architecture = cls;
  if (task == "Model") {
    grounding_dino_body(cfg, "", v, t);
    return;
  }
  v.detection = true;
  v.shared_boxes = v.shared_boxes && grounding_dino_ties_applied(cfg);
  const uint64_t layers = grounding_dino_body(cfg, "model.", v, t);
  grounding_dino_top_level_heads(t);
  // Checkpoints written with a head per layer (MM Grounding DINO's) still hold bbox_embed.N: loading ties it
  // to bbox_embed.0, so transformers keeps none of them.
  if (v.shared_boxes)
    for (uint64_t i = 1; i < layers; ++i)
      t.known_extras.push_back({"bbox_embed." + std::to_string(i) + ".",
                                "a per-layer box head transformers 5 ties to bbox_embed.0"});
}

}  // namespace

std::span<const FamilyBuilder> grounding_dino() {
  return kGroundingDinoFamilies;
}

void build_grounding_dino(const ModelConfig& cfg, ModelTemplate& t) {
  const bool share = cfg.flag_or("decoder_bbox_embed_share", true);
  // GroundingDinoConfig raises on this pair.
  if (cfg.flag_or("two_stage_bbox_embed_share", false) && !share)
    cfg.fail("two_stage_bbox_embed_share", "needs decoder_bbox_embed_share");
  build_grounding_dino_family(cfg, t, "GroundingDino",
                              {.mm = false, .detection = false, .shared_boxes = share});
}

void build_mm_grounding_dino(const ModelConfig& cfg, ModelTemplate& t) {
  build_grounding_dino_family(cfg, t, "MMGroundingDino",
                              {.mm = true, .detection = false, .shared_boxes = true});
}

}  // namespace ma::families
