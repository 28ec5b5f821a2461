#include "report/markdown_writer.h"

#include <cctype>

namespace ma {

namespace {

// The index just past the code span a run of backticks at `i` opens (its closing run of the same length), or
// npos: a run nothing closes is text (CommonMark), and so is one after a backslash.
size_t code_span_end(std::string_view s, size_t i) {
  if (i > 0 && s[i - 1] == '\\') return std::string_view::npos;
  auto run_at = [&](size_t at) {
    size_t n = 0;
    while (at + n < s.size() && s[at + n] == '`') ++n;
    return n;
  };
  const size_t run = run_at(i);
  for (size_t j = i + run; j < s.size();) {
    if (s[j] != '`') {
      ++j;
      continue;
    }
    const size_t k = run_at(j);
    if (k == run) return j + k;
    j += k;
  }
  return std::string_view::npos;
}

// Text with what Markdown viewers would read as HTML written as entities, outside real `code spans` (whose
// text is shown as it is; a lone backtick opens none, so "x`<img ...>" is escaped): a model named
// <img onerror=...> must show as text, as the HTML export shows it. Only a < that could open a tag (a letter,
// /, ! or ? follows) and an & that could start an entity (a letter or # follows) are escaped, so "eta < 1"
// and "R & D" stay as they read. With `in_table`, | is escaped (inside code spans too, as GFM tables ask) and
// a newline is a <br>.
std::string markdown_text(std::string_view s, bool in_table) {
  auto starts_markup = [&](size_t i, std::string_view also) {
    if (i + 1 >= s.size()) return false;
    const unsigned char next = static_cast<unsigned char>(s[i + 1]);
    return std::isalpha(next) || also.find(static_cast<char>(next)) != std::string_view::npos;
  };
  std::string out;
  auto table_char = [&](char c) {
    if (in_table && c == '|')
      out += "\\|";
    else if (in_table && c == '\n')
      out += "<br>";
    else
      return false;
    return true;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '`') {
      const size_t end = code_span_end(s, i);
      size_t stop = end;
      if (end == std::string_view::npos) {  // an unclosed run: its backticks are text
        stop = i;
        while (stop < s.size() && s[stop] == '`') ++stop;
      }
      for (; i < stop; ++i)
        if (!table_char(s[i])) out += s[i];
      --i;
      continue;
    }
    if (table_char(c)) continue;
    if (c == '<' && starts_markup(i, "/!?"))
      out += "&lt;";
    else if (c == '&' && starts_markup(i, "#"))
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
