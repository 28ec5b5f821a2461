// --verbose on every subcommand: what the program is doing, one line per stage and per HTTP exchange on
// stderr, each with the time since start ("modelanalyzer: [   12.3 ms] reading the config"). The commands
// say where they are; analysis code never prints (it is told nothing of this).
#pragma once
#include <string_view>

#include "hub/hub_settings.h"

namespace ma::cli {

// Switched on by detect_output for a --verbose command (never under --quiet).
void enable_trace(bool on);
bool trace_enabled();
// One stage line; nothing unless enabled.
void trace(std::string_view stage);
// Makes `settings` report each HTTP exchange as a trace line: method, URL without query, range, status,
// bytes and milliseconds (never a header, so never the token).
void trace_http(HubSettings& settings);

}  // namespace ma::cli
