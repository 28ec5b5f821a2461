#include "report/console_writer.h"

#include <algorithm>

namespace ma {

void ConsoleWriter::heading(std::string_view title) {
  if (!out_.empty()) out_ += '\n';
  out_ += color_ ? "\033[1m" : "";
  out_ += title;
  out_ += color_ ? "\033[0m\n" : "\n";
}

namespace {

constexpr size_t kIndent = 2;  // values start at column kIndent + label_width_

}  // namespace

// A label too long for its column takes a line of its own, so that every value starts in the same column.
void ConsoleWriter::field(std::string_view label, std::string_view value) {
  out_.append(kIndent, ' ');
  out_ += label;
  if (label.size() < label_width_) {
    out_.append(label_width_ - label.size(), ' ');
  } else {
    out_ += '\n';
    out_.append(kIndent + label_width_, ' ');
  }
  out_ += value;
  out_ += '\n';
}

void ConsoleWriter::footnote(std::string_view text) {
  out_.append(kIndent, ' ');
  if (color_) out_ += "\033[2m";
  out_ += text;
  out_ += color_ ? "\033[0m\n" : "\n";
}

// Under the value it explains (a formula, the evidence for a claim).
void ConsoleWriter::note(std::string_view text) {
  out_.append(kIndent + label_width_, ' ');
  if (color_) out_ += "\033[2m";
  out_ += text;
  out_ += color_ ? "\033[0m\n" : "\n";
}

void ConsoleWriter::table(const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    out_ += "  ";
    for (size_t c = 0; c < width.size(); ++c) {
      std::string_view cell = c < cells.size() ? std::string_view(cells[c]) : std::string_view();
      out_ += cell;
      if (c + 1 < width.size()) out_.append(width[c] - cell.size() + 2, ' ');
    }
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    out_ += '\n';
  };
  line(header);
  for (const auto& row : rows) line(row);
}

void ConsoleWriter::blank() {
  out_ += '\n';
}

}  // namespace ma
