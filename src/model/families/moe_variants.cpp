// Mixture-of-experts decoders of 2025-26 that vary moe_decoder.h's layer: FlexOlmo (norms after each half
// only, q/k norms over the whole projection), Cohere2-MoE (attention and MLP side by side after one norm),
// GraniteMoeSWA (attention sinks, sliding and full layers), Mellum (Qwen3-MoE's attention, dense layers by
// mlp_layer_types), Hy3 (Tencent's Hunyuan 3: q/k norms, a sigmoid router with a score-correction buffer, one
// shared MLP), Step-3.5 (per-head output gates, more query heads on sliding layers) and JetMoE (a mixture of
// attention heads beside the mixture of MLPs). Each builder mirrors
// its transformers class: the config class's defaults, then what its modules create.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

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
  d.moe.disk_correction_bias_name = "expert_bias";
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

// A per-layer list of Step-3.5's Hub config, which pads it with one entry per multi-token-prediction layer:
// those are dropped, as Step3p7TextConfig splits them off. Empty when the config has none.
std::vector<std::string> step3p5_layer_list(const ModelConfig& cfg, std::string_view key, uint64_t layers,
                                            uint64_t mtp) {
  std::vector<std::string> v = cfg.strings(key);
  if (!v.empty() && v.size() == layers + mtp) v.resize(layers);
  if (!v.empty() && v.size() != layers)
    cfg.fail(key,
             "must list one entry per layer (" + std::to_string(layers) + "), or per layer and MTP layer");
  return v;
}

// Layer indices given as a list or as one string of them ("3,4,5", as Step-3.5's moe_layers_enum spells
// them).
std::vector<int64_t> layer_indices(const ModelConfig& cfg, std::string_view key) {
  const json::Value* v = cfg.raw(key);
  if (!v->is_string()) return cfg.ints(key);
  std::vector<int64_t> out;
  std::string_view rest = v->as_string();
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    if (item.size() > 6 || item.find_first_not_of("0123456789") != std::string_view::npos)
      cfg.fail(key, "must list layer indices (\"3,4,5\" or [3, 4, 5])");
    out.push_back(std::stoll(std::string(item)));
  }
  return out;
}

// Step-3.5-Flash (step3p5): its Hub checkpoint runs remote code; transformers reads the config as
// Step3p7TextConfig and builds the same stack as Step3p7TextModel, named here as that class names it, with
// the head. Qwen3's attention with a sigmoid gate per head (g_proj), sliding layers with their own query-head
// count (attention_other_setting, 96 against 64), the dense layers moe_layers_enum leaves out (the first
// three), then experts behind a sigmoid router with a score-correction buffer and one shared MLP of
// share_expert_dim. The Hub's legacy keys are read as the config class reads them.
void build_step3p5(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Step3p5ForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 128815;
  dd.intermediate_size = 11264;
  dd.num_hidden_layers = 45;
  dd.num_attention_heads = 64;
  dd.num_key_value_heads = cfg.dim_or("num_attention_groups", 8);
  dd.head_dim = 128;
  dd.max_position_embeddings = 128000;
  read_decoder_dims(cfg, dd, t);
  ArchitectureRecord& a = t.arch;
  read_experts(cfg, t, {"n_routed_experts", "moe_num_experts", "num_local_experts"}, 288,
               cfg.dim_or("moe_top_k", 8), cfg.dim_or("moe_intermediate_size", 1280));
  const uint64_t mtp = cfg.count_or("num_nextn_predict_layers", cfg.count_or("num_mtp_layers", 0));
  MoeDecoder d = all_sparse(a);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.gate = OutputGate::PerHead;
  d.mlp_bias = cfg.flag_or("mlp_bias", false);
  d.dense_inter = a.intermediate_size;
  // Which layers slide, and with how many query heads.
  const std::vector<std::string> types = step3p5_layer_list(cfg, "layer_types", a.num_layers, mtp);
  uint64_t sliding_heads = a.num_attention_heads;
  if (cfg.has("num_sliding_attention_heads"))
    sliding_heads = cfg.dim("num_sliding_attention_heads");
  else if (const std::optional<ModelConfig> other = cfg.sub("attention_other_setting"))
    sliding_heads = other->dim_or("num_attention_heads", a.num_attention_heads);
  const uint64_t window = window_or_none(cfg, 0);
  d.heads.assign(a.num_layers, a.num_attention_heads);
  d.windows.assign(a.num_layers, 0);
  for (uint64_t i = 0; i < types.size(); ++i) {
    if (types[i] != "sliding_attention" && types[i] != "full_attention")
      cfg.fail("layer_types",
               "entries must be sliding_attention or full_attention, not \"" + types[i] + "\"");
    if (types[i] == "sliding_attention") {
      d.heads[i] = sliding_heads;
      d.windows[i] = window;
    }
  }
  // Which layers route: mlp_layer_types, else moe_layers_enum (indices, as a list or "3,4,..."), else from 3
  // on.
  const std::vector<std::string> mlp = step3p5_layer_list(cfg, "mlp_layer_types", a.num_layers, mtp);
  for (uint64_t i = 0; i < a.num_layers; ++i) d.sparse[i] = i >= 3;
  if (!mlp.empty()) {
    for (uint64_t i = 0; i < a.num_layers; ++i) {
      if (mlp[i] != "dense" && mlp[i] != "sparse")
        cfg.fail("mlp_layer_types", "entries must be dense or sparse, not \"" + mlp[i] + "\"");
      d.sparse[i] = mlp[i] == "sparse";
    }
  } else if (const json::Value* e = cfg.raw("moe_layers_enum"); e && !e->is_null()) {
    const std::vector<int64_t> listed = layer_indices(cfg, "moe_layers_enum");
    for (uint64_t i = 0; i < a.num_layers; ++i)
      d.sparse[i] = std::find(listed.begin(), listed.end(), static_cast<int64_t>(i)) != listed.end();
  }
  d.moe.disk_block = "moe";
  d.moe.style = ExpertStyle::StackedHalves;
  d.moe.correction_bias = true;
  d.moe.correction_bias_name = "gate.e_score_correction_bias";
  d.moe.disk_correction_bias_name = "router_bias";
  d.moe.shared_experts = true;
  d.moe.shared_inter =
      cfg.has("share_expert_dims") ? cfg.dim("share_expert_dims") : cfg.dim_or("share_expert_dim", 1280);
  a.num_shared_experts = 1;
  build_moe_decoder(t, d);
  for (uint64_t i = 0; i < a.num_layers; ++i)
    if (d.sparse[i]) {
      const std::string p = "model.layers." + std::to_string(i) + ".";
      t.rename_on_disk(p + "mlp.shared_experts.", p + "share_expert.");
    }
  for (uint64_t i = 0; i < mtp; ++i)
    t.known_extras.push_back({"model.layers." + std::to_string(a.num_layers + i) + ".",
                              "multi-token-prediction layer: transformers skips it"});
}

// JetMoE: a mixture of experts in both halves of every layer. Attention is a mixture of attention heads
// (MoA): one shared kv_proj gives num_key_value_heads keys and values of kv_channels, and each of
// num_local_experts experts projects the queries in (input_linear) and the output back (output_linear), the
// top num_experts_per_tok of them per token, hence num_key_value_heads x num_experts_per_tok query heads. The
// MLP is a plain top-k mixture (input_linear [E, 2I, H], output_linear [E, H, I]) with a bias of its own.
void build_jetmoe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "JetMoeForCausalLM";
  DecoderDefaults dd;
  dd.hidden_size = 2048;
  dd.intermediate_size = 5632;
  dd.num_hidden_layers = 12;
  dd.num_key_value_heads = cfg.dim_or("num_key_value_heads", 16);
  dd.num_attention_heads = dd.num_key_value_heads * cfg.dim_or("num_experts_per_tok", 2);
  dd.head_dim = cfg.has("kv_channels") ? cfg.dim("kv_channels") : 128;  // head_dim is its alias
  dd.tie_word_embeddings = true;
  dd.max_position_embeddings = 4096;
  read_decoder_dims(cfg, dd, t);
  ArchitectureRecord& a = t.arch;
  read_experts(cfg, t, {"num_local_experts"}, 8, 2, a.intermediate_size);
  const uint64_t h = a.hidden_size, e = a.num_experts, heads_width = a.num_key_value_heads * a.head_dim;
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    const std::string moa = p + ".self_attention.experts", mlp = p + ".mlp";
    blocks::linear(t, p + ".self_attention.kv_proj", h, 2 * heads_width, false);
    t.add(moa + ".bias", {h});
    blocks::routed(t, moa + ".input_linear.weight", {e, heads_width, h});
    blocks::routed(t, moa + ".output_linear.weight", {e, h, heads_width});
    blocks::linear(t, moa + ".router.layer", h, e, false);
    t.add(mlp + ".bias", {h});
    blocks::routed(t, mlp + ".input_linear.weight", {e, 2 * a.intermediate_size, h});
    blocks::routed(t, mlp + ".output_linear.weight", {e, h, a.intermediate_size});
    blocks::linear(t, mlp + ".router.layer", h, e, false);
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
    stack.layers.push_back(attention_layer(a, 0, Ffn::Moe));
  }
  blocks::norm(t, "model.norm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

constexpr std::array kMoeVariantFamilies{
    FamilyBuilder{"flex_olmo", build_flex_olmo},
    FamilyBuilder{"cohere2_moe", build_cohere2_moe},
    FamilyBuilder{"granitemoe_swa", build_granitemoe_swa},
    FamilyBuilder{"mellum", build_mellum},
    FamilyBuilder{"hy_v3", build_hy_v3},
    FamilyBuilder{"step3p5", build_step3p5},
    FamilyBuilder{"jetmoe", build_jetmoe},
};

}  // namespace

std::span<const FamilyBuilder> moe_variants() {
  return kMoeVariantFamilies;
}

}  // namespace ma::families
