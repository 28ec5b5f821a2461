// What a user most likely meant by a name that matches none: the nearest of the known names by edit distance,
// as git and cargo suggest for a mistyped command ("--jsn" -> "--json").
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

// Edits that turn `a` into `b`: insertions, deletions, substitutions and swaps of two neighbouring characters
// (the optimal-string-alignment distance: "--jsno" is one edit from "--json", as a typist makes it).
size_t edit_distance(std::string_view a, std::string_view b);

// The name of `names` nearest `typed`, when it is near enough to be a typo of it: at most one edit per three
// whole characters of `typed` (none for a name of two: "-x" is no typo of "-q"). The first of equally near
// names wins. nullopt when none is that near.
std::optional<std::string_view> nearest_name(std::string_view typed,
                                             const std::vector<std::string_view>& names);

// How an error names it: " (did you mean --json?)", "" for none.
std::string did_you_mean(std::optional<std::string_view> name);

}  // namespace ma
