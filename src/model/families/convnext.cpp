// ConvNeXt (model_type convnext: ConvNextModel, ConvNextForImageClassification; facebook/convnext-tiny-224
// ... -xlarge) and ConvNeXt V2 (convnextv2: facebook/convnextv2-atto-1k-224 ... -huge). A patchifying stem
// (a patch_size-strided conv and a channels-first LayerNorm), stages of blocks (a 7 x 7 depthwise conv, a
// LayerNorm, a 4x MLP written as two linears), each stage after the first opened by a LayerNorm and a 2 x 2
// strided conv, and a final LayerNorm over the pooled features. V1 scales each block's output by a
// layer-scale vector (unless layer_scale_init_value is 0); V2 drops it for a GRN between the two linears.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// ConvNextEmbeddings and ConvNextEncoder (or V2's) under `p`: what ConvNextModel and ConvNextBackbone share.
// Returns each stage's width and the blocks of all stages.
struct ConvNextStages {
  std::vector<uint64_t> widths;
  uint64_t blocks = 0;
};
ConvNextStages convnext_stages(const ModelConfig& cfg, const std::string& p, bool v2, ModelTemplate& t) {
  // ConvNextConfig's and ConvNextV2Config's defaults are ConvNeXt-T's. The encoder builds num_stages
  // stages (its own field, default 4), reading each one's width and depth from the lists.
  const std::vector<uint64_t> widths = cfg.dims_or("hidden_sizes", {96, 192, 384, 768});
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {3, 3, 9, 3});
  const uint64_t stages = cfg.dim_or("num_stages", 4);
  if (widths.size() < stages)
    cfg.fail("hidden_sizes", "must give a width for each of the " + std::to_string(stages) + " stages");
  if (depths.size() < stages)
    cfg.fail("depths", "must give a depth for each of the " + std::to_string(stages) + " stages");
  ConvNextStages out;
  for (size_t s = 0; s < stages; ++s) out.blocks += depths[s];
  cfg.check_layer_list("depths", out.blocks);  // each depth is at most 2^26: bound their sum like any depth
  // V1 registers no layer-scale vector when layer_scale_init_value is not positive.
  const bool layer_scale = !v2 && cfg.number_or("layer_scale_init_value", 1e-6) > 0;

  const uint64_t patch = cfg.dim_or("patch_size", 4);
  blocks::conv2d(t, p + "embeddings.patch_embeddings", cfg.dim_or("num_channels", 3), widths[0], patch);
  blocks::norm(t, p + "embeddings.layernorm", widths[0], true);
  uint64_t in = widths[0];
  for (size_t s = 0; s < stages; ++s) {
    const uint64_t c = widths[s];
    const std::string st = p + "encoder.stages." + std::to_string(s) + ".";
    // Stage 0 strides 1: it downsamples only when its width differs from the stem's (never in practice).
    if (in != c || s > 0) {
      blocks::norm(t, st + "downsampling_layer.0", in, true);
      blocks::conv2d(t, st + "downsampling_layer.1", in, c, 2);
    }
    for (uint64_t i = 0; i < depths[s]; ++i) {
      const std::string l = st + "layers." + std::to_string(i) + ".";
      // The layer's own parameter, listed before its modules' though assigned after them.
      if (layer_scale) t.add(l + "layer_scale_parameter", {c});
      blocks::conv2d(t, l + "dwconv", c, c, 7, c);
      blocks::norm(t, l + "layernorm", c, true);
      blocks::linear(t, l + "pwconv1", c, 4 * c, true);
      if (v2)  // ConvNextV2GRN: weight and bias of shape (1, 1, 1, 4 * dim)
        for (const char* g : {"grn.weight", "grn.bias"}) t.add(l + g, {1, 1, 1, 4 * c});
      blocks::linear(t, l + "pwconv2", 4 * c, c, true);
    }
    in = c;
  }
  out.widths.assign(widths.begin(), widths.begin() + static_cast<std::ptrdiff_t>(stages));
  return out;
}

// ConvNextModel / ConvNextV2Model, under base_model_prefix `base` ("convnext", "convnextv2") in the
// classifier, then the classifier when asked for. `family`: the class prefix ("ConvNext", "ConvNextV2").
// ConvNextBackbone / ConvNextV2Backbone are refused here (composites nest them: convnext_backbone).
void build_convnext_family(const ModelConfig& cfg, ModelTemplate& t, const std::string& family,
                           const std::string& base, bool v2) {
  const std::string cls = architecture_of(cfg, family + "Model");
  const std::string task = supported_task(cfg, cls, family, {"Model", "ForImageClassification"});
  const std::string p = task == "Model" ? "" : base + ".";
  const std::vector<uint64_t> widths = cfg.dims_or("hidden_sizes", {96, 192, 384, 768});
  const ConvNextStages stages = convnext_stages(cfg, p, v2, t);
  blocks::norm(t, p + "layernorm", widths.back(), true);
  describe_cnn_backbone(cfg, cls, p + "encoder.stages", widths.back(), stages.blocks, t);
  t.arch.main_stack()->patch_size = cfg.dim_or("patch_size", 4);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", widths.back(), labels, true);
}

}  // namespace

void build_convnext(const ModelConfig& cfg, ModelTemplate& t) {
  build_convnext_family(cfg, t, "ConvNext", "convnext", false);
}

void build_convnextv2(const ModelConfig& cfg, ModelTemplate& t) {
  build_convnext_family(cfg, t, "ConvNextV2", "convnextv2", true);
}

std::vector<uint64_t> convnext_backbone(const ModelConfig& bb, const std::string& prefix, ModelTemplate& t) {
  const ConvNextStages stages =
      convnext_stages(bb, prefix, bb.string_or("model_type", "") == "convnextv2", t);
  // The stem hands on the first stage's width; no final LayerNorm, but a channels-first LayerNorm per stage
  // handed on, in a ModuleDict keyed by the stage's name.
  std::vector<uint64_t> features{stages.widths[0]};
  features.insert(features.end(), stages.widths.begin(), stages.widths.end());
  std::vector<uint64_t> channels;
  for (const size_t i : backbone_out_stages(bb, features.size())) {
    const std::string stage = i == 0 ? std::string("stem") : "stage" + std::to_string(i);
    blocks::norm(t, prefix + "hidden_states_norms." + stage, features[i], true);
    channels.push_back(features[i]);
  }
  describe_cnn_backbone(bb, t.arch.architecture, prefix + "encoder.stages", stages.widths.back(),
                        stages.blocks, t);
  return channels;
}

}  // namespace ma::families
