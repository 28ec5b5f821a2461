// Reading the SVG text the renderers write: the unit tests of the plots and diagrams share these.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace ma::test {

// Whether xmllint (libxml2-utils, installed by scripts/install-deps.sh) is on PATH: the independent judge of
// well-formedness.
bool have_xmllint();
// Whether xmllint accepts `svg` as well-formed XML (call only when have_xmllint()).
bool xmllint_accepts(const std::string& svg);

// The part of `svg` from the nth `<g class="cls">` to the </g> that closes it; "" when there is none.
std::string svg_group(const std::string& svg, const std::string& cls, size_t nth = 0);

// Expects `svg` to start with the XML declaration and be well-formed: xmllint judges where it is installed;
// without it, every element must close in order.
void expect_well_formed_svg(const std::string& svg);

// A PNG's width and height from its IHDR chunk (big-endian at bytes 16 and 20), after expecting the 8-byte
// signature; {0, 0} when it is too short.
std::pair<uint32_t, uint32_t> png_size(const std::string& png);

}  // namespace ma::test
