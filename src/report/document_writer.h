// What a written report is made of — headings, paragraphs, field tables, tables, formulas — so that one
// renderer writes both the Markdown export (markdown_writer.h) and the HTML report (html_writer.h).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ma {

class DocumentWriter {
 public:
  virtual ~DocumentWriter() = default;
  virtual void heading(int level, std::string_view title) = 0;
  // Plain text; **bold** and `code` spans are the only markup a caller may use, and lines that start with
  // "- " are the items of a list.
  virtual void paragraph(std::string_view text) = 0;
  // A two-column Field / Value table.
  virtual void fields(const std::vector<std::pair<std::string, std::string>>& rows) = 0;
  virtual void table(const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows) = 0;
  // A formula or derivation, shown verbatim.
  virtual void formula(std::string_view text) = 0;
  // A picture: Markdown links `file` (nothing when it is empty), HTML inlines `svg` (nothing when empty).
  // `caption` is plain text.
  virtual void figure(std::string_view svg, std::string_view file, std::string_view caption) = 0;
  virtual std::string take() = 0;
};

}  // namespace ma
