// What `embeddings` prints and writes: the console and Markdown summaries (clusters with example tokens, the
// elbow, the silhouette, row norms and the rows that stand out), the JSON with every figure under the names
// the console uses, and a CSV with one line per row (token, cluster, norm: seed 004's
// embedding_analysis.csv).
#pragma once
#include <string>
#include <string_view>

#include "analysis/embedding/embedding_analysis.h"
#include "core/json_writer.h"
#include "report/run_info.h"

namespace ma {

std::string render_embeddings_console(const EmbeddingAnalysis& a, bool color);
std::string render_embeddings_markdown(const EmbeddingAnalysis& a, const RunInfo& run);
void stream_embeddings_json(const EmbeddingAnalysis& a, const RunInfo& run, const JsonWriter::Sink& sink);
// model_id, tensor, row, token, cluster, norm, distance_to_center: one line per row.
std::string render_embeddings_csv(const EmbeddingAnalysis& a, const std::vector<std::string>& tokens,
                                  std::string_view created_at);

}  // namespace ma
