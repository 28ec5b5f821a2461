// Group vlm_2026: the model_types of vlm_2026.h's builders.
#include "model/families/vlm_2026.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVlm2026Families{
    FamilyBuilder{"step3p7", build_step3p7},
    FamilyBuilder{"muse_glimmer", build_muse_glimmer},
    FamilyBuilder{"muse_glimmer_text", build_muse_glimmer_text},
    FamilyBuilder{"cosmos3_edge", build_cosmos3_edge},
    FamilyBuilder{"cosmos3_edge_text", build_cosmos3_edge_text},
    FamilyBuilder{"cosmos3_edge_vision", build_cosmos3_edge_vision},
    FamilyBuilder{"video_llama_3", build_video_llama_3},
    FamilyBuilder{"video_llama_3_vision", build_video_llama_3_vision},
};

}  // namespace

std::span<const FamilyBuilder> vlm_2026() {
  return kVlm2026Families;
}

}  // namespace ma::families
