// The ViT relatives' group table: BEiT, data2vec-vision, ViT-MAE, ViT-MSN, I-JEPA, DINOv2 with registers,
// DPT, YOLOS, VideoMAE, ViViT, TimeSformer.
#include "model/families/vit_relatives.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVitRelativeFamilies{
    FamilyBuilder{"beit", build_beit},
    FamilyBuilder{"data2vec-vision", build_data2vec_vision},
    FamilyBuilder{"vit_mae", build_vit_mae},
    FamilyBuilder{"vit_msn", build_vit_msn},
    FamilyBuilder{"ijepa", build_ijepa},
    FamilyBuilder{"dinov2_with_registers", build_dinov2_with_registers},
    FamilyBuilder{"dpt", build_dpt},
    FamilyBuilder{"yolos", build_yolos},
    FamilyBuilder{"videomae", build_videomae},
    FamilyBuilder{"vivit", build_vivit},
    FamilyBuilder{"timesformer", build_timesformer},
};

}  // namespace

std::span<const FamilyBuilder> vit_relatives() {
  return kVitRelativeFamilies;
}

}  // namespace ma::families
