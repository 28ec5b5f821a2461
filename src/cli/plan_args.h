// Command-line options of `modelanalyzer plan MODEL`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/plan/plan.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct PlanArgs {
  std::string model;
  CommonFlags common;
  ResultOutputs outputs;  // --json, --export, --markdown, --plot (bytes per device and the layer strip)
  std::string gpu;        // --gpu, parsed once the option table is done
  std::string cpu_ram;    // --cpu-ram
  std::optional<std::string> tensor_split;  // --tensor-split, parsed once --gpu gives the GPU count
  PlanRequest request;
  std::optional<DType> kv_dtype;  // --kv-dtype, for the report's cache figures
  std::string kv_dtype_text;      // as written: resolved into kv_dtype once --engine is known
  // llama.cpp's -ctk and -ctv as written: K and V each in its own type (kv_dtype then K's).
  std::string cache_type_k_text, cache_type_v_text;
  bool read_weights = false;  // --weights: scan the local weights for the quantization hints
  // Flags given that the chosen engine does not read (another engine's knobs): the command warns of each.
  std::vector<std::string> warnings;
  HubArgs hub;
};

CommandSpec plan_spec(PlanArgs& a);
// Throws Error(Usage), also for a --kv-dtype or --dtype the chosen engine cannot run.
PlanArgs parse_plan_args(const Args& args);

}  // namespace ma::cli
