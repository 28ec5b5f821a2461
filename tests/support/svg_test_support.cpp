#include "svg_test_support.h"

#include <cstdlib>

#include "test_support.h"

namespace ma::test {

bool have_xmllint() {
  return have_tool("xmllint");
}

bool xmllint_accepts(const std::string& svg) {
  TempDir dir;
  write_file(dir / "image.svg", svg);
  return run_shell("xmllint --noout " + quoted(dir / "image.svg")).exit_code == 0;
}

std::string svg_group(const std::string& svg, const std::string& cls, size_t nth) {
  size_t at = std::string::npos, from = 0;
  for (size_t k = 0; k <= nth; ++k) {
    at = svg.find("<g class=\"" + cls + "\">", from);
    if (at == std::string::npos) return "";
    from = at + 1;
  }
  int depth = 0;
  for (size_t i = at; i < svg.size(); ++i) {
    if (svg.compare(i, 3, "<g ") == 0) ++depth;
    if (svg.compare(i, 4, "</g>") == 0 && --depth == 0) return svg.substr(at, i + 4 - at);
  }
  return "";
}

}  // namespace ma::test
