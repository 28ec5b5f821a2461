// The architecture diagram of `--visualize` (seed 002 §8) as an SVG document sized for a 16:9 slide.
//   simple:   input → embedding → the repeating block (N×, with the hybrid layer pattern where layers differ)
//             → final norm → head, and a key statistics panel.
//   detailed: the block internals of every distinct layer kind (attention type, MLP or MoE, Mamba mixers,
//             norms, residuals, position encoding), the layer pattern as a strip of coloured cells with a
//             legend, and a parameters & memory panel.
// Values the report does not know are drawn as "—".
#pragma once
#include <string>

#include "analysis/model_report.h"

namespace ma {

enum class DiagramStyle { Simple, Detailed };

inline constexpr int kDiagramWidth = 1600;  // SVG user units = PNG pixels at scale 1
inline constexpr int kDiagramHeight = 900;

std::string render_diagram_svg(const ModelReport& report, DiagramStyle style);

}  // namespace ma
