// Seed 004's module classes (embedding, q_proj, k_proj, v_proj, o_proj, mlp, moe, norm, output, ...), derived
// from the layer map's block and role so that every family's naming maps to the same few classes.
#pragma once
#include <string>
#include <string_view>

namespace ma {

// One of: embedding, q_proj, k_proj, v_proj, o_proj, qkv_proj, attention (other attention projections, e.g.
// MLA's low-rank ones), mlp, moe, norm, output, mamba, linear_attention, vision, other.
std::string module_class(std::string_view block, std::string_view role);

}  // namespace ma
