#include "model/tensor_roles.h"

#include <iterator>
#include <unordered_map>
#include <utility>

namespace ma::placement {

std::string role_of(std::string_view module) {
  static constexpr std::pair<std::string_view, std::string_view> kRoles[] = {
      {"q_proj", "q"},
      {"query", "q"},
      {"wq", "q"},
      {"q", "q"},
      {"q_a_proj", "q-down"},
      {"q_b_proj", "q-up"},
      {"k_proj", "k"},
      {"key", "k"},
      {"wk", "k"},
      {"k", "k"},
      {"v_proj", "v"},
      {"value", "v"},
      {"wv", "v"},
      {"v", "v"},
      {"kv_a_proj_with_mqa", "kv-down"},
      {"kv_b_proj", "kv-up"},
      {"o_proj", "o"},
      {"wo", "o"},
      {"o", "o"},
      {"out_proj", "o"},
      {"c_proj", "o"},
      {"dense", "o"},
      {"q_lin", "q"},  // DistilBERT, XLM
      {"k_lin", "k"},
      {"v_lin", "v"},
      {"out_lin", "o"},
      {"q_head", "q"},  // Funnel
      {"k_head", "k"},
      {"v_head", "v"},
      {"post_proj", "o"},
      {"Wq", "q"},  // CTRL
      {"Wk", "k"},
      {"Wv", "v"},
      {"linear_q", "q"},  // Phi-4-multimodal's original audio attention
      {"linear_k", "k"},
      {"linear_v", "v"},
      {"linear_out", "o"},
      {"qkv_proj", "qkv"},
      {"c_attn", "qkv"},
      {"att_proj", "qkv"},  // Bark
      {"query_key_value", "qkv"},
      {"Wqkv", "qkv"},
      {"qkv", "qkv"},
      {"gate_proj", "gate"},
      {"w1", "gate"},
      {"wi_0", "gate"},
      {"up_proj", "up"},
      {"w3", "up"},
      {"wi_1", "up"},
      {"c_fc_0", "gate"},  // EXAONE 3
      {"c_fc_1", "up"},
      {"fc12", "gate"},  // NomicBERT's SwiGLU: fc2(fc11(x) * silu(fc12(x)))
      {"fc11", "up"},
      {"weights_in", "gate-up"},  // DINOv2-giant's SwiGLU
      {"weights_out", "down"},
      {"W_pack", "qkv"},
      {"wqkv", "qkv"},  // Baichuan, InternLM2
      {"down_proj", "down"},
      {"w2", "down"},
      {"gate_up_proj", "gate-up"},
      {"c_fc", "up"},
      {"fc1", "up"},
      {"dense_h_to_4h", "up"},
      {"wi", "up"},
      {"fc2", "down"},
      {"ffn", "up"},  // ALBERT's ffn and ffn_output
      {"ffn_output", "down"},
      {"dense_4h_to_h", "down"},
      {"fc_in", "up"},
      {"fc_out", "down"},  // GPT-J
      {"lin1", "up"},      // DistilBERT, XLM
      {"lin2", "down"},
      {"gate", "router"},
      {"router", "router"},
      {"e_score_correction_bias", "router-bias"},
      {"v1", "up"},
      {"input_linear", "gate-up"},
      {"output_linear", "down"},
      {"project_in", "embedding-projection"},
      {"pre_projection", "embedding-projection"},
      {"project_out", "embedding-projection"},
      {"inv_freq", "rotary-inv-freq"},
      {"masked_bias", "mask"},
      {"causal_mask", "causal-mask"},
      {"position_ids", "position-ids"},
      {"layer_scalar", "layer-scalar"},
  };
  // Looked up for every tensor of a checkpoint: a hash table, built once.
  static const std::unordered_map<std::string_view, std::string_view> table(std::begin(kRoles),
                                                                            std::end(kRoles));
  auto it = table.find(module);
  return std::string(it != table.end() ? it->second : module);
}

}  // namespace ma::placement
