// UniSpeech and UniSpeech-SAT (UniSpeech[Sat]Model / ForCTC / ForPreTraining / ForSequenceClassification):
// wav2vec 2.0's body unchanged (post-norm or stable-layer-norm, no adapter); they differ in their
// pre-training heads. UniSpeechSatModel always registers masked_spec_embed, whatever mask_time_prob says.
#include <array>

#include "model/blocks.h"
#include "model/families/speech_w2v.h"
#include "model/families/wav2vec2_encoder.h"

namespace ma::families {
namespace {

// UniSpeechForPreTraining: the quantizer over the features, project_q to proj_codevector_dim, project_hid
// back up to the hidden width (the reverse of wav2vec2's), and ctc_proj to num_ctc_classes (80 by default).
void unispeech_pretraining_head(const ModelConfig& cfg, ModelTemplate& t, const Wav2Vec2Widths& w) {
  gumbel_vector_quantizer(cfg, t, w.features);
  const uint64_t proj = cfg.dim_or("proj_codevector_dim", 256);
  blocks::linear(t, "project_q", cfg.dim_or("codevector_dim", 256), proj, true);
  blocks::linear(t, "project_hid", proj, w.hidden, true);
  blocks::linear(t, "ctc_proj", w.hidden, cfg.dim_or("num_ctc_classes", 80), true);
}

// UniSpeechSatForPreTraining: its own label_embeddings_concat (num_clusters x codevector_dim, listed before
// the model), a quantizer whose weight_proj reads the hidden width (it replaces wav2vec2's), project_q,
// project_hid, speaker_proj and layer_norm_for_extract. Its forward uses none of them but they are built.
void unispeech_sat_pretraining_head(const ModelConfig& cfg, ModelTemplate& t, const Wav2Vec2Widths& w) {
  const uint64_t codevector = cfg.dim_or("codevector_dim", 256),
                 proj = cfg.dim_or("proj_codevector_dim", 256);
  // Added next to the model's tensors, which it then moves before (order_modules keeps the slots they hold).
  t.add("label_embeddings_concat", {cfg.dim_or("num_clusters", 504), codevector});
  t.order_modules({"label_embeddings_concat", "unispeech_sat."});
  gumbel_vector_quantizer(cfg, t, w.hidden);
  blocks::linear(t, "project_q", codevector, proj, true);
  blocks::linear(t, "project_hid", w.hidden, proj, true);
  blocks::linear(t, "speaker_proj", w.hidden, codevector, true);
  blocks::norm(t, "layer_norm_for_extract", w.hidden, true);
}

constexpr std::array<std::string_view, 4> kUniSpeechTasks{"Model", "ForCTC", "ForPreTraining",
                                                          "ForSequenceClassification"};

}  // namespace

void build_unispeech(const ModelConfig& cfg, ModelTemplate& t) {
  Wav2Vec2Flavour f{.prefix = "UniSpeech", .base = "unispeech", .tasks = kUniSpeechTasks};
  f.pretraining = unispeech_pretraining_head;
  build_wav2vec2_like(cfg, t, f);
}

void build_unispeech_sat(const ModelConfig& cfg, ModelTemplate& t) {
  Wav2Vec2Flavour f{.prefix = "UniSpeechSat", .base = "unispeech_sat", .tasks = kUniSpeechTasks};
  f.masked_spec_embed_always = true;
  f.pretraining = unispeech_sat_pretraining_head;
  build_wav2vec2_like(cfg, t, f);
}

}  // namespace ma::families
