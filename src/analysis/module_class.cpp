#include "analysis/module_class.h"

namespace ma {

std::string module_class(std::string_view block, std::string_view role) {
  if (block == "embedding" || block == "embedding-projection") return "embedding";
  if (block == "lm-head") return "output";
  if (block == "norm") return "norm";
  if (block == "attention" || block == "cross-attention") {
    if (role == "q") return "q_proj";
    if (role == "k") return "k_proj";
    if (role == "v") return "v_proj";
    if (role == "o") return "o_proj";
    if (role == "qkv") return "qkv_proj";
    if (role.find("norm") != std::string_view::npos) return "norm";
    return "attention";
  }
  if (block == "mlp") return "mlp";
  if (block == "moe-expert" || block == "moe-router" || block == "shared-expert") return "moe";
  if (block == "mamba") return "mamba";
  if (block == "linear-attention") return "linear_attention";
  if (block == "vision" || block == "vision-projector") return "vision";
  return "other";
}

}  // namespace ma
