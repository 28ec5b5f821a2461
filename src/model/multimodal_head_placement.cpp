// Placement rules of the heads and fusion modules that multimodal and retrieval models keep at their root,
// under names no generic head rule knows: ViLT's, BROS', the ColVision retrievers', FLAVA's and
// BridgeTower's heads, the projections between their towers, BridgeTower's link towers and FLAVA's image
// codebook.
#include "model/multimodal_head_placement.h"

#include <array>
#include <string>
#include <utility>

#include "model/tensor_name_tables.h"

namespace ma::placement {

bool place_multimodal_head(const Parts& parts, TensorPlacement& pl) {
  auto set = [&pl](Block block, std::string role) {
    pl.block = block;
    pl.role = std::move(role);
  };
  // Heads at the root that name no generic head module: ViLT's masked-LM head (mlm_score: its bias, transform
  // and decoder) and retrieval score (rank_output); BROS' SPADE heads (initial_token_classifier and the
  // relation extractors subsequent_token_classifier, entity_linker); the ColVision retrievers' projection of
  // every token into the multi-vector space (ColPali's, ColQwen2's embedding_proj_layer, not an embedding).
  if (in(parts.front(), std::array<std::string_view, 6>{
                            "mlm_score", "rank_output", "initial_token_classifier",
                            "subsequent_token_classifier", "entity_linker", "embedding_proj_layer"})) {
    pl.layer.reset();  // initial_token_classifier.N: an index into a Sequential, not a layer
    pl.stack_length = 0;
    set(Block::LmHead, parts.front() == "embedding_proj_layer" ? "projection" : "lm-head");
    return true;
  }
  // FLAVA's and BridgeTower's heads at the root: FLAVA's masked-image/-text and matching heads (mim_head,
  // mlm_head, mmm_image_head, mmm_text_head, itm_head; BLIP's itm_head, a Linear), BridgeTower's matching
  // score (itm_score) and contrastive projections (itc_*_head); their cross-modal poolers; FLAVA's image
  // projection into the contrastive space (beside text_projection, under flava.).
  if (in(parts.front(),
         std::array<std::string_view, 8>{"mim_head", "mlm_head", "itm_head", "mmm_image_head",
                                         "mmm_text_head", "itm_score", "itc_text_head", "itc_image_head"}) ||
      parts.front() == "itc_cross_modal_head" ||
      (parts.size() >= 3 &&
       in(parts[parts.size() - 3],
          std::array<std::string_view, 2>{"cross_modal_image_pooler", "cross_modal_text_pooler"})) ||
      (parts.size() == 2 && parts[0] == "image_projection") ||
      (parts.size() == 3 && parts[0] == "flava" && parts[1] == "image_projection")) {
    const bool projection = parts.front().starts_with("itc_") || parts.front() == "image_projection" ||
                            (parts.size() >= 2 && parts[1] == "image_projection");
    set(Block::LmHead, projection ? "projection" : "lm-head");
    return true;
  }
  // Projections of each encoder's states into the width of the fusion layers over both (FLAVA's
  // image_to_mm_projection / text_to_mm_projection, BridgeTower's cross_modal_*_transform, one per layer
  // when not shared): projectors between towers.
  if (any_part_in(parts, std::array<std::string_view, 4>{"image_to_mm_projection", "text_to_mm_projection",
                                                         "cross_modal_text_transform",
                                                         "cross_modal_image_transform"})) {
    pl.layer.reset();  // cross_modal_*_transform.N: one per cross-modal layer, not a layer of its own
    pl.stack_length = 0;
    set(Block::VisionProjector, "projector");
    return true;
  }
  // BridgeTower's link towers mix an encoder's layer into the cross-modal stream and normalise the sum: their
  // mixing scalars (scaled_add's scaled_factor, interpolate's beta) belong with their LayerNorm.
  if (any_part_in(parts, std::array<std::string_view, 2>{"cross_modal_text_link_tower",
                                                         "cross_modal_image_link_tower"})) {
    set(Block::Norm, parts.back() == "weight" || parts.back() == "bias" ? "norm" : "link-scale");
    return true;
  }
  // TVP's learned prompts, at the root or under its base model (model.): the ten text_prompt vectors before
  // the text tokens, and the visual prompter's frame pads (pad_up, pad_down, pad_left, pad_right), added to
  // the frames before its vision model; and its video grounding head.
  const size_t tvp_base = parts.size() >= 2 && parts[0] == "model" ? 1 : 0;
  if (parts.size() == tvp_base + 1 && parts[tvp_base] == "text_prompt") {
    set(Block::Embedding, "prompt-embedding");
    return true;
  }
  if (parts.size() == tvp_base + 2 && parts[tvp_base] == "visual_prompter") {
    set(Block::Vision, "visual-prompt");
    return true;
  }
  if (parts.front() == "video_grounding_head") {
    set(Block::LmHead, "lm-head");
    return true;
  }
  // LayoutLMv2's visual_proj (at the root of LayoutLMv2Model or under layoutlmv2.) maps the pooled features
  // of its detectron2 backbone to the text's width: the projector between the tower and the encoder.
  if (parts.size() >= 2 && parts[parts.size() - 2] == "visual_proj") {
    set(Block::VisionProjector, "projector");
    return true;
  }
  // A text or speech encoder's projection of its pooled state into the space it shares with another tower,
  // a bare `projection` at the encoder's root: SAM 3 LiteText's MobileCLIP text encoder (configured alone,
  // or as text_encoder), CLVP's text_encoder_model and speech_encoder_model. A patch embedding's projection
  // sits under its embeddings module instead.
  if (parts.size() >= 2 && parts[parts.size() - 2] == "projection" &&
      (parts.size() == 2 || (parts.size() == 3 && in(parts.front(), std::array<std::string_view, 3>{
                                                                        "text_encoder", "text_encoder_model",
                                                                        "speech_encoder_model"})))) {
    set(Block::LmHead, "projection");
    return true;
  }
  // FLAVA's image codebook (FlavaImageCodebook, DALL-E's encoder) turns pixels into the visual tokens masked
  // image modelling predicts: run on images only.
  if (parts.front() == "image_codebook") {
    set(Block::Vision, "codebook");
    return true;
  }
  return false;
}

}  // namespace ma::placement
