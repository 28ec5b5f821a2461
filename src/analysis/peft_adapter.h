// A PEFT adapter directory (adapter_config.json beside adapter_model.safetensors) as the report shows it:
// what the adapter is (type, rank, alpha and the scaling they give, target modules, modules saved whole),
// its own tensors, parameters and bytes, and its base model — found locally, in the Hugging Face cache, or
// named as missing. With the base found, the report's figures are the base's: merging a LoRA adds B·A into
// weights the base already has, so the merged model has the base's parameters and memory exactly.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.h"
#include "formats/model_files.h"
#include "model/inventory.h"

namespace ma {

// A module pattern of rank_pattern / alpha_pattern: the rank and alpha PEFT gives the modules it matches
// (each falls back to the adapter's r and lora_alpha), and the scaling they make.
struct AdapterPattern {
  std::string pattern;  // a module name or regex, as the config writes it
  uint64_t r = 0;
  double alpha = 0;
  double scaling = 0;
};

struct AdapterSummary {
  std::string peft_type;  // "LORA", "IA3", ... as the config names it
  uint64_t r = 0;         // 0: not a rank-based adapter
  double alpha = 0;
  bool rslora = false, dora = false;
  double scaling = 0;                    // alpha / r, or alpha / sqrt(r) with rsLoRA; 0 when r is 0
  std::vector<AdapterPattern> patterns;  // rank_pattern and alpha_pattern, by pattern
  std::vector<std::string> target_modules;
  std::vector<std::string> modules_to_save;
  std::string base_model;                                   // base_model_name_or_path, as written
  std::filesystem::path base_found_at;                      // empty: not found (nor given with --base)
  uint64_t tensors = 0, parameters = 0, bytes = 0;          // the adapter's own stored tensors
  std::vector<std::pair<std::string, Shape>> lora_weights;  // its lora_A / lora_B weights, as stored
  std::optional<uint64_t> base_parameters;                  // set by the report once the base is analysed
};

// True for a directory holding adapter_config.json and adapter_* weights (and no shard index).
bool is_peft_adapter(const LocalModelFiles& files);

// Reads adapter_config.json and the adapter's tensor headers. Throws Error naming the file and field for a
// malformed config (r not a non-negative integer, target_modules neither a list nor a string).
AdapterSummary summarize_adapter(const LocalModelFiles& adapter);

// What PEFT would refuse when loading the adapter onto `base`: a LoRA pair on a module the base has no
// weight for, A's input or B's output width not the module's, A's rank not B's or not the configured r.
// One warning naming the count and the first; none when every pair fits.
std::vector<std::string> adapter_base_mismatches(const AdapterSummary& a, const Inventory& base);

}  // namespace ma
