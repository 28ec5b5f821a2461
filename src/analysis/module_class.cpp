#include "analysis/module_class.h"

namespace ma {

std::string_view module_class_name(ModuleClass c) {
  static constexpr std::string_view kNames[] = {
      "embedding", "q_proj", "k_proj", "v_proj", "o_proj",           "qkv_proj", "attention", "mlp",
      "moe",       "norm",   "output", "mamba",  "linear_attention", "vision",   "other"};
  return kNames[static_cast<size_t>(c)];
}

ModuleClass module_class(Block block, std::string_view role) {
  switch (block) {
    case Block::Embedding:
      return ModuleClass::Embedding;
    case Block::LmHead:
      return ModuleClass::Output;
    case Block::Norm:
      return ModuleClass::Norm;
    case Block::Attention:
    case Block::CrossAttention:
      if (role == "q") return ModuleClass::QProj;
      if (role == "k") return ModuleClass::KProj;
      if (role == "v") return ModuleClass::VProj;
      if (role == "o") return ModuleClass::OProj;
      if (role == "qkv") return ModuleClass::QkvProj;
      if (role.find("norm") != std::string_view::npos) return ModuleClass::Norm;
      return ModuleClass::Attention;
    case Block::Mlp:
      return ModuleClass::Mlp;
    case Block::MoeExpert:
    case Block::MoeRouter:
    case Block::SharedExpert:
      return ModuleClass::Moe;
    case Block::Mamba:
      return ModuleClass::Mamba;
    case Block::LinearAttention:
      return ModuleClass::LinearAttention;
    case Block::Vision:
    case Block::VisionProjector:
    case Block::Audio:
      return ModuleClass::Vision;
    default:
      return role == "embedding-projection" ? ModuleClass::Embedding : ModuleClass::Other;
  }
}

}  // namespace ma
