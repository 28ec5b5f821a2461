// Ling 2.0 and Ring 2.0 (inclusionAI: Ling-mini-2.0, Ling-flash-2.0, Ling-1T), BailingMoeV2ForCausalLM of
// the repositories' modeling_bailing_moe_v2.py. Their configs say model_type "bailing_moe", the name Ling
// 1.0's different BailingMoeForCausalLM also uses, so the class the config names decides which is built.
//
// A GQA decoder with one fused query_key_value projection, per-head q/k RMSNorms and an output `dense`; the
// first first_k_dense_replace layers have a dense MLP, the rest a sigmoid-routed mixture whose router keeps
// its score bias as a saved buffer (mlp.gate.expert_bias, float32 in the checkpoints, always created
// whatever moe_router_enable_expert_bias says) beside one shared MLP num_shared_experts x
// moe_intermediate_size wide. Base checkpoints carry num_nextn_predict_layers multi-token-prediction layers,
// which the model builds after the decoder stack, at model.layers.{num_hidden_layers + j}: a routed decoder
// layer plus enorm, hnorm, eh_proj [H, 2H] and final_layernorm, reading the model's own embedding and head.
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

struct Ling {
  blocks::Attention attn;
  bool qk_norm = true;
  uint64_t experts = 256, shared = 1, expert_inter = 512;
};

// One decoder layer under `p` (routed or dense), and its shape.
LayerSpec ling_layer(ModelTemplate& t, const std::string& p, const Ling& m, bool routed) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, hd = m.attn.head_dim;
  blocks::linear(t, p + ".attention.query_key_value", h, (m.attn.heads + 2 * m.attn.kv_heads) * hd,
                 m.attn.qkv_bias);
  if (m.qk_norm) {
    blocks::norm(t, p + ".attention.query_layernorm", hd, false);
    blocks::norm(t, p + ".attention.key_layernorm", hd, false);
  }
  blocks::linear(t, p + ".attention.dense", m.attn.heads * hd, h, m.attn.o_bias);
  if (routed) {
    blocks::fused_experts(t, p + ".mlp.experts", m.experts, h, m.expert_inter, {p + ".mlp.experts"});
    blocks::linear(t, p + ".mlp.gate", h, m.experts, false);
    TemplateTensor& bias = t.add(p + ".mlp.gate.expert_bias", {m.experts});
    bias.kind = TensorKind::Buffer;
    bias.disk.push_back({bias.name, bias.shape, DType::F32});
    if (m.shared) blocks::gated_mlp(t, p + ".mlp.shared_experts", h, m.expert_inter * m.shared);
  } else {
    blocks::gated_mlp(t, p + ".mlp", h, a.intermediate_size);
  }
  blocks::norm(t, p + ".input_layernorm", h, false);
  blocks::norm(t, p + ".post_attention_layernorm", h, false);
  LayerSpec l = attention_layer(a, 0, routed ? Ffn::Moe : Ffn::Dense);
  if (routed) l.ffn.shared_intermediate = m.expert_inter * m.shared;
  return l;
}

// The key is there and null (absent keys take the config class's default).
bool given_as_null(const ModelConfig& cfg, std::string_view key) {
  const json::Value* v = cfg.raw(key);
  return v && v->is_null();
}

}  // namespace

void build_bailing_moe(const ModelConfig& cfg, ModelTemplate& t) {
  const std::vector<std::string> classes = cfg.strings("architectures");
  const bool v2 = cfg.string_or("model_type", "") == "bailing_moe_v2" ||
                  (!classes.empty() && classes.front() == "BailingMoeV2ForCausalLM");
  if (!v2) unsupported(cfg, "architectures", "Ling 1.0 (BailingMoeForCausalLM)");
  t.arch.architecture = "BailingMoeV2ForCausalLM";
  DecoderDefaults d;  // BailingMoeV2Config's: Ling-mini-2.0
  d.vocab_size = 157184;
  d.hidden_size = 2048;
  d.intermediate_size = 5120;
  d.num_hidden_layers = 20;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 4;
  d.head_dim = 128;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  Ling m;
  m.attn = standard_attention(a);
  m.attn.qkv_bias = cfg.flag_or("use_qkv_bias", false);
  m.attn.o_bias = cfg.flag_or("use_bias", false);
  m.qk_norm = cfg.flag_or("use_qk_norm", true);
  // num_experts null builds every layer dense (and the multi-token-prediction layers cannot route).
  const bool routed = !given_as_null(cfg, "num_experts");
  if (routed) {
    m.experts = cfg.dim_or("num_experts", 256);
    m.shared = given_as_null(cfg, "num_shared_experts") ? 0 : cfg.count_or("num_shared_experts", 1);
    m.expert_inter = cfg.dim_or("moe_intermediate_size", 512);
    a.num_experts = m.experts;
    a.experts_per_token = cfg.dim_or("num_experts_per_tok", 8);
    if (a.experts_per_token > a.num_experts)
      cfg.fail("num_experts_per_tok", "must not exceed num_experts (" + std::to_string(a.num_experts) + ")");
    a.num_shared_experts = m.shared;
    a.moe_intermediate_size = m.expert_inter;
  }
  const uint64_t first_dense = cfg.count_or("first_k_dense_replace", 1);
  const uint64_t mtp = cfg.count_or("num_nextn_predict_layers", 0);
  if (mtp > ModelConfig::kMaxLayers) cfg.fail("num_nextn_predict_layers", "is larger than any real model's");
  if (mtp && !routed) cfg.fail("num_nextn_predict_layers", "needs num_experts: its layers route");

  blocks::embedding(t, "model.word_embeddings.weight", a.vocab_size, a.hidden_size);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i)
    stack.layers.push_back(ling_layer(t, "model.layers." + std::to_string(i), m, routed && i >= first_dense));
  blocks::norm(t, "model.norm", a.hidden_size, false);
  lm_head(t, "model.word_embeddings.weight", a);
  if (mtp == 0) return;
  std::vector<LayerSpec> layers;
  for (uint64_t j = 0; j < mtp; ++j) {
    const std::string p = "model.layers." + std::to_string(a.num_layers + j);
    layers.push_back(ling_layer(t, p, m, true));
    for (std::string_view n : {".enorm", ".hnorm", ".final_layernorm"})
      blocks::norm(t, p + std::string(n), a.hidden_size, false);
    blocks::linear(t, p + ".eh_proj", 2 * a.hidden_size, a.hidden_size, false);
  }
  StackSpec& next = a.add_stack(StackRole::Mtp, "model.layers", a.hidden_size);
  next.first_index = a.num_layers;
  next.layers = std::move(layers);
}

}  // namespace ma::families::remote
