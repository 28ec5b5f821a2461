// DAC (DacModel), Descript's audio codec: a convolutional encoder whose blocks each hold three dilated
// residual units and a strided convolution doubling the channels, a residual vector quantizer of
// n_codebooks factorized codebooks (each projects the latent down to codebook_dim, looks it up there and
// projects back), and the mirrored decoder (transposed convolutions halving the channels). Its activations
// are Snake functions with a learned alpha per channel.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/audio_codecs_tts.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// Snake1d: one learned frequency per channel, held as [1, channels, 1] to broadcast over (batch, time).
void dac_snake(ModelTemplate& t, const std::string& p, uint64_t channels) {
  t.add(p + ".alpha", {1, channels, 1});
}

// DacResidualUnit: Snake, a 7-wide dilated conv, Snake, a 1-wide conv; the channels unchanged.
void dac_residual_unit(ModelTemplate& t, const std::string& p, uint64_t channels) {
  dac_snake(t, p + "snake1", channels);
  blocks::conv1d(t, p + "conv1", channels, channels, 7);
  dac_snake(t, p + "snake2", channels);
  blocks::conv1d(t, p + "conv2", channels, channels, 1);
}

void dac_residual_units(ModelTemplate& t, const std::string& p, uint64_t channels) {
  for (const char* unit : {"res_unit1.", "res_unit2.", "res_unit3."})
    dac_residual_unit(t, p + unit, channels);
}

}  // namespace

DacCodecDims read_dac_codec(const ModelConfig& cfg, DacCodecDims dflt) {
  DacCodecDims d;
  d.encoder_hidden = cfg.dim_or("encoder_hidden_size", dflt.encoder_hidden);
  d.downsampling = cfg.dims_or("downsampling_ratios", dflt.downsampling);
  d.decoder_hidden = cfg.dim_or("decoder_hidden_size", dflt.decoder_hidden);
  if (d.downsampling.size() > 26 || (d.encoder_hidden << d.downsampling.size()) > ModelConfig::kMaxValue)
    cfg.fail("downsampling_ratios", "doubles the channels past any real codec's");
  // DacConfig: upsampling_ratios = downsampling_ratios[::-1], hidden_size = encoder_hidden_size *
  // 2**len(downsampling_ratios), both then overwritten by the config's own keys (PretrainedConfig sets every
  // extra keyword as an attribute after __init__ / __post_init__ derived them).
  std::vector<uint64_t> reversed(d.downsampling.rbegin(), d.downsampling.rend());
  d.upsampling = cfg.dims_or("upsampling_ratios", dflt.upsampling.empty() ? reversed : dflt.upsampling);
  d.hidden = cfg.dim_or("hidden_size", dflt.hidden ? dflt.hidden : d.encoder_hidden << d.downsampling.size());
  // DacDecoder reads the last stage's index after its loop: with no stage it raises.
  if (d.upsampling.empty()) cfg.fail("upsampling_ratios", "must list at least one upsampling stage");
  if (d.upsampling.size() >= 64 || (d.decoder_hidden >> d.upsampling.size()) == 0)
    cfg.fail("upsampling_ratios", "halve decoder_hidden_size to nothing");
  return d;
}

void dac_encoder(ModelTemplate& t, const std::string& encoder, const DacCodecDims& d) {
  blocks::conv1d(t, encoder + "conv1", 1, d.encoder_hidden, 7);
  uint64_t channels = d.encoder_hidden;
  for (size_t i = 0; i < d.downsampling.size(); ++i) {
    const std::string b = encoder + "block." + std::to_string(i) + ".";
    dac_residual_units(t, b, channels);
    dac_snake(t, b + "snake1", channels);
    blocks::conv1d(t, b + "conv1", channels, 2 * channels, 2 * d.downsampling[i]);
    channels *= 2;
  }
  dac_snake(t, encoder + "snake1", channels);
  blocks::conv1d(t, encoder + "conv2", channels, d.hidden, 3);
}

void dac_decoder(ModelTemplate& t, const std::string& decoder, const DacCodecDims& d) {
  blocks::conv1d(t, decoder + "conv1", d.hidden, d.decoder_hidden, 7);
  // Stage i maps decoder_hidden_size // 2**i channels to decoder_hidden_size // 2**(i + 1).
  for (size_t i = 0; i < d.upsampling.size(); ++i) {
    const std::string b = decoder + "block." + std::to_string(i) + ".";
    const uint64_t in = d.decoder_hidden >> i, out = d.decoder_hidden >> (i + 1);
    dac_snake(t, b + "snake1", in);
    blocks::transposed_conv1d(t, b + "conv_t1", in, out, 2 * d.upsampling[i]);
    dac_residual_units(t, b, out);
  }
  const uint64_t last = d.decoder_hidden >> d.upsampling.size();
  dac_snake(t, decoder + "snake1", last);
  blocks::conv1d(t, decoder + "conv2", last, 1, 7);
}

void build_dac(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DacModel");
  supported_task(cfg, cls, "Dac", {"Model"});  // the only class of DacConfig
  t.arch.architecture = cls;
  const DacCodecDims d = read_dac_codec(cfg, {});
  t.arch.hidden_size = d.hidden;  // the width of the latent frames the codebooks quantize
  const uint64_t codebooks = cfg.count_or("n_codebooks", 9);
  const uint64_t codebook_size = cfg.dim_or("codebook_size", 1024);
  const uint64_t codebook_dim = cfg.dim_or("codebook_dim", 8);
  // DacModel raises unless the codebook size is a power of two (bits per code).
  if ((codebook_size & (codebook_size - 1)) != 0) cfg.fail("codebook_size", "must be a power of 2");
  dac_encoder(t, "encoder.", d);
  dac_decoder(t, "decoder.", d);
  // DacVectorQuantize: 1-wide convolutions into and out of the codebook's space, and the codebook itself, an
  // nn.Embedding (a parameter, where EnCodec's codebooks are EMA buffers).
  for (uint64_t q = 0; q < codebooks; ++q) {
    const std::string p = "quantizer.quantizers." + std::to_string(q) + ".";
    blocks::conv1d(t, p + "in_proj", d.hidden, codebook_dim, 1);
    blocks::conv1d(t, p + "out_proj", codebook_dim, d.hidden, 1);
    blocks::embedding(t, p + "codebook.weight", codebook_size, codebook_dim);
  }
}

}  // namespace ma::families
