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

// Bytes of `elements` values of dtype `d`, sub-byte dtypes (a 4-bit KV cache) packed; a block type
// (llama.cpp's q8_0 / q4_0 cache) in whole blocks with their scales.
uint64_t sized(uint64_t elements, DType d, std::string_view what) {
  const DTypeInfo& info = dtype_info(d);
  if (info.block_elements > 1)
    return mul({memory::ceil_div(elements, info.block_elements), info.block_bytes}, what);
  return memory::ceil_div(mul({elements, dtype_bits(d)}, what), 8);
}

// "2 bytes", "1 byte", "4 bits", "34 bytes per 32": the size of one element (or block) in a formula.
std::string elem_text(DType d) {
  const DTypeInfo& info = dtype_info(d);
  if (info.block_elements > 1) return num(info.block_bytes) + " bytes per " + num(info.block_elements);
  const uint32_t bits = dtype_bits(d);
  if (bits % 8) return std::to_string(bits) + " bits";
  return num(bits / 8) + (bits == 8 ? " byte" : " bytes");
}

std::string dtype_label(DType d) {
  return std::string(dtype_info(d).short_name);
}

struct Context {
  DType kv;
  std::optional<DType> v;            // V's own type where it differs from K's (kv)
  DType state;                       // conv states
  DType ssm;                         // recurrent states
  bool conv_without_newest = false;  // StateLayout's
  // The conv state's columns: the whole kernel, or (vLLM, SGLang, llama.cpp) all but the newest input.
  uint64_t conv_columns(uint64_t kernel) const {
    return conv_without_newest && kernel > 0 ? kernel - 1 : kernel;
  }
  std::string conv_columns_text(uint64_t kernel) const {
    return conv_without_newest ? num(conv_columns(kernel)) + " (kernel " + num(kernel) + " less the newest)"
                               : num(kernel) + " kernel";
  }
};

// K and V of `elements` each a token (kv heads x head dim, or x positions): one row of K's type and one of
// V's where V has its own, else both in one.
uint64_t key_value_bytes(const Context& c, uint64_t elements, std::string_view what) {
  if (!c.v) return sized(mul({2, elements}, what), c.kv, what);
  return add({sized(elements, c.kv, what), sized(elements, *c.v, what)}, what);
}
std::string key_value_text(const Context& c) {
  return c.v ? "(" + elem_text(c.kv) + " K + " + elem_text(*c.v) + " V)" : elem_text(c.kv);
}

// Full, sliding-window or chunked attention: K and V per kv head (a layer whose V is its K still stores
// both). A sparse-attention indexer (MiniMax-M3's, on GQA layers) adds its own keys.
KvLayer attention_layer(const Context& c, const AttentionShape& at) {
  KvLayer l;
  const uint64_t copies = at.kv_stored_once ? 1 : 2;
  const std::string_view what =
      "KV bytes per token (num_key_value_heads x head_dim, summed over num_hidden_layers)";
  const uint64_t per_head = mul({at.kv_heads, at.head_dim}, "num_key_value_heads x head_dim");
  const uint64_t kv = copies == 2 ? key_value_bytes(c, per_head, what) : sized(per_head, c.kv, what);
  const uint64_t indexer = sized(at.indexer_head_dim, c.kv, "index_head_dim x bits");
  l.bytes_per_token = add(
      {kv, indexer}, "KV bytes per token (num_key_value_heads x head_dim, summed over num_hidden_layers)");
  l.bytes_per_token_decompressed = l.bytes_per_token;
  l.window = at.window;
  l.kind = at.span == Span::Full      ? CacheKind::Full
           : at.span == Span::Chunked ? CacheKind::Chunked
                                      : CacheKind::Sliding;
  l.formula = (copies == 2 && c.v
                   ? num(at.kv_heads) + " kv heads x " + num(at.head_dim) + " head dim x " + key_value_text(c)
                   : num(copies) + " x " + num(at.kv_heads) + " kv heads x " + num(at.head_dim) +
                         " head dim x " + elem_text(c.kv));
  if (indexer) l.formula += " + " + num(at.indexer_head_dim) + " indexer key dims x " + elem_text(c.kv);
  l.formula += " = " + num(l.bytes_per_token) + " per token";
  if (at.kv_stored_once)
    l.formula += " (V is K, cached once)";
  else if (at.keys_are_values)
    l.formula += " (V = K, both cached)";
  if (l.window) l.formula += "; at most " + num(l.window) + " tokens kept";
  return l;
}

// DeepSeek-V4's compressed attention: one entry of compressed_width per compress_ratio tokens of the whole
// context, and the raw window of its shared key-value head, held once per sequence (a fixed amount: the
// sliding window it never outgrows).
KvLayer compressed_attention_layer(const Context& c, const AttentionShape& at) {
  KvLayer l;
  l.kind = CacheKind::Full;
  const uint64_t entry = sized(at.compressed_width, c.kv, "compressed width x bits");
  l.bytes_per_token = memory::ceil_div(entry, at.compress_ratio);
  l.bytes_per_token_decompressed = l.bytes_per_token;
  l.state_bytes_per_sequence = sized(
      mul({at.window, at.kv_heads, at.head_dim}, "sliding_window x num_key_value_heads x head_dim x bits"),
      c.kv, "sliding_window x num_key_value_heads x head_dim x bits");
  l.formula = num(at.compressed_width) + " compressed dims x " + elem_text(c.kv) + " per " +
              num(at.compress_ratio) + " tokens = " + num(l.bytes_per_token) +
              " per token; + the raw window, " + num(at.window) + " tokens x " + num(at.kv_heads) +
              " kv head x " + num(at.head_dim) + " head dim x " + elem_text(c.kv) +
              " (V is K) = " + num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

// An 8-bit float cache of sparse MLA (a latent beside a DSA indexer: DeepSeek-V3.2, GLM-5) is the one
// layout FlashMLA's sparse kernels read, and the one vLLM (fp8_ds_mla) and SGLang (NSA) allocate: the
// latent in float8 with one float32 scale per 128 values, the rope key left in bf16, and the indexer's keys
// in float8 with one float32 scale per 128. DeepSeek-V3.2-Exp: 512 + 4 x 4 + 64 x 2 = 656 bytes and
// 128 + 4 = 132 bytes a layer a token, as SGLang allocates them (48,068 bytes a token over 61 layers).
bool sparse_mla_float8(const Context& c, const AttentionShape& at) {
  return at.indexer_head_dim > 0 && dtype_bits(c.kv) == 8 && dtype_info(c.kv).is_float &&
         dtype_info(c.kv).block_elements <= 1;
}
constexpr uint64_t kFloat8TileValues = 128;  // values sharing one float32 scale

uint64_t float8_tiled(uint64_t values, std::string_view what) {
  return add({values, mul({memory::ceil_div(values, kFloat8TileValues), 4}, what)}, what);
}

// Multi-head latent attention: the compressed latent plus the shared rope key, per layer per token; the
// sparse-attention indexer (DeepSeek-V3.2, GLM-5) caches its own index_head_dim keys beside it.
KvLayer mla_layer(const Context& c, const AttentionShape& at) {
  KvLayer l;
  l.kind = CacheKind::MlaLatent;
  const uint64_t rank = at.kv_lora_rank, rope = at.qk_rope_head_dim, nope = at.qk_nope_head_dim;
  const uint64_t v = at.v_head_dim ? at.v_head_dim : at.head_dim;
  const bool tiled = sparse_mla_float8(c, at);
  const uint64_t latent = tiled ? add({float8_tiled(rank, "(kv_lora_rank + qk_rope_head_dim) x bits"),
                                       sized(rope, DType::BF16, "qk_rope_head_dim x bits")},
                                      "(kv_lora_rank + qk_rope_head_dim) x bits")
                                : sized(add({rank, rope}, "kv_lora_rank + qk_rope_head_dim"), c.kv,
                                        "(kv_lora_rank + qk_rope_head_dim) x bits");
  const uint64_t indexer = tiled ? float8_tiled(at.indexer_head_dim, "index_head_dim x bits")
                                 : sized(at.indexer_head_dim, c.kv, "index_head_dim x bits");
  l.bytes_per_token =
      add({latent, indexer}, "MLA bytes per token (kv_lora_rank, qk_rope_head_dim, index_head_dim)");
  l.bytes_per_token_decompressed =
      add({sized(mul({at.heads, add({nope, rope, v}, "qk_nope_head_dim + qk_rope_head_dim + v_head_dim")},
                     "num_attention_heads x (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) x bits"),
                 c.kv, "num_attention_heads x (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) x bits"),
           indexer},
          "num_attention_heads x (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) x bits");
  if (tiled) {
    l.formula = num(rank) + " kv_lora_rank x 1 byte + " + num(memory::ceil_div(rank, kFloat8TileValues)) +
                " float32 scales + " + num(rope) + " qk_rope_head_dim x 2 bytes (bf16) + " +
                num(at.indexer_head_dim) + " indexer key dims x 1 byte + " +
                num(memory::ceil_div(at.indexer_head_dim, kFloat8TileValues)) +
                " float32 scale (FlashMLA's sparse fp8 layout)";
  } else {
    l.formula = "(" + num(rank) + " kv_lora_rank + " + num(rope) + " qk_rope_head_dim) x " + elem_text(c.kv);
    if (indexer) l.formula += " + " + num(at.indexer_head_dim) + " indexer key dims x " + elem_text(c.kv);
  }
  l.formula += " = " + num(l.bytes_per_token) + " per token; decompressed " + num(at.heads) + " heads x (" +
               num(nope) + " + " + num(rope) + " + " + num(v) + ") x " + elem_text(c.kv) +
               (indexer ? " + indexer keys" : "") + " = " + num(l.bytes_per_token_decompressed);
  return l;
}

// Mamba and Mamba-2 mixers: a conv state [conv_dim, conv_kernel] (transformers and mamba_ssm keep the whole
// kernel window) and the SSM state, per sequence.
KvLayer mamba_layer(const Context& c, Mixer mixer, const StateShape& st) {
  KvLayer l;
  l.kind = CacheKind::SsmState;
  uint64_t conv_dim = 0, ssm_elems = 0;
  std::string ssm_formula;
  if (mixer == Mixer::Mamba) {
    conv_dim = st.inner;
    ssm_elems = mul({st.inner, st.state}, "Mamba state (d_inner x d_state, conv_kernel)");
    ssm_formula = num(st.inner) + " d_inner x " + num(st.state) + " d_state";
    l.formula = "conv " + num(conv_dim);
  } else {
    conv_dim = add({st.inner, mul({2, st.groups, st.state}, "2 x n_groups x d_state")},
                   "d_inner + 2 x n_groups x d_state");
    ssm_elems = mul({st.heads, st.head_dim, st.state}, "mamba_n_heads x mamba_head_dim x d_state");
    ssm_formula =
        num(st.heads) + " heads x " + num(st.head_dim) + " head dim x " + num(st.state) + " d_state";
    l.formula =
        "conv (" + num(st.inner) + " + 2 x " + num(st.groups) + " groups x " + num(st.state) + " d_state)";
  }
  const uint64_t conv_bytes =
      sized(mul({conv_dim, c.conv_columns(st.conv_kernel)}, "conv channels x conv_kernel x bits"), c.state,
            "conv channels x conv_kernel x bits");
  const uint64_t ssm_bytes = sized(ssm_elems, c.ssm, "d_state x d_inner x bits");
  l.state_bytes_per_sequence = add({conv_bytes, ssm_bytes}, "Mamba state (d_inner x d_state, conv_kernel)");
  l.formula += " x " + c.conv_columns_text(st.conv_kernel) + " x " + elem_text(c.state) + " + ssm " +
               ssm_formula + " x " + elem_text(c.ssm) + " (" + dtype_label(c.ssm) +
               ") = " + num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

// Gated DeltaNet (Qwen3-Next, Qwen3.5): a conv state over q, k and v channels and a recurrent state of
// one key_dim x value_dim matrix per value head.
KvLayer linear_attention_layer(const Context& c, const StateShape& st) {
  KvLayer l;
  l.kind = CacheKind::LinearState;
  const uint64_t nk = st.key_heads, nv = st.value_heads, dk = st.key_head_dim, dv = st.value_head_dim;
  const uint64_t rec_bytes = sized(mul({nv, dk, dv}, "value heads x key head_dim x value head_dim x bits"),
                                   c.ssm, "value heads x key head_dim x value head_dim x bits");
  const std::string recurrent = "recurrent " + num(nv) + " value heads x " + num(dk) + " x " + num(dv) +
                                " x " + elem_text(c.ssm) + " (" + dtype_label(c.ssm) + ")";
  // MiniMax's lightning attention has no short convolution before it: its state is the matrix alone.
  if (st.conv_kernel == 0) {
    l.state_bytes_per_sequence = rec_bytes;
    l.formula = recurrent + " = " + num(l.state_bytes_per_sequence) + " per sequence";
    return l;
  }
  const uint64_t conv_dim =
      add({mul({2, nk, dk}, "2 x key heads x key head_dim"), mul({nv, dv}, "value heads x value head_dim")},
          "2 x key heads x key head_dim + value heads x value head_dim");
  const uint64_t conv_bytes =
      sized(mul({conv_dim, c.conv_columns(st.conv_kernel)}, "conv channels x conv_kernel x bits"), c.state,
            "conv channels x conv_kernel x bits");
  l.state_bytes_per_sequence =
      add({conv_bytes, rec_bytes}, "linear-attention state (heads x head dims, conv_kernel)");
  l.formula = "conv (2 x " + num(nk) + " x " + num(dk) + " + " + num(nv) + " x " + num(dv) + ") x " +
              c.conv_columns_text(st.conv_kernel) + " x " + elem_text(c.state) + " + " + recurrent + " = " +
              num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

// LFM2's short convolution: its state is the conv window over the hidden channels.
KvLayer short_conv_layer(const Context& c, const StateShape& st) {
  KvLayer l;
  l.kind = CacheKind::SsmState;
  l.state_bytes_per_sequence =
      sized(mul({st.inner, c.conv_columns(st.conv_kernel)}, "conv channels x conv_kernel x bits"), c.state,
            "conv channels x conv_kernel x bits");
  l.formula = "conv " + num(st.inner) + " channels x " + c.conv_columns_text(st.conv_kernel) + " x " +
              elem_text(c.state) + " = " + num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

// RecurrentGemma's RG-LRU: the conv state holds the last conv1d_width - 1 inputs of its lru_width channels
// (transformers and DeepMind's code alike, whatever an engine's layout), and the recurrence one vector,
// kept in float32 by both (the builder records it as the recurrent state's dtype).
KvLayer rg_lru_layer(const Context& c, const StateShape& st) {
  KvLayer l;
  l.kind = CacheKind::SsmState;
  const uint64_t columns = st.conv_kernel > 0 ? st.conv_kernel - 1 : 0;
  const uint64_t conv_bytes = sized(mul({st.inner, columns}, "conv channels x conv_kernel x bits"), c.state,
                                    "conv channels x conv_kernel x bits");
  const uint64_t rec_bytes = sized(st.inner, c.ssm, "value heads x key head_dim x value head_dim x bits");
  l.state_bytes_per_sequence = add({conv_bytes, rec_bytes}, "lru_width x conv1d_width");
  l.formula = "conv " + num(st.inner) + " channels x " + num(columns) + " (kernel " + num(st.conv_kernel) +
              " less the newest) x " + elem_text(c.state) + " + recurrent " + num(st.inner) + " x " +
              elem_text(c.ssm) + " (" + dtype_label(c.ssm) + ") = " + num(l.state_bytes_per_sequence) +
              " per sequence";
  return l;
}

// RWKV-4's time mixing: transformers keeps five vectors per layer, each hidden_size wide: the last token's
// input to the time mixing and to the channel mixing (the token shift) in the model's dtype, and the WKV
// numerator, denominator and running maximum in float32 whatever the model's dtype.
KvLayer rwkv_layer(const Context& c, const StateShape& st) {
  KvLayer l;
  l.kind = CacheKind::SsmState;
  const uint64_t shifts =
      sized(mul({2, st.inner}, "2 x hidden_size x bits"), c.state, "2 x hidden_size x bits");
  const uint64_t wkv =
      sized(mul({3, st.inner}, "3 x hidden_size x 32 bits"), DType::F32, "3 x hidden_size x 32 bits");
  l.state_bytes_per_sequence = add({shifts, wkv}, "RWKV state (5 x hidden_size)");
  l.formula = "token shift 2 x " + num(st.inner) + " x " + elem_text(c.state) + " + WKV 3 x " +
              num(st.inner) + " x 4 (float32) = " + num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

// xLSTM's mLSTM: transformers' cache keeps per head the key x value matrix memory C, the normaliser n over
// the key dimension and the stabiliser m, in the model's dtype (the kernels compute in float32 and store
// back).
KvLayer mlstm_layer(const Context& c, const StateShape& st) {
  KvLayer l;
  l.kind = CacheKind::LinearState;
  const uint64_t dk = st.key_head_dim, dv = st.value_head_dim;
  const uint64_t per_head = add({mul({dk, dv}, "key head dim x value head dim"), dk, 1},
                                "mLSTM heads x (key head dim x value head dim) x bits");
  l.state_bytes_per_sequence =
      sized(mul({st.heads, per_head}, "mLSTM heads x (key head dim x value head dim) x bits"), c.state,
            "mLSTM heads x (key head dim x value head dim) x bits");
  l.formula = num(st.heads) + " heads x (" + num(dk) + " x " + num(dv) + " memory + " + num(dk) +
              " normaliser + 1 max) x " + elem_text(c.state) + " = " + num(l.state_bytes_per_sequence) +
              " per sequence";
  return l;
}

// The state of a layer's recurrent mixer, its only one or the one beside attention (Falcon-H1); a layer
// without a mixer caches nothing.
KvLayer recurrent_layer(const Context& c, Mixer mixer, const StateShape& st) {
  switch (mixer) {
    case Mixer::Mamba:
    case Mixer::Mamba2:
      return mamba_layer(c, mixer, st);
    case Mixer::LinearAttention:
      return linear_attention_layer(c, st);
    case Mixer::ShortConv:
      return short_conv_layer(c, st);
    case Mixer::RgLru:
      return rg_lru_layer(c, st);
    case Mixer::Rwkv:
      return rwkv_layer(c, st);
    case Mixer::Mlstm:
      return mlstm_layer(c, st);
    default: {
      KvLayer l;
      l.kind = CacheKind::None;
      l.formula = "no sequence mixer: nothing cached";
      return l;
    }
  }
}

// `positions` of what the layer attends: "encoder" output positions, or "image" feature positions.
KvLayer cross_layer(const Context& c, uint32_t layer, const AttentionShape& at, uint64_t positions,
                    std::string_view source) {
  KvLayer l;
  l.layer = layer;
  l.kind = CacheKind::Cross;
  l.state_bytes_per_sequence = key_value_bytes(
      c,
      mul({at.kv_heads, at.head_dim, positions}, "num_key_value_heads x head_dim x encoder positions x bits"),
      "2 x num_key_value_heads x head_dim x encoder positions x bits");
  l.formula = std::string(c.v ? "" : "2 x ") + num(at.kv_heads) + " heads x " + num(at.head_dim) +
              " head dim x " + num(positions) + " " + std::string(source) + " positions x " +
              key_value_text(c) + " = " + num(l.state_bytes_per_sequence) + " per sequence";
  return l;
}

// What the layers hold beside attention's K/V: `recurrent`, Mamba or linear-attention state; `short_conv`,
// LFM2's conv windows; `rg_lru`, RecurrentGemma's conv windows and recurrent vectors.
// Which kinds of recurrent state a model's layers hold, each described once.
struct RecurrentKinds {
  bool ssm = false, short_conv = false, rg_lru = false, rwkv = false, mlstm = false;
};

std::string convention_text(const KvCachePlan& p, const Context& c, bool indexer, const RecurrentKinds& r,
                            bool compressed) {
  auto has = [&](CacheKind kind) {
    return std::any_of(p.layers.begin(), p.layers.end(), [&](const KvLayer& l) { return l.kind == kind; });
  };
  std::string s = c.v ? "K cache in " + dtype_label(c.kv) + ", V in " + dtype_label(*c.v) +
                            ": kv_heads x head_dim x (K bytes + V bytes) per attention layer per token"
                      : "K/V cache in " + dtype_label(c.kv) +
                            ": 2 x kv_heads x head_dim x bytes per attention layer per token";
  if (has(CacheKind::Sliding) || has(CacheKind::Chunked))
    s += "; sliding-window and chunked layers keep at most their window (kv_cache_bytes caps them, "
         "kv_cache_per_token_bytes counts them while the window is not yet full)";
  if (has(CacheKind::MlaLatent))
    s +=
        "; MLA layers cache the compressed latent, (kv_lora_rank + qk_rope_head_dim) x bytes per layer per "
        "token, as DeepSeek's inference code and vLLM/SGLang store it; kv_cache_per_token_decompressed_bytes "
        "is num_heads x (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) x bytes, the size of full "
        "per-head K and V";
  if (compressed)
    s += "; compressed-attention layers (DeepSeek-V4; a K that is its V, cached once) add one entry of "
         "compressed_width per compress_ratio tokens of the whole context (kv_cache_per_token_bytes counts "
         "its "
         "share of a token) and hold their raw window per sequence (state_bytes_per_sequence)";
  if (indexer)
    s += "; the sparse-attention indexer (DSA) adds its index_head_dim keys per layer per token to both";
  if (r.ssm)
    s += "; Mamba and linear-attention layers hold a constant state per sequence (conv state + SSM/recurrent "
         "state) and add nothing per token";
  if (r.short_conv)
    s += "; short-convolution layers (LFM2) hold their conv window per sequence and add nothing per token";
  if (r.rg_lru)
    s += "; RG-LRU layers (RecurrentGemma) hold their conv window and recurrent state per sequence and add "
         "nothing per token";
  if (r.mlstm)
    s += "; mLSTM layers (xLSTM) hold a key x value memory, a normaliser and a maximum per head per sequence "
         "and "
         "add nothing per token";
  if (r.rwkv)
    s += "; RWKV layers hold their token shifts and WKV state per sequence (as transformers keeps them) and "
         "add "
         "nothing per token";
  if (has(CacheKind::Cross))
    s += "; cross-attention K/V over the encoder output are computed once per sequence";
  if (has(CacheKind::Shared)) s += "; KV-shared layers reuse an earlier layer's cache";
  return s;
}

}  // namespace

KvCachePlan plan_kv_cache(const ArchitectureRecord& arch, DType kv, DType state, uint64_t context,
                          const StateLayout& layout, std::optional<DType> v) {
  KvCachePlan p;
  const StackSpec* decoder = arch.stack(StackRole::Decoder);
  if (!decoder) {
    p.known = arch.stack(StackRole::Encoder) != nullptr;
    p.convention =
        p.known ? "none: an encoder-only model runs no autoregressive decoding, so it keeps no KV cache"
                : "unknown: without config.json there is no architecture to derive the cache from";
    return p;
  }
  // A family names the cache; without one (an ONNX graph) the heads the record found size it.
  p.known = !arch.model_type.empty() || (arch.num_attention_heads && arch.head_dim);
  if (!p.known) {
    p.convention = "unknown: without config.json there is no architecture to derive the cache from";
    return p;
  }
  const Context c{kv, v && *v != kv ? v : std::nullopt, layout.dtype.value_or(state),
                  layout.dtype.value_or(arch.ssm_cache_dtype.value_or(state)), layout.conv_without_newest};
  const std::vector<LayerSpec>& layers = decoder->layers;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& spec = layers[i];
    KvLayer l;
    if (spec.mixer == Mixer::Attention && spec.attention.shares_cache) {
      l.kind = CacheKind::Shared;
      l.formula = "reuses the cache of an earlier layer (KV sharing)";
    } else if (spec.mixer == Mixer::Attention) {
      l = spec.attention.kind == AttentionKind::Mla ? mla_layer(c, spec.attention)
          : spec.attention.compress_ratio           ? compressed_attention_layer(c, spec.attention)
                                                    : attention_layer(c, spec.attention);
      if (const uint64_t n = spec.attention.modules; n > 1) {  // each module caches its own
        l.bytes_per_token =
            mul({n, l.bytes_per_token},
                "KV bytes per token (num_key_value_heads x head_dim, summed over num_hidden_layers)");
        l.bytes_per_token_decompressed =
            mul({n, l.bytes_per_token_decompressed},
                "KV bytes per token (num_key_value_heads x head_dim, summed over num_hidden_layers)");
        l.state_bytes_per_sequence =
            mul({n, l.state_bytes_per_sequence}, "state bytes per sequence (summed over num_hidden_layers)");
        l.formula = num(n) + " attention modules x (" + l.formula + ")";
      }
    } else {
      l = recurrent_layer(c, spec.mixer, spec.state);
    }
    l.layer = static_cast<uint32_t>(i);
    p.per_token = add({p.per_token, l.bytes_per_token},
                      "KV bytes per token (num_key_value_heads x head_dim, summed over num_hidden_layers)");
    p.per_token_decompressed =
        add({p.per_token_decompressed, l.bytes_per_token_decompressed},
            "KV bytes per token (num_key_value_heads x head_dim, summed over num_hidden_layers)");
    p.state_per_sequence = add({p.state_per_sequence, l.state_bytes_per_sequence},
                               "state bytes per sequence (summed over num_hidden_layers)");
    p.layers.push_back(std::move(l));
    // A recurrent mixer beside attention (Falcon-H1) keeps its state as well as the layer's K/V.
    if (spec.parallel != Mixer::None) {
      KvLayer s = recurrent_layer(c, spec.parallel, spec.state);
      s.layer = static_cast<uint32_t>(i);
      p.state_per_sequence = add({p.state_per_sequence, s.state_bytes_per_sequence},
                                 "state bytes per sequence (summed over num_hidden_layers)");
      p.layers.push_back(std::move(s));
    }
  }

  // What cross-attention reads: an encoder's output (T5, Whisper), or else the vision tower's features of one
  // image (Llama 3.2 Vision: every tile's patches).
  const StackSpec* vision = arch.stack(StackRole::Vision);
  const bool cross_attends = std::any_of(layers.begin(), layers.end(),
                                         [](const LayerSpec& l) { return l.cross_attention.has_value(); });
  const bool reads_image = !arch.stack(StackRole::Encoder) && vision && vision->positions && cross_attends;
  if (reads_image) {
    p.assumptions.push_back("cross-attention K/V cover one image's features from the vision tower, " +
                            num(vision->positions) + " positions");
    for (size_t i = 0; i < layers.size(); ++i) {
      if (!layers[i].cross_attention) continue;
      KvLayer l =
          cross_layer(c, static_cast<uint32_t>(i), *layers[i].cross_attention, vision->positions, "image");
      p.cross_per_sequence = add({p.cross_per_sequence, l.state_bytes_per_sequence},
                                 "2 x num_key_value_heads x head_dim x encoder positions x bits");
      p.layers.push_back(std::move(l));
    }
  } else if (const StackSpec* encoder = arch.stack(StackRole::Encoder)) {
    const uint64_t enc = encoder_positions(*encoder, context);
    if (encoder->positions)
      p.assumptions.push_back("cross-attention K/V cover the encoder output at its full length, " + num(enc) +
                              " positions");
    else if (enc)
      p.assumptions.push_back("cross-attention K/V cover an encoder input as long as the context (" +
                              num(enc) + " tokens): the model has no fixed encoder length");
    else
      p.assumptions.push_back("cross-attention K/V not counted: no encoder length (pass --context)");
    if (enc)
      for (size_t i = 0; i < layers.size(); ++i) {
        if (!layers[i].cross_attention) continue;
        KvLayer l = cross_layer(c, static_cast<uint32_t>(i), *layers[i].cross_attention, enc, "encoder");
        p.cross_per_sequence = add({p.cross_per_sequence, l.state_bytes_per_sequence},
                                   "2 x num_key_value_heads x head_dim x encoder positions x bits");
        p.layers.push_back(std::move(l));
      }
  } else if (cross_attends) {
    p.assumptions.push_back(std::string("cross-attention K/V not counted: ") +
                            (arch.stack(StackRole::Audio)
                                 ? "the speech encoder's output is as long as the audio"
                                 : "no length is known for what it reads"));
  }
  const auto any = [&](auto pred) { return std::any_of(layers.begin(), layers.end(), pred); };
  const bool indexer = any([](const LayerSpec& l) { return l.attention.indexer_head_dim > 0; });
  RecurrentKinds r;
  r.ssm = any([](const LayerSpec& l) {
    for (const Mixer m : {l.mixer, l.parallel})
      if (m == Mixer::Mamba || m == Mixer::Mamba2 || m == Mixer::LinearAttention) return true;
    return false;
  });
  r.short_conv = any([](const LayerSpec& l) { return l.mixer == Mixer::ShortConv; });
  r.rg_lru = any([](const LayerSpec& l) { return l.mixer == Mixer::RgLru; });
  r.rwkv = any([](const LayerSpec& l) { return l.mixer == Mixer::Rwkv; });
  r.mlstm = any([](const LayerSpec& l) { return l.mixer == Mixer::Mlstm; });
  const bool compressed = any([](const LayerSpec& l) { return l.attention.compress_ratio > 0; });
  p.convention = convention_text(p, c, indexer, r, compressed);
  return p;
}

uint64_t encoder_positions(const StackSpec& encoder, uint64_t context) {
  return encoder.positions ? encoder.positions : context;
}

uint64_t kv_cache_total(const KvCachePlan& plan, uint64_t batch, uint64_t context) {
  uint64_t per_sequence = 0;
  for (const KvLayer& l : plan.layers) {
    const uint64_t tokens = l.window ? std::min(context, l.window) : context;
    per_sequence = add(
        {per_sequence,
         mul({l.bytes_per_token, tokens},
             "KV bytes per token (2 x num_key_value_heads x head_dim, summed over num_hidden_layers) x "
             "context"),
         l.state_bytes_per_sequence},
        "KV bytes per token (2 x num_key_value_heads x head_dim, summed over num_hidden_layers) x context");
  }
  return mul({per_sequence, batch}, "KV cache per sequence x --batch");
}

uint64_t cache_split(const KvLayer& l, const ArchitectureRecord& a, uint32_t tp) {
  const std::vector<LayerSpec>& layers = a.layers();
  switch (l.kind) {
    case CacheKind::MlaLatent:
      return 1;
    case CacheKind::SsmState:
    case CacheKind::LinearState:
      return tp;
    case CacheKind::Cross:
      if (l.layer < layers.size() && layers[l.layer].cross_attention)
        return std::max<uint64_t>(1, std::min<uint64_t>(tp, layers[l.layer].cross_attention->kv_heads));
      return 1;
    default:
      if (l.layer < layers.size() && layers[l.layer].attention.kv_heads)
        return std::max<uint64_t>(1, std::min<uint64_t>(tp, layers[l.layer].attention.kv_heads));
      return 1;
  }
}

}  // namespace ma
