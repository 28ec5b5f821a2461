// Encoder-decoder families of the encoders group: BART, mBART, Pegasus, Marian, M2M100, Blenderbot, T5, mT5,
// Whisper. Registered in encoders.cpp's table.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_bart(const ModelConfig& cfg, ModelTemplate& t);
// BartModel (shared embedding, encoder, decoder; BartConfig's defaults) under `prefix`, both stacks recorded
// and the record's dimensions the decoder's: Florence-2's language model. The config's tie_word_embeddings
// ties the stacks' embeddings to the shared one. Returns the shared embedding's name.
std::string bart_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix);
void build_mbart(const ModelConfig& cfg, ModelTemplate& t);
void build_pegasus(const ModelConfig& cfg, ModelTemplate& t);
void build_marian(const ModelConfig& cfg, ModelTemplate& t);
void build_m2m_100(const ModelConfig& cfg, ModelTemplate& t);
void build_blenderbot(const ModelConfig& cfg, ModelTemplate& t);
void build_blenderbot_small(const ModelConfig& cfg, ModelTemplate& t);
void build_plbart(const ModelConfig& cfg, ModelTemplate& t);
void build_mvp(const ModelConfig& cfg, ModelTemplate& t);
void build_led(const ModelConfig& cfg, ModelTemplate& t);
void build_pegasus_x(const ModelConfig& cfg, ModelTemplate& t);
void build_t5(const ModelConfig& cfg, ModelTemplate& t);
// T5ForConditionalGeneration whatever the config's architectures say (AutoModelForSeq2SeqLM's choice).
void build_t5_for_generation(const ModelConfig& cfg, ModelTemplate& t);
void build_mt5(const ModelConfig& cfg, ModelTemplate& t);
void build_umt5(const ModelConfig& cfg, ModelTemplate& t);
void build_longt5(const ModelConfig& cfg, ModelTemplate& t);
void build_switch_transformers(const ModelConfig& cfg, ModelTemplate& t);
void build_whisper(const ModelConfig& cfg, ModelTemplate& t);

// Whisper's audio encoder under `prefix` (two convolutions over the mel bins, learned positions, layers with
// no k_proj bias, a final LayerNorm), sized by the config's d_model, encoder_* and num_mel_bins fields with
// `dflt`'s defaults; its layers form a stack of `role` in the record. Qwen2-Audio's and Voxtral's audio
// towers are one.
struct AudioEncoderDefaults {
  uint64_t d_model = 384, layers = 4, heads = 6, ffn = 1536, mel_bins = 80, positions = 1500;
  // Voxtral's config names the sizes hidden_size, num_hidden_layers, num_attention_heads and
  // intermediate_size, Whisper's names being its aliases.
  bool transformers_names = false;
};
void whisper_audio_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                           StackRole role, const AudioEncoderDefaults& dflt);

// Qwen3-ASR's audio encoder (Qwen3-Omni's AuT) under `prefix` ("model.audio_tower"): three 3 x 3 stride-2
// convolutions over mel bins and time, a bias-free linear from their channels x the mel bins left, Whisper's
// pre-norm layers (a key bias too) and ln_post; its positions are a sinusoid buffer restarting every chunk.
// Qwen3-Omni's keeps its projection to the text width (proj1, proj2 to output_dim) inside; Qwen3-ASR moved
// it to a projector. The defaults are the config class's. Returns the width it outputs.
struct AutDefaults {
  uint64_t d_model = 1024, layers = 24, heads = 16, ffn = 4096;  // Qwen3ASREncoderConfig's
  bool projections = false;
  uint64_t output_dim = 0;
};
uint64_t qwen3_asr_audio_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                                 const AutDefaults& d = {});

// Qwen2.5-Omni's audio encoder under `prefix` ("thinker.audio_tower"): Whisper's (two convolutions, layers
// without a key bias) with a sinusoid position buffer instead of a learned table, ln_post, a biased linear to
// output_dim and an unused two-row audio_bos_eos_token embedding of that width.
// Qwen2_5OmniAudioEncoderConfig's defaults (Whisper-large-v3's encoder). Returns output_dim.
uint64_t qwen2_5_omni_audio_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix);

}  // namespace ma::families
