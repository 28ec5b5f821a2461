// Building blocks of the console report: section headings, aligned "label  value" lines, aligned tables.
// Colour only when asked (a terminal without NO_COLOR).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ma {

class ConsoleWriter {
 public:
  explicit ConsoleWriter(bool color) : color_(color) {}
  void heading(std::string_view title);
  void field(std::string_view label, std::string_view value);  // "  label                 value"
  void note(std::string_view text);      // dimmed, under the value above it: a formula, the evidence
  void footnote(std::string_view text);  // dimmed, at the left: what a table or a whole section assumes
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
  void blank();
  std::string take() { return std::move(out_); }

 private:
  bool color_;
  std::string out_;
};

}  // namespace ma
