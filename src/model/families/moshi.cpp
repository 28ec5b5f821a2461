// Moshi (moshi; kmhf/hf-moshiko, hf-moshika): Kyutai's speech-to-speech model. A 7B temporal transformer
// (MoshiForCausalLM: pre-RMSNorm layers, gated MLP whose fc1 reaches ffn_dim and is split into gate and
// value halves, fc2 back from ffn_dim / 2) reads, at each frame, the sum of one text token's embedding and of
// 2 x num_codebooks audio code embeddings (Moshi's own stream and the user's, embed_tokens at the root); a
// small depth decoder then predicts the frame's codes one codebook at a time, with one weight matrix per
// codebook in every projection (MoshiFlexibleLinear: [num_codebooks, out, in]) and no rotary embedding; the
// Mimi codec (audio_encoder) turns waveforms into codes. MoshiConfig's defaults are moshiko's.
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/audio_gen_b.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/speech_asr.h"

namespace ma::families {

namespace {

// The widths of one Moshi transformer, temporal or depth: heads must divide the width (MoshiAttention
// raises otherwise, whatever head_dim says) and ffn_dim must be even (the config classes raise).
struct MoshiWidths {
  uint64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0;
};

MoshiWidths moshi_widths(const ModelConfig& cfg, uint64_t hidden, uint64_t heads, uint64_t ffn) {
  MoshiWidths w;
  w.hidden = cfg.dim_or("hidden_size", hidden);
  w.heads = cfg.dim_or("num_attention_heads", heads);
  split_heads(cfg, "num_attention_heads", w.hidden, w.heads);
  // null and absent alike give the defaults (`x if x is not None else ...`, `head_dim or ...`).
  w.kv_heads = cfg.has("num_key_value_heads") ? cfg.dim_or("num_key_value_heads", w.heads) : w.heads;
  w.head_dim = cfg.has("head_dim") ? cfg.dim_or("head_dim", w.hidden / w.heads) : w.hidden / w.heads;
  w.ffn = cfg.dim_or("ffn_dim", ffn);
  if (w.ffn % 2 != 0) cfg.fail("ffn_dim", "must be even");
  return w;
}

// A projection of the depth decoder: one [out, in] matrix per codebook, stacked.
void moshi_flexible_linear(ModelTemplate& t, const std::string& name, uint64_t codebooks, uint64_t in,
                           uint64_t out) {
  t.add(name + ".weight", {codebooks, out, in});
}

// The depth decoder (MoshiDepthDecoder): a text-token table and num_codebooks - 1 code tables (the last
// codebook is never an input), the temporal transformer's state projected per codebook, layers whose every
// projection is per codebook (the MLP's only when there are several codebooks: with one, plain nn.Linear),
// and a per-codebook head. No final norm.
void moshi_depth_decoder(ModelTemplate& t, const std::string& p, const MoshiWidths& w, uint64_t layers,
                         uint64_t text_vocab, uint64_t audio_vocab, uint64_t codebooks, uint64_t input_size) {
  blocks::embedding(t, p + "text_embed_tokens.weight", text_vocab + 1, w.hidden);
  for (uint64_t c = 0; c + 1 < codebooks; ++c)
    blocks::embedding(t, p + "embed_tokens." + std::to_string(c) + ".weight", audio_vocab + 1, w.hidden);
  moshi_flexible_linear(t, p + "input_projections", codebooks, input_size, w.hidden);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i);
    moshi_flexible_linear(t, l + ".self_attn.q_proj.linear", codebooks, w.hidden, w.heads * w.head_dim);
    moshi_flexible_linear(t, l + ".self_attn.k_proj.linear", codebooks, w.hidden, w.kv_heads * w.head_dim);
    moshi_flexible_linear(t, l + ".self_attn.v_proj.linear", codebooks, w.hidden, w.kv_heads * w.head_dim);
    moshi_flexible_linear(t, l + ".self_attn.o_proj.linear", codebooks, w.heads * w.head_dim, w.hidden);
    if (codebooks == 1) {
      blocks::linear(t, l + ".mlp.fc1", w.hidden, w.ffn, false);
      blocks::linear(t, l + ".mlp.fc2", w.ffn / 2, w.hidden, false);
    } else {
      moshi_flexible_linear(t, l + ".mlp.fc1", codebooks, w.hidden, w.ffn);
      moshi_flexible_linear(t, l + ".mlp.fc2", codebooks, w.ffn / 2, w.hidden);
    }
    blocks::norm(t, l + ".input_layernorm", w.hidden, false);
    blocks::norm(t, l + ".post_attention_layernorm", w.hidden, false);
  }
  moshi_flexible_linear(t, p + "lm_heads", codebooks, w.hidden, audio_vocab);
}

}  // namespace

void build_moshi(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MoshiForConditionalGeneration");
  const std::string task =
      supported_task(cfg, cls, "Moshi", {"ForConditionalGeneration", "ForCausalLM", "Model"});
  DecoderDefaults dflt;
  dflt.vocab_size = 32000;
  dflt.hidden_size = 4096;
  dflt.num_hidden_layers = 32;
  dflt.num_attention_heads = 32;
  dflt.max_position_embeddings = 3000;
  dflt.intermediate_size = 22528;  // ffn_dim, read below
  read_decoder_dims(cfg, dflt, t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  const MoshiWidths w = moshi_widths(cfg, 4096, 32, 22528);
  a.intermediate_size = w.ffn / 2;  // each half of fc1's output
  // lm_head [vocab, hidden] would be tied to an embedding of vocab + 1 rows: not a model transformers builds.
  if (a.tie_word_embeddings && task != "Model") unsupported(cfg, "Moshi with tie_word_embeddings");
  const uint64_t rows = a.vocab_size + 1;  // the extra row is the text padding token of the audio-only steps
  // nn.Embedding raises unless its padding_idx (pad_token_id, when set) is one of the table's rows.
  if (cfg.has("pad_token_id") && cfg.count_or("pad_token_id", 0) >= rows)
    cfg.fail("pad_token_id", "must be a row of the " + std::to_string(rows) + "-row embedding table");
  const uint64_t window = window_or_none(cfg, 3000);

  const std::string root = task == "ForConditionalGeneration" ? "decoder." : "";
  const std::string model = task == "Model" ? root : root + "model.";
  // MoshiForConditionalGeneration's parts, in registration order: the audio code tables, the codec, the
  // temporal transformer, the depth decoder.
  const ModelConfig codec = sub_or_empty(cfg, "audio_encoder_config");
  const ModelConfig depth = sub_or_empty(cfg, "depth_decoder_config");
  uint64_t codebooks = 0, audio_vocab = 0;
  if (task == "ForConditionalGeneration") {
    if (const std::string type = codec.string_or("model_type", "mimi"); type != "mimi")
      unsupported(cfg, "Moshi with a " + printable(type) + " audio encoder");
    codebooks = cfg.dim_or("num_codebooks", 8);
    // MoshiConfig raises when the codec has fewer codebooks (MimiConfig: num_quantizers).
    if (codebooks > codec.count_or("num_quantizers", 32))
      cfg.fail("num_codebooks", "must not exceed the audio encoder's num_quantizers");
    audio_vocab = cfg.has("audio_vocab_size") ? cfg.dim_or("audio_vocab_size", 2048)
                                              : codec.dim_or("codebook_size", 2048);
    for (uint64_t c = 0; c < 2 * codebooks; ++c)
      blocks::embedding(t, "embed_tokens." + std::to_string(c) + ".weight", audio_vocab + 1, a.hidden_size);
    mimi_model(codec, "audio_encoder.", t);
  }
  t.add(model + "embed_tokens.weight", {rows, a.hidden_size}).embedding = true;
  blocks::Attention at = standard_attention(a);
  at.q = "q_proj.linear";
  at.k = "k_proj.linear";
  at.v = "v_proj.linear";
  at.o = "o_proj.linear";
  StackSpec& stack = a.add_stack(StackRole::Decoder, model + "layers", a.hidden_size);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = model + "layers." + std::to_string(i);
    blocks::attention(t, l + ".self_attn", at);
    blocks::linear(t, l + ".mlp.fc1", a.hidden_size, w.ffn, false);
    blocks::linear(t, l + ".mlp.fc2", w.ffn / 2, a.hidden_size, false);
    blocks::norm(t, l + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, l + ".post_attention_layernorm", a.hidden_size, false);
    stack.layers.push_back(attention_layer(a, window));
  }
  blocks::norm(t, model + "norm", a.hidden_size, false);
  if (task == "Model") return;
  blocks::linear(t, root + "lm_head", a.hidden_size, a.vocab_size, false);
  if (task != "ForConditionalGeneration") return;
  // MoshiDepthConfig's defaults, with the four fields MoshiConfig overrides: audio_vocab_size, input_size
  // (the temporal width), vocab_size and num_codebooks. The depth decoder runs num_codebooks steps per frame
  // over its own short cache: not a stack over the context, so it is not recorded as one.
  const MoshiWidths dw = moshi_widths(depth, 1024, 16, 5632);
  moshi_depth_decoder(t, "depth_decoder.", dw, depth.layers_or("num_hidden_layers", 6, 0), a.vocab_size,
                      audio_vocab, codebooks, a.hidden_size);
}

}  // namespace ma::families
