// Where an export came from: the tool and its version, when (seed 002's "Analysis Date") and the command
// line that made it, written into every JSON export and the Markdown report, so that a file found later says
// how to make it again.
#pragma once
#include <string>
#include <vector>

#include "core/json_writer.h"

namespace ma {

struct RunInfo {
  std::string timestamp;     // ISO 8601 UTC
  std::string command_line;  // shell-quoted, the Hub token replaced by ***
};

// `args` without the program name, as one line a shell runs again: arguments with characters a shell
// would read quoted, the value of --token (and --token=…) replaced by "***" — exports are shared.
std::string command_line_text(const std::vector<std::string>& args);

// "modelanalyzer 0.1.0".
std::string tool_version_text();

// The line under a document's title: "**Analysis Date:** <time> · modelanalyzer 0.1.0 · `<command line>`"
// (DocumentWriter paragraph markup).
std::string run_info_paragraph(const RunInfo& r);

// Keys "analysis_timestamp", "tool_version", "command_line" into the object open in `w`.
void write_run_info(JsonWriter& w, const RunInfo& r);

}  // namespace ma
