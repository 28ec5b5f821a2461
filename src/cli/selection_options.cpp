#include "cli/selection_options.h"

#include "cli/arg_values.h"

namespace ma::cli {

void add_selection_options(CommandSpec& spec, StatsSelection& selection) {
  spec.options.push_back({{"--include"},
                          "GLOB",
                          "only tensors whose name matches (repeatable)",
                          [&selection](const std::string& v) { selection.include.push_back(v); }});
  spec.options.push_back({{"--exclude"},
                          "GLOB",
                          "leave out tensors whose name matches (repeatable)",
                          [&selection](const std::string& v) { selection.exclude.push_back(v); }});
  spec.options.push_back(
      {{"--layers"}, "A-B", "only layers A to B (or one layer N)", [&selection](const std::string& v) {
         selection.layers = layer_range_arg("--layers", v);
       }});
}

}  // namespace ma::cli
