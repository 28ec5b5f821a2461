// Remote-code families whose layout an existing builder already makes, under another model_type:
// * Kimi-K2 (kimi_k2): DeepSeek-V3's own modeling_deepseek.py, which transformers' DeepseekV3 mirrors except
//   that its MoEGate holds e_score_correction_bias as a parameter (topk_method noaux_tc), not a buffer.
// * Falcon's RefinedWeb (40B/180B, modelling_RW.py) and RefinedWebModel (7B): what FalconForCausalLM builds
//   from the same sizes, spelled n_layer / n_head / n_head_kv.
// * MiMo (mimo, modeling_mimo.py): Qwen2 plus num_nextn_predict_layers multi-token-prediction layers that
//   MiMoModel builds as model.mtp_layers (parameters of the model, not skipped extras).
#include <string>
#include <vector>

#include "core/error.h"
#include "model/families/decoder_common.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

void set_router_bias_kind(const ModelConfig& cfg, ModelTemplate& t) {
  const bool noaux = cfg.string_or("topk_method", "noaux_tc") == "noaux_tc";
  constexpr std::string_view kBias = ".mlp.gate.e_score_correction_bias";
  if (!noaux)  // MoEGate creates it only for noaux_tc routing
    std::erase_if(t.tensors, [&](const TemplateTensor& x) { return x.name.ends_with(kBias); });
  for (TemplateTensor& x : t.tensors)
    if (x.name.ends_with(kBias)) x.kind = TensorKind::Parameter;
}

// A FalconConfig with `fields` (already-validated numbers and flags), for FalconForCausalLM's builder.
ModelConfig falcon_config(const ModelConfig& cfg, const std::string& fields) {
  return cfg.derived("{\"model_type\": \"falcon\", " + fields + "}");
}

std::string field(std::string_view key, uint64_t v) {
  return "\"" + std::string(key) + "\": " + std::to_string(v);
}
std::string field(std::string_view key, bool v) {
  return "\"" + std::string(key) + "\": " + (v ? "true" : "false");
}

// RWConfig's sizes (both generations), as FalconConfig fields: n_embed (its legacy name) wins over
// hidden_size, n_layer / n_head are its own names, and the lm_head is tied unless the config says otherwise
// (PretrainedConfig's default; RWForCausalLM names it as its output embeddings).
std::string rw_sizes(const ModelConfig& cfg, uint64_t* heads) {
  const uint64_t hidden = cfg.dim_or(cfg.has("n_embed") ? "n_embed" : "hidden_size", 64);
  *heads = cfg.dim_or("n_head", 8);
  if (hidden % *heads != 0) cfg.fail("n_head", "must divide hidden_size (" + std::to_string(hidden) + ")");
  return field("vocab_size", cfg.dim_or("vocab_size", 250880)) + ", " + field("hidden_size", hidden) + ", " +
         field("num_hidden_layers", cfg.layers_or("n_layer", 2)) + ", " +
         field("num_attention_heads", *heads) + ", " + field("bias", cfg.flag_or("bias", false)) + ", " +
         field("tie_word_embeddings", cfg.flag_or("tie_word_embeddings", true)) + ", " +
         field("ffn_hidden_size", 4 * hidden);
}

// MiMoMTPLayers: token and hidden norms, input_proj from their concatenation, then a Qwen2 decoder layer
// (q/k/v biased, o not) and a final norm.
void mtp_layer(ModelTemplate& t, const std::string& p) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  for (std::string_view n :
       {".input_layernorm", ".post_attention_layernorm", ".token_layernorm", ".hidden_layernorm"})
    blocks::norm(t, p + std::string(n), h, false);
  blocks::linear(t, p + ".input_proj", 2 * h, h, false);
  blocks::norm(t, p + ".final_layernorm", h, false);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = true;
  blocks::attention(t, p + ".self_attn", at);
  blocks::gated_mlp(t, p + ".mlp", h, a.intermediate_size);
}

}  // namespace

void build_kimi_k2(const ModelConfig& cfg, ModelTemplate& t) {
  // The remote decoder layer routes when layer >= first_k_dense_replace and layer % moe_layer_freq == 0, and
  // has shared experts only when n_shared_experts is set; the DeepSeek-V3 builder covers freq 1 with them.
  if (cfg.count_or("moe_layer_freq", 1) != 1)
    unsupported(cfg, "moe_layer_freq", "kimi_k2 with moe_layer_freq != 1");
  if (!cfg.has("n_shared_experts")) unsupported(cfg, "n_shared_experts", "kimi_k2 without shared experts");
  build_as("deepseek_v3", cfg, t);
  set_router_bias_kind(cfg, t);
}

void build_refinedweb(const ModelConfig& cfg, ModelTemplate& t) {
  uint64_t heads = 0;
  const std::string sizes = rw_sizes(cfg, &heads);
  const uint64_t kv = cfg.dim_or("n_head_kv", heads);
  if (heads % kv != 0) cfg.fail("n_head_kv", "must divide n_head (" + std::to_string(heads) + ")");
  // The decoder layer always has ln_attn and ln_mlp in parallel and a query_key_value sized by n_head_kv.
  build_as("falcon",
           falcon_config(cfg, sizes + ", " + field("new_decoder_architecture", true) + ", " +
                                  field("num_kv_heads", kv) + ", " + field("parallel_attn", true) + ", " +
                                  field("num_ln_in_parallel_attn", uint64_t{2})),
           t);
  t.arch.architecture = "RWForCausalLM";
}

void build_refinedweb_model(const ModelConfig& cfg, ModelTemplate& t) {
  uint64_t heads = 0;
  const std::string sizes = rw_sizes(cfg, &heads);
  // One input_layernorm, plus post_attention_layernorm unless parallel_attn; k and v one head wide with
  // multi_query.
  build_as("falcon",
           falcon_config(cfg, sizes + ", " + field("new_decoder_architecture", false) + ", " +
                                  field("multi_query", cfg.flag_or("multi_query", false)) + ", " +
                                  field("parallel_attn", cfg.flag_or("parallel_attn", false)) + ", " +
                                  field("num_ln_in_parallel_attn", uint64_t{1})),
           t);
  t.arch.architecture = "RWForCausalLM";
}

void build_mimo(const ModelConfig& cfg, ModelTemplate& t) {
  build_as("qwen2", cfg, t);
  t.arch.architecture = "MiMoForCausalLM";
  const uint64_t mtp = cfg.count_or("num_nextn_predict_layers", 0);
  if (mtp > ModelConfig::kMaxLayers) cfg.fail("num_nextn_predict_layers", "is larger than any real model's");
  for (uint64_t i = 0; i < mtp; ++i) mtp_layer(t, "model.mtp_layers." + std::to_string(i));
  // Their own stack: in the parameters (MiMoModel builds them), not in the decoder's per-token figures or
  // the active count (they only draft tokens). Each is a Qwen2 decoder layer with its projections and norms.
  if (mtp == 0) return;
  const LayerSpec layer = t.arch.layers().back();
  StackSpec& s = t.arch.add_stack(StackRole::Mtp, "model.mtp_layers", t.arch.hidden_size);
  s.layers.assign(mtp, layer);
}

}  // namespace ma::families::remote
