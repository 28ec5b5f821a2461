// DPT's neck as Depth Anything, Prompt Depth Anything and ZoeDepth copy it (DPTNeck in modeling_dpt.py): it
// reassembles the backbone's feature maps at four scales, projects each to fusion_hidden_size and fuses them
// from the coarsest up. Also what reading their backbone_config takes.
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/depth.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// reassemble_factors, [4, 2, 1, 0.5] by default in every config class: numbers, not sizes (0.5 halves).
std::vector<double> dpt_reassemble_factors(const ModelConfig& cfg) {
  const json::Value* v = cfg.raw("reassemble_factors");
  if (!v || v->is_null()) return {4, 2, 1, 0.5};
  if (!v->is_array()) cfg.fail("reassemble_factors", "must be an array of numbers");
  std::vector<double> factors;
  for (const json::Value& f : v->items()) {
    if (!f.is_number() || !(f.as_double() > 0)) cfg.fail("reassemble_factors", "must hold positive numbers");
    // ConvTranspose2d takes the factor as its kernel size: only an integer builds.
    if (f.as_double() > 1 && !f.is_integer_literal())
      cfg.fail("reassemble_factors", "must hold integers above 1 (the upsampling kernel size)");
    factors.push_back(f.as_double());
  }
  return factors;
}

// nn.BatchNorm2d: weight and bias, then its running statistics as buffers.
void dpt_batch_norm(ModelTemplate& t, const std::string& p, uint64_t channels) {
  blocks::norm(t, p, channels, true);
  t.add(p + ".running_mean", {channels}).kind = TensorKind::Buffer;
  t.add(p + ".running_var", {channels}).kind = TensorKind::Buffer;
  t.add(p + ".num_batches_tracked", {}).kind = TensorKind::Buffer;
}

}  // namespace

void dpt_residual_unit(ModelTemplate& t, const std::string& p, uint64_t width, bool bias, bool batch_norm) {
  for (const char* conv : {"convolution1", "convolution2"}) {
    t.add(p + conv + ".weight", {width, width, 3, 3});
    if (bias) t.add(p + conv + ".bias", {width});
  }
  if (batch_norm) {
    dpt_batch_norm(t, p + "batch_norm1", width);
    dpt_batch_norm(t, p + "batch_norm2", width);
  }
}

ModelConfig depth_backbone_config(const ModelConfig& cfg, const char* dflt, std::string_view model_type) {
  if (cfg.flag_or("use_timm_backbone", false))
    cfg.fail("use_timm_backbone", "must be false: a timm backbone's parameters are not in config.json");
  const json::Value* named = cfg.raw("backbone");
  const bool by_name = named && !named->is_null();
  // load_backbone would fetch the named checkpoint's own config (or timm's model): nothing here says its
  // shape.
  if (by_name && !cfg.sub("backbone_config"))
    cfg.fail("backbone_config", "must describe the backbone: one named only by backbone (" +
                                    printable(named->is_string() ? named->as_string() : named->raw()) +
                                    ") has parameters config.json does not give");
  if (by_name) cfg.fail("backbone", "must be absent beside backbone_config (transformers refuses both)");
  const ModelConfig bb = sub_or(cfg, "backbone_config", dflt);
  if (bb.string_or("model_type", "") != model_type)
    bb.fail("model_type",
            "must be " + std::string(model_type) + ": the only backbone this model's checkpoints use");
  return bb;
}

void dpt_neck(const ModelConfig& cfg, const DptNeckStyle& s, ModelTemplate& t) {
  const std::vector<uint64_t> neck = cfg.dims_or("neck_hidden_sizes", s.default_neck_sizes);
  const std::vector<double> factors = dpt_reassemble_factors(cfg);
  const uint64_t fusion = cfg.dim_or("fusion_hidden_size", s.default_fusion);
  const uint64_t h = s.backbone_width;
  // The reassemble stage zips the sizes with the factors: the shorter list sets the layer count.
  for (size_t i = 0; i < std::min(neck.size(), factors.size()); ++i) {
    const std::string p = "neck.reassemble_stage.layers." + std::to_string(i) + ".";
    const uint64_t c = neck[i];
    blocks::conv2d(t, p + "projection", h, c, 1);
    if (factors[i] > 1) {  // ConvTranspose2d(c, c, kernel_size=factor, stride=factor): weight [in, out, k, k]
      const auto k = static_cast<uint64_t>(factors[i]);
      t.add(p + "resize.weight", {c, c, k, k});
      t.add(p + "resize.bias", {c});
    } else if (factors[i] < 1) {  // a strided 3 x 3 Conv2d; 1 is an nn.Identity
      blocks::conv2d(t, p + "resize", c, c, 3);
    }
  }
  // The readout (class) token concatenated to every patch token, projected back: one per neck size.
  if (s.readout_project)
    for (size_t i = 0; i < neck.size(); ++i)
      blocks::linear(t, "neck.reassemble_stage.readout_projects." + std::to_string(i) + ".0", 2 * h, h, true);
  for (size_t i = 0; i < neck.size(); ++i)  // bias-free 3 x 3 convolutions into the fusion width
    t.add("neck.convs." + std::to_string(i) + ".weight", {fusion, neck[i], 3, 3});
  // One fusion layer per neck size; the first never reads its residual_layer1, which it still registers.
  for (size_t i = 0; i < neck.size(); ++i) {
    const std::string p = "neck.fusion_stage.layers." + std::to_string(i) + ".";
    blocks::conv2d(t, p + "projection", fusion, fusion, 1);
    dpt_residual_unit(t, p + "residual_layer1.", fusion, s.residual_bias, s.residual_batch_norm);
    dpt_residual_unit(t, p + "residual_layer2.", fusion, s.residual_bias, s.residual_batch_norm);
    if (s.prompt_depth) {  // PromptDepthAnythingLayer: the one-channel prompt depth map into the fusion width
      blocks::conv2d(t, p + "prompt_depth_layer.convolution1", 1, fusion, 3);
      blocks::conv2d(t, p + "prompt_depth_layer.convolution2", fusion, fusion, 3);
      blocks::conv2d(t, p + "prompt_depth_layer.convolution3", fusion, fusion, 3);
    }
  }
}

}  // namespace ma::families
