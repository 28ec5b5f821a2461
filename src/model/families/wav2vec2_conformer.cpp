// wav2vec 2.0-Conformer (Wav2Vec2ConformerModel / ForCTC / ForSequenceClassification): wav2vec 2.0's body
// (feature encoder, feature_projection, weight-normed positional convolution, encoder LayerNorm, adapter)
// whose encoder layers are Conformer blocks (wav2vec2_conformer_parts.h). position_embeddings_type
// "relative" (the default, facebook/wav2vec2-conformer-rel-pos-large) adds Transformer-XL biases to each
// attention; "rotary" (facebook/wav2vec2-conformer-rope-large) adds the encoder's inv_freq, a persistent
// buffer. The encoder always keeps wav2vec2's positional convolution as well.
#include <array>

#include "model/families/speech_w2v.h"
#include "model/families/wav2vec2_conformer_parts.h"
#include "model/families/wav2vec2_encoder.h"

namespace ma::families {
namespace {

// Wav2Vec2ConformerConfig's default: relative positions.
std::string w2v_conformer_positions(const ModelConfig& cfg) {
  return conformer_position_type(cfg, "relative");
}

// Wav2Vec2ConformerEncoder registers embed_positions (rotary: its inv_freq buffer, head_dim / 2 rounded up
// entries; relative: no tensor, the sinusoids are a plain attribute), then pos_conv_embed.
void w2v_conformer_encoder_positions(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                                     uint64_t hidden) {
  if (w2v_conformer_positions(cfg) == "rotary") {
    const uint64_t head = hidden / t.arch.num_attention_heads;  // read (and checked) into the record first
    t.add(encoder + "embed_positions.inv_freq", {(head + 1) / 2}).kind = TensorKind::Buffer;
  }
  weight_normed_position_conv(t, encoder + "pos_conv_embed.conv", hidden, conv_position_dims(cfg, hidden));
}

void w2v_conformer_encoder_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& layer,
                                 const LayerDims& d, uint64_t) {
  ConformerLayerDims c;
  c.hidden = d.hidden;
  c.heads = d.heads;
  c.ffn = d.ffn;
  c.kernel = conformer_depthwise_kernel(cfg);
  // Only "relative" adds parameters; the attention treats any other value as plain (rotary rotates q and k).
  if (w2v_conformer_positions(cfg) == "relative") c.positions = ConformerPositions::Relative;
  wav2vec2_conformer_layer(t, layer, c);
}

constexpr std::array<std::string_view, 3> kW2vConformerTasks{"Model", "ForCTC", "ForSequenceClassification"};

}  // namespace

void build_wav2vec2_conformer(const ModelConfig& cfg, ModelTemplate& t) {
  // Wav2Vec2ConformerConfig defaults vocab_size to None, which Wav2Vec2ConformerForCTC refuses.
  if (architecture_of(cfg, "Wav2Vec2ConformerModel") == "Wav2Vec2ConformerForCTC" && !cfg.has("vocab_size"))
    cfg.fail("vocab_size", "is required by Wav2Vec2ConformerForCTC");
  Wav2Vec2Flavour f{.prefix = "Wav2Vec2Conformer", .base = "wav2vec2_conformer", .tasks = kW2vConformerTasks};
  f.adapter = true;  // Wav2Vec2ConformerModel registers Wav2Vec2Adapter when add_adapter
  f.positions = w2v_conformer_encoder_positions;
  f.layer = w2v_conformer_encoder_layer;
  build_wav2vec2_like(cfg, t, f);
  t.arch.post_norm = false;  // Conformer blocks norm before each sublayer (and once more at their end)
}

}  // namespace ma::families
