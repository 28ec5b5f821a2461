// Mixture-of-experts decoders of 2025-26 that vary moe_decoder.h's layer: FlexOlmo (norms after each half
// only, q/k norms over the whole projection), Cohere2-MoE (attention and MLP side by side after one norm),
// GraniteMoeSWA (attention sinks, sliding and full layers), Mellum (Qwen3-MoE's attention, dense layers by
// mlp_layer_types) and Hy3 (Tencent's Hunyuan 3: q/k norms, a sigmoid router with a score-correction buffer,
// one shared MLP). Each builder mirrors its transformers class: the config class's defaults, then what its
// modules create.
#include <array>

#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"

namespace ma::families {
namespace {

// FlexOlmo: OLMoE's experts behind OLMo-2's layer (post_attention_layernorm and post_feedforward_layernorm,
// no input norm; q/k norms over all heads at once).
void build_flex_olmo(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FlexOlmoForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 100352;
  dd.max_position_embeddings = 4096;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_experts", "num_local_experts"}, 7, 5, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.attn.qk_norm_width = t.arch.num_attention_heads * t.arch.head_dim;
  d.layer_norms = {"post_attention_layernorm", "post_feedforward_layernorm"};
  build_moe_decoder(t, d);
}

// Cohere2-MoE: Cohere2's parallel layer (one norm, weight only, whether RMSNorm or LayerNorm) with experts
// intermediate_size wide, num_shared_experts of them fused into one shared MLP, and first_k_dense_replace
// dense layers of prefix_dense_intermediate_size whose windows follow their own pattern.
void build_cohere2_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Cohere2MoeForCausalLM";
  const json::Value* rms = cfg.raw("rms_norm_eps");
  t.arch.norm = rms && !rms->is_null() ? NormKind::RmsNorm : NormKind::LayerNorm;
  DecoderDefaults dd;
  dd.vocab_size = 256000;
  dd.hidden_size = 8192;
  dd.intermediate_size = 22528;
  dd.num_hidden_layers = 40;
  dd.num_attention_heads = 64;
  dd.head_dim = 128;
  dd.tie_word_embeddings = true;
  dd.max_position_embeddings = 8192;
  read_decoder_dims(cfg, dd, t);
  ArchitectureRecord& a = t.arch;
  read_experts(cfg, t, {"num_experts"}, 8, 2, a.intermediate_size);
  MoeDecoder d = all_sparse(a);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.layer_norms = {"input_layernorm"};
  const uint64_t first_dense = cfg.count_or("first_k_dense_replace", 0);
  d.sparse = sparse_from_mlp_layer_types(cfg, a.num_layers, first_dense);
  const json::Value* prefix = cfg.raw("prefix_dense_intermediate_size");
  d.dense_inter =
      prefix && !prefix->is_null() ? cfg.dim("prefix_dense_intermediate_size") : a.intermediate_size;
  a.num_shared_experts = cfg.count_or("num_shared_experts", 0);
  d.moe.shared_experts = a.num_shared_experts > 0;
  d.moe.shared_inter = a.num_shared_experts * a.intermediate_size;
  const uint64_t window = window_or_none(cfg, 4096);
  const uint64_t dense_period = cfg.dim_or("prefix_dense_sliding_window_pattern", 1);
  const uint64_t period = cfg.dim_or("sliding_window_pattern", 4);
  d.windows = layer_windows(cfg, a.num_layers, window, [&](uint64_t i) {
    return i < first_dense ? (i + 1) % dense_period != 0 : (i - first_dense + 1) % period != 0;
  });
  build_moe_decoder(t, d);
}

// GraniteMoeSWA: GraniteMoE with one learned attention-sink logit per head, experts stacked under
// block_sparse_moe in memory (gate_up_proj, down_proj) and an optional shared MLP; every fourth layer from
// the first attends fully.
void build_granitemoe_swa(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GraniteMoeSWAForCausalLM";
  read_decoder_dims(cfg, {}, t);
  read_experts(cfg, t, {"num_local_experts"}, 8, 2, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.sinks = true;
  d.moe.block = d.moe.disk_block = "block_sparse_moe";
  d.moe.router = "router";
  d.granite_shared = cfg.count_or("shared_intermediate_size", 0);
  d.windows =
      layer_windows(cfg, t.arch.num_layers, window_or_none(cfg, 128), [](uint64_t i) { return i % 4 != 0; });
  build_moe_decoder(t, d);
}

// Mellum (JetBrains): Qwen3-MoE's attention (per-head q/k norms) and experts, without a shared expert, every
// layer sparse unless mlp_layer_types says dense.
void build_mellum(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MellumForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 98304;
  dd.hidden_size = 2304;
  dd.intermediate_size = 7168;
  dd.num_hidden_layers = 28;
  dd.num_key_value_heads = 4;
  dd.head_dim = 128;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_experts", "num_local_experts"}, 64, 8, cfg.dim_or("moe_intermediate_size", 896));
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.sparse = sparse_from_mlp_layer_types(cfg, t.arch.num_layers, 0);
  d.dense_inter = t.arch.intermediate_size;
  d.windows = layer_windows(cfg, t.arch.num_layers, cfg.count_or("sliding_window", 1024),
                            [](uint64_t) { return false; });
  build_moe_decoder(t, d);
}

// Hy3 (hy_v3): per-head q/k norms, biases on q/k/v and o_proj by attention_bias, the first layer dense unless
// mlp_layer_types says otherwise (first_k_dense_replace is not read), then experts behind a sigmoid router
// whose score-correction buffer sits on the block, and one shared MLP of moe_intermediate_size x
// num_shared_experts (intermediate_size when that is 0). Checkpoints name the router router.gate and the
// shared MLP shared_mlp; their multi-token-prediction layer transformers skips.
void build_hy_v3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "HYV3ForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 120832;
  dd.intermediate_size = 13312;
  dd.num_hidden_layers = 80;
  dd.num_attention_heads = 64;
  dd.num_key_value_heads = 8;
  dd.head_dim = 128;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(cfg, dd, t);
  ArchitectureRecord& a = t.arch;
  read_experts(cfg, t, {"num_experts", "num_local_experts"}, 192, 8,
               cfg.dim_or("moe_intermediate_size", 1536));
  MoeDecoder d = all_sparse(a);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.mlp_bias = cfg.flag_or("mlp_bias", false);
  d.sparse = sparse_from_mlp_layer_types(cfg, a.num_layers, 1);
  d.dense_inter = a.intermediate_size;
  d.moe.correction_bias = true;
  d.moe.disk_router = "router.gate";
  a.num_shared_experts = cfg.count_or("num_shared_experts", 1);
  d.moe.shared_experts = true;
  d.moe.disk_shared_name = "shared_mlp";
  const uint64_t shared = a.moe_intermediate_size * a.num_shared_experts;
  d.moe.shared_inter = shared ? shared : a.intermediate_size;
  t.known_extras.push_back({"model.layers." + std::to_string(a.num_layers) + ".",
                            "multi-token-prediction layer: transformers skips it"});
  build_moe_decoder(t, d);
}

constexpr std::array kMoeVariantFamilies{
    FamilyBuilder{"flex_olmo", build_flex_olmo},
    FamilyBuilder{"cohere2_moe", build_cohere2_moe},
    FamilyBuilder{"granitemoe_swa", build_granitemoe_swa},
    FamilyBuilder{"mellum", build_mellum},
    FamilyBuilder{"hy_v3", build_hy_v3},
};

}  // namespace

std::span<const FamilyBuilder> moe_variants() {
  return kMoeVariantFamilies;
}

}  // namespace ma::families
