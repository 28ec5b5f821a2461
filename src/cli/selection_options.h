// The tensor selection that stats and spectrum share: --include / --exclude globs and a --layers range.
#pragma once
#include <string>

#include "analysis/model_weight_stats.h"
#include "cli/option_table.h"

namespace ma::cli {

void add_selection_options(CommandSpec& spec, StatsSelection& selection);

// The error for a selection that left no tensor of `model`: naming the flags that narrowed it; with none
// given, saying the checkpoint holds no tensor, or none whose values can be read when `unreadable` were left
// out (PyTorch views with gaps, encoded ONNX integers: exit 10).
[[noreturn]] void throw_nothing_selected(const std::string& model, const StatsSelection& selection,
                                         size_t unreadable);

}  // namespace ma::cli
