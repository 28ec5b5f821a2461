// MusicGen's decoder (MusicgenForCausalLM, MusicgenMelodyForCausalLM, and their MusicgenModel /
// MusicgenMelodyModel): a pre-LayerNorm transformer over num_codebooks parallel streams of EnCodec codes.
// Each codebook has its own embedding (vocab_size + 1 rows: the extra one is the pad / start token 2048) and
// its own bias-free LM head; the streams' embeddings are summed into one sequence. Positions are a sinusoidal
// table (a non-persistent buffer in transformers 5). MusicGen's layers cross-attend to the text encoder;
// MusicGen Melody's have no cross-attention (the conditioning is prepended to the sequence instead).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_gen.h"

namespace ma::families {

uint64_t musicgen_decoder(const ModelConfig& cfg, const std::string& prefix, const MusicgenDecoderForm& form,
                          ModelTemplate& t) {
  // MusicgenDecoderConfig's and MusicgenMelodyDecoderConfig's defaults (both facebook/musicgen-small's
  // sizes).
  const uint64_t vocab = cfg.dim_or("vocab_size", 2048), hidden = cfg.dim_or("hidden_size", 1024);
  const uint64_t layers = cfg.layers_or("num_hidden_layers", 24, 0),
                 heads = cfg.dim_or("num_attention_heads", 16);
  const uint64_t ffn = cfg.dim_or("ffn_dim", 4096), codebooks = cfg.dim_or("num_codebooks", 4);
  const uint64_t head_dim =
      split_heads(cfg, "num_attention_heads", hidden, heads);  // MusicgenAttention raises

  ArchitectureRecord& a = t.arch;
  a.hidden_size = hidden;
  a.num_layers = layers;
  a.vocab_size = vocab;
  a.num_attention_heads = a.num_key_value_heads = heads;
  a.head_dim = head_dim;
  a.intermediate_size = ffn;
  a.max_position_embeddings = cfg.dim_or("max_position_embeddings", 2048);
  // No class ties the heads to the embeddings (there is no _tied_weights_keys), whatever the config says.
  a.tie_word_embeddings = false;
  a.norm = NormKind::LayerNorm;
  a.position = PositionKind::Sinusoidal;
  a.activation = cfg.string_or("activation_function", "gelu");

  const std::string d = prefix + (form.causal_lm ? "model.decoder." : "decoder.");
  for (uint64_t c = 0; c < codebooks; ++c)
    blocks::embedding(t, d + "embed_tokens." + std::to_string(c) + ".weight", vocab + 1, hidden);
  // Checkpoints written before transformers made the sinusoidal table a non-persistent buffer (every
  // facebook/musicgen-* one) store it: max_position_embeddings x hidden_size floats nothing loads.
  t.known_extras.push_back(
      {d + "embed_positions.",
       "sinusoidal position table older transformers saved as a parameter; transformers 5 "
       "recomputes it as a buffer"});
  blocks::Attention at;
  at.hidden = hidden;
  at.heads = at.kv_heads = heads;
  at.head_dim = head_dim;
  at.o = "out_proj";
  at.key_first = true;  // BART's copy: k, v, q, out_proj, all bias-free here
  StackSpec& stack = a.add_stack(StackRole::Decoder, d + "layers", hidden);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = heads;
  spec.attention.head_dim = head_dim;
  spec.ffn.intermediate = ffn;
  spec.ffn.gated = false;
  if (!form.melody) spec.cross_attention = spec.attention;
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = d + "layers." + std::to_string(i) + ".";
    blocks::attention(t, l + "self_attn", at);
    blocks::norm(t, l + "self_attn_layer_norm", hidden, true);
    // MusicgenDecoderLayer always builds its cross-attention, even in MusicgenForCausalLM alone.
    if (!form.melody) {
      blocks::attention(t, l + "encoder_attn", at);
      blocks::norm(t, l + "encoder_attn_layer_norm", hidden, true);
    }
    blocks::linear(t, l + "fc1", hidden, ffn, false);
    blocks::linear(t, l + "fc2", ffn, hidden, false);
    blocks::norm(t, l + "final_layer_norm", hidden, true);
    stack.layers.push_back(spec);
  }
  blocks::norm(t, d + "layer_norm", hidden, true);
  if (form.causal_lm)
    for (uint64_t c = 0; c < codebooks; ++c)
      blocks::linear(t, prefix + "lm_heads." + std::to_string(c), hidden, vocab, false);
  return hidden;
}

namespace {

void build_musicgen_decoder_of(const ModelConfig& cfg, ModelTemplate& t, bool melody) {
  const std::string family = melody ? "MusicgenMelody" : "Musicgen";
  const std::string cls = architecture_of(cfg, family + "ForCausalLM");
  const std::string task = supported_task(cfg, cls, family, {"ForCausalLM", "Model"});
  t.arch.architecture = cls;
  musicgen_decoder(cfg, "", {.melody = melody, .causal_lm = task == "ForCausalLM"}, t);
}

}  // namespace

void build_musicgen_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  build_musicgen_decoder_of(cfg, t, false);
}

void build_musicgen_melody_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  build_musicgen_decoder_of(cfg, t, true);
}

}  // namespace ma::families
