// Reading the SVG text the renderers write: the unit tests of the plots and diagrams share these.
#pragma once
#include <cstddef>
#include <string>

namespace ma::test {

// Whether xmllint (libxml2-utils, installed by scripts/install-deps.sh) is on PATH: the independent judge of
// well-formedness.
bool have_xmllint();
// Whether xmllint accepts `svg` as well-formed XML (call only when have_xmllint()).
bool xmllint_accepts(const std::string& svg);

// The part of `svg` from the nth `<g class="cls">` to the </g> that closes it; "" when there is none.
std::string svg_group(const std::string& svg, const std::string& cls, size_t nth = 0);

}  // namespace ma::test
