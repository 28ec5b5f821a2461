// The model report in each output form, sections in seed 002's order.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model_report.h"
#include "report/run_info.h"
#include "report/section_renderers.h"

namespace ma {

std::string render_report_console(const ModelReport& r, const RenderOptions& o, bool color);
// `run`: when and how the export was made, passed in so the renderer stays a pure function of its inputs.
std::string render_report_json(const ModelReport& r, const RunInfo& run);
std::string render_report_markdown(const ModelReport& r, const RunInfo& run);
// The written report (Markdown export, HTML page) into any DocumentWriter.
void write_report_document(DocumentWriter& w, const ModelReport& r, const RunInfo& run);
// Several models side by side (seed 002 example 8).
std::string render_comparison_console(const std::vector<ModelReport>& reports, bool color);

}  // namespace ma
