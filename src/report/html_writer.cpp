#include "report/html_writer.h"

#include "report/diagram_canvas.h"

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

void HtmlWriter::paragraph(std::string_view text) {
  out_ += "<p>" + inline_markup(text) + "</p>\n";
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
    for (size_t c = 0; c < header.size(); ++c)
      out_ += "<td>" + (c < row.size() ? inline_markup(row[c]) : std::string()) + "</td>";
    out_ += "</tr>\n";
  }
  out_ += "</tbody></table></div>\n";
}

void HtmlWriter::formula(std::string_view text) {
  out_ += "<pre>" + html_escaped(text) + "</pre>\n";
}

std::string HtmlWriter::take() {
  close_section();
  return std::move(out_);
}

}  // namespace ma
