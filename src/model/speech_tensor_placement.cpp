#include "model/speech_tensor_placement.h"

#include <array>

namespace ma::placement {

// Granite Speech's CTC Conformer sits at the root as encoder.*, beside language_model.*: its input_linear,
// its mid-stack CTC projections (out, out_mid) and its blocks, spelled with lucidrains' Conformer names (ff1,
// attn with to_q / to_kv / to_out / rel_pos_emb, conv, ff2, post_norm), which no text stack uses.
bool root_conformer(const Parts& parts) {
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
  if (root == "posterior_encoder") return Block::Audio;
  if (root == "duration_predictor" || root == "flow" || (root == "text_encoder" && module == "project") ||
      (root == "decoder" && (in(module, kHifiGanModules) || module == "cond")))
    return Block::SpeechOutput;
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
