#include "model/families/wav2vec2_parts.h"

#include <utility>
#include <vector>

#include "model/blocks.h"

namespace ma::families {
namespace {

// conv_dim, conv_stride and conv_kernel: one entry per convolution, all of one length.
std::vector<uint64_t> wav2vec2_conv_list(const ModelConfig& cfg, std::string_view key,
                                         std::vector<uint64_t> dflt) {
  std::vector<uint64_t> out = cfg.dims_or(key, std::move(dflt));
  if (out.empty()) cfg.fail(key, "must list at least one convolution");
  return out;
}

}  // namespace

const ConvStackDefaults& wav2vec2_conv_defaults() {
  static const ConvStackDefaults d{
      std::vector<uint64_t>(7, 512), {10, 3, 3, 3, 3, 2, 2}, {5, 2, 2, 2, 2, 2, 2}};
  return d;
}

uint64_t wav2vec2_feature_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& conv_layers,
                                  bool every_conv_normed, const ConvStackDefaults& defaults) {
  const std::vector<uint64_t> dims = wav2vec2_conv_list(cfg, "conv_dim", defaults.dims);
  const std::vector<uint64_t> kernels = wav2vec2_conv_list(cfg, "conv_kernel", defaults.kernels);
  const std::vector<uint64_t> strides = wav2vec2_conv_list(cfg, "conv_stride", defaults.strides);
  if (kernels.size() != dims.size() || strides.size() != dims.size())
    cfg.fail("conv_kernel",
             "conv_dim, conv_stride and conv_kernel must list the same number of convolutions");
  const std::string norm = every_conv_normed ? "layer" : cfg.string_or("feat_extract_norm", "group");
  if (norm != "group" && norm != "layer") cfg.fail("feat_extract_norm", "must be \"group\" or \"layer\"");
  const bool conv_bias = cfg.flag_or("conv_bias", false);
  for (size_t j = 0; j < dims.size(); ++j) {
    const std::string c = conv_layers + "." + std::to_string(j) + ".";
    t.add(c + "conv.weight", {dims[j], j ? dims[j - 1] : 1, kernels[j]});
    if (conv_bias) t.add(c + "conv.bias", {dims[j]});
    if (norm == "layer" || j == 0) blocks::norm(t, c + "layer_norm", dims[j], true);
  }
  return dims.back();
}

ConvPositionDims conv_position_dims(const ModelConfig& cfg, uint64_t hidden) {
  ConvPositionDims d;
  d.kernel = cfg.dim_or("num_conv_pos_embeddings", 128);
  d.groups = cfg.dim_or("num_conv_pos_embedding_groups", 16);
  if (hidden % d.groups)
    cfg.fail("num_conv_pos_embedding_groups", "must divide hidden_size (" + std::to_string(hidden) + ")");
  return d;
}

void weight_normed_position_conv(ModelTemplate& t, const std::string& conv, uint64_t hidden,
                                 const ConvPositionDims& d) {
  t.add(conv + ".bias", {hidden});
  TemplateTensor& g = t.add(conv + ".parametrizations.weight.original0", {1, 1, d.kernel});
  g.disk.push_back({conv + ".weight_g", g.shape});
  TemplateTensor& v =
      t.add(conv + ".parametrizations.weight.original1", {hidden, hidden / d.groups, d.kernel});
  v.disk.push_back({conv + ".weight_v", v.shape});
}

}  // namespace ma::families
