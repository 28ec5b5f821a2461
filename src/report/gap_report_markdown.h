// A gap report (seed 003 step 4) as Markdown: everything a simulator developer needs to implement a layer
// type the simulator lacks, with this model's numbers.
#pragma once
#include <string>

#include "analysis/builder/gap_analysis.h"

namespace ma {

std::string render_gap_report_markdown(const GapAnalysis& gap);

}  // namespace ma
