// MusicGen (MusicgenForConditionalGeneration) and MusicGen Melody (MusicgenMelodyForConditionalGeneration):
// three whole models in one, registered in this order: the text encoder as AutoModelForTextEncoding builds
// text_encoder (T5EncoderModel for the t5-base every checkpoint uses), the audio encoder as AutoModel builds
// audio_encoder (an EnCodec codec, whose decoder turns the generated codes into audio) and MusicGen's decoder
// (musicgen_decoder.cpp), then the projection of the text encoder's states into the decoder's width when the
// two differ. MusicGen cross-attends to them; MusicGen Melody prepends them, with the melody's chroma
// features projected from num_chroma to the decoder's width, to the sequence it decodes.
#include <array>
#include <deque>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/speech_gen.h"

namespace ma::families {
namespace {

// AutoModelForTextEncoding's class for a text_encoder model_type (MODEL_FOR_TEXT_ENCODING_MAPPING_NAMES);
// only the T5 family's are modelled: its plain base-model entries (BertModel ...) would build, but no
// MusicGen checkpoint has one.
std::string_view musicgen_text_encoder_class(std::string_view type) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kTextEncoders{{
      {"t5", "T5EncoderModel"},
      {"mt5", "MT5EncoderModel"},
      {"umt5", "UMT5EncoderModel"},
  }};
  for (const auto& [model_type, cls] : kTextEncoders)
    if (model_type == type) return cls;
  return {};
}

void build_musicgen_of(const ModelConfig& cfg, ModelTemplate& t, bool melody) {
  const std::string family = melody ? "MusicgenMelody" : "Musicgen";
  const std::string cls = architecture_of(cfg, family + "ForConditionalGeneration");
  supported_task(cfg, cls, family, {"ForConditionalGeneration"});  // the composite config's only class
  const std::string text_type = sub_model_type(cfg, "text_encoder");
  const std::string audio_type = sub_model_type(cfg, "audio_encoder");
  const std::string_view text_cls = musicgen_text_encoder_class(text_type);
  const FamilyBuilder* text_builder = find_family_builder(text_type);
  if (text_cls.empty() || !text_builder)
    unsupported(cfg, family + " with a " + printable(text_type) + " text encoder");
  if (audio_type != "encodec")
    unsupported(cfg, family + " with a " + printable(audio_type) + " audio encoder");

  // The text encoder's class is AutoModelForTextEncoding's, whatever its config's architectures say
  // (t5-base's name T5ForConditionalGeneration): no decoder, no LM head.
  ModelTemplate text = nested_model(as_auto_class(cfg, "text_encoder", text_cls), text_builder->build,
                                    text_type, "text_encoder.");
  const uint64_t text_hidden = text.arch.hidden_size;
  std::deque<StackSpec> text_stacks = std::move(text.arch.stacks);
  append_model(t, std::move(text));
  encodec_model(*cfg.sub("audio_encoder"), "audio_encoder.", t);
  // An absent decoder is MusicgenDecoderConfig()'s (the composite config's __post_init__).
  const ModelConfig decoder = sub_or_empty(cfg, "decoder");
  const uint64_t hidden = musicgen_decoder(decoder, "decoder.", {.melody = melody}, t);
  // The record is the decoder's, as an encoder-decoder composite's (model_type: the language model's).
  t.arch.architecture = cls;
  t.arch.model_type = melody ? "musicgen_melody_decoder" : "musicgen_decoder";
  for (StackSpec& s : text_stacks) t.arch.stacks.push_back(std::move(s));  // its encoder stack

  bool project = text_hidden != hidden;
  if (!melody && decoder.has("cross_attention_hidden_size")) {
    // MusicgenForConditionalGeneration raises unless it is the text encoder's width, then projects nothing
    // (the cross-attention's keys and values are still hidden_size x hidden_size).
    if (decoder.dim("cross_attention_hidden_size") != text_hidden)
      decoder.fail("cross_attention_hidden_size",
                   "must equal the text encoder's hidden_size (" + std::to_string(text_hidden) + ")");
    project = false;
  }
  if (project) {
    blocks::linear(t, "enc_to_dec_proj", text_hidden, hidden, true);
    record_projector(t, "enc_to_dec_proj");
  }
  if (melody) {
    // The melody's chroma features (num_chroma pitch classes per frame) enter through their own projection.
    const uint64_t chroma = cfg.dim_or("num_chroma", 12);
    if (chroma != hidden) {
      blocks::linear(t, "audio_enc_to_dec_proj", chroma, hidden, true);
      record_projector(t, "audio_enc_to_dec_proj");
    }
  }
}

}  // namespace

void build_musicgen(const ModelConfig& cfg, ModelTemplate& t) {
  build_musicgen_of(cfg, t, false);
}

void build_musicgen_melody(const ModelConfig& cfg, ModelTemplate& t) {
  build_musicgen_of(cfg, t, true);
}

}  // namespace ma::families
