#include "model/speech_tensor_placement.h"

#include <array>
#include <utility>

namespace ma::placement {

// Granite Speech's CTC Conformer sits at the root as encoder.*, beside language_model.*: its input_linear,
// its mid-stack CTC projections (out, out_mid) and its blocks, spelled with lucidrains' Conformer names (ff1,
// attn with to_q / to_kv / to_out / rel_pos_emb, conv, ff2, post_norm), which no text stack uses.
bool root_conformer(const Parts& parts) {
  // Gemma 3n's audio encoder alone (Gemma3nAudioEncoder): its convolutional stem and its blocks at the root.
  if (parts.size() >= 3 && (parts.front() == "subsample_conv_projection" ||
                            (parts.front() == "conformer" && all_digits(parts[1]))))
    return true;
  if (parts.size() < 3 || parts.front() != "encoder") return false;
  if (in(parts[1], std::array<std::string_view, 3>{"input_linear", "out", "out_mid"}))
    return parts.size() == 3;
  if (parts[1] != "layers" || parts.size() < 5 || !all_digits(parts[2])) return false;
  if (in(parts[3], std::array<std::string_view, 3>{"ff1", "ff2", "post_norm"})) return true;
  // Its convolution module's own names: Parakeet CTC's Conformer, also under encoder.layers.N.conv, names its
  // convolutions pointwise_conv1 / depthwise_conv / pointwise_conv2 (a short convolution of its encoder
  // stack). Both call a norm conv.norm: Parakeet's BatchNorm is placed here with Granite's LayerNorm.
  if (parts[3] == "conv")
    return in(parts[4],
              std::array<std::string_view, 5>{"norm", "up_conv", "depth_conv", "batch_norm", "down_conv"});
  return parts[3] == "attn" &&
         in(parts[4], std::array<std::string_view, 5>{"pre_norm", "to_q", "to_kv", "to_out", "rel_pos_emb"});
}

// VITS (VitsModel) around its text encoder: text_encoder.project (the prior's means and log-variances), the
// duration predictor, the normalizing flow and the decoder, a HiFi-GAN generator (conv_pre, upsampler.N,
// resblocks.N, conv_post and the speaker conditioning cond), turn the encoded text into a waveform: speech
// output. Its posterior encoder, a WaveNet over linear spectrograms that only training runs, is an audio
// encoder. Matched at the root, where a seq2seq model's decoder holds layers, not these modules.
// A HiFi-GAN vocoder alone (SpeechT5HifiGan) has the generator's modules at the root, and beside them the
// mean and scale that normalise its input spectrogram.
// SpeechT5's speech_decoder_postnet (mel frames and stop logits from the decoder's states, then a residual
// convolution stack with BatchNorms, running statistics included) is speech output too; so are FastSpeech
// 2's variance adaptor (FastSpeech2Conformer's duration, pitch and energy predictors and the embeddings of
// the predicted pitch and energy) and its postnet, also under model. in FastSpeech2ConformerWithHifiGan.
std::optional<Block> text_to_speech_block(const Parts& parts) {
  constexpr std::array<std::string_view, 4> kHifiGanModules{"conv_pre", "upsampler", "resblocks",
                                                            "conv_post"};
  constexpr std::array<std::string_view, 6> kVarianceAdaptor{"duration_predictor", "pitch_predictor",
                                                             "energy_predictor",   "pitch_embed",
                                                             "energy_embed",       "speech_decoder_postnet"};
  const size_t at = parts.size() >= 3 && parts[0] == "model" ? 1 : 0;
  if ((parts.size() >= 2 && in(parts[0], kHifiGanModules)) ||
      (parts.size() == 1 && (parts[0] == "mean" || parts[0] == "scale")) ||
      parts[0] == "speech_decoder_postnet" || (parts.size() >= at + 2 && in(parts[at], kVarianceAdaptor)))
    return Block::SpeechOutput;
  if (parts.size() < 3) return std::nullopt;
  const std::string_view root = parts[0], module = parts[1];
  // CLVP's conditioning encoder reads the reference voice's mel spectrogram: a 1x1 conv, then GroupNorms and
  // self-attention blocks (its text embeddings beside them stay embeddings).
  if (root == "posterior_encoder" ||
      (root == "conditioning_encoder" &&
       (module == "mel_conv" || module == "group_norms" || module == "mel_attn_blocks")))
    return Block::Audio;
  if (root == "duration_predictor" || root == "flow" || (root == "text_encoder" && module == "project") ||
      (root == "decoder" && (in(module, kHifiGanModules) || module == "cond")))
    return Block::SpeechOutput;
  return std::nullopt;
}

// wav2vec 2.0's relatives (WavLM, data2vec-audio, UniSpeech, UniSpeech-SAT, SEW) where no other rule
// places them. The heads at the root beside the model (wav2vec2., unispeech_sat. ...):
// ForSequenceClassification's projector (one Linear, not a multimodal projector module) and layer_weights
// (use_weighted_layer_sum); ForPreTraining's project_hid and project_q, UniSpeech's ctc_proj, UniSpeech-SAT's
// speaker_proj. Only root Linears (Granite Speech's root projector module holds a query parameter and a
// Q-Former: a projector, not this). Inside the model: SEW(-D)'s feature_projection, a plain Linear from the
// feature encoder's width (the stem, as wav2vec2's feature_projection.projection); the adapter's proj
// (adapter.proj, when output_hidden_size differs) and SEW's encoder.upsample.projection, which widen the
// encoder's output frames: audio. So are Wav2Vec2-BERT's modules after its encoder: intermediate_ffn (a
// feed-forward outside the layers) and each adapter layer's strided pooling convolutions (residual_conv,
// self_attn_conv).
std::optional<std::pair<Block, std::string_view>> speech_encoder_block(const Parts& parts) {
  constexpr std::array<std::string_view, 5> kSpeechEncoderHeads{"projector", "project_hid", "project_q",
                                                                "ctc_proj", "speaker_proj"};
  const size_t n = parts.size();
  const bool linear = parts.back() == "weight" || parts.back() == "bias";
  if ((n == 1 && parts[0] == "layer_weights") || (n == 2 && linear && in(parts[0], kSpeechEncoderHeads)))
    return std::pair{Block::LmHead, std::string_view("speech-head")};
  if (linear && (n == 2 || (n == 3 && (parts[0] == "sew" || parts[0] == "sew_d"))) &&
      parts[n - 2] == "feature_projection")
    return std::pair{Block::Embedding, std::string_view("feature-projection")};
  if ((n == 3 || n == 4) && parts[n - 3] == "adapter" && parts[n - 2] == "proj")
    return std::pair{Block::Audio, std::string_view("adapter-projection")};
  if (n >= 4 && parts[n - 4] == "encoder" && parts[n - 3] == "upsample" && parts[n - 2] == "projection")
    return std::pair{Block::Audio, std::string_view("upsampling")};
  if (linear && n >= 3 && n <= 4 && parts[n - 3] == "intermediate_ffn")
    return std::pair{Block::Audio, std::string_view("intermediate-ffn")};
  if (linear && n >= 5 && parts[n - 5] == "adapter" && parts[n - 4] == "layers" &&
      (parts[n - 2] == "residual_conv" || parts[n - 2] == "self_attn_conv"))
    return std::pair{Block::Audio, std::string_view("adapter-pooling")};
  return std::nullopt;
}

// SpeechT5's pre-nets (encoder.prenet, decoder.prenet), chosen by the task: the speech encoder's (wav2vec
// 2.0's feature encoder, projection and positional convolution, the SpecAugment mask vector) is audio; the
// speech decoder's (linears over the previous mel frame, the layer mixing in the speaker's x-vector, its
// scaled positions) speech output, run only when the model speaks. The text pre-nets' token tables are
// embeddings, as elsewhere, and the text encoder's scaled positions (its learned alpha) a position embedding.
// `role` is the tensor's; a module of a list (decoder.prenet.layers.0) is named by its list.
std::optional<TensorPlacement> speech_prenet_placement(const Parts& parts, std::string_view module,
                                                       const std::string& role) {
  size_t at = 1;
  while (at < parts.size() && parts[at - 1] != "prenet") ++at;
  if (at >= parts.size()) return std::nullopt;
  const std::string_view part = parts[at], side = at >= 2 ? parts[at - 2] : std::string_view();
  TensorPlacement pl;
  pl.role = all_digits(module) ? std::string(part) : role;
  if (in(part, std::array<std::string_view, 5>{"feature_encoder", "feature_projection", "pos_conv_embed",
                                               "pos_sinusoidal_embed", "masked_spec_embed"})) {
    pl.block = Block::Audio;
  } else if (in(part, std::array<std::string_view, 3>{"layers", "final_layer", "speaker_embeds_layer"}) ||
             (part == "encode_positions" && side == "decoder")) {
    pl.block = Block::SpeechOutput;
  } else if (part == "encode_positions" && side == "encoder") {
    pl.block = Block::Embedding;
    pl.role = "position-embedding";
  } else {
    return std::nullopt;
  }
  return pl;
}

}  // namespace ma::placement
