// Text from files, paths and servers made safe for a terminal line: valid UTF-8 is kept (a model directory
// named in Chinese prints as such), while invalid bytes and control characters (C0, DEL, C1: newlines, ANSI
// escapes) are shown as \xNN, so a hostile name can neither forge lines nor drive the terminal.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ma {

std::string terminal_safe(std::string_view s);

// terminal_safe for text of several lines: each line made safe, the line breaks kept. What the report writers
// apply to everything they print, since a config's names and values (architectures, hidden_act, a
// quant_method) are untrusted: an OSC 52 sequence in one would otherwise set the user's clipboard.
std::string terminal_safe_lines(std::string_view s);

// True when terminal_safe leaves `s` as it is: valid UTF-8 without control characters. What a tensor name
// must be to be printed, and written as JSON, unchanged.
bool is_plain_text(std::string_view s);

// `s` with ASCII letters in lower case: names users type in any case ("H100", "GiB").
std::string ascii_lower(std::string_view s);

// "a", "a and b", "a, b and c".
std::string join_with_and(const std::vector<std::string>& items);

// The first `shown` items, then how many more: "a, b, c and 4 more". A message naming files stays one line.
std::string first_and_more(const std::vector<std::string>& items, size_t shown);

}  // namespace ma
