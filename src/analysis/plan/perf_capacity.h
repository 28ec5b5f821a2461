// perf's capacity check: does the step it models fit its devices (tp x pp of the --hw accelerator), and if
// not, what would — more devices of the same kind (the smallest count a plan fits on, with its split), or a
// narrower precision on these. Sized by the plan's rules for transformers (weights, KV cache of the step's
// batch and context, one pass's activations, 10%).
#pragma once
#include <optional>

#include "analysis/model_report.h"
#include "analysis/perf/perf_model.h"
#include "model/inventory.h"

namespace ma {

// nullopt for training steps (their memory is the report's training figures, not a serving budget). For a
// profile without a memory size, what the step needs per device with capacity_known false.
std::optional<CapacityCheck> check_capacity(const Inventory& inv, const ModelReport& report,
                                            const PerfInputs& in, const Hardware& hw);

}  // namespace ma
