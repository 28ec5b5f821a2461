// `modelanalyzer stats` output: seed 001's SUMMARY / LAYER DETAILS / WEIGHT STATISTICS tables (plus a
// DISTRIBUTION table of the statistics seed 004 and the issue add) on the console; the same numbers as JSON,
// seed 004's CSV columns, and Markdown.
#pragma once
#include <string>
#include <string_view>

#include "analysis/weight_stats.h"
#include "core/json_writer.h"
#include "report/run_info.h"

namespace ma {

std::string render_stats_console(const WeightStats& s, bool color);
void stream_stats_json(const WeightStats& s, const RunInfo& run, const JsonWriter::Sink& sink);
// seed 004: model_path, model_id, revision, param_name, layer_index, block_type, shape, rows, cols,
// design_rank, mean, std, var, sparsity, dtype, created_at, then every other statistic.
std::string render_stats_csv(const WeightStats& s, std::string_view model_path, std::string_view revision,
                             std::string_view created_at);
std::string render_stats_markdown(const WeightStats& s);

// Compact fixed/scientific number for tables: 6 significant digits.
std::string table_number(double v);

}  // namespace ma
