// A module's role inside its block (q, k, v, o, qkv, gate, up, down, router, ...), from the module's name
// alone (q_proj, query, wq, c_attn, w1, fc1, ...); a name no family spells differently is its own role.
#pragma once
#include <string>
#include <string_view>

namespace ma::placement {

std::string role_of(std::string_view module);

}  // namespace ma::placement
