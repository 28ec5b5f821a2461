#include "svg_test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <vector>

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

void expect_well_formed_svg(const std::string& svg) {
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  if (have_xmllint()) {
    EXPECT_TRUE(xmllint_accepts(svg)) << "xmllint rejects the SVG";
    return;
  }
  std::vector<std::string> open;
  static const std::regex tag("<(/?)([a-zA-Z?][^ />]*)[^>]*?(/?)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if (name[0] == '?' || (*it)[3] == "/") continue;
    if ((*it)[1] == "/") {
      ASSERT_FALSE(open.empty()) << "</" << name << "> closes nothing";
      ASSERT_EQ(open.back(), name);
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  EXPECT_TRUE(open.empty());
}

std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  return png.size() < 24 ? std::make_pair(0u, 0u) : std::make_pair(be32(16), be32(20));
}

}  // namespace ma::test
