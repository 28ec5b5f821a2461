// The plot of `compare A B` (analysis/weight_compare.h) as a standalone SVG document; write_diagram_file()
// (report/diagram_png.h) turns it into PNG.
#pragma once
#include <string>

#include "analysis/weight_compare.h"

namespace ma {

// Drift by layer, titled "A → B": the relative change ||B - A|| / ||A|| of each layer as bars (top panel,
// with the rel-L2 threshold as a dashed line when one is set) and 1 - cosine(A, B) as a line with markers
// (bottom panel, log scale when it spans more than a decade and a half). Layers with flagged tensors are
// drawn in vermillion on a shaded band across both panels, with their count of flagged tensors above the bar
// when there is room. Tensors outside the layer stack form one last bar, "other".
std::string render_drift_by_layer_svg(const WeightComparison& c);

}  // namespace ma
