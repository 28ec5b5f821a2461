#include "cli/selection_options.h"

#include <utility>

#include "cli/arg_values.h"
#include "core/error.h"

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

void throw_nothing_selected(const std::string& model, const StatsSelection& selection, size_t unreadable) {
  std::string flags;
  for (const auto& [given, flag] : {std::pair{!selection.include.empty(), "--include"},
                                    {!selection.exclude.empty(), "--exclude"},
                                    {selection.layers.has_value(), "--layers"}})
    if (given) flags += (flags.empty() ? "" : ", ") + std::string(flag);
  if (flags.empty() && unreadable > 0)
    throw Error(ErrorKind::Unsupported, model, "tensors",
                "none of its tensors has values this command reads (" + std::to_string(unreadable) +
                    " left out: see the warnings)");
  if (flags.empty()) throw Error(ErrorKind::NotFound, model, "tensors", "the checkpoint holds no tensor");
  throw Error(ErrorKind::NotFound, model, flags, "no tensor matches the selection");
}

}  // namespace ma::cli
