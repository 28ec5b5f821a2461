#include "report/console_writer.h"

#include <algorithm>
#include <cstdint>

#include "core/text.h"

namespace ma {

void ConsoleWriter::heading(std::string_view title) {
  if (!out_.empty()) out_ += '\n';
  out_ += color_ ? "\033[1m" : "";
  out_ += terminal_safe_lines(title);
  out_ += color_ ? "\033[0m\n" : "\n";
}

namespace {

constexpr size_t kIndent = 2;  // values start at column kIndent + label_width_

// Whether code point `c` takes two terminal columns (East Asian wide and fullwidth forms, the emoji blocks):
// the ranges of wcwidth's table that tokens and names meet.
bool console_wide(uint32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
         (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD);
}

// Columns `s` takes on a terminal: one per code point of UTF-8 ("≥" is 3 bytes, 1 column), two for a wide
// one, none for a combining mark or a zero-width character. Padding by bytes put every column after a cell
// holding "≥ 8/64" or "σ" out of line. Invalid bytes count one each (terminal_safe shows them escaped).
size_t console_display_width(std::string_view s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
    if (len == 1 || i + len > s.size()) {
      ++width;
      ++i;
      continue;
    }
    uint32_t c = b & (0x7F >> len);
    bool valid = true;
    for (size_t k = 1; k < len; ++k) {
      const auto t = static_cast<unsigned char>(s[i + k]);
      valid = valid && (t & 0xC0) == 0x80;
      c = (c << 6) | (t & 0x3F);
    }
    if (!valid) {
      ++width;
      ++i;
      continue;
    }
    const bool zero = (c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) ||
                      (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF;
    width += zero ? 0 : console_wide(c) ? 2 : 1;
    i += len;
  }
  return width;
}

}  // namespace

// A label too long for its column takes a line of its own, so that every value starts in the same column.
void ConsoleWriter::field(std::string_view label_text, std::string_view value) {
  const std::string label = terminal_safe_lines(label_text);
  out_.append(kIndent, ' ');
  out_ += label;
  const size_t label_columns = console_display_width(label);
  if (label_columns < label_width_) {
    out_.append(label_width_ - label_columns, ' ');
  } else {
    out_ += '\n';
    out_.append(kIndent + label_width_, ' ');
  }
  out_ += terminal_safe_lines(value);
  out_ += '\n';
}

void ConsoleWriter::footnote(std::string_view text) {
  out_.append(kIndent, ' ');
  if (color_) out_ += "\033[2m";
  out_ += terminal_safe_lines(text);
  out_ += color_ ? "\033[0m\n" : "\n";
}

// Under the value it explains (a formula, the evidence for a claim).
void ConsoleWriter::note(std::string_view text) {
  out_.append(kIndent + label_width_, ' ');
  if (color_) out_ += "\033[2m";
  out_ += terminal_safe_lines(text);
  out_ += color_ ? "\033[0m\n" : "\n";
}

void ConsoleWriter::table(const std::vector<std::string>& header_text,
                          const std::vector<std::vector<std::string>>& rows_text) {
  // Every cell as the terminal will show it (its controls escaped), then measured.
  auto safe = [](const std::vector<std::string>& cells) {
    std::vector<std::string> out;
    out.reserve(cells.size());
    for (const std::string& c : cells) out.push_back(terminal_safe_lines(c));
    return out;
  };
  const std::vector<std::string> header = safe(header_text);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(rows_text.size());
  for (const auto& row : rows_text) rows.push_back(safe(row));
  // Widths in terminal columns, not bytes (console_display_width).
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = console_display_width(header[c]);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], console_display_width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    out_ += "  ";
    for (size_t c = 0; c < width.size(); ++c) {
      std::string_view cell = c < cells.size() ? std::string_view(cells[c]) : std::string_view();
      out_ += cell;
      if (c + 1 < width.size()) out_.append(width[c] - console_display_width(cell) + 2, ' ');
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
