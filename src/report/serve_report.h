// What `serve` prints and writes: the load point (TTFT, TPOT, inter-token and end-to-end latency, tokens/s
// per GPU, the bound of each phase) and the concurrency sweep (console, Markdown, JSON and CSV under the same
// names), and the throughput-latency curve as InferenceMAX draws it: tokens/s per GPU against tokens/s per
// user (1 / TPOT), one point per concurrency.
#pragma once
#include <string>

#include "analysis/serve/serving_model.h"
#include "core/json_writer.h"
#include "report/run_info.h"

namespace ma {

std::string render_serve_console(const ServeResult& r);
std::string render_serve_markdown(const ServeResult& r, const RunInfo& run);
void stream_serve_json(const ServeResult& r, const RunInfo& run, const JsonWriter::Sink& sink);
// The load point and every sweep point, one row each, with the JSON's field names as the header.
std::string render_serve_csv(const ServeResult& r);
std::string render_serve_svg(const ServeResult& r);

}  // namespace ma
