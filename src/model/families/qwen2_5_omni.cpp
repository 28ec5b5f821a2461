// Qwen2.5-Omni: qwen2_5_omni (Qwen2_5OmniForConditionalGeneration; the released configs name it
// Qwen2_5OmniModel) and qwen2_5_omni_thinker (Qwen2_5OmniThinkerForConditionalGeneration, the thinker
// alone). The thinker is the language model: a Qwen2 decoder (q/k/v biases, multimodal rotary positions)
// fed by Qwen2.5-VL's vision tower (q, k and v apart) and a Whisper-like audio encoder. With
// enable_audio_output (the default) the full class also builds the talker and token2wav
// (qwen2_5_omni_speech.cpp), which turn the thinker's output into speech.
//
// The record describes the thinker: its decoder, its towers and the vision merger. The talker and token2wav
// are the speech output (Block::SpeechOutput) and no stack of the record: a text token runs neither, so the
// active counts leave them out as they leave out the towers, while the total is num_parameters() of the
// whole model. (Their own KV cache and compute, run only when the model speaks, are not modelled.)
//
// The checkpoints store every tensor under its name in memory (transformers renames nothing for this model;
// every buffer is non-persistent), the thinker under thinker.* in the full model and at the root alone.
#include <array>
#include <string>

#include "model/families/decoder_llama.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/qwen2_5_omni_speech.h"
#include "model/families/qwen_hybrid_blocks.h"

namespace ma::families {
namespace {

// Qwen2_5OmniTextConfig's defaults: Qwen2.5-7B's sizes.
DecoderDefaults omni_text_defaults() {
  DecoderDefaults d;
  d.vocab_size = 152064;
  d.hidden_size = 3584;
  d.intermediate_size = 18944;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 28;
  d.num_key_value_heads = 4;
  d.max_position_embeddings = 32768;
  return d;
}

// The thinker from its config (thinker_config, or the root of a thinker config) under `prefix` ("thinker."
// or ""): audio_tower, visual, model, lm_head, in the order transformers builds them.
void thinker(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix) {
  t.arch.rope.emplace().type = "mrope";  // the decoder rotates by time/height/width sections
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  read_decoder_dims(text, omni_text_defaults(), t);
  // Only the thinker's own flag ties lm_head (default false): text_config's is read by nothing.
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  const uint64_t hidden = t.arch.hidden_size;
  const std::string width = " must equal text_config.hidden_size (" + std::to_string(hidden) +
                            "): its features replace the placeholder tokens' embeddings";
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  if (qwen2_5_omni_audio_encoder(audio, t, prefix + "audio_tower") != hidden) audio.fail("output_dim", width);
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  // The class defaults are Qwen2.5-VL's, hidden_size 3584 included; the released configs give 1280 (and
  // the legacy embed_dim beside it, which transformers does not read).
  qwen::VisionTower v = qwen::read_vision(vision, qwen::VisionKind::Qwen2_5, false);
  v.split_qkv = true;
  if (v.out_hidden != hidden) vision.fail("out_hidden_size", width);
  qwen::vision_tower(t, prefix + "visual", v);
  LlamaStyle style;
  style.qkv_bias = true;  // Qwen2's: q/k/v biased, o not
  style.windows = qwen_windows(text, t.arch.num_layers, 28);
  llama_style_decoder(t, prefix + "model.", style);
  lm_head(t, prefix + "model.embed_tokens.weight", t.arch, prefix + "lm_head.weight");
}

void build_qwen2_5_omni(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2_5OmniForConditionalGeneration";
  thinker(sub_or_empty(cfg, "thinker_config"), t, "thinker.");
  // The released configs still write enable_talker, which transformers no longer reads.
  if (!cfg.flag_or("enable_audio_output", true)) {
    for (const char* prefix : {"talker.", "token2wav."})
      t.known_extras.push_back({prefix, "the speech output, built only with enable_audio_output"});
    return;
  }
  qwen2_5_omni_talker(sub_or_empty(cfg, "talker_config"), t.arch.hidden_size, t);
  qwen2_5_omni_token2wav(sub_or_empty(cfg, "token2wav_config"), t);
}

void build_qwen2_5_omni_thinker(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2_5OmniThinkerForConditionalGeneration";
  thinker(cfg, t, "");
}

constexpr std::array kQwen25OmniFamilies{
    FamilyBuilder{"qwen2_5_omni", build_qwen2_5_omni},
    FamilyBuilder{"qwen2_5_omni_thinker", build_qwen2_5_omni_thinker},
};

}  // namespace

std::span<const FamilyBuilder> qwen2_5_omni() {
  return kQwen25OmniFamilies;
}

}  // namespace ma::families
