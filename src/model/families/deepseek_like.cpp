// DeepSeek-V2/V3/V3.2 and the GLM MoE decoders built on them: Llama's pre-norm block whose attention is
// Multi-head Latent Attention (low-rank q and kv projections, GLM-4.7-Flash's too; GLM-4.5 keeps GQA with q/k
// norms) and whose MLP is a routed mixture with shared experts after the first dense layers. V3.2 and GLM-5
// add the sparse-attention indexer; dots.llm1 puts the mixture under Qwen3's attention. Hub checkpoints store
// routed experts one tensor each and append multi-token-prediction layers after the decoder stack, which
// transformers does not build.
#include "model/families/deepseek_like.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// Multi-head Latent Attention projections (DeepseekV2/V3Attention). Also the family's defaults.
struct Mla {
  uint64_t q_lora_rank = 1536;  // 0: one q_proj instead of the q_a/q_b low-rank pair
  uint64_t kv_lora_rank = 512;
  uint64_t qk_nope_head_dim = 128;
  uint64_t qk_rope_head_dim = 64;
  uint64_t v_head_dim = 128;
  bool bias = false;  // attention_bias: only q_a, kv_a and o carry it
};

// DeepSeek Sparse Attention's lightning indexer (V3.2, GLM-5). heads == 0: none.
struct Indexer {
  uint64_t heads = 0;
  uint64_t head_dim = 128;
  uint64_t topk = 2048;  // keys each query attends (index_topk)
};

// The routed mixture. Also the family's defaults.
struct Moe {
  uint64_t experts = 256;
  uint64_t top_k = 8;            // 0: the config must give num_experts_per_tok (DeepSeek-V2)
  uint64_t shared = 1;           // one MLP of width shared * inter; 0: none
  bool shared_nullable = false;  // DeepSeek-V2: n_shared_experts null means no shared experts
  uint64_t inter = 2048;
  bool correction_bias = true;  // the sigmoid router's e_score_correction_bias buffer (V3 onward)
};

// Everything one family's decoder stack needs, read from the config.
struct Stack {
  bool mla = true;  // false: GQA attention (GLM-4.5)
  Mla mla_dims;
  blocks::Attention gqa;
  Indexer indexer;
  Moe moe;
  std::vector<bool> moe_layer;      // per layer: routed mixture (else dense MLP)
  std::vector<bool> indexer_layer;  // per layer: owns an indexer
  std::string prefix = "model.";    // of the language model: "model.language_model." inside GLM-4.5V
  bool mtp = true;                  // num_nextn_predict_layers read (GLM-4.5V's text config has none)
  bool lm_head = true;              // false: the bare text model (Glm4vMoeTextModel alone)
  std::vector<uint64_t> windows;    // per layer sliding window (K-EXAONE); empty: full attention throughout
};

// MLA and DSA configs never split hidden_size into heads (q/k/v widths come from their own fields), so the
// common reader's head_dim derivation must not reject them; kv heads default to the query heads.
DecoderDefaults latent_defaults(DecoderDefaults d) {
  d.head_dim = 1;
  d.num_key_value_heads = 0;
  return d;
}

Mla read_mla(const ModelConfig& cfg, const Mla& d) {
  Mla m;
  const json::Value* q = cfg.raw("q_lora_rank");
  m.q_lora_rank = q && q->is_null() ? 0 : cfg.dim_or("q_lora_rank", d.q_lora_rank);
  m.kv_lora_rank = cfg.dim_or("kv_lora_rank", d.kv_lora_rank);
  m.qk_nope_head_dim = cfg.count_or("qk_nope_head_dim", d.qk_nope_head_dim);
  m.qk_rope_head_dim = cfg.count_or("qk_rope_head_dim", d.qk_rope_head_dim);
  m.v_head_dim = cfg.dim_or("v_head_dim", d.v_head_dim);
  if (m.qk_nope_head_dim + m.qk_rope_head_dim == 0)
    cfg.fail("qk_nope_head_dim", "qk_nope_head_dim + qk_rope_head_dim must be at least 1");
  m.bias = cfg.flag_or("attention_bias", false);
  return m;
}

Moe read_moe(const ModelConfig& cfg, const Moe& d) {
  Moe m = d;
  m.experts = cfg.dim_or("n_routed_experts", d.experts);
  m.top_k = cfg.count_or("num_experts_per_tok", d.top_k);
  const json::Value* s = cfg.raw("n_shared_experts");
  m.shared = d.shared_nullable && s && s->is_null() ? 0 : cfg.count_or("n_shared_experts", d.shared);
  m.inter = cfg.dim_or("moe_intermediate_size", d.inter);
  return m;
}

// Checks the mixture once we know some layer routes: transformers would fail at the first forward otherwise.
void check_moe(const ModelConfig& cfg, const Moe& m) {
  if (m.top_k == 0) cfg.fail("num_experts_per_tok", "must be at least 1 when the model has MoE layers");
  if (m.top_k > m.experts)
    cfg.fail("num_experts_per_tok", "must not exceed n_routed_experts (" + std::to_string(m.experts) + ")");
}

// Layers from first_k_dense_replace on route (DeepseekV2/V3DecoderLayer, Glm4MoeDecoderLayer); transformers
// ignores the checkpoints' moe_layer_freq, so do we.
std::vector<bool> moe_from_first_k(const ModelConfig& cfg, uint64_t layers, uint64_t first_k_default) {
  uint64_t first_k = cfg.count_or("first_k_dense_replace", first_k_default);
  std::vector<bool> moe(layers);
  for (uint64_t i = 0; i < layers; ++i) moe[i] = i >= first_k;
  return moe;
}

// mlp_layer_types, defaulting to first_k_dense_replace dense layers (3, DeepSeek-V3.2's and GLM-5's).
std::vector<bool> moe_from_layer_types(const ModelConfig& cfg, uint64_t layers) {
  return sparse_from_mlp_layer_types(cfg, layers, cfg.count_or("first_k_dense_replace", 3));
}

// GLM-5's IndexShare: "shared" layers reuse the previous full layer's top-k and own no indexer. The schedule
// is indexer_types, else index_topk_pattern ("F"/"S" per layer), else every index_topk_freq-th layer from
// index_skip_topk_offset - 1 on.
std::vector<bool> glm_indexer_layers(const ModelConfig& cfg, uint64_t layers) {
  std::vector<std::string> types = cfg.strings("indexer_types");
  if (types.empty()) {
    const json::Value* p = cfg.raw("index_topk_pattern");
    if (p && p->is_string()) {
      for (char c : p->as_string())
        types.push_back(c == 'F' ? "full" : c == 'S' ? "shared" : std::string(1, c));
    } else if (p && !p->is_null()) {
      types = cfg.strings("index_topk_pattern");
    }
  }
  std::vector<bool> full(layers);
  if (types.empty()) {
    uint64_t freq = std::max<uint64_t>(cfg.count_or("index_topk_freq", 1), 1);
    uint64_t offset = cfg.count_or("index_skip_topk_offset", 2);
    for (uint64_t i = 0; i < layers; ++i) full[i] = (i + 1 > offset ? i + 1 - offset : 0) % freq == 0;
    return full;
  }
  if (types.size() < layers)
    cfg.fail("indexer_types", "must have one entry per layer (" + std::to_string(layers) + ")");
  for (uint64_t i = 0; i < layers; ++i) {
    if (types[i] != "full" && types[i] != "shared")
      cfg.fail("indexer_types", "entries must be \"full\" or \"shared\"");
    full[i] = types[i] == "full";
  }
  return full;
}

void mla_attention(ModelTemplate& t, const std::string& p, const ArchitectureRecord& a, const Mla& m) {
  uint64_t qk_head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.q_lora_rank == 0) {
    blocks::linear(t, p + ".q_proj", a.hidden_size, a.num_attention_heads * qk_head_dim, false);
  } else {
    blocks::linear(t, p + ".q_a_proj", a.hidden_size, m.q_lora_rank, m.bias);
    blocks::norm(t, p + ".q_a_layernorm", m.q_lora_rank, false);
    blocks::linear(t, p + ".q_b_proj", m.q_lora_rank, a.num_attention_heads * qk_head_dim, false);
  }
  // The compressed kv latent and the shared rotary key come out of one projection.
  blocks::linear(t, p + ".kv_a_proj_with_mqa", a.hidden_size, m.kv_lora_rank + m.qk_rope_head_dim, m.bias);
  blocks::norm(t, p + ".kv_a_layernorm", m.kv_lora_rank, false);
  uint64_t kv_up = a.num_attention_heads * (m.qk_nope_head_dim + m.v_head_dim);
  blocks::linear(t, p + ".kv_b_proj", m.kv_lora_rank, kv_up, false);
  blocks::linear(t, p + ".o_proj", a.num_attention_heads * m.v_head_dim, a.hidden_size, m.bias);
}

// Queries come from the MLA q latent, keys from the hidden state through a LayerNorm (weight and bias).
void sparse_indexer(ModelTemplate& t, const std::string& p, const ArchitectureRecord& a, uint64_t q_lora_rank,
                    const Indexer& ix) {
  blocks::linear(t, p + ".wq_b", q_lora_rank, ix.heads * ix.head_dim, false);
  blocks::linear(t, p + ".wk", a.hidden_size, ix.head_dim, false);
  blocks::norm(t, p + ".k_norm", ix.head_dim, true);
  blocks::linear(t, p + ".weights_proj", a.hidden_size, ix.heads, false);
}

void routed_mixture(ModelTemplate& t, const std::string& p, const ArchitectureRecord& a, const Moe& m) {
  blocks::fused_experts(t, p + ".experts", m.experts, a.hidden_size, m.inter, {p + ".experts"});
  blocks::expert_router(t, p + ".gate", a.hidden_size, m.experts, m.correction_bias);
  if (m.shared) blocks::gated_mlp(t, p + ".shared_experts", a.hidden_size, m.inter * m.shared);
}

// What a layer's attention caches: the latent and the shared rope key instead of per-head K and V.
void mla_shape(AttentionShape& at, const Mla& m) {
  at.kind = AttentionKind::Mla;
  at.kv_lora_rank = m.kv_lora_rank;
  at.q_lora_rank = m.q_lora_rank;
  at.qk_nope_head_dim = m.qk_nope_head_dim;
  at.qk_rope_head_dim = m.qk_rope_head_dim;
  at.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  at.v_head_dim = m.v_head_dim;
}

void indexer_shape(AttentionShape& at, const Indexer& x) {
  at.indexer_heads = x.heads;
  at.indexer_head_dim = x.head_dim;
  at.indexer_topk = x.topk;
}

// One decoder layer's tensors under `p`, and its shape.
LayerSpec decoder_layer(ModelTemplate& t, const std::string& p, const Stack& s, bool moe, bool indexer,
                        uint64_t window = 0) {
  const ArchitectureRecord& a = t.arch;
  if (s.mla)
    mla_attention(t, p + ".self_attn", a, s.mla_dims);
  else
    blocks::attention(t, p + ".self_attn", s.gqa);
  if (s.indexer.heads && indexer)
    sparse_indexer(t, p + ".self_attn.indexer", a, s.mla_dims.q_lora_rank, s.indexer);
  if (moe)
    routed_mixture(t, p + ".mlp", a, s.moe);
  else
    blocks::gated_mlp(t, p + ".mlp", a.hidden_size, a.intermediate_size);
  blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
  blocks::norm(t, p + ".post_attention_layernorm", a.hidden_size, false);
  LayerSpec l = attention_layer(a, window, moe ? Ffn::Moe : Ffn::Dense);
  if (s.mla) mla_shape(l.attention, s.mla_dims);
  if (s.indexer.heads && indexer) indexer_shape(l.attention, s.indexer);
  if (moe) l.ffn.shared_intermediate = s.moe.inter * s.moe.shared;
  return l;
}

// Checkpoints keep num_nextn_predict_layers multi-token-prediction layers at indices num_hidden_layers and
// up (DeepSeek-V3's README_WEIGHTS: layer 61). Each is a decoder layer like the last one plus the module
// around it: its own copy of the token embedding, norms of the embedding (enorm) and of the previous hidden
// state (hnorm), the projection of their concatenation (eh_proj, 2 x hidden -> hidden) and an output head
// (shared_head: norm and head). transformers builds none of it, so the tensors are extras: in the MTP stack
// with their parameters and bytes, never in num_parameters.
void mtp_layers(const ModelConfig& cfg, ModelTemplate& t, const Stack& s, bool moe, bool indexer) {
  const uint64_t n = cfg.count_or("num_nextn_predict_layers", 0);
  if (n == 0) return;
  if (n > ModelConfig::kMaxLayers) cfg.fail("num_nextn_predict_layers", "is larger than any real model's");
  const ArchitectureRecord& a = t.arch;
  const std::string reason = "multi-token-prediction layer (num_nextn_predict_layers): transformers skips it";
  const size_t first_tensor = t.tensors.size();
  std::vector<LayerSpec> layers;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string p = s.prefix + "layers." + std::to_string(a.num_layers + i);
    t.known_extras.push_back({p + ".", reason});
    layers.push_back(decoder_layer(t, p, s, moe, indexer));
    blocks::embedding(t, p + ".embed_tokens.weight", a.vocab_size, a.hidden_size);
    blocks::norm(t, p + ".enorm", a.hidden_size, false);
    blocks::norm(t, p + ".hnorm", a.hidden_size, false);
    blocks::linear(t, p + ".eh_proj", 2 * a.hidden_size, a.hidden_size, false);
    blocks::norm(t, p + ".shared_head.norm", a.hidden_size, false);
    blocks::linear(t, p + ".shared_head.head", a.hidden_size, a.vocab_size, false);
  }
  for (size_t i = first_tensor; i < t.tensors.size(); ++i) {
    t.tensors[i].kind = TensorKind::Extra;
    t.tensors[i].embedding = false;
    t.tensors[i].routed_expert = false;
  }
  StackSpec& mtp = t.arch.add_stack(StackRole::Mtp, s.prefix + "layers", a.hidden_size);
  mtp.first_index = a.num_layers;
  mtp.layers = std::move(layers);
}

void build_stack(const ModelConfig& cfg, ModelTemplate& t, const Stack& s) {
  ArchitectureRecord& a = t.arch;
  a.num_experts = s.moe.experts;
  a.experts_per_token = s.moe.top_k;
  a.num_shared_experts = s.moe.shared;
  a.moe_intermediate_size = s.moe.inter;
  if (s.mla) a.head_dim = s.mla_dims.qk_nope_head_dim + s.mla_dims.qk_rope_head_dim;
  if (s.indexer.heads && s.mla_dims.q_lora_rank == 0)
    cfg.fail("q_lora_rank", "the sparse-attention indexer needs the q latent: must not be null");
  if (std::find(s.moe_layer.begin(), s.moe_layer.end(), true) != s.moe_layer.end()) check_moe(cfg, s.moe);

  token_embedding(t, s.prefix + "embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, s.prefix + "layers");
  for (uint64_t i = 0; i < a.num_layers; ++i)
    stack.layers.push_back(decoder_layer(t, stack.path + "." + std::to_string(i), s, s.moe_layer[i],
                                         s.indexer_layer.empty() ? false : s.indexer_layer[i],
                                         s.windows.empty() ? 0 : s.windows[i]));
  blocks::norm(t, s.prefix + "norm", a.hidden_size, false);
  if (s.lm_head) lm_head(t, s.prefix + "embed_tokens.weight", a);
  if (a.num_layers && s.mtp)
    mtp_layers(cfg, t, s, s.moe_layer.back(), s.indexer_layer.empty() ? false : s.indexer_layer.back());
}

void build_deepseek_v2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DeepseekV2ForCausalLM";
  read_decoder_dims(cfg, latent_defaults({}), t);
  // DeepseekV2Config validates this although MLA never splits hidden_size into heads.
  if (t.arch.hidden_size % t.arch.num_attention_heads != 0)
    cfg.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(t.arch.hidden_size) + ")");
  Stack s;
  s.mla_dims = read_mla(cfg, {});
  Moe d;
  d.experts = 64;
  d.top_k = 0;
  d.shared = 2;
  d.shared_nullable = true;
  d.inter = 1407;
  d.correction_bias = false;  // V2 routes by softmax (greedy / group-limited): a plain linear gate
  s.moe = read_moe(cfg, d);
  s.moe_layer = moe_from_first_k(cfg, t.arch.num_layers, 0);
  build_stack(cfg, t, s);
}

DecoderDefaults deepseek_v3_defaults() {
  DecoderDefaults d;
  d.vocab_size = 129280;
  d.hidden_size = 7168;
  d.intermediate_size = 18432;
  d.num_hidden_layers = 61;
  d.num_attention_heads = 128;
  d.max_position_embeddings = 4096;
  return latent_defaults(d);
}

void build_deepseek_v3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DeepseekV3ForCausalLM";
  read_decoder_dims(cfg, deepseek_v3_defaults(), t);
  Stack s;
  s.mla_dims = read_mla(cfg, {});
  s.moe = read_moe(cfg, {});
  s.moe_layer = moe_from_first_k(cfg, t.arch.num_layers, 3);
  build_stack(cfg, t, s);
}

// Mistral 4 (Mistral Small 4): DeepSeek-V3's latent attention and shared-expert mixture behind DeepSeek-V2's
// softmax router (a plain gate, no score-correction buffer), every layer routed unless first_k_dense_replace
// says otherwise. Mistral4Model has no multi-token-prediction layers.
Stack read_mistral4_stack(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;  // Mistral4Config's
  d.vocab_size = 131072;
  d.intermediate_size = 12288;
  d.num_hidden_layers = 36;
  d.max_position_embeddings = 1048576;
  read_decoder_dims(cfg, latent_defaults(d), t);
  Stack s;
  s.mtp = false;
  Mla m;
  m.q_lora_rank = 1024;
  m.kv_lora_rank = 256;
  m.qk_nope_head_dim = 64;
  s.mla_dims = read_mla(cfg, m);
  Moe moe;
  moe.experts = 128;
  moe.top_k = 4;
  moe.inter = 2048;
  moe.correction_bias = false;
  s.moe = read_moe(cfg, moe);
  s.moe_layer = moe_from_first_k(cfg, t.arch.num_layers, 0);
  return s;
}

void build_mistral4(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Mistral4ForCausalLM";
  build_stack(cfg, t, read_mistral4_stack(cfg, t));
}

void build_deepseek_v32(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DeepseekV32ForCausalLM";
  DecoderDefaults d = deepseek_v3_defaults();
  d.max_position_embeddings = 163840;
  read_decoder_dims(cfg, d, t);
  Stack s;
  s.mla_dims = read_mla(cfg, {});
  s.moe = read_moe(cfg, {});
  s.moe_layer = moe_from_layer_types(cfg, t.arch.num_layers);
  s.indexer = {cfg.dim_or("index_n_heads", 64), cfg.dim_or("index_head_dim", 128),
               cfg.dim_or("index_topk", 2048)};
  s.indexer_layer.assign(t.arch.num_layers, true);
  build_stack(cfg, t, s);
}

void build_glm_moe_dsa(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GlmMoeDsaForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 154880;
  d.hidden_size = 6144;
  d.intermediate_size = 12288;
  d.num_hidden_layers = 78;
  d.num_attention_heads = 64;
  d.max_position_embeddings = 202752;
  read_decoder_dims(cfg, latent_defaults(d), t);
  Stack s;
  Mla m;
  m.q_lora_rank = 2048;
  m.qk_nope_head_dim = 192;
  m.v_head_dim = 256;
  s.mla_dims = read_mla(cfg, m);
  s.moe = read_moe(cfg, {});
  s.moe_layer = moe_from_layer_types(cfg, t.arch.num_layers);
  s.indexer = {cfg.dim_or("index_n_heads", 32), cfg.dim_or("index_head_dim", 128),
               cfg.dim_or("index_topk", 2048)};
  s.indexer_layer = glm_indexer_layers(cfg, t.arch.num_layers);
  build_stack(cfg, t, s);
}

// GLM-4.5's decoder (Glm4MoeModel, and GLM-4.5V's language model): GQA without an o_proj bias, 128 experts
// of 1,408 from the first dense layer on. `bias_default`: attention_bias where the config omits it (the
// config classes differ).
Stack glm4_moe_stack(const ModelConfig& cfg, const ArchitectureRecord& a, bool bias_default) {
  Stack s;
  s.mla = false;
  s.gqa = standard_attention(a);
  s.gqa.qkv_bias = cfg.flag_or("attention_bias", bias_default);
  Moe m;
  m.experts = 128;
  m.inter = 1408;
  s.moe = read_moe(cfg, m);
  s.moe_layer = moe_from_first_k(cfg, a.num_layers, 1);
  return s;
}

void build_glm4_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Glm4MoeForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 151552;
  d.intermediate_size = 10944;
  d.num_hidden_layers = 46;
  d.num_attention_heads = 96;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  Stack s = glm4_moe_stack(cfg, t.arch, false);
  s.gqa.qk_norm = cfg.flag_or("use_qk_norm", false);
  build_stack(cfg, t, s);
}

// GLM-4.7-Flash (glm4_moe_lite): DeepSeek-V3's latent attention in GLM-4.5's MoE decoder. The dense layers
// are mlp_layer_types' only, the first by default: Glm4MoeLiteConfig does not read first_k_dense_replace.
// transformers skips the checkpoints' multi-token-prediction layer (model.layers.47).
void build_glm4_moe_lite(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Glm4MoeLiteForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 154880;
  d.hidden_size = 2048;
  d.intermediate_size = 10240;
  d.num_hidden_layers = 47;
  d.num_attention_heads = 20;
  d.max_position_embeddings = 202752;
  read_decoder_dims(cfg, latent_defaults(d), t);
  Stack s;
  Mla m;
  m.q_lora_rank = 768;
  m.qk_nope_head_dim = 192;
  m.v_head_dim = 256;
  s.mla_dims = read_mla(cfg, m);
  Moe moe;
  moe.experts = 64;
  moe.top_k = 4;
  moe.inter = 1536;
  s.moe = read_moe(cfg, moe);
  s.moe_layer = sparse_from_mlp_layer_types(cfg, t.arch.num_layers, 1);
  build_stack(cfg, t, s);
}

// dots.llm1: DeepSeek-V3's routed mixture (sigmoid router with its score-correction buffer, shared experts,
// dense leading layers) under Qwen3's attention (GQA with per-head q/k norms).
void build_dots1(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Dots1ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 152064;
  d.hidden_size = 4608;
  d.intermediate_size = 10944;
  d.num_hidden_layers = 62;
  d.num_attention_heads = 32;
  d.num_key_value_heads = 32;
  read_decoder_dims(cfg, d, t);
  Stack s;
  s.mla = false;
  s.gqa = standard_attention(t.arch);
  s.gqa.qkv_bias = s.gqa.o_bias = cfg.flag_or("attention_bias", false);
  s.gqa.qk_norm = true;
  // Dots1Config leaves the expert counts null: a checkpoint's config gives them.
  Moe m;
  m.experts = 0;
  m.top_k = 0;
  m.shared = 0;
  m.inter = 1408;
  s.moe = read_moe(cfg, m);
  s.moe_layer = moe_from_first_k(cfg, t.arch.num_layers, 0);
  build_stack(cfg, t, s);
}

// Solar Open (Upstage): GLM-4.5's attention without q/k norms and its mixture in every layer (SolarOpenConfig
// drops first_k_dense_replace and never reads intermediate_size), a shared MLP moe_intermediate_size x
// n_shared_experts wide, no multi-token-prediction layers.
void build_solar_open(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "SolarOpenForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 196608;
  d.num_hidden_layers = 48;
  d.num_attention_heads = 64;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  Stack s;
  s.mla = false;
  s.mtp = false;
  s.gqa = standard_attention(t.arch);
  s.gqa.qkv_bias = cfg.flag_or("attention_bias", false);
  Moe m;
  m.experts = 128;
  m.inter = 1280;
  s.moe = read_moe(cfg, m);
  s.moe_layer.assign(t.arch.num_layers, true);
  build_stack(cfg, t, s);
}

// K-EXAONE (exaone_moe): EXAONE 4's attention (per-head q/k norms, no biases) in a pre-norm layer,
// DeepSeek-V3's sigmoid router and shared experts under their own key names (num_experts,
// num_shared_experts), dense layers by mlp_layer_types (first_k_dense_replace, 1, when it lists none).
// transformers skips the checkpoints' multi-token-prediction module (mtp.*).
void build_exaone_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "ExaoneMoeForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 102400;
  d.intermediate_size = 16384;
  d.num_key_value_heads = 32;
  read_decoder_dims(cfg, d, t);
  Stack s;
  s.mla = false;
  s.mtp = false;
  s.gqa = standard_attention(t.arch);
  s.gqa.qk_norm = true;
  s.moe.experts = cfg.dim_or("num_experts", 64);
  s.moe.top_k = cfg.count_or("num_experts_per_tok", 8);
  s.moe.shared = cfg.count_or("num_shared_experts", 1);
  s.moe.inter = cfg.dim_or("moe_intermediate_size", 1024);
  s.moe_layer = sparse_from_mlp_layer_types(cfg, t.arch.num_layers, cfg.count_or("first_k_dense_replace", 1));
  s.windows = exaone4_windows(cfg, t.arch.num_layers);  // K-EXAONE spells its pattern "LLLG"
  t.known_extras.push_back({"mtp.", "multi-token-prediction module: transformers skips it"});
  build_stack(cfg, t, s);
}

// Youtu-LLM (Tencent): DeepSeek-V3's latent attention over dense SwiGLU layers, the head tied by default.
void build_youtu(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "YoutuForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 128256;
  d.hidden_size = 2048;
  d.intermediate_size = 6144;
  d.num_attention_heads = 16;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, latent_defaults(d), t);
  Stack s;
  s.mtp = false;
  s.mla_dims = read_mla(cfg, {});
  s.moe_layer.assign(t.arch.num_layers, false);
  build_stack(cfg, t, s);
}

// LongCat-Flash (meituan-longcat/LongCat-Flash-Chat): a shortcut-connected mixture. Each of its num_layers
// layers runs two MLA attentions, each followed by a dense MLP, and beside them one mixture of experts fed
// from the first attention's output. Its router also picks among zero_expert_num zero-computation experts,
// identities without weights, so a token runs between 0 and moe_topk real experts. transformers' cache
// counts 2 x num_layers attention layers (num_hidden_layers); the record keeps num_layers layers of two
// attention modules each.
//
// transformers sizes experts.gate_up_proj by n_routed_experts + zero_expert_num, rows its forward never
// reads and no checkpoint holds: the checkpoint's per-expert weights merge into n_routed_experts rows, so it
// would not load into that shape. Counted here as the checkpoint and the paper count it (LongCat-Flash-Chat:
// 560,664,958,976, its "560B"), where transformers' num_parameters() says 741,053,585,408.
void build_longcat_flash(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LongcatFlashForCausalLM";
  DecoderDefaults d;  // LongcatFlashConfig's
  d.vocab_size = 131072;
  d.hidden_size = 6144;
  d.intermediate_size = cfg.dim_or("ffn_hidden_size", 12288);  // intermediate_size is its alias
  d.num_attention_heads = 64;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, latent_defaults(d), t);
  ArchitectureRecord& a = t.arch;
  a.num_layers = cfg.layers_or("num_layers", 28);
  if (const json::Value* q = cfg.raw("q_lora_rank"); q && q->is_null())
    cfg.fail("q_lora_rank", "LongcatFlashMLA has no path without the q latent: must not be null");
  const Mla m = read_mla(cfg, {});
  // attribute_map: num_local_experts and num_experts_per_tok are n_routed_experts and moe_topk.
  a.num_experts = cfg.dim_or("n_routed_experts", cfg.dim_or("num_local_experts", 512));
  a.experts_per_token = cfg.dim_or("moe_topk", cfg.dim_or("num_experts_per_tok", 12));
  a.moe_intermediate_size = cfg.dim_or("expert_ffn_hidden_size", 2048);
  a.num_shared_experts = 0;
  const uint64_t zero = cfg.count_or("zero_expert_num", 256), h = a.hidden_size;
  if (a.experts_per_token > a.num_experts + zero)
    cfg.fail("moe_topk", "must not exceed n_routed_experts + zero_expert_num");
  a.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t l = 0; l < a.num_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l);
    for (const char* i : {"0", "1"}) mla_attention(t, p + ".self_attn." + i, a, m);
    for (const char* i : {"0", "1"}) blocks::gated_mlp(t, p + ".mlps." + i, h, a.intermediate_size);
    for (const char* i : {"0", "1"}) blocks::norm(t, p + ".input_layernorm." + i, h, false);
    for (const char* i : {"0", "1"}) blocks::norm(t, p + ".post_attention_layernorm." + i, h, false);
    // The router scores the real and the zero experts; its correction bias is a saved buffer.
    blocks::linear(t, p + ".mlp.router.classifier", h, a.num_experts + zero,
                   cfg.flag_or("router_bias", false));
    t.add(p + ".mlp.router.e_score_correction_bias", {a.num_experts + zero}).kind = TensorKind::Buffer;
    blocks::fused_experts(t, p + ".mlp.experts", a.num_experts, h, a.moe_intermediate_size,
                          {p + ".mlp.experts"});
    LayerSpec spec = attention_layer(a, 0, Ffn::Moe);
    mla_shape(spec.attention, m);
    spec.attention.modules = 2;
    spec.ffn.intermediate = a.intermediate_size;  // each dense MLP's width
    spec.ffn.zero_experts = zero;
    stack.layers.push_back(spec);
  }
  blocks::norm(t, "model.norm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
  t.known_extras.push_back({"model.mtp.", "the multi-token-prediction layer: transformers skips it"});
}

constexpr std::array kDeepSeekLikeFamilies{
    FamilyBuilder{"deepseek_v2", build_deepseek_v2},
    FamilyBuilder{"deepseek_v3", build_deepseek_v3},
    FamilyBuilder{"deepseek_v32", build_deepseek_v32},
    FamilyBuilder{"glm4_moe", build_glm4_moe},
    FamilyBuilder{"glm_moe_dsa", build_glm_moe_dsa},
    FamilyBuilder{"dots1", build_dots1},
    FamilyBuilder{"glm4_moe_lite", build_glm4_moe_lite},
    FamilyBuilder{"mistral4", build_mistral4},
    FamilyBuilder{"solar_open", build_solar_open},
    FamilyBuilder{"exaone_moe", build_exaone_moe},
    FamilyBuilder{"youtu", build_youtu},
    FamilyBuilder{"longcat_flash", build_longcat_flash},
};

}  // namespace

void glm4v_moe_language_model(const ModelConfig& text, ModelTemplate& t, const std::string& prefix, bool tie,
                              bool head) {
  DecoderDefaults d;  // Glm4vMoeTextConfig's
  d.vocab_size = 151424;
  d.intermediate_size = 10944;
  d.num_hidden_layers = 46;
  d.num_attention_heads = 96;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 65536;
  read_decoder_dims(text, d, t);
  t.arch.tie_word_embeddings = tie;
  Stack s =
      glm4_moe_stack(text, t.arch, true);  // Glm4vMoeTextConfig biases q/k/v by default, without q/k norms
  s.prefix = prefix;
  s.mtp = false;
  s.lm_head = head;
  build_stack(text, t, s);
}

void mla_language_model(const ModelConfig& text, std::string_view type, ModelTemplate& t,
                        const std::string& prefix, bool tie) {
  Stack s;
  if (type == "mistral4") {
    s = read_mistral4_stack(text, t);
  } else if (type == "deepseek_v3") {
    read_decoder_dims(text, deepseek_v3_defaults(), t);
    s.mla_dims = read_mla(text, {});
    s.moe = read_moe(text, {});
    s.moe_layer = moe_from_first_k(text, t.arch.num_layers, 3);
  } else {
    text.fail("model_type", "must be mistral4 or deepseek_v3 for a latent-attention language model");
  }
  t.arch.tie_word_embeddings = tie;
  s.prefix = prefix;
  build_stack(text, t, s);
}

void build_deepseek_moe(const ModelConfig& cfg, ModelTemplate& t) {
  // The first DeepSeek-V2 upload also called itself "deepseek"; its latent attention says which it is.
  if (cfg.has("kv_lora_rank")) return build_deepseek_v2(cfg, t);
  t.arch.architecture = "DeepseekForCausalLM";
  DecoderDefaults d;  // DeepseekConfig's
  d.vocab_size = 102400;
  d.max_position_embeddings = 2048;
  d.num_hidden_layers = 30;
  read_decoder_dims(cfg, d, t);
  heads_split_hidden(cfg, t.arch);  // DeepseekAttention reads no head_dim
  Stack s;
  s.mla = false;
  s.mtp = false;
  s.gqa = standard_attention(t.arch);
  s.gqa.qkv_bias = s.gqa.o_bias = cfg.flag_or("attention_bias", false);
  Moe m;
  m.top_k = 0;
  m.shared_nullable = true;
  m.inter = 1407;
  m.correction_bias = false;  // a softmax router: its gate is one [experts, hidden] weight
  const bool routed = cfg.has("n_routed_experts");  // null or absent: a dense model
  if (routed) s.moe = read_moe(cfg, m);
  const uint64_t first_k = cfg.count_or("first_k_dense_replace", 0), freq = cfg.dim_or("moe_layer_freq", 1);
  s.moe_layer.assign(t.arch.num_layers, false);
  for (uint64_t i = 0; i < t.arch.num_layers; ++i) s.moe_layer[i] = routed && i >= first_k && i % freq == 0;
  build_stack(cfg, t, s);
}

void build_minicpm3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MiniCPM3ForCausalLM";
  DecoderDefaults d;  // MiniCPM3Config's (LlamaConfig's sizes, its head tied)
  d.tie_word_embeddings = true;
  read_decoder_dims(cfg, latent_defaults(d), t);
  Stack s;
  s.mtp = false;
  Mla dims;
  dims.q_lora_rank = 768;
  dims.kv_lora_rank = 256;
  dims.qk_nope_head_dim = 64;
  dims.qk_rope_head_dim = 32;
  s.mla_dims = read_mla(cfg, dims);
  if (s.mla_dims.q_lora_rank == 0)
    cfg.fail("q_lora_rank", "must not be null: MiniCPM3's query is always low-rank");
  // modeling_minicpm.py sizes values hidden_size / num_attention_heads wide, whatever v_head_dim says.
  s.mla_dims.v_head_dim = t.arch.hidden_size / t.arch.num_attention_heads;
  if (s.mla_dims.v_head_dim == 0) cfg.fail("num_attention_heads", "must not exceed hidden_size");
  s.moe_layer.assign(t.arch.num_layers, false);
  build_stack(cfg, t, s);
}

std::span<const FamilyBuilder> deepseek_like() {
  return kDeepSeekLikeFamilies;
}

}  // namespace ma::families
