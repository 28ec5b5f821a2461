// The bos, eos and pad ids config.json and generation_config.json give generate(), compared with the
// tokenizer's own tokens of those roles: where they name another token, generation starts, stops or pads
// with the wrong one (tiny-llama's config says bos 1, which is "</s>").
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "formats/token_lookup.h"
#include "formats/tokenizer.h"

namespace ma {

// The roles generate() takes an id for.
inline constexpr std::array<std::string_view, 3> kStatedRoles = {"bos", "eos", "pad"};

struct StatedIds {
  std::string_view file;
  std::array<std::vector<uint64_t>, kStatedRoles.size()> ids;  // per kStatedRoles; empty: not stated
};

// Both files, when present in `dir`. One that cannot be read is a problem (a line in `problems`) for the
// comparison only: transformers too loads a model whose generation config it cannot read.
std::vector<StatedIds> read_all_stated_ids(const std::filesystem::path& dir,
                                           std::vector<std::string>& problems);

// A warning for each role whose stated ids name another token than the tokenizer's (`tokens`, with the ids
// the look-ups resolved); files stating the same ids share one line.
void compare_stated_ids(const std::vector<StatedIds>& stated, const std::vector<SpecialToken>& tokens,
                        const TokenLookup& l, std::vector<std::string>& warnings);

}  // namespace ma
