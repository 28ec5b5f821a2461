// `--gpu 24GB | h200 | 8xh200 | 2xh100-sxm | rtx4070ti,rtx3090ti`: how many devices and how much memory
// each, and, when named from the hardware table, their speed. Devices that differ (a comma-separated list,
// as llama.cpp users mix cards) keep each one's memory in order. Memory sizes are binary, as GPU and DIMM
// makers count them: an "80 GB" H100 carries 80 GiB of HBM, a "24 GB" RTX 4090 24 GiB, and "64 GB" of RAM is
// 64 GiB. Reading them as 10^9 would lose 7% of every device. A device named from the hardware table holds
// what CUDA reports for it where that was measured (Hardware::usable_gib: 79.19 GiB of the H100 SXM's 80),
// since engines size their pools from it; a size given is taken as given.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/perf/hardware.h"

namespace ma {

struct DeviceSpec {
  uint32_t count = 1;
  uint64_t memory_bytes = 0;  // per device; devices that differ: the smallest's
  // A table entry (speed known); a bare size gives memory only. Devices that differ, all named: the one of
  // least memory bandwidth (the plan times each pipeline stage on its own device).
  std::optional<Hardware> hardware;
  // When they differ, in order: each device's memory, and its hardware-table entry (null: given by size).
  std::vector<uint64_t> memories;
  std::vector<const Hardware*> kinds;
  std::string text;  // as written

  bool mixed() const { return !memories.empty(); }
  uint64_t memory_of(size_t device) const { return mixed() ? memories[device] : memory_bytes; }
  uint64_t total_memory() const;
};

// Throws Error(Usage, `flag`) naming the rule: "[N x] (SIZE | NAME)" or a comma-separated list of those,
// SIZE a number with GB, GiB, TB or TiB (all binary), NAME a hardware-table entry or a unique prefix of one
// ("h100" is ambiguous).
DeviceSpec parse_device_spec(std::string_view text, std::string_view flag);

// `count` devices of a hardware-table entry (its usable capacity, as above).
DeviceSpec devices_of(const Hardware& hw, uint32_t count);

// A memory size alone ("64GB"), binary as above.
uint64_t parse_memory_size(std::string_view text, std::string_view flag);

}  // namespace ma
