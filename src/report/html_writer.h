// The HTML form of a written report: the same headings, paragraphs, field tables, tables and formulas as the
// Markdown export, as an HTML fragment (html_page.h wraps it into the self-contained page). Every text is
// escaped; tables with a header row are sortable by the page's script.
#pragma once
#include <string>

#include "report/document_writer.h"

namespace ma {

class HtmlWriter final : public DocumentWriter {
 public:
  void heading(int level, std::string_view title) override;
  void paragraph(std::string_view text) override;
  void fields(const std::vector<std::pair<std::string, std::string>>& rows) override;
  void table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows) override;
  void formula(std::string_view text) override;
  void figure(std::string_view svg, std::string_view file, std::string_view caption) override;
  // Raw markup the caller vouches for (an inline SVG figure).
  void raw(std::string_view html) { out_ += html; }
  std::string take() override;

 private:
  void close_section();
  std::string out_;
  bool in_section_ = false;
};

// &, <, >, " and ' as entities; control characters (no place in HTML text) dropped.
std::string html_escaped(std::string_view s);

}  // namespace ma
