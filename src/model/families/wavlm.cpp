// WavLM (WavLMModel / ForCTC / ForSequenceClassification): wav2vec 2.0's body whose attention adds a gated
// relative position bias. Every layer gates the bias with gru_rel_pos_const and gru_rel_pos_linear; only
// layer 0 holds the bucket table (rel_attn_embed) and passes the bias it computes on to the others.
#include <array>

#include "model/blocks.h"
#include "model/families/speech_w2v.h"
#include "model/families/wav2vec2_encoder.h"

namespace ma::families {
namespace {

// WavLMAttention registers gru_rel_pos_const as its own parameter (listed before its modules), then k, v, q,
// out, gru_rel_pos_linear (one head's width to 8 gate logits) and, in layer 0, rel_attn_embed (num_buckets x
// heads). The layer around it is wav2vec2's, whether post-norm or stable-layer-norm.
void wavlm_encoder_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& layer,
                         const LayerDims& d, uint64_t index) {
  const std::string attn = layer + ".attention.";
  const uint64_t head_dim = split_heads(cfg, "num_attention_heads", d.hidden, d.heads);
  t.add(attn + "gru_rel_pos_const", {1, d.heads, 1, 1});
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, attn + proj, d.hidden, d.hidden, true);
  blocks::linear(t, attn + "gru_rel_pos_linear", head_dim, 8, true);
  if (index == 0)
    blocks::embedding(t, attn + "rel_attn_embed.weight", cfg.dim_or("num_buckets", 320), d.heads);
  blocks::norm(t, layer + ".layer_norm", d.hidden, true);
  blocks::linear(t, layer + ".feed_forward.intermediate_dense", d.hidden, d.ffn, true);
  blocks::linear(t, layer + ".feed_forward.output_dense", d.ffn, d.hidden, true);
  blocks::norm(t, layer + ".final_layer_norm", d.hidden, true);
}

constexpr std::array<std::string_view, 3> kWavLMTasks{"Model", "ForCTC", "ForSequenceClassification"};

}  // namespace

void build_wavlm(const ModelConfig& cfg, ModelTemplate& t) {
  Wav2Vec2Flavour f{.prefix = "WavLM", .base = "wavlm", .tasks = kWavLMTasks};
  f.adapter = true;  // WavLMModel is Wav2Vec2Model's copy, adapter included
  f.layer = wavlm_encoder_layer;
  build_wav2vec2_like(cfg, t, f);
}

}  // namespace ma::families
