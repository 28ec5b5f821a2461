// SAM 2's image encoder alone (model_type sam2_vision_model: Sam2VisionModel, its backbone and FPN neck at
// the root) and its Hiera backbone alone (sam2_hiera_det_model: Sam2HieraDetModel), their configs at the top
// level.
#include "model/families/sam2.h"

namespace ma::families {

void build_sam2_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  sam2_vision(cfg, "", "Sam2VisionModel", t);
}

void build_sam2_hiera_det_model(const ModelConfig& cfg, ModelTemplate& t) {
  sam2_hiera_det(cfg, "", "Sam2HieraDetModel", t);
}

}  // namespace ma::families
