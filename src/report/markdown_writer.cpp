#include "report/markdown_writer.h"

namespace ma {

std::string markdown_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += "<br>";
    else
      out += c;
  }
  return out;
}

void MarkdownWriter::heading(int level, std::string_view title) {
  if (!out_.empty()) out_ += '\n';
  out_.append(static_cast<size_t>(level), '#');
  out_ += ' ';
  out_ += title;
  out_ += "\n\n";
}

void MarkdownWriter::paragraph(std::string_view text) {
  out_ += text;
  out_ += "\n\n";
}

void MarkdownWriter::fields(const std::vector<std::pair<std::string, std::string>>& rows) {
  table({"Field", "Value"}, [&] {
    std::vector<std::vector<std::string>> r;
    for (const auto& [k, v] : rows) r.push_back({k, v});
    return r;
  }());
}

void MarkdownWriter::table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows) {
  auto line = [&](const std::vector<std::string>& cells) {
    out_ += '|';
    for (size_t c = 0; c < header.size(); ++c) {
      out_ += ' ';
      out_ += c < cells.size() ? markdown_cell(cells[c]) : std::string();
      out_ += " |";
    }
    out_ += '\n';
  };
  line(header);
  out_ += '|';
  for (size_t c = 0; c < header.size(); ++c) out_ += "---|";
  out_ += '\n';
  for (const auto& row : rows) line(row);
  out_ += '\n';
}

void MarkdownWriter::formula(std::string_view text) {
  out_ += "```\n";
  out_ += text;
  out_ += "\n```\n\n";
}

void MarkdownWriter::figure(std::string_view, std::string_view file, std::string_view caption) {
  if (file.empty()) return;
  out_ += "![";
  out_ += caption;
  out_ += "](";
  out_ += file;
  out_ += ")\n\nFigure: `";
  out_ += file;
  out_ += "` (";
  out_ += caption;
  out_ += ").\n\n";
}

}  // namespace ma
