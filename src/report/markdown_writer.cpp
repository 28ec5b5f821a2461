#include "report/markdown_writer.h"

#include <cctype>

namespace ma {

namespace {

// Text with what Markdown viewers would read as HTML written as entities, outside `code spans` (whose text is
// shown as it is): a model named <img onerror=...> must show as text, as the HTML export shows it. Only a <
// that could open a tag (a letter, /, ! or ? follows) and an & that could start an entity (a letter or #
// follows) are escaped, so "eta < 1" and "R & D" stay as they read. With `in_table`, | is escaped (inside
// code spans too, as GFM tables ask) and a newline is a <br>.
std::string markdown_text(std::string_view s, bool in_table) {
  auto starts_markup = [&](size_t i, std::string_view also) {
    if (i + 1 >= s.size()) return false;
    const unsigned char next = static_cast<unsigned char>(s[i + 1]);
    return std::isalpha(next) || also.find(static_cast<char>(next)) != std::string_view::npos;
  };
  std::string out;
  bool in_code = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '`') in_code = !in_code;
    if (in_table && c == '|')
      out += "\\|";
    else if (in_table && c == '\n')
      out += "<br>";
    else if (!in_code && c == '<' && starts_markup(i, "/!?"))
      out += "&lt;";
    else if (!in_code && c == '&' && starts_markup(i, "#"))
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string markdown_cell(std::string_view s) {
  return markdown_text(s, true);
}

void MarkdownWriter::heading(int level, std::string_view title) {
  if (!out_.empty()) out_ += '\n';
  out_.append(static_cast<size_t>(level), '#');
  out_ += ' ';
  out_ += markdown_text(title, false);
  out_ += "\n\n";
}

void MarkdownWriter::paragraph(std::string_view text) {
  out_ += markdown_text(text, false);
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
