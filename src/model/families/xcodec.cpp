// X-Codec (XcodecModel): DAC's encoder and decoder (acoustic_model_config, a DacConfig) beside a
// self-supervised speech model (semantic_model_config: HuBERT in the hubert checkpoints, built whole by
// AutoModel and run frozen), whose averaged hidden states a small convolutional encoder reads. The two
// latents are concatenated, mixed by fc and quantized by a residual vector quantizer with EnCodec-style EMA
// codebooks (persistent buffers, no parameters); decoding projects the codes back to the acoustic width
// (fc2) for DAC's decoder. The semantic decoder and fc1 only serve training, yet are in every checkpoint.
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/audio_codecs_tts.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"

namespace ma::families {
namespace {

struct XcodecSemanticDims {
  uint64_t width = 0;  // the semantic model's hidden_size
  uint64_t kernel = 3, unit_kernel = 3;
  std::vector<uint64_t> strides{1, 1}, dilations{1, 1};
  std::vector<uint64_t> block_widths;  // int(width * channel_ratios[i])
};

// channel_ratios: factors (floats allowed) that int() truncates to each block's width.
std::vector<uint64_t> xcodec_block_widths(const ModelConfig& cfg, uint64_t width) {
  std::vector<double> ratios{1, 1};
  if (cfg.has("channel_ratios")) {
    const json::Value* list = cfg.raw("channel_ratios");
    if (!list->is_array()) cfg.fail("channel_ratios", "must be a list of numbers");
    ratios.clear();
    for (const json::Value& r : list->items()) {
      if (!r.is_number()) cfg.fail("channel_ratios", "must be a list of numbers");
      ratios.push_back(r.as_double());
    }
  }
  std::vector<uint64_t> widths;
  for (double r : ratios) {
    const double w = std::floor(static_cast<double>(width) * r);
    if (!(w >= 1 && w <= static_cast<double>(ModelConfig::kMaxValue)))
      cfg.fail("channel_ratios", "must give every semantic block at least one channel");
    widths.push_back(static_cast<uint64_t>(w));
  }
  return widths;
}

// The semantic blocks' residual unit: ELU, a dilated unit_kernel_size conv, ELU, a 1-wide conv; no biases.
void xcodec_residual_units(ModelTemplate& t, const std::string& p, uint64_t channels,
                           const XcodecSemanticDims& d) {
  for (size_t j = 0; j < d.dilations.size(); ++j) {
    const std::string u = p + "res_units." + std::to_string(j) + ".";
    t.add(u + "conv1.weight", {channels, channels, d.unit_kernel});
    t.add(u + "conv2.weight", {channels, channels, 1});
  }
}

// SemanticEncoder: a bias-free conv, then per stride the residual units and a conv to the block's width
// (kernel 3 at stride 1, else twice the stride).
void xcodec_semantic_encoder(ModelTemplate& t, const std::string& p, const XcodecSemanticDims& d) {
  t.add(p + "conv.weight", {d.width, d.width, d.kernel});
  uint64_t in = d.width;
  for (size_t i = 0; i < d.strides.size(); ++i) {
    const std::string b = p + "conv_blocks." + std::to_string(i) + ".";
    xcodec_residual_units(t, b, in, d);
    const uint64_t out = d.block_widths[i];
    blocks::conv1d(t, b + "conv", in, out, d.strides[i] == 1 ? 3 : 2 * d.strides[i]);
    in = out;
  }
}

// SemanticDecoder: the mirror image, each block first a conv (stride 1: kernel 3 with a bias) or a bias-free
// transposed conv (kernel twice the stride) to the next width (the last block's: the model's width), then
// its residual units; conv1 and conv2 bias-free.
void xcodec_semantic_decoder(ModelTemplate& t, const std::string& p, const XcodecSemanticDims& d) {
  t.add(p + "conv1.weight", {d.block_widths[0], d.width, d.kernel});
  for (size_t i = 0; i < d.strides.size(); ++i) {
    const std::string b = p + "conv_blocks." + std::to_string(i) + ".";
    const uint64_t in = d.block_widths[i];
    const uint64_t out = i + 1 < d.block_widths.size() ? d.block_widths[i + 1] : d.width;
    if (d.strides[i] == 1)
      blocks::conv1d(t, b + "conv", in, out, 3);
    else
      t.add(b + "conv.weight", {in, out, 2 * d.strides[i]});
    xcodec_residual_units(t, b, out, d);
  }
  t.add(p + "conv2.weight", {d.width, d.width, d.kernel});
}

// XcodecConfig.num_quantizers: int(1000 * target_bandwidths[-1] // (frame_rate * codebook_nbits)), with
// frame_rate = ceil(sample_rate / prod(downsampling_ratios)) and codebook_nbits = ceil(log2(codebook_size)).
uint64_t xcodec_quantizers(const ModelConfig& cfg, const DacCodecDims& acoustic, uint64_t codebook_size) {
  double bandwidth = 4.0;  // the last of the default [0.5, 1, 1.5, 2, 4]
  if (cfg.has("target_bandwidths")) {
    const json::Value* list = cfg.raw("target_bandwidths");
    // An empty list is falsy: XcodecConfig takes the default then.
    if (!list->is_array() || (!list->items().empty() && !list->items().back().is_number()))
      cfg.fail("target_bandwidths", "must be a list of numbers (the model reads its last entry)");
    if (!list->items().empty()) bandwidth = list->items().back().as_double();
  }
  const uint64_t rate = cfg.dim_or("sample_rate", 16000);
  uint64_t hop = 1;
  for (uint64_t r : acoustic.downsampling) hop = hop > rate ? hop : hop * r;  // past the rate: 1 frame/s
  const double frame_rate =
      hop > rate ? 1.0 : std::ceil(static_cast<double>(rate) / static_cast<double>(hop));
  const double nbits = std::ceil(std::log2(static_cast<double>(codebook_size)));
  // Python's float floor division for positive operands: (a - fmod(a, b)) / b, floored.
  const double a = 1000.0 * bandwidth, b = frame_rate * nbits;
  const double n = b > 0 ? std::floor((a - std::fmod(a, b)) / b) : 0;
  if (!(n <= static_cast<double>(ModelConfig::kMaxValue)))
    cfg.fail("target_bandwidths", "implies more codebooks than any codec has");
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

// semantic_model_config as AutoModel sees it; absent, XcodecConfig's default, HubertConfig().
ModelConfig xcodec_semantic_config(const ModelConfig& cfg) {
  if (cfg.has("semantic_model_config")) return as_auto_class(cfg, "semantic_model_config", "HubertModel");
  return *cfg.derived(R"({"semantic_model_config":{"architectures":["HubertModel"]}})")
              .sub("semantic_model_config");
}

}  // namespace

void build_xcodec(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "XcodecModel");
  supported_task(cfg, cls, "Xcodec", {"Model"});  // the only class of XcodecConfig
  t.arch.architecture = cls;

  // Both sub-configs default their model_type when it is missing: dac and hubert.
  const ModelConfig acoustic_cfg = sub_or_empty(cfg, "acoustic_model_config");
  const std::string acoustic_type = acoustic_cfg.string_or("model_type", "dac");
  if (acoustic_type != "dac")
    unsupported(cfg, "X-Codec with a " + printable(acoustic_type) + " acoustic model");
  const ModelConfig semantic_cfg = xcodec_semantic_config(cfg);
  const std::string semantic_type = semantic_cfg.string_or("model_type", "hubert");
  const FamilyBuilder* semantic_builder = find_family_builder(semantic_type);
  if (semantic_type != "hubert" || !semantic_builder)  // the wavlm checkpoints: WavLM is not modelled
    unsupported(cfg, "X-Codec with a " + printable(semantic_type) + " semantic model");

  // XcodecConfig merges the acoustic config over these (hf-audio/xcodec-*'s DAC): X-Codec keeps DAC's
  // downsampling order for upsampling too, and a 256-wide latent.
  DacCodecDims acoustic_defaults;
  acoustic_defaults.encoder_hidden = 64;
  acoustic_defaults.downsampling = {8, 5, 4, 2};
  acoustic_defaults.decoder_hidden = 1024;
  acoustic_defaults.upsampling = {8, 5, 4, 2};
  acoustic_defaults.hidden = 256;
  const DacCodecDims acoustic = read_dac_codec(acoustic_cfg, acoustic_defaults);

  ModelTemplate semantic =
      nested_model(semantic_cfg, semantic_builder->build, semantic_type, "semantic_model.");
  XcodecSemanticDims s;
  s.width = semantic.arch.hidden_size;
  s.kernel = cfg.dim_or("kernel_size", s.kernel);
  s.unit_kernel = cfg.dim_or("unit_kernel_size", s.unit_kernel);
  s.strides = cfg.dims_or("strides", s.strides);
  s.dilations = cfg.dims_or("block_dilations", s.dilations);
  s.block_widths = xcodec_block_widths(cfg, s.width);
  // SemanticEncoder raises on lists of different lengths; SemanticDecoder reads channel_ratios[0].
  if (s.strides.size() != s.block_widths.size())
    cfg.fail("channel_ratios", "must have as many entries as strides");
  if (s.strides.empty()) cfg.fail("strides", "must list at least one semantic block");

  const uint64_t hidden = acoustic.hidden + s.width;  // XcodecConfig.hidden_size
  const uint64_t codebook_size = cfg.dim_or("codebook_size", 1024);
  const uint64_t codebook_dim = cfg.dim_or("codebook_dim", hidden);
  t.arch.hidden_size = hidden;

  dac_encoder(t, "acoustic_encoder.", acoustic);
  dac_decoder(t, "acoustic_decoder.", acoustic);
  xcodec_semantic_encoder(t, "encoder_semantic.", s);
  xcodec_semantic_decoder(t, "decoder_semantic.", s);
  append_model(t, std::move(semantic));
  blocks::linear(t, "fc", hidden, hidden, true);
  blocks::linear(t, "fc1", hidden, s.width, true);
  blocks::linear(t, "fc2", hidden, acoustic.hidden, true);
  const uint64_t quantizers = xcodec_quantizers(cfg, acoustic, codebook_size);
  for (uint64_t q = 0; q < quantizers; ++q) {
    const std::string c = "quantizer.quantizers." + std::to_string(q) + ".codebook.";
    t.add(c + "inited", {1}).kind = TensorKind::Buffer;
    t.add(c + "cluster_size", {codebook_size}).kind = TensorKind::Buffer;
    t.add(c + "embed", {codebook_size, codebook_dim}).kind = TensorKind::Buffer;
    t.add(c + "embed_avg", {codebook_size, codebook_dim}).kind = TensorKind::Buffer;
  }
}

}  // namespace ma::families
