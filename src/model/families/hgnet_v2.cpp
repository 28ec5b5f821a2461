// HGNetV2 (hgnet_v2: HGNetV2Backbone, HGNetV2ForImageClassification; Baidu's PP-HGNetV2, the backbone D-FINE
// nests): a stem of five conv + BatchNorm layers (stem2a / stem2b use 2 x 2 kernels beside a max-pool), then
// stages of HG blocks. A block runs stage_numb_of_layers convs (or, in "light" stages, a 1 x 1 conv and a
// depthwise conv each), concatenates the block's input with every conv's output and squeezes the lot with two
// 1 x 1 convs (aggregation.0 to half the output width, aggregation.1 to the output width). A stage may open
// with a depthwise strided conv (downsample). With use_learnable_affine_block every conv followed by an
// activation gets a learned scalar scale and bias (lab). There is no HGNetV2Model: the backbone is the base.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"
#include "model/families/seg_heads.h"
#include "model/families/vision_e.h"

namespace ma::families {
namespace {

// HGNetV2Config's per-stage lists; its defaults are PP-HGNetV2-B4's (D-FINE-L's backbone).
struct HgnetStages {
  std::vector<uint64_t> in, mid, out, blocks, kernels, layers;
  std::vector<bool> downsample, light;
  size_t count() const { return in.size(); }
};

// A list of booleans per stage (stage_downsample, stage_light_block), `dflt` when absent.
std::vector<bool> hgnet_flags(const ModelConfig& cfg, std::string_view key, std::vector<bool> dflt) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return dflt;
  if (!v->is_array()) cfg.fail(key, "must be a list of booleans, one per stage");
  std::vector<bool> out;
  // The stage reads each entry's truth value, as Python does (0 and 1 work as well as false and true).
  for (const json::Value& x : v->items()) {
    if (!x.is_bool() && !x.is_number()) cfg.fail(key, "must be a list of booleans, one per stage");
    out.push_back(x.is_bool() ? x.as_bool() : x.as_double() != 0);
  }
  return out;
}

HgnetStages read_hgnet_stages(const ModelConfig& cfg) {
  HgnetStages s;
  s.in = cfg.dims_or("stage_in_channels", {48, 128, 512, 1024});
  s.mid = cfg.dims_or("stage_mid_channels", {48, 96, 192, 384});
  s.out = cfg.dims_or("stage_out_channels", {128, 512, 1024, 2048});
  s.blocks = cfg.dims_or("stage_num_blocks", {1, 1, 3, 1});
  s.kernels = cfg.dims_or("stage_kernel_size", {3, 3, 5, 5});
  s.layers = cfg.dims_or("stage_numb_of_layers", {6, 6, 6, 6});
  s.downsample = hgnet_flags(cfg, "stage_downsample", {false, true, true, true});
  s.light = hgnet_flags(cfg, "stage_light_block", {false, false, true, true});
  // HGNetV2Config raises unless all eight lists have the same length.
  const size_t n = s.in.size();
  for (const auto& [key, size] : {std::pair<std::string_view, size_t>{"stage_mid_channels", s.mid.size()},
                                  {"stage_out_channels", s.out.size()},
                                  {"stage_num_blocks", s.blocks.size()},
                                  {"stage_kernel_size", s.kernels.size()},
                                  {"stage_numb_of_layers", s.layers.size()},
                                  {"stage_downsample", s.downsample.size()},
                                  {"stage_light_block", s.light.size()}})
    if (size != n)
      cfg.fail(key, "must have as many entries as stage_in_channels (" + std::to_string(n) + ")");
  if (n == 0) cfg.fail("stage_in_channels", "must list at least one stage");
  uint64_t blocks = 0;
  for (size_t i = 0; i < n; ++i) {
    blocks += s.blocks[i] * s.layers[i];
    if (s.kernels[i] > 4096) cfg.fail("stage_kernel_size", "must be at most 4096");
    if (s.out[i] < 2) cfg.fail("stage_out_channels", "must be at least 2 (the squeeze conv has half)");
  }
  cfg.check_layer_list("stage_num_blocks", blocks);
  return s;
}

// HGNetV2ConvLayer under `p`: a bias-free conv, its BatchNorm, and the learnable affine block when the layer
// has an activation and the config asks for it.
void hgnet_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel, bool lab,
                uint64_t groups = 1) {
  cnn_conv_norm(t, p + "convolution", p + "normalization", in, out, kernel, groups);
  if (lab) {
    t.add(p + "lab.scale", {1});
    t.add(p + "lab.bias", {1});
  }
}

// HGNetV2BasicLayer under `b`.
void hgnet_block(ModelTemplate& t, const HgnetStages& s, size_t i, const std::string& b, uint64_t in,
                 bool lab) {
  const uint64_t mid = s.mid[i], out = s.out[i];
  for (uint64_t j = 0; j < s.layers[i]; ++j) {
    const std::string l = b + "layers." + std::to_string(j) + ".";
    const uint64_t from = j == 0 ? in : mid;
    if (s.light[i]) {  // HGNetV2ConvLayerLight: a 1 x 1 conv without activation, then a depthwise conv
      hgnet_conv(t, l + "conv1.", from, mid, 1, false);
      hgnet_conv(t, l + "conv2.", mid, mid, s.kernels[i], lab, mid);
    } else {
      hgnet_conv(t, l, from, mid, s.kernels[i], lab);
    }
  }
  hgnet_conv(t, b + "aggregation.0.", in + s.layers[i] * mid, out / 2, 1, lab);
  hgnet_conv(t, b + "aggregation.1.", out / 2, out, 1, lab);
}

// HGNetV2Embeddings and HGNetV2Encoder under `prefix` (every stage, whichever the backbone hands on).
// Returns the residual blocks of all stages.
uint64_t hgnet_v2_body(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const HgnetStages s = read_hgnet_stages(cfg);
  const std::vector<uint64_t> stem = cfg.dims_or("stem_channels", {3, 32, 48});
  if (stem.size() < 3) cfg.fail("stem_channels", "must list the input, middle and output stem widths");
  if (stem[1] < 2) cfg.fail("stem_channels", "middle width must be at least 2 (stem2a has half)");
  const bool lab = cfg.flag_or("use_learnable_affine_block", false);
  uint64_t blocks = 0;
  for (uint64_t b : s.blocks) blocks += b;

  // HGNetV2Embeddings: stem3 reads the max-pooled stem1 output beside stem2b's, hence twice the width.
  const std::string e = prefix + "embedder.";
  hgnet_conv(t, e + "stem1.", stem[0], stem[1], 3, lab);
  hgnet_conv(t, e + "stem2a.", stem[1], stem[1] / 2, 2, lab);
  hgnet_conv(t, e + "stem2b.", stem[1] / 2, stem[1], 2, lab);
  hgnet_conv(t, e + "stem3.", 2 * stem[1], stem[1], 3, lab);
  hgnet_conv(t, e + "stem4.", stem[1], stem[2], 1, lab);
  for (size_t i = 0; i < s.count(); ++i) {
    const std::string stage = prefix + "encoder.stages." + std::to_string(i) + ".";
    // A depthwise strided conv without activation (and so without affine block).
    if (s.downsample[i]) hgnet_conv(t, stage + "downsample.", s.in[i], s.in[i], 3, false, s.in[i]);
    for (uint64_t j = 0; j < s.blocks[i]; ++j)
      hgnet_block(t, s, i, stage + "blocks." + std::to_string(j) + ".", j == 0 ? s.in[i] : s.out[i], lab);
  }
  return blocks;
}

// hidden_sizes: HGNetV2Config keeps ResNet's field beside the stage lists; the classifier and the backbone's
// channels read it, not stage_out_channels.
std::vector<uint64_t> hgnet_hidden_sizes(const ModelConfig& cfg) {
  const std::vector<uint64_t> hidden = cfg.dims_or("hidden_sizes", {256, 512, 1024, 2048});
  if (hidden.empty()) cfg.fail("hidden_sizes", "must list at least one size");
  return hidden;
}

}  // namespace

std::vector<uint64_t> hgnet_v2_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  hgnet_v2_body(cfg, prefix, t);
  // HGNetV2Backbone's num_features: embedding_size, then hidden_sizes; its stage names come from depths.
  std::vector<uint64_t> features{cfg.dim_or("embedding_size", 64)};
  for (uint64_t h : hgnet_hidden_sizes(cfg)) features.push_back(h);
  const size_t stages = 1 + cfg.dims_or("depths", {3, 4, 6, 3}).size();
  std::vector<uint64_t> channels;
  for (const size_t i : backbone_out_stages(cfg, stages)) {
    if (i >= features.size()) cfg.fail("hidden_sizes", "must give every stage the backbone hands on a width");
    channels.push_back(features[i]);
  }
  return channels;
}

void build_hgnet_v2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "HGNetV2Backbone");
  const std::string task = supported_task(cfg, cls, "HGNetV2", {"Backbone", "ForImageClassification"});
  const uint64_t blocks = hgnet_v2_body(cfg, "", t);
  describe_cnn_backbone(cfg, cls, "encoder.stages", read_hgnet_stages(cfg).out.back(), blocks, t);
  // The classifier's Linear reads hidden_sizes[-1] (not the last stage's width); nn.Identity for 0 labels.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "fc", hgnet_hidden_sizes(cfg).back(), labels, true);
}

}  // namespace ma::families
