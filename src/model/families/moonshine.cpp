// Moonshine (moonshine; UsefulSensors' moonshine-tiny and -base): a speech recognizer that reads the raw
// waveform. Three unpadded 1-D convolutions (kernel 127 stride 64 without a bias, a GroupNorm of one group,
// kernel 7 stride 3 doubling the width, kernel 3 stride 2 halving it back: one frame per 384 samples) feed
// pre-norm encoder layers with partial rotary positions (no position table); a decoder of pre-norm layers
// with cross-attention and a SwiGLU MLP (fc1 twice the intermediate width: value and gate halves) writes the
// text. Every LayerNorm is bias-free but the GroupNorm's; attention projections have a bias only with
// attention_bias, o_proj never. proj_out is tied to the decoder's embedding (PretrainedConfig's default).
#include <string>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_asr.h"

namespace ma::families {
namespace {

// One stack's attention and MLP widths. MoonshineAttention writes the stack's head counts into the shared
// config before reading head_dim = config.head_dim, else hidden_size // heads: each stack divides the width
// by its own head count.
struct MoonshineStack {
  uint64_t layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
};

MoonshineStack moonshine_stack(const ModelConfig& cfg, const std::string& side, uint64_t hidden,
                               uint64_t dflt_layers) {
  MoonshineStack s;
  s.layers = cfg.layers_or(side + "_num_hidden_layers", dflt_layers, 0);
  const std::string heads_key = side + "_num_attention_heads", kv_key = side + "_num_key_value_heads";
  s.heads = cfg.dim_or(heads_key, 8);
  s.kv_heads = cfg.dim_or(kv_key, s.heads);  // MoonshineConfig: None means the stack's head count
  if (s.heads % s.kv_heads != 0)
    cfg.fail(kv_key, "must divide " + heads_key + " (" + std::to_string(s.heads) + ")");
  if (s.heads > hidden) cfg.fail(heads_key, "must not exceed hidden_size (" + std::to_string(hidden) + ")");
  s.head_dim = cfg.dim_or("head_dim", hidden / s.heads);
  return s;
}

blocks::Attention moonshine_attention(const MoonshineStack& s, uint64_t hidden, bool bias) {
  blocks::Attention a;
  a.hidden = hidden;
  a.heads = s.heads;
  a.kv_heads = s.kv_heads;
  a.head_dim = s.head_dim;
  a.qkv_bias = bias;
  a.o_bias = false;
  return a;
}

AttentionShape moonshine_attention_shape(const MoonshineStack& s) {
  AttentionShape a;
  a.kind = attention_kind_of(s.heads, s.kv_heads);
  a.heads = s.heads;
  a.kv_heads = s.kv_heads;
  a.head_dim = s.head_dim;
  return a;
}

}  // namespace

void build_moonshine(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MoonshineModel");
  const std::string task = supported_task(cfg, cls, "Moonshine", {"Model", "ForConditionalGeneration"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  // MoonshineConfig's defaults are moonshine-tiny's.
  const uint64_t h = cfg.dim_or("hidden_size", 288), inter = cfg.dim_or("intermediate_size", 1152);
  const uint64_t vocab = cfg.dim_or("vocab_size", 32768);
  const bool bias = cfg.flag_or("attention_bias", false);
  const MoonshineStack enc = moonshine_stack(cfg, "encoder", h, 6),
                       dec = moonshine_stack(cfg, "decoder", h, 6);
  a.vocab_size = vocab;
  a.hidden_size = h;
  a.num_layers = dec.layers;
  a.num_attention_heads = dec.heads;
  a.num_key_value_heads = dec.kv_heads;
  a.head_dim = dec.head_dim;
  a.intermediate_size = inter;
  a.max_position_embeddings = cfg.dim_or("max_position_embeddings", 512);
  a.norm = NormKind::LayerNorm;  // bias-free LayerNorms, which the tensors alone would take for RMSNorm
  a.position = PositionKind::Rope;
  a.activation = cfg.string_or("decoder_hidden_act", "silu");
  const bool tied = read_tie(cfg, t);
  const std::string root = task == "Model" ? "" : "model.";

  const std::string encoder = root + "encoder";
  t.add(encoder + ".conv1.weight", {h, 1, 127});
  blocks::conv1d(t, encoder + ".conv2", h, 2 * h, 7);
  blocks::conv1d(t, encoder + ".conv3", 2 * h, h, 3);
  blocks::norm(t, encoder + ".groupnorm", h, true);
  StackSpec& enc_stack = a.add_stack(StackRole::Encoder, encoder + ".layers", h);
  for (uint64_t i = 0; i < enc.layers; ++i) {
    const std::string p = encoder + ".layers." + std::to_string(i);
    blocks::attention(t, p + ".self_attn", moonshine_attention(enc, h, bias));
    blocks::linear(t, p + ".mlp.fc1", h, inter, true);
    blocks::linear(t, p + ".mlp.fc2", inter, h, true);
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
    LayerSpec l;
    l.attention = moonshine_attention_shape(enc);
    l.ffn.gated = false;  // fc1, GELU, fc2
    l.ffn.intermediate = inter;
    enc_stack.layers.push_back(l);
  }
  blocks::norm(t, encoder + ".layer_norm", h, false);

  const std::string decoder = root + "decoder";
  blocks::embedding(t, decoder + ".embed_tokens.weight", vocab, h);
  StackSpec& dec_stack = a.add_stack(StackRole::Decoder, decoder + ".layers", h);
  for (uint64_t i = 0; i < dec.layers; ++i) {
    const std::string p = decoder + ".layers." + std::to_string(i);
    blocks::attention(t, p + ".self_attn", moonshine_attention(dec, h, bias));
    blocks::attention(t, p + ".encoder_attn", moonshine_attention(dec, h, bias));
    blocks::linear(t, p + ".mlp.fc1", h, 2 * inter, true);
    blocks::linear(t, p + ".mlp.fc2", inter, h, true);
    for (const char* norm : {".input_layernorm", ".post_attention_layernorm", ".final_layernorm"})
      blocks::norm(t, p + norm, h, false);
    LayerSpec l;
    l.attention = moonshine_attention_shape(dec);
    l.cross_attention = l.attention;
    l.ffn.intermediate = inter;
    dec_stack.layers.push_back(l);
  }
  blocks::norm(t, decoder + ".norm", h, false);
  if (task == "ForConditionalGeneration")
    tied_or_own(t, "proj_out.weight", decoder + ".embed_tokens.weight", tied);
}

}  // namespace ma::families
