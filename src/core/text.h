// Text from files, paths and servers made safe for a terminal line: valid UTF-8 is kept (a model directory
// named in Chinese prints as such), while invalid bytes and control characters (C0, DEL, C1: newlines, ANSI
// escapes) are shown as \xNN, so a hostile name can neither forge lines nor drive the terminal.
#pragma once
#include <string>
#include <string_view>

namespace ma {

std::string terminal_safe(std::string_view s);

}  // namespace ma
