// `modelanalyzer compare` output: the most changed tensors and layers (ranked by ||B-A||/||A||), the flagged
// ones (each rule of CompareOptions a tensor breaks), missing / extra / reshaped tensors; console, JSON, CSV
// (every compared tensor) and Markdown.
#pragma once
#include <string>

#include "analysis/weight_compare.h"
#include "core/json_writer.h"
#include "report/run_info.h"

namespace ma {

std::string render_compare_console(const WeightComparison& c, size_t top, bool color);
void stream_compare_json(const WeightComparison& c, const RunInfo& run, const JsonWriter::Sink& sink);
std::string render_compare_csv(const WeightComparison& c);
std::string render_compare_markdown(const WeightComparison& c, size_t top);
// The rules in force, for captions: "|mean drift| > 0.1, ||B-A||/||A|| > 0.5 or cosine < 0.9".
std::string flag_rules_text(const WeightComparison& c);
// The rules a tensor breaks, by their JSON names: "rel_l2+cosine"; "" when none.
std::string flagged_by_text(const TensorDrift& d);

}  // namespace ma
