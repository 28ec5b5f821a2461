// Self-supervised speech encoders: wav2vec 2.0 and HuBERT (Wav2Vec2Model / ForCTC / ForPreTraining /
// ForSequenceClassification, HubertModel / ForCTC / ForSequenceClassification). A stack of 1-D convolutions
// turns the waveform into frames (one per 320 samples), a projection widens them, a grouped convolution adds
// relative positions, and BERT-like layers (post-norm, or pre-norm with do_stable_layer_norm) encode them.
// Nothing generates: a CTC head labels each frame. The body is wav2vec2_encoder.cpp's.
#include <array>

#include "model/blocks.h"
#include "model/families/family_groups.h"
#include "model/families/wav2vec2_encoder.h"

namespace ma::families {
namespace {

// Wav2Vec2ForPreTraining: the quantizer of the contrastive task and both projections.
void wav2vec2_pretraining_head(const ModelConfig& cfg, ModelTemplate& t, const Wav2Vec2Widths& w) {
  gumbel_vector_quantizer(cfg, t, w.features);
  const uint64_t proj = cfg.dim_or("proj_codevector_dim", 256);
  blocks::linear(t, "project_hid", w.hidden, proj, true);
  blocks::linear(t, "project_q", cfg.dim_or("codevector_dim", 256), proj, true);
}

constexpr std::array<std::string_view, 4> kWav2Vec2Tasks{"Model", "ForCTC", "ForPreTraining",
                                                         "ForSequenceClassification"};
constexpr std::array<std::string_view, 3> kHubertTasks{"Model", "ForCTC", "ForSequenceClassification"};

void build_wav2vec2(const ModelConfig& cfg, ModelTemplate& t) {
  Wav2Vec2Flavour f{.prefix = "Wav2Vec2", .base = "wav2vec2", .tasks = kWav2Vec2Tasks};
  f.adapter = true;
  f.pretraining = wav2vec2_pretraining_head;
  build_wav2vec2_like(cfg, t, f);
}
void build_hubert(const ModelConfig& cfg, ModelTemplate& t) {
  Wav2Vec2Flavour f{.prefix = "Hubert", .base = "hubert", .tasks = kHubertTasks};
  f.projection_norm_optional = true;
  f.batch_norm_positions = true;
  build_wav2vec2_like(cfg, t, f);
}

constexpr std::array kSpeechEncoderFamilies{
    FamilyBuilder{"wav2vec2", build_wav2vec2},
    FamilyBuilder{"hubert", build_hubert},
};

}  // namespace

std::span<const FamilyBuilder> speech_encoders() {
  return kSpeechEncoderFamilies;
}

}  // namespace ma::families
