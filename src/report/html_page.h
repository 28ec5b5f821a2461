// `--html FILE.html`: the model report as one self-contained page — every section of the Markdown export,
// the architecture diagram inline as SVG, tables sortable by a click on their header, light and dark themes
// (the system's choice, or the page's toggle), a print stylesheet — with no network access, no external
// script, style or font.
#pragma once
#include <string>

#include "analysis/model_report.h"
#include "report/run_info.h"

namespace ma {

// `diagram_svg`: the architecture diagram (report/diagram_svg.h), or empty for none.
std::string render_report_html(const ModelReport& r, const RunInfo& run, const std::string& diagram_svg);

// The page around a body of HtmlWriter output (any report: the model's, `stats`'): head, styles, the theme
// toggle, the table-sorting script.
std::string html_page(const std::string& title, const std::string& body);
// An SVG picture (diagram, plot) as an inline figure with its caption, escaped.
std::string html_figure(const std::string& svg, const std::string& caption);

}  // namespace ma
