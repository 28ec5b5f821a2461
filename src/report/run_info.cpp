#include "report/run_info.h"

#include <string_view>

namespace ma {
namespace {

bool shell_safe(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          std::string_view("_-./:@=,+%").find(c) != std::string_view::npos))
      return false;
  return true;
}

// POSIX single quotes; a quote inside becomes '\''.
std::string shell_quoted(std::string_view s) {
  if (shell_safe(s)) return std::string(s);
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string command_line_text(const std::vector<std::string>& args) {
  std::string line = "modelanalyzer";
  bool secret_next = false;
  for (const std::string& a : args) {
    line += ' ';
    if (secret_next) {
      line += "***";
      secret_next = false;
    } else if (a == "--token") {
      line += a;
      secret_next = true;
    } else if (a.rfind("--token=", 0) == 0) {
      line += "--token=***";
    } else {
      line += shell_quoted(a);
    }
  }
  return line;
}

std::string tool_version_text() {
  return "modelanalyzer " MA_VERSION;
}

std::string run_info_paragraph(const RunInfo& r) {
  return "**Analysis Date:** " + r.timestamp + " · " + tool_version_text() + " · `" + r.command_line + "`";
}

void write_run_info(JsonWriter& w, const RunInfo& r) {
  w.key("analysis_timestamp").value(r.timestamp);
  w.key("tool_version").value(tool_version_text());
  w.key("command_line").value(r.command_line);
}

}  // namespace ma
