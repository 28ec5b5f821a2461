#include "report/html_writer.h"

#include "report/diagram_canvas.h"
#include "report/html_page.h"

namespace ma {
namespace {

// Escaped text with the two inline spans a paragraph may use: **bold** and `code`.
std::string inline_markup(std::string_view s) {
  std::string out;
  bool bold = false, code = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!code && s.compare(i, 2, "**") == 0) {
      out += bold ? "</strong>" : "<strong>";
      bold = !bold;
      ++i;
    } else if (s[i] == '`') {
      out += code ? "</code>" : "<code>";
      code = !code;
    } else if (s[i] == '\n') {
      out += "<br>";
    } else {
      out += html_escaped(s.substr(i, 1));
    }
  }
  if (code) out += "</code>";
  if (bold) out += "</strong>";
  return out;
}

// "70.53 ns", "-0.5", "1.2e7": a figure with its unit stays on one line.
bool starts_with_number(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && s[0] >= '0' && s[0] <= '9' && s.size() <= 24;
}

}  // namespace

std::string html_escaped(std::string_view s) {
  return diagram::xml_escape(s);  // the five entities (&apos; is HTML5's too), and no control characters
}

// Each level-2 heading opens a <section>, so the page can be navigated and printed section by section.
void HtmlWriter::close_section() {
  if (in_section_) out_ += "</section>\n";
  in_section_ = false;
}

void HtmlWriter::heading(int level, std::string_view title) {
  if (level <= 2) {
    close_section();
    if (level == 2) {
      out_ += "<section>\n";
      in_section_ = true;
    }
  }
  const std::string tag = "h" + std::to_string(level);
  out_ += "<" + tag + ">" + html_escaped(title) + "</" + tag + ">\n";
}

// Lines that start with "- " become a list; the other lines stay one paragraph, broken where they break.
void HtmlWriter::paragraph(std::string_view text) {
  std::string prose;
  bool in_list = false;
  const auto flush_prose = [&] {
    if (!prose.empty()) out_ += "<p>" + inline_markup(prose) + "</p>\n";
    prose.clear();
  };
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    const bool item = line.substr(0, 2) == "- ";
    if (item && !in_list) {
      flush_prose();
      out_ += "<ul>\n";
    } else if (!item && in_list) {
      out_ += "</ul>\n";
    }
    in_list = item;
    if (item) {
      out_ += "<li>" + inline_markup(line.substr(2)) + "</li>\n";
    } else if (!line.empty()) {
      if (!prose.empty()) prose += '\n';
      prose += line;
    } else {
      flush_prose();  // a blank line ends a paragraph
    }
  }
  if (in_list) out_ += "</ul>\n";
  flush_prose();
}

void HtmlWriter::fields(const std::vector<std::pair<std::string, std::string>>& rows) {
  out_ += "<table class=\"fields\">\n";
  for (const auto& [k, v] : rows)
    out_ += "<tr><th scope=\"row\">" + html_escaped(k) + "</th><td>" + inline_markup(v) + "</td></tr>\n";
  out_ += "</table>\n";
}

void HtmlWriter::table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  out_ += "<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr>";
  for (const std::string& h : header) out_ += "<th scope=\"col\">" + html_escaped(h) + "</th>";
  out_ += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out_ += "<tr>";
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string_view cell = c < row.size() ? std::string_view(row[c]) : std::string_view();
      out_ += (starts_with_number(cell) ? "<td class=\"num\">" : "<td>") + inline_markup(cell) + "</td>";
    }
    out_ += "</tr>\n";
  }
  out_ += "</tbody></table></div>\n";
}

void HtmlWriter::formula(std::string_view text) {
  out_ += "<pre>" + html_escaped(text) + "</pre>\n";
}

void HtmlWriter::figure(std::string_view svg, std::string_view, std::string_view caption) {
  if (!svg.empty()) out_ += html_figure(std::string(svg), html_escaped(caption));
}

std::string HtmlWriter::take() {
  close_section();
  return std::move(out_);
}

}  // namespace ma
