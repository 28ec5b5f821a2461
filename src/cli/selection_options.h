// The tensor selection that stats and spectrum share: --include / --exclude globs and a --layers range.
#pragma once
#include "analysis/model_weight_stats.h"
#include "cli/option_table.h"

namespace ma::cli {

void add_selection_options(CommandSpec& spec, StatsSelection& selection);

}  // namespace ma::cli
