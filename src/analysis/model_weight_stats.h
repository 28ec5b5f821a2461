// `modelanalyzer stats`: which tensors of a local checkpoint to scan (all, or by --include / --exclude globs
// and a --layers range), where their bytes are, and what the scan found, placed in the layer map with seed
// 004's module classes and seed 001's trainable flag. A PEFT adapter directory (adapter_config.json beside
// adapter_model.safetensors) with its base model found locally is scanned as base (frozen) + adapter
// (trainable); everything else is trainable.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/weight_scan.h"
#include "analysis/weight_stats.h"
#include "formats/model_files.h"

namespace ma {

struct StatsSelection {
  std::vector<std::string> include, exclude;            // globs on tensor names
  std::optional<std::pair<uint32_t, uint32_t>> layers;  // inclusive range of layer indices
};

struct ModelWeightsInput {
  LocalModelFiles model;                       // the checkpoint (an adapter directory: the adapter)
  std::optional<LocalModelFiles> frozen_base;  // a PEFT adapter's base model, when found
  std::filesystem::path base_found_at;         // where it was found (empty when given or absent)
};

// Resolves a PEFT adapter's base model: `base_override` (--base) when given; else adapter_config.json's
// base_model_name_or_path as a local directory (absolute, or relative to the adapter), a directory of that
// name beside the adapter, or a snapshot of that repo with its weights in the Hugging Face cache. Warnings
// say what was not found.
ModelWeightsInput weights_input(LocalModelFiles model, const std::filesystem::path& hub_cache,
                                std::vector<std::string>& warnings,
                                const std::optional<std::filesystem::path>& base_override = std::nullopt);

// The tensors to scan, in checkpoint order (base first, then the adapter). Tensors whose dtype has no element
// values (complex, F6) are left out with a warning.
struct PlannedScan {
  std::vector<ScanItem> items;
  std::vector<bool> trainable;
  // What each item adds to the summary's totals, as the inventory counts them: a tied copy (a PyTorch tensor
  // that is exactly an earlier one) no parameters, a tensor whose storage an earlier one holds no bytes.
  std::vector<uint64_t> counted_parameters, counted_bytes;
  size_t unreadable = 0;  // selected tensors left out for values that cannot be read (a warning each)
};
PlannedScan plan_scan(const ModelWeightsInput& in, const StatsSelection& sel,
                      std::vector<std::string>& warnings);

// Scans and places: layer, block, role, module class, rows/cols/design rank, trainable; and the summary.
WeightStats compute_weight_stats(const PlannedScan& plan, const ScanOptions& options);

}  // namespace ma
