// Shell-style matching with '*' (any run of characters, '/' included, as fnmatch without FNM_PATHNAME and
// huggingface_hub's allow_patterns) and '?' (one character). Iterative with backtracking to the last star
// only: linear in practice and never exponential, whatever pattern an untrusted config carries.
#pragma once
#include <string_view>

namespace ma {

bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace ma
