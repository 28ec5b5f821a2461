// `modelanalyzer compare` output: the most changed tensors and layers (ranked by ||B-A||/||A||), the flagged
// ones (seed 001's |mean drift| > threshold example), missing / extra / reshaped tensors; console, JSON, CSV
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

}  // namespace ma
