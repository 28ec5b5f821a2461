// `modelanalyzer stats` output: seed 001's SUMMARY / LAYER DETAILS / WEIGHT STATISTICS tables (plus a
// DISTRIBUTION table of the statistics seed 004 and the issue add) on the console; the same numbers as JSON,
// seed 004's CSV columns, and Markdown.
#pragma once
#include <string>
#include <string_view>

#include "analysis/weight_stats.h"
#include "core/json_writer.h"
#include "report/document_writer.h"
#include "report/run_info.h"

namespace ma {

std::string render_stats_console(const WeightStats& s, bool color);
void stream_stats_json(const WeightStats& s, const RunInfo& run, const JsonWriter::Sink& sink);
// seed 004: model_path, model_id, revision, param_name, layer_index, block_type, shape, rows, cols,
// design_rank, mean, std, var, sparsity, dtype, created_at, then every other statistic.
std::string render_stats_csv(const WeightStats& s, std::string_view model_path, std::string_view revision,
                             std::string_view created_at);
std::string render_stats_markdown(const WeightStats& s);
// The same document into any writer (Markdown, HTML).
void write_stats_document(DocumentWriter& w, const WeightStats& s);
// `stats --html`: the Markdown report's content, the distribution grid and the layer trends inline, as one
// self-contained page (report/html_page.h).
std::string render_stats_html(const WeightStats& s, const RunInfo& run, const std::string& distributions_svg,
                              const std::string& trends_svg);

// Compact fixed/scientific number for tables: 6 significant digits.
std::string table_number(double v);

}  // namespace ma
