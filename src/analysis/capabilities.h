// What the config supports: generation, context lengths (original and rope-extended), long context,
// LoRA/QLoRA suitability. Only claims the config backs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report_inputs.h"

namespace ma {

struct Capabilities {
  bool can_generate = false;
  std::optional<uint64_t> max_context_length;       // max_position_embeddings (after rope scaling, if any)
  std::optional<uint64_t> original_context_length;  // before rope scaling (rope_scaling original_max_...)
  std::string context_source;                       // the config key (or "transformers default") it came from
  std::string rope_scaling_type;  // llama3, yarn, longrope, linear, dynamic, ...; empty: none
  std::optional<double> rope_scaling_factor;
  bool position_limit = true;          // false: recurrent layers only (Mamba): no context limit
  bool supports_long_context = false;  // >= 32k tokens, or no limit
  bool lora_compatible = false;        // has nn.Linear projections PEFT can target
  bool adapters_known = true;          // false without a tensor inventory: LoRA/QLoRA not known
  // Long context is known when the maximum context is (or there is no limit).
  bool long_context_known() const { return max_context_length.has_value() || !position_limit; }
  bool qlora_compatible = false;                 // ...and is not already quantized by an incompatible method
  std::vector<std::string> lora_target_modules;  // projection names PEFT can target, e.g. q_proj, down_proj
  std::string prequantized;        // method the checkpoint is already quantized with; empty: none
  std::vector<std::string> notes;  // the evidence for each claim
};

// Long context starts here (seed 002: "supports_long_context").
inline constexpr uint64_t kLongContextTokens = 32768;

Capabilities assess_capabilities(const ReportInputs& in);

}  // namespace ma
