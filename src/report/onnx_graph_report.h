// `modelanalyzer graph MODEL.onnx`: the ONNX graph summary on the console and as JSON, with the same names
// for the same figures. Every intermediate edge's shape only with --edges (a 70B export has ~10,000).
#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "analysis/onnx_graph.h"
#include "report/run_info.h"

namespace ma {

std::string render_onnx_graph_console(const OnnxGraphSummary& g, std::string_view title, bool edges,
                                      bool color);
void stream_onnx_graph_json(const OnnxGraphSummary& g, std::string_view source, bool edges,
                            const RunInfo& run, const std::function<void(std::string_view)>& sink);

}  // namespace ma
