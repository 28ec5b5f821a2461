#include "report/diagram_svg.h"

#include "report/diagram_parts.h"

namespace ma {

std::string render_diagram_svg(const ModelReport& report, DiagramStyle style) {
  const diagram::DiagramModel m = diagram::build_diagram_model(report);
  return style == DiagramStyle::Simple ? diagram::render_simple(report, m)
                                       : diagram::render_detailed(report, m);
}

}  // namespace ma
