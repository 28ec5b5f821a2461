// Building blocks of the console report: section headings, aligned "label  value" lines, aligned tables.
// Colour only when asked (a terminal without NO_COLOR).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

class ConsoleWriter {
 public:
  // label_width: the column values start at (after a two-space indent); a longer label puts its value on
  // the next line. A section whose labels are long JSON names asks for a wider column.
  explicit ConsoleWriter(bool color, size_t label_width = 26) : color_(color), label_width_(label_width) {}
  void heading(std::string_view title);
  void field(std::string_view label, std::string_view value);  // "  label                 value"
  void note(std::string_view text);      // dimmed, under the value above it: a formula, the evidence
  void footnote(std::string_view text);  // dimmed, at the left: what a table or a whole section assumes
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
  void blank();
  std::string take() { return std::move(out_); }

 private:
  bool color_;
  size_t label_width_;
  std::string out_;
};

}  // namespace ma
