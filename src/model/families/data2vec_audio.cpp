// data2vec-audio (Data2VecAudioModel / ForCTC / ForSequenceClassification): wav2vec 2.0's body with two
// differences. Its feature encoder norms every convolution (a LayerNorm each, whatever feat_extract_norm
// says), and positions come from a stack of num_conv_pos_embeddings plain grouped convolutions, each
// followed by a LayerNorm without parameters (elementwise_affine=False), instead of one weight-normed
// convolution. The encoder is always post-norm (Data2VecAudioEncoder is Wav2Vec2Encoder's copy).
#include <array>

#include "model/families/speech_w2v.h"
#include "model/families/wav2vec2_encoder.h"

namespace ma::families {
namespace {

// Data2VecAudioPositionalConvEmbedding: layers.N.conv, conv_pos_kernel_size wide (19 in data2vec-audio-base),
// num_conv_pos_embedding_groups groups.
void data2vec_audio_positions(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                              uint64_t h) {
  const uint64_t kernel = cfg.dim_or("conv_pos_kernel_size", 19);
  const uint64_t groups = cfg.dim_or("num_conv_pos_embedding_groups", 16);
  if (h % groups)
    cfg.fail("num_conv_pos_embedding_groups", "must divide hidden_size (" + std::to_string(h) + ")");
  const uint64_t layers = cfg.count_or("num_conv_pos_embeddings", 5);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string conv = encoder + "pos_conv_embed.layers." + std::to_string(i) + ".conv.";
    t.add(conv + "weight", {h, h / groups, kernel});
    t.add(conv + "bias", {h});
  }
}

constexpr std::array<std::string_view, 3> kData2VecAudioTasks{"Model", "ForCTC", "ForSequenceClassification"};

}  // namespace

void build_data2vec_audio(const ModelConfig& cfg, ModelTemplate& t) {
  Wav2Vec2Flavour f{.prefix = "Data2VecAudio", .base = "data2vec_audio", .tasks = kData2VecAudioTasks};
  f.adapter = true;
  f.stable_layer_norm = false;
  f.every_conv_normed = true;
  f.positions = data2vec_audio_positions;
  build_wav2vec2_like(cfg, t, f);
}

}  // namespace ma::families
