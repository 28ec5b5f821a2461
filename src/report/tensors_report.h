// Renderers of the `tensors` command: console table, JSON (stable field names, reused by later commands)
// and seed 003's dry-run CSV (kind,name,shape,dtype) extended with our columns.
#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "analysis/layer_summary.h"
#include "analysis/parameter_counts.h"
#include "model/inventory.h"
#include "report/run_info.h"

namespace ma {

struct TensorsReport {
  const Inventory& inventory;
  ParameterCounts counts;
  LayerSummary layers;
};

std::string render_tensors_console(const TensorsReport& r, bool color);
std::string render_tensors_json(const TensorsReport& r, const RunInfo& run);
// The same JSON, streamed to `sink` in chunks (the CLI writes it to stdout as it goes).
void stream_tensors_json(const TensorsReport& r, const RunInfo& run,
                         const std::function<void(std::string_view)>& sink);
std::string render_tensors_csv(const TensorsReport& r);

}  // namespace ma
