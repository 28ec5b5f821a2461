#include "model/gguf_tensor_names.h"

#include <charconv>
#include <string>
#include <unordered_map>

namespace ma {
namespace {

struct GgufRole {
  Block block;
  std::string_view role;
};

// llama.cpp's tensor names (llama-arch.cpp, LLM_TENSOR_NAMES) for the blocks of a layer, with the block and
// role their Hugging Face counterparts get; norms keep the roles tensor_placement gives them ("q_norm" inside
// attention, "norm" between blocks).
const std::unordered_map<std::string_view, GgufRole>& layer_roles() {
  static const std::unordered_map<std::string_view, GgufRole> kRoles = {
      {"attn_q", {Block::Attention, "q"}},
      {"attn_k", {Block::Attention, "k"}},
      {"attn_v", {Block::Attention, "v"}},
      {"attn_output", {Block::Attention, "o"}},
      {"attn_o", {Block::Attention, "o"}},  // T5's enc/dec self-attention output
      {"attn_qkv", {Block::Attention, "qkv"}},
      {"attn_q_a", {Block::Attention, "q-down"}},
      {"attn_q_b", {Block::Attention, "q-up"}},
      {"attn_kv_a_mqa", {Block::Attention, "kv-down"}},
      {"attn_kv_b", {Block::Attention, "kv-up"}},
      {"attn_k_b", {Block::Attention, "kv-up"}},  // DeepSeek's kv_b_proj split in two (absorbed MLA)
      {"attn_v_b", {Block::Attention, "kv-up"}},
      {"attn_sinks", {Block::Attention, "sinks"}},
      {"attn_rel_b", {Block::Attention, "relative-bias"}},
      {"attn_gate", {Block::Attention, "gate"}},
      {"cross_attn_q", {Block::CrossAttention, "q"}},
      {"cross_attn_k", {Block::CrossAttention, "k"}},
      {"cross_attn_v", {Block::CrossAttention, "v"}},
      {"cross_attn_o", {Block::CrossAttention, "o"}},
      {"cross_attn_rel_b", {Block::CrossAttention, "relative-bias"}},
      {"attn_q_norm", {Block::Norm, "q_norm"}},
      {"attn_k_norm", {Block::Norm, "k_norm"}},
      {"attn_q_a_norm", {Block::Norm, "q_a_layernorm"}},
      {"attn_kv_a_norm", {Block::Norm, "kv_a_layernorm"}},
      {"attn_norm", {Block::Norm, "norm"}},
      {"attn_norm_2", {Block::Norm, "norm"}},
      {"attn_post_norm", {Block::Norm, "norm"}},
      {"attn_output_norm", {Block::Norm, "norm"}},
      {"cross_attn_norm", {Block::Norm, "norm"}},
      {"ffn_norm", {Block::Norm, "norm"}},
      {"ffn_post_norm", {Block::Norm, "norm"}},
      {"post_ffw_norm", {Block::Norm, "norm"}},
      {"layer_output_norm", {Block::Norm, "norm"}},
      {"ffn_gate", {Block::Mlp, "gate"}},
      {"ffn_up", {Block::Mlp, "up"}},
      {"ffn_down", {Block::Mlp, "down"}},
      {"ffn_gate_inp", {Block::MoeRouter, "router"}},
      {"exp_probs_b", {Block::MoeRouter, "router-bias"}},
      {"ffn_gate_exps", {Block::MoeExpert, "gate"}},
      {"ffn_up_exps", {Block::MoeExpert, "up"}},
      {"ffn_down_exps", {Block::MoeExpert, "down"}},
      {"ffn_gate_up_exps", {Block::MoeExpert, "gate-up"}},
      {"ffn_gate_shexp", {Block::SharedExpert, "gate"}},
      {"ffn_up_shexp", {Block::SharedExpert, "up"}},
      {"ffn_down_shexp", {Block::SharedExpert, "down"}},
      {"ffn_gate_inp_shexp", {Block::SharedExpert, "gate"}},
      {"ssm_in", {Block::Mamba, "in_proj"}},
      {"ssm_conv1d", {Block::Mamba, "conv1d"}},
      {"ssm_x", {Block::Mamba, "x_proj"}},
      {"ssm_dt", {Block::Mamba, "dt_proj"}},
      {"ssm_a", {Block::Mamba, "A_log"}},
      {"ssm_d", {Block::Mamba, "D"}},
      {"ssm_norm", {Block::Mamba, "norm"}},
      {"ssm_out", {Block::Mamba, "out_proj"}},
  };
  return kRoles;
}

// Tensors outside the layers.
const std::unordered_map<std::string_view, GgufRole>& model_roles() {
  static const std::unordered_map<std::string_view, GgufRole> kRoles = {
      {"token_embd", {Block::Embedding, "token-embedding"}},
      {"position_embd", {Block::Embedding, "position-embedding"}},
      {"token_types", {Block::Embedding, "token-type-embedding"}},
      {"per_layer_token_embd", {Block::Embedding, "token-embedding"}},
      {"token_embd_norm", {Block::Norm, "norm"}},
      {"output_norm", {Block::Norm, "norm"}},
      {"output", {Block::LmHead, "lm-head"}},
      {"cls", {Block::LmHead, "lm-head"}},
      // llama.cpp's long-context rope factors (Llama-3.1, Phi-3): computed from rope_scaling, not learned.
      {"rope_freqs", {Block::Buffer, "rope-factors"}},
      {"rope_factors_long", {Block::Buffer, "rope-factors"}},
      {"rope_factors_short", {Block::Buffer, "rope-factors"}},
  };
  return kRoles;
}

bool parse_index(std::string_view s, uint32_t& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  std::from_chars(s.data(), s.data() + s.size(), out);
  return true;
}

std::string_view part(std::string_view name, size_t& pos) {
  const size_t dot = name.find('.', pos);
  std::string_view p = name.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
  pos = dot == std::string_view::npos ? name.size() : dot + 1;
  return p;
}

}  // namespace

std::optional<TensorPlacement> place_gguf_tensor(std::string_view name) {
  TensorPlacement pl;
  size_t pos = 0;
  std::string_view first = part(name, pos);
  if (first == "enc" ||
      first == "dec") {  // T5's encoder and decoder stacks: "enc.blk.N...", "enc.output_norm"
    const std::string_view second = part(name, pos);
    if (second == "output_norm") {
      const std::string_view rest = name.substr(pos);
      if (!rest.empty() && rest != "weight" && rest != "bias") return std::nullopt;
      pl.block = Block::Norm;
      pl.role = "norm";
      return pl;
    }
    if (second != "blk") return std::nullopt;
    first = name.substr(0, pos - 1);
  }
  if (first == "blk" || first == "enc.blk" || first == "dec.blk") {
    uint32_t layer = 0;
    if (!parse_index(part(name, pos), layer)) return std::nullopt;
    pl.layer = layer;
    pl.stack_length = static_cast<uint16_t>(first.size());
    std::string_view module = part(name, pos);
    if (module == "nextn") {  // DeepSeek / GLM multi-token-prediction layers, stored after the decoder's
      pl.block = Block::Mtp;
      pl.role = std::string(part(name, pos));
      return pl;
    }
    if (module == "shortconv") {  // LFM2's short convolution: "shortconv.in_proj", ".conv", ".out_proj"
      pl.block = Block::ShortConv;
      pl.role = std::string(part(name, pos));
      return pl;
    }
    if (module == "indexer") {  // DeepSeek-V3.2's and GLM-5's sparse-attention indexer: "indexer.attn_k"
      pl.block = Block::Attention;
      pl.role = "indexer-" + std::string(part(name, pos));
      return pl;
    }
    const auto& roles = layer_roles();
    const auto it = roles.find(module);
    pl.block = it != roles.end() ? it->second.block : Block::Other;
    pl.role = it != roles.end() ? std::string(it->second.role) : std::string(module);
    return pl;
  }
  const auto& roles = model_roles();
  const auto it = roles.find(first);
  if (it == roles.end()) return std::nullopt;
  const std::string_view rest = name.substr(pos);
  if (!rest.empty() && rest != "weight" && rest != "bias") return std::nullopt;
  pl.block = it->second.block;
  pl.role = std::string(it->second.role);
  return pl;
}

}  // namespace ma
