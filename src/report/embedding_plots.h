// The pictures of `embeddings` as standalone SVG documents (write_diagram_file() makes PNGs): the rows
// projected on the two principal components, coloured by cluster, and the elbow curve.
#pragma once
#include <string>

#include "analysis/embedding/embedding_analysis.h"

namespace ma {

// A scatter of the projected rows (a seeded sample when there are more), one colour and marker per cluster
// (colours repeat past 8 clusters, the marker tells them apart), the explained variance on the axes.
std::string render_embedding_projection_svg(const EmbeddingAnalysis& a);
// Inertia against k with the chosen elbow ringed; a single k draws one point.
std::string render_elbow_svg(const EmbeddingAnalysis& a);

}  // namespace ma
