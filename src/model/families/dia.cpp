// Dia (dia; nari-labs/Dia-1.6B-0626): Nari Labs' text-to-dialogue model. A byte-level text encoder
// (pre-RMSNorm layers, rotary positions, a gated MLP whose gate and up projections are one gate_up_proj)
// feeds, through cross-attention, an audio decoder that embeds num_channels DAC codebooks from one table (the
// channels' vocabularies stacked: vocab_size x num_channels rows) and predicts all channels at once
// (logits_dense). The DAC codec that turns the codes into audio is not part of the model: transformers loads
// it apart. DiaConfig's defaults are Dia-1.6B's.
#include <string>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/audio_gen_b.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {

namespace {

// One Dia transformer's widths, as DiaEncoderConfig / DiaDecoderConfig default them.
struct DiaWidths {
  uint64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0;
};

DiaWidths dia_widths(const ModelConfig& cfg, const DiaWidths& dflt) {
  DiaWidths w;
  w.hidden = cfg.dim_or("hidden_size", dflt.hidden);
  w.layers = cfg.layers_or("num_hidden_layers", dflt.layers, 0);
  w.heads = cfg.dim_or("num_attention_heads", dflt.heads);
  // DiaSelfAttention: `num_key_value_heads or num_attention_heads`: an explicit null means one per head.
  const json::Value* kv = cfg.raw("num_key_value_heads");
  w.kv_heads = kv && kv->is_null() ? w.heads : cfg.dim_or("num_key_value_heads", dflt.kv_heads);
  if (w.heads % w.kv_heads != 0) cfg.fail("num_key_value_heads", "must divide num_attention_heads");
  w.head_dim = cfg.dim_or("head_dim", dflt.head_dim);  // set by the config class, whatever the width
  w.intermediate = cfg.dim_or("intermediate_size", dflt.intermediate);
  return w;
}

// q, k, v, o without biases; k and v read `kv_input` wide states (the encoder's, for cross-attention).
void dia_attention(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t kv_input, uint64_t heads,
                   uint64_t kv_heads, uint64_t head_dim) {
  blocks::linear(t, p + ".q_proj", hidden, heads * head_dim, false);
  blocks::linear(t, p + ".k_proj", kv_input, kv_heads * head_dim, false);
  blocks::linear(t, p + ".v_proj", kv_input, kv_heads * head_dim, false);
  blocks::linear(t, p + ".o_proj", heads * head_dim, hidden, false);
}

void dia_mlp(ModelTemplate& t, const std::string& p, const DiaWidths& w) {
  blocks::linear(t, p + ".gate_up_proj", w.hidden, 2 * w.intermediate, false);
  blocks::linear(t, p + ".down_proj", w.intermediate, w.hidden, false);
}

LayerSpec dia_layer(const DiaWidths& w) {
  LayerSpec l;
  l.attention.kind = attention_kind_of(w.heads, w.kv_heads);
  l.attention.heads = w.heads;
  l.attention.kv_heads = w.kv_heads;
  l.attention.head_dim = w.head_dim;
  l.ffn.intermediate = w.intermediate;
  return l;
}

}  // namespace

void build_dia(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DiaForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Dia", {"ForConditionalGeneration", "Model"});
  const ModelConfig enc_cfg = sub_or_empty(cfg, "encoder_config");
  const ModelConfig dec_cfg = sub_or_empty(cfg, "decoder_config");
  const DiaWidths enc = dia_widths(enc_cfg, {1024, 12, 16, 16, 128, 4096});
  const DiaWidths dec = dia_widths(dec_cfg, {2048, 18, 16, 4, 128, 8192});
  const uint64_t enc_vocab = enc_cfg.dim_or("vocab_size", 256);
  const uint64_t dec_vocab = dec_cfg.dim_or("vocab_size", 1028);
  const uint64_t channels = dec_cfg.dim_or("num_channels", 9);
  const uint64_t cross_heads = dec_cfg.dim_or("cross_num_attention_heads", 16);
  const uint64_t cross_kv_heads = dec_cfg.dim_or("cross_num_key_value_heads", 16);
  const uint64_t cross_head_dim = dec_cfg.dim_or("cross_head_dim", 128);
  // The width cross-attention's keys and values read: the config's, not the encoder's (1024 for both).
  const uint64_t cross_hidden = dec_cfg.dim_or("cross_hidden_size", 1024);
  if (cross_heads % cross_kv_heads != 0)
    dec_cfg.fail("cross_num_key_value_heads", "must divide cross_num_attention_heads");
  // DiaConfig asserts one delay per channel (default [0, 8, 9, ..., 15]: nine).
  const uint64_t delays = cfg.has("delay_pattern") ? cfg.ints("delay_pattern").size() : 9;
  if (delays != channels)
    cfg.fail("delay_pattern",
             "must list one delay per decoder_config.num_channels (" + std::to_string(channels) + ")");

  const std::string root = task == "Model" ? "" : "model.";  // DiaForConditionalGeneration's `model`
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.vocab_size = dec_vocab;
  a.hidden_size = dec.hidden;
  a.num_layers = dec.layers;
  a.num_attention_heads = dec.heads;
  a.num_key_value_heads = dec.kv_heads;
  a.head_dim = dec.head_dim;
  a.intermediate_size = dec.intermediate;
  a.max_position_embeddings = dec_cfg.count_or("max_position_embeddings", 3072);
  a.tie_word_embeddings = false;

  blocks::embedding(t, root + "encoder.embedding.weight", enc_vocab, enc.hidden);
  StackSpec& enc_stack = a.add_stack(StackRole::Encoder, root + "encoder.layers", enc.hidden);
  for (uint64_t i = 0; i < enc.layers; ++i) {
    const std::string l = root + "encoder.layers." + std::to_string(i);
    blocks::norm(t, l + ".pre_sa_norm", enc.hidden, false);
    dia_attention(t, l + ".self_attention", enc.hidden, enc.hidden, enc.heads, enc.kv_heads, enc.head_dim);
    blocks::norm(t, l + ".post_sa_norm", enc.hidden, false);
    dia_mlp(t, l + ".mlp", enc);
    enc_stack.layers.push_back(dia_layer(enc));
  }
  enc_stack.positions = enc_cfg.count_or("max_position_embeddings", 1024);
  blocks::norm(t, root + "encoder.norm", enc.hidden, false);

  blocks::embedding(t, root + "decoder.embeddings.embed.weight", dec_vocab * channels, dec.hidden);
  StackSpec& dec_stack = a.add_stack(StackRole::Decoder, root + "decoder.layers", dec.hidden);
  LayerSpec dec_layer = dia_layer(dec);
  AttentionShape cross;
  cross.kind = attention_kind_of(cross_heads, cross_kv_heads);
  cross.heads = cross_heads;
  cross.kv_heads = cross_kv_heads;
  cross.head_dim = cross_head_dim;
  dec_layer.cross_attention = cross;
  for (uint64_t i = 0; i < dec.layers; ++i) {
    const std::string l = root + "decoder.layers." + std::to_string(i);
    dia_attention(t, l + ".self_attention", dec.hidden, dec.hidden, dec.heads, dec.kv_heads, dec.head_dim);
    dia_attention(t, l + ".cross_attention", dec.hidden, cross_hidden, cross_heads, cross_kv_heads,
                  cross_head_dim);
    blocks::norm(t, l + ".pre_sa_norm", dec.hidden, false);
    blocks::norm(t, l + ".pre_ca_norm", dec.hidden, false);
    blocks::norm(t, l + ".pre_mlp_norm", dec.hidden, false);
    dia_mlp(t, l + ".mlp", dec);
    dec_stack.layers.push_back(dec_layer);
  }
  blocks::norm(t, root + "decoder.norm", dec.hidden, false);
  if (task == "Model") return;
  blocks::linear(t, "logits_dense", dec.hidden, channels * dec_vocab, false);  // all channels' logits
}

}  // namespace ma::families
