// Whether a tensor / pipeline / expert split is one an engine can run on this model: tp must divide the
// attention heads of every attention layer (and either divide the KV heads or be a multiple of them: KV heads
// are then replicated, as vLLM and SGLang do), pp at most the number of layers, ep must divide the routed
// experts and needs a mixture-of-experts model.
#pragma once
#include "analysis/perf/perf_model.h"
#include "model/architecture.h"

namespace ma {

// Throws Error(Usage) naming the flag and the model's figure that it cannot split.
void check_parallelism(const ArchitectureRecord& arch, const Parallelism& p);

}  // namespace ma
