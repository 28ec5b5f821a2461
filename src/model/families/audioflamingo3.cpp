// Audio Flamingo 3 (audioflamingo3; nvidia/audio-flamingo-3-hf): Whisper-large-v3's encoder (its output
// average-pooled two frames to one, a pool without weights), a two-linear projector and Qwen2.5-7B, as
// transformers' AudioFlamingo3ForConditionalGeneration registers them: audio_tower, language_model (a whole
// causal LM), multi_modal_projector. The encoder also builds alone (audioflamingo3_encoder), and Music
// Flamingo reuses the model (musicflamingo.cpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "model/blocks.h"
#include "model/families/audio_llms.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// AudioFlamingo3EncoderConfig's defaults (Whisper-large-v3's encoder). The class names its sizes
// hidden_size, num_hidden_layers, num_attention_heads and intermediate_size, Whisper's names its aliases.
constexpr AudioEncoderDefaults kAudioFlamingo3Encoder{.d_model = 1280,
                                                      .layers = 32,
                                                      .heads = 20,
                                                      .ffn = 5120,
                                                      .mel_bins = 128,
                                                      .positions = 1500,
                                                      .transformers_names = true};

// The encoder's width under the name the config spells it.
uint64_t audio_flamingo_width(const ModelConfig& audio) {
  return audio.dim_or(audio.has("hidden_size") || !audio.has("d_model") ? "hidden_size" : "d_model",
                      kAudioFlamingo3Encoder.d_model);
}

}  // namespace

void audio_flamingo_model(const ModelConfig& cfg, const ModelConfig& audio, ModelTemplate& t,
                          const char* cls) {
  t.arch.architecture = cls;
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  // AutoModelForCausalLM builds whatever text_config names; the published models are Qwen2's.
  const std::string type = text.string_or("model_type", "qwen2");
  if (type != "qwen2")
    unsupported(cfg, cfg.string_or("model_type", "audioflamingo3") + " with a " + type + " language model");
  whisper_audio_encoder(audio, t, "audio_tower", StackRole::Audio, kAudioFlamingo3Encoder);
  const LlamaStyle style = read_qwen2_text(text, t);
  t.arch.model_type = type;
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  llama_style_decoder(t, "language_model.model.", style);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
  const bool bias = cfg.flag_or("projector_bias", true);
  const uint64_t h = t.arch.hidden_size;
  blocks::linear(t, "multi_modal_projector.linear_1", audio_flamingo_width(audio), h, bias);
  blocks::linear(t, "multi_modal_projector.linear_2", h, h, bias);
  record_projector(t, "multi_modal_projector");
}

void build_audioflamingo3(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  const std::string type = audio.string_or("model_type", "audioflamingo3_encoder");
  if (type != "audioflamingo3_encoder") unsupported(cfg, "audioflamingo3 with a " + type + " audio tower");
  audio_flamingo_model(cfg, audio, t, "AudioFlamingo3ForConditionalGeneration");
}

// AudioFlamingo3Encoder alone: conv1, conv2, embed_positions, layers.N, layer_norm at the top level.
// whisper_audio_encoder names the modules under a prefix, which the bare encoder does not have.
void build_audioflamingo3_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "AudioFlamingo3Encoder";
  const std::string prefix = "encoder";
  whisper_audio_encoder(cfg, t, prefix, StackRole::Encoder, kAudioFlamingo3Encoder);
  for (TemplateTensor& x : t.tensors) x.name.erase(0, prefix.size() + 1);
  StackSpec& s = *t.arch.stack(StackRole::Encoder);
  s.path.erase(0, prefix.size() + 1);
  ArchitectureRecord& a = t.arch;
  a.hidden_size = s.hidden;
  a.num_layers = s.layers.size();
  if (!s.layers.empty()) {
    a.num_attention_heads = a.num_key_value_heads = s.layers.front().attention.heads;
    a.head_dim = s.layers.front().attention.head_dim;
    a.intermediate_size = s.layers.front().ffn.intermediate;
  }
  a.max_position_embeddings = s.positions;
}

}  // namespace ma::families
