// `perf --config FILE` and `serve --config FILE`: a simulator config (what `build-config` writes in Mantile's
// schema, perhaps edited by hand: seed 003's human checkpoints) read back as the Hugging Face config of a
// model with exactly those layers, so the performance model and the serving estimate run on it as on any
// model. The layer classes carry the dimensions that matter for time and memory (heads, KV heads, head
// size, windows, sinks, widths, experts, top-k, biases), so the model is rebuilt in the family those classes
// describe:
//   GroupedQueryAttentionLayer / AttentionLayer + GatedMLPLayer          -> llama
//   SlidingWindowAttentionLayer (no sinks) + GatedMLPLayer               -> mistral (every layer windowed)
//   GQA / MHA + MoELayer (no shared experts)                             -> mixtral
//   GQA / MHA + MoELayer with shared experts                             -> qwen2_moe
//   SlidingWindowAttentionLayer with sinks (windowed and full) + MoELayer -> gpt_oss
// An LMHeadLayer entry means an untied head. A type marked unsupported (MLA, Mamba, ...) or a combination
// outside the table is refused, naming the entry.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

struct SimulatorModel {
  std::string hf_config_json;  // config.json of the rebuilt model
  std::string family;          // its model_type
  std::string name;            // the config's hf_model_id, else model_id
  uint64_t total_params = 0;   // as the config states it
};

// Throws Error(Malformed) naming `path` and the field for a config that breaks the schema, and
// Error(Unsupported) for layer types the table above cannot rebuild.
SimulatorModel read_simulator_config(std::string_view json_text, const std::string& path);

}  // namespace ma
