#include "analysis/memory_kv.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "analysis/memory_math.h"

namespace ma {
namespace {

using memory::add;
using memory::mul;
using memory::num;

// How each state-space family spells the Mamba mixer's dimensions in config.json, with the defaults of its
// transformers config class. intermediate = expand x hidden, except where heads x head_dim defines it.
struct SsmSpelling {
  std::string_view model_type;
  bool mamba2;
  std::string_view d_state;
  uint64_t d_state_default;
  std::string_view conv;
  uint64_t conv_default;
  std::string_view expand;
  double expand_default;
  std::string_view groups;  // Mamba-2 only
  uint64_t groups_default;
  std::string_view heads;
  uint64_t heads_default;
  std::string_view head_dim;  // absent or "auto": intermediate / heads
  uint64_t head_dim_default;
  bool intermediate_from_heads;  // Nemotron-H: mamba_num_heads x mamba_head_dim
};

constexpr std::array<SsmSpelling, 5> kSsmSpellings{{
    {"mamba", false, "state_size", 16, "conv_kernel", 4, "expand", 2.0, "", 0, "", 0, "", 0, false},
    {"jamba", false, "mamba_d_state", 16, "mamba_d_conv", 4, "mamba_expand", 2.0, "", 0, "", 0, "", 0, false},
    {"mamba2", true, "state_size", 128, "conv_kernel", 4, "expand", 2.0, "n_groups", 8, "num_heads", 128,
     "head_dim", 64, false},
    {"nemotron_h", true, "ssm_state_size", 128, "conv_kernel", 4, "expand", 2.0, "n_groups", 8,
     "mamba_num_heads", 128, "mamba_head_dim", 64, true},
    {"granitemoehybrid", true, "mamba_d_state", 256, "mamba_d_conv", 4, "mamba_expand", 2.0, "mamba_n_groups",
     1, "mamba_n_heads", 128, "mamba_d_head", 0, false},
}};

// Families with no autoregressive cache at all: bidirectional encoders and vision encoders.
constexpr std::array<std::string_view, 4> kEncoderOnly{"bert", "roberta", "distilbert", "vit"};

// Encoder-decoder families: the key giving the encoder's output length, or "" when it has none (T5's relative
// positions): then the encoder input is taken as long as the context.
struct EncoderDecoder {
  std::string_view model_type;
  std::string_view encoder_length_key;
};
constexpr std::array<EncoderDecoder, 3> kEncoderDecoder{{
    {"bart", "max_position_embeddings"},
    {"whisper", "max_source_positions"},  // 1500 audio frames for 30 s, fixed
    {"t5", ""},
}};

template <typename Table>
auto find_entry(const Table& table, std::string_view a, std::string_view b) -> decltype(&table[0]) {
  for (const auto& e : table)
    if (e.model_type == a || e.model_type == b) return &e;
  return nullptr;
}

// Bytes of `elements` values of dtype `d`, sub-byte dtypes (a 4-bit KV cache) packed.
uint64_t sized(uint64_t elements, DType d, std::string_view what) {
  return memory::ceil_div(mul({elements, dtype_bits(d)}, what), 8);
}

// "2 bytes", "1 byte", "4 bits": the size of one element in a formula.
std::string elem_text(DType d) {
  const uint32_t bits = dtype_bits(d);
  if (bits % 8) return std::to_string(bits) + " bits";
  return num(bits / 8) + (bits == 8 ? " byte" : " bytes");
}

std::string dtype_label(DType d) {
  return std::string(dtype_info(d).short_name);
}

// The dtype a config names for the recurrent SSM state (vLLM's mamba_ssm_cache_dtype; Qwen3.5's
// mamba_ssm_dtype), if any. "auto" means the model's dtype.
std::optional<DType> ssm_cache_dtype(const ModelConfig& cfg) {
  for (std::string_view key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
    if (!cfg.has(key)) continue;
    std::string name = cfg.string_or(key, "auto");
    if (name == "auto") return std::nullopt;
    auto d = dtype_from_any_name(name);
    if (!d || !dtype_info(*d).is_float) cfg.fail(key, "is not a floating-point dtype name");
    return d;
  }
  return std::nullopt;
}

struct Context {
  const ArchSpec& arch;
  const ModelConfig* cfg;  // the language model's config; null when there is none
  DType kv;
  DType state;
};

uint64_t cfg_count(const Context& c, std::string_view key, uint64_t dflt) {
  return c.cfg && !key.empty() ? c.cfg->count_or(key, dflt) : dflt;
}

// Full, sliding-window or chunked attention: K and V per kv head.
KvLayer attention_layer(const Context& c, const LayerSpec& spec) {
  KvLayer l;
  uint64_t kv_heads = c.arch.num_key_value_heads ? c.arch.num_key_value_heads : c.arch.num_attention_heads;
  uint64_t head_dim = c.arch.head_dim;
  if (!head_dim && c.arch.num_attention_heads) head_dim = c.arch.hidden_size / c.arch.num_attention_heads;
  std::string note;
  // Gemma-4 global layers: their own head_dim, and with attention_k_eq_v their own kv head count (V = K, but
  // transformers' cache still stores both tensors).
  if (!spec.sliding_window && c.cfg) {
    if (c.cfg->has("global_head_dim")) head_dim = c.cfg->dim("global_head_dim");
    if (c.cfg->flag_or("attention_k_eq_v", false) && c.cfg->has("num_global_key_value_heads")) {
      kv_heads = c.cfg->dim("num_global_key_value_heads");
      note = " (global layer: num_global_key_value_heads, global_head_dim; V = K, both cached)";
    }
  }
  l.bytes_per_token = sized(mul({2, kv_heads, head_dim}, "kv heads x head_dim"), c.kv, "kv per token");
  l.bytes_per_token_decompressed = l.bytes_per_token;
  l.window = spec.sliding_window;
  const uint64_t chunk = cfg_count(c, "attention_chunk_size", 0);
  l.kind = !spec.sliding_window ? "full" : (chunk && spec.sliding_window == chunk ? "chunked" : "sliding");
  l.formula = "2 x " + num(kv_heads) + " kv heads x " + num(head_dim) + " head dim x " + elem_text(c.kv) +
              " = " + num(l.bytes_per_token) + " per token" + note;
  if (l.window) l.formula += "; at most " + num(l.window) + " tokens kept";
  return l;
}

// Multi-head latent attention: the compressed latent plus the shared rope key, per layer per token.
KvLayer mla_layer(const Context& c) {
  KvLayer l;
  l.kind = "mla";
  if (!c.cfg) return l;
  const ModelConfig& cfg = *c.cfg;
  const uint64_t rank = cfg.dim_or("kv_lora_rank", 512);
  const uint64_t rope = cfg.dim_or("qk_rope_head_dim", 64);
  const uint64_t nope = cfg.dim_or("qk_nope_head_dim", 128);
  const uint64_t v = cfg.dim_or("v_head_dim", 128);
  const uint64_t heads = c.arch.num_attention_heads;
  l.bytes_per_token = sized(add({rank, rope}, "kv_lora_rank"), c.kv, "MLA latent");
  l.bytes_per_token_decompressed = sized(
      mul({heads, add({nope, rope, v}, "MLA head dims")}, "MLA decompressed"), c.kv, "MLA decompressed");
  l.formula = "(" + num(rank) + " kv_lora_rank + " + num(rope) + " qk_rope_head_dim) x " + elem_text(c.kv) +
              " = " + num(l.bytes_per_token) + " per token; decompressed " + num(heads) + " heads x (" +
              num(nope) + " + " + num(rope) + " + " + num(v) + ") x " + elem_text(c.kv) + " = " +
              num(l.bytes_per_token_decompressed);
  return l;
}

uint64_t mamba_intermediate(const ModelConfig& cfg, const SsmSpelling& s, uint64_t hidden) {
  const double expand = cfg.number_or(s.expand, s.expand_default);
  if (!(expand > 0) || expand * static_cast<double>(hidden) > static_cast<double>(ModelConfig::kMaxValue))
    cfg.fail(s.expand, "must be a positive number with expand x hidden_size <= 2^26");
  return static_cast<uint64_t>(expand * static_cast<double>(hidden));  // int(expand * hidden) as transformers
}

// Mamba and Mamba-2 mixers: a conv state [conv_dim, conv_kernel] (transformers and mamba_ssm keep the whole
// kernel window) and the SSM state, per sequence.
KvLayer mamba_layer(const Context& c, const LayerSpec& spec, std::string_view root_type) {
  KvLayer l;
  l.kind = "ssm-state";
  const SsmSpelling* s = find_entry(kSsmSpellings, c.arch.model_type, root_type);
  if (!c.cfg || !s) {
    l.formula = "state size unknown for model_type " + printable(c.arch.model_type);
    return l;
  }
  const ModelConfig& cfg = *c.cfg;
  const uint64_t d_state = cfg.dim_or(s->d_state, s->d_state_default);
  const uint64_t kernel = cfg.dim_or(s->conv, s->conv_default);
  const DType ssm = ssm_cache_dtype(cfg).value_or(c.state);
  uint64_t conv_dim = 0, ssm_elems = 0;
  std::string ssm_formula;
  if (!s->mamba2 || spec.mixer == "mamba") {
    const uint64_t inner = mamba_intermediate(cfg, *s, c.arch.hidden_size);
    conv_dim = inner;
    ssm_elems = mul({inner, d_state}, "mamba state");
    ssm_formula = num(inner) + " d_inner x " + num(d_state) + " d_state";
  } else {
    const uint64_t heads = cfg.dim_or(s->heads, s->heads_default);
    const json::Value* hd = cfg.raw(s->head_dim);
    const bool auto_head_dim = !hd || hd->is_null() || hd->is_string();  // granite's "auto"
    const uint64_t inner = s->intermediate_from_heads
                               ? mul({heads, cfg.dim_or(s->head_dim, s->head_dim_default)}, "mamba heads")
                               : mamba_intermediate(cfg, *s, c.arch.hidden_size);
    const uint64_t head_dim = auto_head_dim && !s->intermediate_from_heads && !s->head_dim_default
                                  ? inner / heads
                                  : cfg.dim_or(s->head_dim, s->head_dim_default);
    const uint64_t groups = cfg.dim_or(s->groups, s->groups_default);
    conv_dim = add({inner, mul({2, groups, d_state}, "mamba groups")}, "mamba conv_dim");
    ssm_elems = mul({heads, head_dim, d_state}, "mamba2 state");
    ssm_formula = num(heads) + " heads x " + num(head_dim) + " head dim x " + num(d_state) + " d_state";
    l.formula = "conv (" + num(inner) + " + 2 x " + num(groups) + " groups x " + num(d_state) + " d_state)";
  }
  const uint64_t conv_bytes = sized(mul({conv_dim, kernel}, "conv state"), c.state, "conv state");
  const uint64_t ssm_bytes = sized(ssm_elems, ssm, "ssm state");
  l.state_bytes_per_sequence = add({conv_bytes, ssm_bytes}, "mamba state");
  if (l.formula.empty()) l.formula = "conv " + num(conv_dim);
  l.formula += " x " + num(kernel) + " kernel x " + elem_text(c.state) + " + ssm " + ssm_formula + " x " +
               elem_text(ssm) + " (" + dtype_label(ssm) + ") = " + num(l.state_bytes_per_sequence) +
               " per sequence";
  return l;
}

// Gated DeltaNet (Qwen3-Next, Qwen3.5): a conv state over q, k and v channels and a recurrent state of
// one key_dim x value_dim matrix per value head.
KvLayer linear_attention_layer(const Context& c) {
  KvLayer l;
  l.kind = "linear-state";
  if (!c.cfg) return l;
  const ModelConfig& cfg = *c.cfg;
  const uint64_t nk = cfg.dim_or("linear_num_key_heads", 16);
  const uint64_t nv = cfg.dim_or("linear_num_value_heads", 32);
  const uint64_t dk = cfg.dim_or("linear_key_head_dim", 128);
  const uint64_t dv = cfg.dim_or("linear_value_head_dim", 128);
  const uint64_t kernel = cfg.dim_or("linear_conv_kernel_dim", 4);
  const DType ssm = ssm_cache_dtype(cfg).value_or(c.state);
  const uint64_t conv_dim = add({mul({2, nk, dk}, "key dim"), mul({nv, dv}, "value dim")}, "conv dim");
  const uint64_t conv_bytes = sized(mul({conv_dim, kernel}, "conv state"), c.state, "conv state");
  const uint64_t rec_bytes = sized(mul({nv, dk, dv}, "recurrent state"), ssm, "recurrent state");
  l.state_bytes_per_sequence = add({conv_bytes, rec_bytes}, "linear-attention state");
  l.formula = "conv (2 x " + num(nk) + " x " + num(dk) + " + " + num(nv) + " x " + num(dv) + ") x " +
              num(kernel) + " kernel x " + elem_text(c.state) + " + recurrent " + num(nv) +
              " value heads x " + num(dk) + " x " + num(dv) + " x " + elem_text(ssm) + " (" +
              dtype_label(ssm) + ") = " + num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

KvLayer cross_layer(const Context& c, uint32_t layer, uint64_t encoder_length) {
  KvLayer l;
  l.layer = layer;
  l.kind = "cross";
  const uint64_t heads = c.arch.num_key_value_heads ? c.arch.num_key_value_heads : c.arch.num_attention_heads;
  l.state_bytes_per_sequence =
      sized(mul({2, heads, c.arch.head_dim, encoder_length}, "cross-attention"), c.kv, "cross-attention");
  l.formula = "2 x " + num(heads) + " heads x " + num(c.arch.head_dim) + " head dim x " +
              num(encoder_length) + " encoder positions x " + elem_text(c.kv) + " = " +
              num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

std::string convention_text(const KvCachePlan& p, DType kv) {
  auto has = [&](std::string_view kind) {
    return std::any_of(p.layers.begin(), p.layers.end(), [&](const KvLayer& l) { return l.kind == kind; });
  };
  std::string s =
      "K/V cache in " + dtype_label(kv) + ": 2 x kv_heads x head_dim x bytes per attention layer per token";
  if (has("sliding") || has("chunked"))
    s += "; sliding-window and chunked layers keep at most their window (kv_cache_bytes caps them, "
         "kv_cache_per_token_bytes counts them while the window is not yet full)";
  if (has("mla"))
    s +=
        "; MLA layers cache the compressed latent, (kv_lora_rank + qk_rope_head_dim) x bytes per layer per "
        "token, as DeepSeek's inference code and vLLM/SGLang store it; kv_cache_per_token_decompressed_bytes "
        "is num_heads x (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) x bytes, the size of full "
        "per-head "
        "K and V";
  if (has("ssm-state") || has("linear-state"))
    s += "; Mamba and linear-attention layers hold a constant state per sequence (conv state + SSM/recurrent "
         "state) and add nothing per token";
  if (has("cross")) s += "; cross-attention K/V over the encoder output are computed once per sequence";
  if (has("shared")) s += "; KV-shared layers reuse an earlier layer's cache";
  return s;
}

}  // namespace

std::optional<ModelConfig> language_config(const Inventory& inv) {
  if (!inv.config) return std::nullopt;
  if (auto text = inv.config->sub("text_config")) return text;
  return inv.config;
}

KvCachePlan plan_kv_cache(const Inventory& inv, DType kv, DType state, uint64_t context) {
  KvCachePlan p;
  if (!inv.model) {
    p.convention = "unknown: without config.json there is no architecture to derive the cache from";
    return p;
  }
  p.known = true;
  const ArchSpec& arch = inv.model->arch;
  const std::optional<ModelConfig> cfg = language_config(inv);
  const std::string root_type = inv.config ? inv.config->string_or("model_type", "") : std::string();
  Context c{arch, cfg ? &*cfg : nullptr, kv, state};

  if (std::find(kEncoderOnly.begin(), kEncoderOnly.end(), arch.model_type) != kEncoderOnly.end()) {
    p.convention = "none: an encoder-only model runs no autoregressive decoding, so it keeps no KV cache";
    return p;
  }
  const std::vector<LayerSpec>& layers = inv.layers;
  const uint64_t shared = cfg_count(c, "num_kv_shared_layers", 0);
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& spec = layers[i];
    KvLayer l;
    if (spec.mixer == "attention" && shared && i + shared >= layers.size()) {
      l.kind = "shared";
      l.formula = "reuses the cache of an earlier layer (num_kv_shared_layers = " + num(shared) + ")";
    } else if (spec.mixer == "attention") {
      l = spec.attention == "mla" ? mla_layer(c) : attention_layer(c, spec);
    } else if (spec.mixer == "mamba" || spec.mixer == "mamba2") {
      l = mamba_layer(c, spec, root_type);
    } else if (spec.mixer == "linear-attention") {
      l = linear_attention_layer(c);
    } else {
      l.kind = "none";
      l.formula = "no sequence mixer: nothing cached";
    }
    l.layer = static_cast<uint32_t>(i);
    p.per_token = add({p.per_token, l.bytes_per_token}, "kv per token");
    p.per_token_decompressed =
        add({p.per_token_decompressed, l.bytes_per_token_decompressed}, "kv per token");
    p.state_per_sequence = add({p.state_per_sequence, l.state_bytes_per_sequence}, "state per sequence");
    p.layers.push_back(std::move(l));
  }

  if (const EncoderDecoder* ed = find_entry(kEncoderDecoder, arch.model_type, root_type)) {
    uint64_t enc = ed->encoder_length_key.empty() ? 0 : cfg_count(c, ed->encoder_length_key, 0);
    if (enc)
      p.assumptions.push_back("cross-attention K/V cover the encoder output at its full length, " +
                              std::string(ed->encoder_length_key) + " = " + num(enc) + " positions");
    else if ((enc = context))
      p.assumptions.push_back("cross-attention K/V cover an encoder input as long as the context (" +
                              num(enc) + " tokens): the model has no fixed encoder length");
    else
      p.assumptions.push_back("cross-attention K/V not counted: no encoder length (pass --context)");
    if (enc)
      for (size_t i = 0; i < layers.size(); ++i) {
        KvLayer l = cross_layer(c, static_cast<uint32_t>(i), enc);
        p.cross_per_sequence = add({p.cross_per_sequence, l.state_bytes_per_sequence}, "cross-attention");
        p.layers.push_back(std::move(l));
      }
  }
  if (cfg && cfg->has("index_head_dim") &&
      std::any_of(p.layers.begin(), p.layers.end(), [](const KvLayer& l) { return l.kind == "mla"; }))
    p.assumptions.push_back("the sparse-attention indexer (DSA) also caches " +
                            num(cfg->dim("index_head_dim")) +
                            " index_head_dim keys per layer per token; not included in the latent figure");
  p.convention = convention_text(p, kv);
  return p;
}

uint64_t kv_cache_total(const KvCachePlan& plan, uint64_t batch, uint64_t context) {
  uint64_t per_sequence = 0;
  for (const KvLayer& l : plan.layers) {
    const uint64_t tokens = l.window ? std::min(context, l.window) : context;
    per_sequence = add(
        {per_sequence, mul({l.bytes_per_token, tokens}, "kv cache"), l.state_bytes_per_sequence}, "kv cache");
  }
  return mul({per_sequence, batch}, "kv cache x batch");
}

}  // namespace ma
