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
      {"ssm_dt_norm", {Block::Mamba, "dt_norm"}},  // Jamba's and Falcon-H1's norms inside the mixer
      {"ssm_b_norm", {Block::Mamba, "b_norm"}},
      {"ssm_c_norm", {Block::Mamba, "c_norm"}},
      // Gated DeltaNet (Qwen3-Next) and Kimi Delta Attention (Kimi Linear): linear attention's own names.
      {"ssm_ba", {Block::LinearAttention, "ba"}},
      {"ssm_alpha", {Block::LinearAttention, "alpha"}},
      {"ssm_beta", {Block::LinearAttention, "beta"}},
      {"ssm_conv1d_q", {Block::LinearAttention, "conv1d_q"}},
      {"ssm_conv1d_k", {Block::LinearAttention, "conv1d_k"}},
      {"ssm_conv1d_v", {Block::LinearAttention, "conv1d_v"}},
      {"ssm_f_a", {Block::LinearAttention, "f_a"}},
      {"ssm_f_b", {Block::LinearAttention, "f_b"}},
      {"ssm_g_a", {Block::LinearAttention, "g_a"}},
      {"ssm_g_b", {Block::LinearAttention, "g_b"}},
      {"ssm_g", {Block::LinearAttention, "g"}},
      // DeepSeek-V4: compressed-attention and indexer compressors, the output's low-rank pair, hash routing
      // in the first layers, and the hyper-connections around attention and the MLP (tensor_placement.cpp).
      {"attn_kv", {Block::Attention, "kv"}},
      {"attn_output_a", {Block::Attention, "o-down"}},
      {"attn_output_b", {Block::Attention, "o-up"}},
      {"attn_compressor_ape", {Block::Attention, "compressor-ape"}},
      {"attn_compressor_gate", {Block::Attention, "compressor-gate"}},
      {"attn_compressor_kv", {Block::Attention, "compressor-kv"}},
      {"attn_compressor_norm", {Block::Norm, "norm"}},
      {"indexer_compressor_ape", {Block::Attention, "indexer-compressor-ape"}},
      {"indexer_compressor_gate", {Block::Attention, "indexer-compressor-gate"}},
      {"indexer_compressor_kv", {Block::Attention, "indexer-compressor-kv"}},
      {"indexer_compressor_norm", {Block::Norm, "norm"}},
      {"ffn_gate_tid2eid", {Block::MoeRouter, "hash-routing"}},
      {"exp_probs_b_vl", {Block::MoeRouter, "router-bias"}},
      {"hc_attn_base", {Block::Attention, "hyper-connection"}},
      {"hc_attn_fn", {Block::Attention, "hyper-connection"}},
      {"hc_attn_scale", {Block::Attention, "hyper-connection"}},
      {"hc_attn_down", {Block::Attention, "hyper-connection"}},
      {"hc_attn_up", {Block::Attention, "hyper-connection"}},
      {"hc_attn_inject", {Block::Attention, "hyper-connection"}},
      {"hc_attn_norm", {Block::Norm, "norm"}},
      {"hc_ffn_base", {Block::Mlp, "hyper-connection"}},
      {"hc_ffn_fn", {Block::Mlp, "hyper-connection"}},
      {"hc_ffn_scale", {Block::Mlp, "hyper-connection"}},
      {"hc_ffn_down", {Block::Mlp, "hyper-connection"}},
      {"hc_ffn_up", {Block::Mlp, "hyper-connection"}},
      {"hc_ffn_inject", {Block::Mlp, "hyper-connection"}},
      {"hc_ffn_norm", {Block::Norm, "norm"}},
      // Names of newer llama.cpp architectures placed by their prefix alone (attn_* with attention, ffn_*
      // with the MLP): which model uses them was not checked, only that llama.cpp knows them.
      {"attn_res_score", {Block::Attention, "residual-score"}},
      {"ffn_res_score", {Block::Mlp, "residual-score"}},
      {"attn_conv_base", {Block::Attention, "conv_base"}},
      {"attn_conv_proj", {Block::Attention, "conv_proj"}},
      {"ffn_conv_base", {Block::Mlp, "conv_base"}},
      {"ffn_conv_proj", {Block::Mlp, "conv_proj"}},
      {"ffn", {Block::Mlp, "act"}},  // blk.N.ffn.act, a learned activation scale
      {"ffn_routed_up", {Block::MoeExpert, "up"}},
      {"ffn_routed_down", {Block::MoeExpert, "down"}},
      {"ffn_routed_norm", {Block::Norm, "norm"}},
      // ple_*: per-layer-embedding tensors of a llama.cpp architecture not checked here, placed with the MLP
      // as Gemma 3n's per-layer inputs are (their norms as norms).
      {"ple_key", {Block::Mlp, "ple_key"}},
      {"ple_value", {Block::Mlp, "ple_value"}},
      {"ple_conv1d", {Block::Mlp, "ple_conv1d"}},
      {"ple_norm_key", {Block::Norm, "norm"}},
      {"ple_norm_query", {Block::Norm, "norm"}},
      {"ple_norm_conv", {Block::Norm, "norm"}},
      // Gemma 2 / 3 / 3n / 4's norms after attention and the MLP (and Gemma 4's second MLP's); BitNet's
      // sub-norms; an MoE layer's norm over its experts' output.
      {"post_attention_norm", {Block::Norm, "norm"}},
      {"post_ffw_norm_1", {Block::Norm, "norm"}},
      {"post_ffw_norm_2", {Block::Norm, "norm"}},
      {"pre_ffw_norm_2", {Block::Norm, "norm"}},
      {"attn_sub_norm", {Block::Norm, "norm"}},
      {"ffn_sub_norm", {Block::Norm, "norm"}},
      {"ffn_norm_exps", {Block::Norm, "norm"}},
      {"ffn_gate_chexps", {Block::MoeExpert, "gate"}},
      {"ffn_up_chexps", {Block::MoeExpert, "up"}},
      {"ffn_down_chexps", {Block::MoeExpert, "down"}},
      {"ffn_latent_down", {Block::Mlp, "latent-down"}},
      {"ffn_latent_up", {Block::Mlp, "latent-up"}},
      {"attn_rot_embd", {Block::Buffer, "rotary-inv-freq"}},
      {"layer_output_scale", {Block::Buffer, "layer-scalar"}},  // Gemma 4's layer_scalar
      // Gemma 3n / 4: the per-layer inputs (tensor_placement.cpp), AltUp and LAuReL.
      {"inp_gate", {Block::Mlp, "per_layer_input_gate"}},
      {"proj", {Block::Mlp, "per_layer_projection"}},
      {"post_norm", {Block::Norm, "norm"}},
      {"altup_correct_coef", {Block::Mlp, "altup-correction_coefs"}},
      {"altup_correct_scale", {Block::Mlp, "altup-correct_output_scale"}},
      {"altup_predict_coef", {Block::Mlp, "altup-prediction_coefs"}},
      {"altup_router", {Block::Mlp, "altup-modality_router"}},
      {"altup_router_norm", {Block::Norm, "norm"}},
      {"laurel_l", {Block::Attention, "laurel-linear_left"}},
      {"laurel_r", {Block::Attention, "laurel-linear_right"}},
      {"laurel_post_norm", {Block::Norm, "norm"}},
      // CogVLM's visual experts: attention and MLP weights of the language model's layers that only image
      // tokens run (as ERNIE-4.5-VL's vision_moe), a share of the vision side.
      {"vis_attn_qkv", {Block::Vision, "qkv"}},
      {"vis_attn_output", {Block::Vision, "o"}},
      {"vis_gate", {Block::Vision, "gate"}},
      {"vis_up", {Block::Vision, "up"}},
      {"vis_down", {Block::Vision, "down"}},
      // RWKV 6 / 7: time mixing (its own block) and channel mixing (its MLP).
      {"time_mix_w0", {Block::Rwkv, "time_mix_w0"}},
      {"time_mix_w1", {Block::Rwkv, "time_mix_w1"}},
      {"time_mix_w2", {Block::Rwkv, "time_mix_w2"}},
      {"time_mix_a0", {Block::Rwkv, "time_mix_a0"}},
      {"time_mix_a1", {Block::Rwkv, "time_mix_a1"}},
      {"time_mix_a2", {Block::Rwkv, "time_mix_a2"}},
      {"time_mix_v0", {Block::Rwkv, "time_mix_v0"}},
      {"time_mix_v1", {Block::Rwkv, "time_mix_v1"}},
      {"time_mix_v2", {Block::Rwkv, "time_mix_v2"}},
      {"time_mix_g1", {Block::Rwkv, "time_mix_g1"}},
      {"time_mix_g2", {Block::Rwkv, "time_mix_g2"}},
      {"time_mix_k_k", {Block::Rwkv, "time_mix_k_k"}},
      {"time_mix_k_a", {Block::Rwkv, "time_mix_k_a"}},
      {"time_mix_r_k", {Block::Rwkv, "time_mix_r_k"}},
      {"time_mix_lerp_x", {Block::Rwkv, "time_mix_lerp_x"}},
      {"time_mix_lerp_w", {Block::Rwkv, "time_mix_lerp_w"}},
      {"time_mix_lerp_k", {Block::Rwkv, "time_mix_lerp_k"}},
      {"time_mix_lerp_v", {Block::Rwkv, "time_mix_lerp_v"}},
      {"time_mix_lerp_r", {Block::Rwkv, "time_mix_lerp_r"}},
      {"time_mix_lerp_g", {Block::Rwkv, "time_mix_lerp_g"}},
      {"time_mix_lerp_fused", {Block::Rwkv, "time_mix_lerp_fused"}},
      {"time_mix_first", {Block::Rwkv, "time_first"}},
      {"time_mix_decay", {Block::Rwkv, "time_decay"}},
      {"time_mix_decay_w1", {Block::Rwkv, "time_decay_w1"}},
      {"time_mix_decay_w2", {Block::Rwkv, "time_decay_w2"}},
      {"time_mix_key", {Block::Rwkv, "key"}},
      {"time_mix_value", {Block::Rwkv, "value"}},
      {"time_mix_receptance", {Block::Rwkv, "receptance"}},
      {"time_mix_gate", {Block::Rwkv, "gate"}},
      {"time_mix_ln", {Block::Norm, "norm"}},
      {"time_mix_output", {Block::Rwkv, "output"}},
      {"channel_mix_lerp_k", {Block::Mlp, "time_mix_key"}},
      {"channel_mix_lerp_r", {Block::Mlp, "time_mix_receptance"}},
      {"channel_mix_key", {Block::Mlp, "key"}},
      {"channel_mix_receptance", {Block::Mlp, "receptance"}},
      {"channel_mix_value", {Block::Mlp, "value"}},
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
      // Sentence-transformers' dense layers after pooling (EmbeddingGemma): the embedding's own head.
      {"dense_2", {Block::LmHead, "lm-head"}},
      {"dense_3", {Block::LmHead, "lm-head"}},
      // Gemma 3n's per-layer model projection and AltUp projections, outside the layers.
      {"per_layer_model_proj", {Block::Mlp, "per_layer_model_projection"}},
      {"per_layer_proj_norm", {Block::Norm, "norm"}},
      {"altup_proj", {Block::Mlp, "altup-projection"}},
      {"altup_unembd_proj", {Block::Mlp, "altup-unembedding"}},
      {"per_layer_proj", {Block::Mlp, "per_layer_model_projection"}},
      // DeepSeek-V4's hyper-connections merging the residual copies before the head.
      {"output_hc_base", {Block::LmHead, "hyper-connection"}},
      {"output_hc_fn", {Block::LmHead, "hyper-connection"}},
      {"output_hc_scale", {Block::LmHead, "hyper-connection"}},
      {"output_hc_down", {Block::LmHead, "hyper-connection"}},
      {"output_hc_up", {Block::LmHead, "hyper-connection"}},
      {"output_hc_norm", {Block::Norm, "norm"}},
      {"output_res_score", {Block::LmHead, "residual-score"}},
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
