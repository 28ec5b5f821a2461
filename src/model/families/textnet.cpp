// TextNet (textnet: TextNetModel, TextNetForImageClassification, TextNetBackbone; czczup/textnet-base, FAST's
// text-detection backbone): a strided conv stem, then stages of RepVGG-style layers. Each layer sums a
// kh x kw conv, a kh x 1 conv (when kw != 1), a 1 x kw conv (when kh != 1), each with its BatchNorm, and,
// when the layer keeps its width at stride 1, a BatchNorm of its input (rbr_identity). The per-layer kernels
// and strides are lists of lists in the config.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_e.h"

namespace ma::families {
namespace {

// One TextNetRepConvLayer's kernel (kh, kw) and stride.
struct TextnetLayer {
  uint64_t kh = 3, kw = 3, stride = 1;
};

// A config list of per-stage lists (conv_layer_kernel_sizes, conv_layer_strides), or nullptr when absent.
const json::Value* textnet_nested(const ModelConfig& cfg, std::string_view key) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_array()) cfg.fail(key, "must be a list of per-stage lists");
  for (const json::Value& stage : v->items())
    if (!stage.is_array()) cfg.fail(key, "must be a list of per-stage lists");
  return v;
}

// An integer from 1 to 4096 inside one of the nested lists.
uint64_t textnet_size(const ModelConfig& cfg, std::string_view key, const json::Value& x) {
  const std::optional<uint64_t> n = x.as_uint();
  if (!n || *n < 1 || *n > 4096) cfg.fail(key, "must hold integers from 1 to 4096");
  return *n;
}

// TextNetConfig's stages (its defaults are textnet-base's). TextNetStage zips a stage's kernels with its
// strides, so a stage has as many layers as the shorter of the two lists.
std::vector<std::vector<TextnetLayer>> read_textnet_stages(const ModelConfig& cfg) {
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> kernels{{{3, 3}, {3, 3}, {3, 3}},
                                                                  {{3, 3}, {1, 3}, {3, 3}, {3, 1}},
                                                                  {{3, 3}, {3, 3}, {3, 1}, {1, 3}},
                                                                  {{3, 3}, {3, 1}, {1, 3}, {3, 3}}};
  std::vector<std::vector<uint64_t>> strides{{1, 2, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}};
  if (const json::Value* v = textnet_nested(cfg, "conv_layer_kernel_sizes")) {
    kernels.clear();
    for (const json::Value& stage : v->items()) {
      kernels.emplace_back();
      for (const json::Value& k : stage.items()) {
        // The layer reads kernel_size[0] and kernel_size[1].
        if (!k.is_array() || k.items().size() < 2)
          cfg.fail("conv_layer_kernel_sizes", "must give each layer a [height, width] kernel");
        kernels.back().emplace_back(textnet_size(cfg, "conv_layer_kernel_sizes", k.items()[0]),
                                    textnet_size(cfg, "conv_layer_kernel_sizes", k.items()[1]));
      }
    }
  }
  if (const json::Value* v = textnet_nested(cfg, "conv_layer_strides")) {
    strides.clear();
    for (const json::Value& stage : v->items()) {
      strides.emplace_back();
      for (const json::Value& s : stage.items())
        strides.back().push_back(textnet_size(cfg, "conv_layer_strides", s));
    }
  }
  // TextNetEncoder builds one stage per kernel list and reads that stage's strides.
  if (strides.size() < kernels.size())
    cfg.fail("conv_layer_strides",
             "must list strides for each of the " + std::to_string(kernels.size()) + " stages");
  std::vector<std::vector<TextnetLayer>> stages(kernels.size());
  size_t layers = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    for (size_t j = 0; j < kernels[i].size() && j < strides[i].size(); ++j)
      stages[i].push_back({kernels[i][j].first, kernels[i][j].second, strides[i][j]});
    layers += stages[i].size();
  }
  cfg.check_layer_list("conv_layer_kernel_sizes", layers);
  return stages;
}

// One TextNetRepConvLayer under `p` (ending in ".").
void textnet_rep_conv(ModelTemplate& t, const std::string& p, const TextnetLayer& l, uint64_t in,
                      uint64_t out) {
  t.add(p + "main_conv.weight", {out, in, l.kh, l.kw});
  detr_batch_norm(t, p + "main_batch_norm", out, false);
  if (l.kw != 1) {
    t.add(p + "vertical_conv.weight", {out, in, l.kh, 1});
    detr_batch_norm(t, p + "vertical_batch_norm", out, false);
  }
  if (l.kh != 1) {
    t.add(p + "horizontal_conv.weight", {out, in, 1, l.kw});
    detr_batch_norm(t, p + "horizontal_batch_norm", out, false);
  }
  if (out == in && l.stride == 1) detr_batch_norm(t, p + "rbr_identity", in, false);
}

}  // namespace

void build_textnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TextNetModel");
  const std::string task =
      supported_task(cfg, cls, "TextNet", {"Model", "ForImageClassification", "Backbone"});
  const std::vector<std::vector<TextnetLayer>> stages = read_textnet_stages(cfg);
  const std::vector<uint64_t> widths = cfg.dims_or("hidden_sizes", {64, 64, 128, 256, 512});
  // Stage i maps hidden_sizes[i] to hidden_sizes[i + 1].
  if (widths.size() < stages.size() + 1)
    cfg.fail("hidden_sizes",
             "must list the stem's width and each of the " + std::to_string(stages.size()) + " stages'");
  // An int: the padding TextNetConvLayer computes fails for a list.
  const uint64_t stem_kernel = cfg.dim_or("stem_kernel_size", 3);
  if (stem_kernel > 4096) cfg.fail("stem_kernel_size", "must be at most 4096");
  uint64_t layers = 0;
  for (const auto& stage : stages) layers += stage.size();
  const uint64_t features = widths[stages.size()];
  const std::string p = task == "Model" ? "" : "textnet.";
  describe_cnn_backbone(cfg, cls, p + "encoder.stages", features, layers, t);

  // TextNetConvLayer: stem_num_channels -> stem_out_channels (hidden_sizes[0] is not read here).
  const uint64_t stem_out = cfg.dim_or("stem_out_channels", 64);
  cnn_conv_norm(t, p + "stem.conv", p + "stem.batch_norm", cfg.dim_or("stem_num_channels", 3), stem_out,
                stem_kernel);
  for (size_t i = 0; i < stages.size(); ++i)
    for (size_t j = 0; j < stages[i].size(); ++j)
      textnet_rep_conv(t, p + "encoder.stages." + std::to_string(i) + ".stage." + std::to_string(j) + ".",
                       stages[i][j], j == 0 ? widths[i] : widths[i + 1], widths[i + 1]);
  // The classifier's Linear reads hidden_sizes[-1]; nn.Identity for 0 labels.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "fc", widths.back(), labels, true);
}

}  // namespace ma::families
