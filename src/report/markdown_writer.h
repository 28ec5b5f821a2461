// Building blocks of the Markdown export: headings, two-column field tables, tables, formulas as code.
#pragma once
#include <filesystem>
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
  // `file` as the document links it (markdown_figure_path: relative to the document's folder); nothing for
  // an empty file or "-" (the picture went to stdout). The link is wrapped in <...>, so that spaces and
  // parentheses in the name keep it one link destination.
  void figure(std::string_view svg, std::string_view file, std::string_view caption) override;
  std::string take() override { return std::move(out_); }

 private:
  std::string out_;
};

// Escapes the characters Markdown tables give meaning to (| and newlines) and those viewers read as HTML.
std::string markdown_cell(std::string_view s);

// Data text (a token, a tensor or file name) with the characters Markdown reads as inline markup
// backslash-escaped (\ ` * _ [ ] ~), so that it shows as it is wherever the writer puts it: two tokens
// holding a backtick do not pair up into a code span, "**" is not bold.
std::string markdown_literal(std::string_view s);

// How a Markdown document written to `document` links a figure written to `figure` in the same run: the
// figure's path relative to the document's folder (both taken from the working directory as given), so that
// the link works where the document is opened. The figure as given when the document goes to stdout ("-" or
// empty) and its folder is unknown; "" when the figure went to stdout ("-") or there is none.
std::string markdown_figure_path(const std::filesystem::path& figure, const std::filesystem::path& document);

// A picture a command wrote in the same run as its Markdown document (--plot, --viz-output, ...).
struct MarkdownFigure {
  std::filesystem::path file;
  std::string caption;  // plain text
};

// A "Figures" section to end a Markdown document written to `document` with: each figure linked relative to
// it (markdown_figure_path). "" when no figure went to a file.
std::string markdown_figures(const std::vector<MarkdownFigure>& figures,
                             const std::filesystem::path& document);

}  // namespace ma
