#include "report/markdown_writer.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

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
std::string markdown_text(std::string_view text, bool in_table) {
  // Control characters escaped first (a Markdown file is read in terminals too: cat, less -R).
  const std::string safe = terminal_safe_lines(text);
  const std::string_view s = safe;
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

// A link destination in <...> (CommonMark): spaces and parentheses may stand in it as they are; <, > and
// the backslash are escaped, a line break (which no destination may hold) percent-encoded.
std::string link_destination(std::string_view file) {
  std::string out = "<";
  for (char c : file) {
    if (c == '<' || c == '>' || c == '\\') out += '\\';
    if (c == '\n' || c == '\r')
      out += c == '\n' ? "%0A" : "%0D";
    else
      out += c;
  }
  return out + ">";
}

// An image's alt text: brackets and backslashes escaped, so that a ] in a caption does not end it early
// (other markup inside alt text is shown as plain text anyway).
std::string alt_text(std::string_view caption) {
  std::string out;
  for (char c : caption) {
    if (c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// `text` as a code span: fenced by one backtick more than its longest run of them, and padded with a space
// where it starts or ends with one, so that a file name holding backticks shows whole.
std::string code_span(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

}  // namespace

std::string markdown_cell(std::string_view s) {
  return markdown_text(s, true);
}

std::string markdown_literal(std::string_view s) {
  static constexpr std::string_view kMarkup = "\\`*_[]~";
  std::string out;
  for (char c : s) {
    if (kMarkup.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_figure_path(const std::filesystem::path& figure, const std::filesystem::path& document) {
  namespace fs = std::filesystem;
  if (figure.empty() || figure == "-") return "";
  if (document.empty() || document == "-") return figure.generic_string();
  // Lexically, from the working directory: neither file need exist yet (both are written at the end).
  const fs::path from = fs::absolute(document).lexically_normal().parent_path();
  const fs::path relative = fs::absolute(figure).lexically_normal().lexically_relative(from);
  return relative.empty() ? figure.generic_string() : relative.generic_string();
}

std::string markdown_figures(const std::vector<MarkdownFigure>& figures,
                             const std::filesystem::path& document) {
  MarkdownWriter body;
  for (const MarkdownFigure& f : figures) body.figure("", markdown_figure_path(f.file, document), f.caption);
  std::string links = body.take();
  if (links.empty()) return "";
  // After the document's last block, as heading() would start it there.
  return "\n## Figures\n\n" + links;
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
  out_ += terminal_safe_lines(text);
  out_ += "\n```\n\n";
}

void MarkdownWriter::figure(std::string_view, std::string_view file, std::string_view caption) {
  if (file.empty() || file == "-") return;
  out_ += "![";
  out_ += alt_text(caption);
  out_ += "](";
  out_ += link_destination(file);
  out_ += ")\n\nFigure: ";
  out_ += code_span(file);
  out_ += " (";
  out_ += markdown_text(caption, false);
  out_ += ").\n\n";
}

}  // namespace ma
