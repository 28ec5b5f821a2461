// CLVP (susnato/clvp_dev, Tortoise TTS): ClvpModelForConditionalGeneration holds four parts. A conditioning
// encoder turns the reference mel spectrogram into one vector (a 1x1 conv, then GroupNorm + self-attention
// blocks at the decoder's width) and embeds the text tokens with their own tables; a GPT-2-style speech
// decoder (Conv1D MLPs, learned positions, an extra final_norm before its biased, untied lm_head) generates
// speech tokens; two contrastive encoders (text tokens, speech tokens: RMSNorm layers, rotary positions on
// part of each head, a GLU MLP, mean pooling and a bias-free projection) rank the candidates.
// Registration order: the model's own logit_scale first, then conditioning_encoder, speech_decoder_model,
// text_encoder_model, speech_encoder_model (ClvpModelForConditionalGeneration.__init__).
#include "model/families/clvp.h"

#include <algorithm>
#include <string>

#include "model/blocks.h"
#include "model/families/classic_decoder_parts.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// ClvpDecoderConfig's fields; defaults are susnato/clvp_dev's (the config class's own).
struct ClvpDecoderDims {
  uint64_t vocab = 8194, positions = 608, text_positions = 404, hidden = 1024, layers = 30, heads = 16;
  uint64_t inner = 4096, mel_blocks = 6, features = 80;
  bool attention_bias = true;
};

ClvpDecoderDims read_clvp_decoder(const ModelConfig& d) {
  ClvpDecoderDims c;
  c.vocab = d.dim_or("vocab_size", c.vocab);
  c.positions = d.dim_or("max_position_embeddings", c.positions);
  c.text_positions = d.dim_or("max_text_tokens", c.text_positions);
  c.hidden = d.dim_or("hidden_size", c.hidden);
  c.layers = d.layers_or("num_hidden_layers", c.layers);
  c.heads = d.dim_or("num_attention_heads", c.heads);
  split_heads(d, "num_attention_heads", c.hidden, c.heads);
  c.inner = classic::width_or_4x(d, "n_inner", c.hidden);
  c.mel_blocks = d.layers_or("num_mel_attn_blocks", c.mel_blocks, 0);
  c.features = d.dim_or("feature_size", c.features);
  c.attention_bias = d.flag_or("use_attention_bias", c.attention_bias);
  return c;
}

// ClvpSelfAttention: k, v, q (biased when use_attention_bias), then an always-biased out_proj. Its causal
// `bias` mask is a non-persistent buffer: not in the state dict.
void clvp_self_attention(ModelTemplate& t, const std::string& p, uint64_t hidden, bool bias) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj"}) blocks::linear(t, p + proj, hidden, hidden, bias);
  blocks::linear(t, p + "out_proj", hidden, hidden, true);
}

// ClvpConditioningEncoder.compute_groupnorm_groups (from Tortoise): 32 groups, 8 up to 16 channels, 16 up to
// 64, halved until they divide the channels; two groups or fewer raise.
void clvp_check_groupnorm(const ModelConfig& d, uint64_t channels) {
  uint64_t groups = channels <= 16 ? 8 : channels <= 64 ? 16 : 32;
  while (channels % groups != 0) groups /= 2;
  if (groups <= 2)
    d.fail("hidden_size", "gives GroupNorm " + std::to_string(groups) + " groups (CLVP needs more than 2)");
}

// ClvpConditioningEncoder: text tables of the text config's vocabulary at the decoder's width, the mel conv,
// then all GroupNorms before all attention blocks (two ModuleLists).
void clvp_conditioning_encoder(const ModelConfig& d, const ClvpDecoderDims& c, uint64_t text_vocab,
                               ModelTemplate& t) {
  const std::string p = "conditioning_encoder.";
  blocks::embedding(t, p + "text_token_embedding.weight", text_vocab, c.hidden);
  blocks::embedding(t, p + "text_position_embedding.weight", c.text_positions, c.hidden);
  blocks::conv1d(t, p + "mel_conv", c.features, c.hidden, 1);
  if (c.mel_blocks > 0) clvp_check_groupnorm(d, c.hidden);
  for (uint64_t i = 0; i < c.mel_blocks; ++i)
    blocks::norm(t, p + "group_norms." + std::to_string(i), c.hidden, true);
  for (uint64_t i = 0; i < c.mel_blocks; ++i)
    clvp_self_attention(t, p + "mel_attn_blocks." + std::to_string(i) + ".", c.hidden, c.attention_bias);
}

// ClvpForCausalLM: model.decoder (GPT-2's layout with CLVP's attention), final_norm, a biased lm_head.
void clvp_speech_decoder(const ClvpDecoderDims& c, ModelTemplate& t) {
  const std::string p = "speech_decoder_model.model.decoder.";
  blocks::embedding(t, p + "input_embeds_layer.weight", c.vocab, c.hidden);
  blocks::embedding(t, p + "position_embeds_layer.weight", c.positions, c.hidden);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, p + "layers", c.hidden);
  for (uint64_t i = 0; i < c.layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    blocks::norm(t, l + "input_layernorm", c.hidden, true);
    clvp_self_attention(t, l + "attn.", c.hidden, c.attention_bias);
    blocks::norm(t, l + "post_attention_layernorm", c.hidden, true);
    classic::plain_mlp(t, l + "mlp", {"c_fc", "c_proj"}, c.hidden, c.inner, true, classic::Weights::Conv1D);
    LayerSpec layer = attention_layer(t.arch);
    layer.ffn.gated = false;
    stack.layers.push_back(layer);
  }
  blocks::norm(t, p + "layer_norm", c.hidden, true);
  blocks::norm(t, "speech_decoder_model.final_norm", c.hidden, true);
  blocks::linear(t, "speech_decoder_model.lm_head", c.hidden, c.vocab, true);
}

// ClvpEncoder (ClvpEncoderConfig's defaults, the same for text and speech): token_embedding, the rotary
// table's persistent inv_freq, RMSNorm layers with a GLU MLP (fc1.proj doubles the width), a LayerNorm, the
// summary (mean pooling, no weights) and a bias-free projection.
void clvp_encoder(const ModelConfig& e, const std::string& prefix, ModelTemplate& t) {
  const uint64_t vocab = e.dim_or("vocab_size", 256), hidden = e.dim_or("hidden_size", 768);
  const uint64_t inter = e.dim_or("intermediate_size", 1536), projection = e.dim_or("projection_dim", 768);
  const uint64_t layers = e.layers_or("num_hidden_layers", 20), heads = e.dim_or("num_attention_heads", 12);
  split_heads(e, "num_attention_heads", hidden, heads);
  const bool bias = e.flag_or("use_attention_bias", false);
  // SequenceSummary adds a projection only when the config sets summary_use_proj, which
  // ClvpEncoderConfig never does; a checkpoint that did would need its num_labels head.
  if (e.flag_or("summary_use_proj", false))
    e.fail("summary_use_proj", "is not supported for CLVP's encoders");
  blocks::embedding(t, prefix + "token_embedding.weight", vocab, hidden);
  if (e.flag_or("use_rotary_embedding", true)) {
    // ClvpRotaryPositionalEmbedding: dim = max(projection_dim // (heads * 2), 32); arange(0, dim, 2).
    const uint64_t dim = std::max<uint64_t>(projection / (heads * 2), 32);
    t.add(prefix + "rotary_pos_emb.inv_freq", {(dim + 1) / 2}).kind = TensorKind::Buffer;
  }
  StackSpec& stack = t.arch.add_stack(StackRole::Encoder, prefix + "layers", hidden);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = prefix + "layers." + std::to_string(i) + ".";
    clvp_self_attention(t, l + "self_attn.", hidden, bias);
    blocks::linear(t, l + "mlp.fc1.proj", hidden, 2 * inter, true);
    blocks::linear(t, l + "mlp.fc2", inter, hidden, true);
    blocks::norm(t, l + "input_rmsnorm", hidden, false);
    blocks::norm(t, l + "post_attention_rmsnorm", hidden, false);
    LayerSpec layer;
    layer.attention.heads = layer.attention.kv_heads = heads;
    layer.attention.head_dim = hidden / heads;
    layer.ffn.intermediate = inter;
    stack.layers.push_back(layer);
  }
  blocks::norm(t, prefix + "final_layer_norm", hidden, true);
  blocks::linear(t, prefix + "projection", hidden, projection, false);
}

}  // namespace

void build_clvp(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ClvpModelForConditionalGeneration");
  supported_task(cfg, cls, "Clvp", {"ModelForConditionalGeneration"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  const ModelConfig decoder = sub_or_empty(cfg, "decoder_config");
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const ModelConfig speech = sub_or_empty(cfg, "speech_config");
  const ClvpDecoderDims c = read_clvp_decoder(decoder);
  // The record describes the speech decoder, the part that generates.
  a.vocab_size = c.vocab;
  a.hidden_size = c.hidden;
  a.num_layers = c.layers;
  a.num_attention_heads = a.num_key_value_heads = c.heads;
  a.head_dim = c.hidden / c.heads;
  a.intermediate_size = c.inner;
  a.max_position_embeddings = c.positions;
  t.add("logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  clvp_conditioning_encoder(decoder, c, text.dim_or("vocab_size", 256), t);
  clvp_speech_decoder(c, t);
  clvp_encoder(text, "text_encoder_model.", t);
  clvp_encoder(speech, "speech_encoder_model.", t);
}

}  // namespace ma::families
