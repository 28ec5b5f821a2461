// Building blocks of the Markdown export: headings, two-column field tables, tables, formulas as code.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ma {

class MarkdownWriter {
 public:
  void heading(int level, std::string_view title);
  void paragraph(std::string_view text);
  // A two-column | Field | Value | table.
  void fields(const std::vector<std::pair<std::string, std::string>>& rows);
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
  // A formula or derivation, shown verbatim.
  void formula(std::string_view text);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Escapes the characters Markdown tables give meaning to (| and newlines).
std::string markdown_cell(std::string_view s);

}  // namespace ma
