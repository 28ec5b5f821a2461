// The pictures of `spectrum` (issue 16), as standalone SVG documents (write_diagram_file() makes PNGs):
// the rank ratio and α by layer for each module class, and the singular values of chosen matrices.
#pragma once
#include <string>
#include <vector>

#include "analysis/spectrum/model_spectrum.h"

namespace ma {

// Two panels against the layer index, one line with markers per module class: the rank ratio
// (actual_rank / design_rank; the 90% energy ratio dashed in the same colour), and α. A class with several
// matrices in a layer (experts) shows their mean. Matrices outside the layer stack are left out.
std::string render_spectrum_trends_svg(const ModelSpectrum& s);

// σ_i / σ_max against i / design rank (log y), one line per matrix in `shown` (at most 12; a caption says
// how many were left out), with each one's 90% energy rank marked.
std::string render_singular_values_svg(const ModelSpectrum& s,
                                       const std::vector<const MatrixSpectrum*>& shown);

}  // namespace ma
