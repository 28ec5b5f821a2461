// Building blocks of the Markdown export: headings, two-column field tables, tables, formulas as code.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/document_writer.h"

namespace ma {

class MarkdownWriter final : public DocumentWriter {
 public:
  void heading(int level, std::string_view title) override;
  void paragraph(std::string_view text) override;
  // A two-column | Field | Value | table.
  void fields(const std::vector<std::pair<std::string, std::string>>& rows) override;
  void table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows) override;
  // A formula or derivation, in a code block.
  void formula(std::string_view text) override;
  void figure(std::string_view svg, std::string_view file, std::string_view caption) override;
  std::string take() override { return std::move(out_); }

 private:
  std::string out_;
};

// Escapes the characters Markdown tables give meaning to (| and newlines) and those viewers read as HTML.
std::string markdown_cell(std::string_view s);

}  // namespace ma
