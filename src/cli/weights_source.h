// Where the commands that read every weight (stats, spectrum) find them: a local path, or a Hub id whose
// weights are already downloaded into the cache.
#pragma once
#include <string>

#include "analysis/model_weight_stats.h"
#include "cli/cli_common.h"
#include "cli/model_source.h"
#include "formats/model_files.h"

namespace ma::cli {

// Throws Error(NotFound) for a Hub id whose cache holds only headers, naming the download command.
LocalModelFiles local_weights(const std::string& model, const HubArgs& hub);

// The tensors of MODEL that `selection` keeps, with where they were found: local_weights, a PEFT adapter's
// base resolved as `stats` does, warnings printed (stages traced under --verbose).
struct PlannedWeights {
  ModelWeightsInput input;
  PlannedScan plan;
};
PlannedWeights plan_weights(const std::string& model, const HubArgs& hub, const StatsSelection& selection,
                            const Output& out);

}  // namespace ma::cli
