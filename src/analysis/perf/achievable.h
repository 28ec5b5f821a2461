// What a serving engine can reach on a chip, not its datasheet: the measured profile where the hardware
// table has one (h200-measured), else the datasheet derated by what was measured on the one chip we have
// both for. The H200's measured / datasheet ratios (device copy bandwidth 0.88, GEMM peaks 0.80 bf16, 0.72
// fp8) and its kernel launch overheads (21 us, 5.1 us in a CUDA graph) carry over to chips of the same kind
// (B200, MI300X ...): an assumption, stated in every result that uses it.
#pragma once
#include <string>

#include "analysis/perf/hardware.h"

namespace ma {

struct AchievableHardware {
  Hardware hw;
  std::string how;  // "measured profile h200-measured", or the ratios applied
};

AchievableHardware achievable_hardware(const Hardware& datasheet);

}  // namespace ma
