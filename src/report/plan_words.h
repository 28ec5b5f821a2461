// The words and the table of kinds of bytes that the plan's text, exports and pictures share: the devices
// ("2 x NVIDIA H200 SXM 141 GB (141.00 GiB each)"), the split shown, the verdict, and the kinds of one
// device's bytes in the order the bars stack them.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "analysis/plan/plan.h"

namespace ma {

// Runs of alike devices, in order: "1 x NVIDIA GeForce RTX 4070 Ti 12 GB (12.00 GiB)" (JSON gpus.runs[]).
struct DeviceRun {
  uint32_t count = 0;
  std::string name;
  uint64_t memory_bytes = 0;
};
std::vector<DeviceRun> device_runs(const DeviceSpec& g);

// "2 x NVIDIA H200 SXM 141 GB (141.00 GiB each)", "1 x 24.00 GiB device + 1 x ... (12.00 GiB)".
std::string devices_text(const Plan& p);

// The split the plan shows (the best, or the closest to fitting); null where none is valid.
const SplitPlan* shown_split(const Plan& p);

// "fits: TP 2, 61.2 GiB of 79.2 GiB per device", "does not fit on ...; fits in fp8". `on_devices`: name the
// devices after "does not fit" (the plot names them on the line above).
std::string plan_verdict(const Plan& p, bool on_devices = true);

// A kind of one device's bytes: its JSON name, its label, its field, its colour in the pictures.
struct BytesKind {
  const char* name;
  const char* label;
  uint64_t DeviceBytes::*field;
  const std::string* color;
};
// In the order the bars stack them.
std::span<const BytesKind> device_byte_kinds();

}  // namespace ma
