// SwiftFormer (swiftformer: SwiftFormerModel, SwiftFormerForImageClassification; MBZUAI/swiftformer-xs, -s,
// -l1, -l3): a two-conv stem, then stages of conv encoders closed by one block of "efficient additive
// attention" (query/key linears, a learned w_g vector, proj and final), separated by strided conv + BatchNorm
// downsamplings. Every BatchNorm keeps its running statistics as buffers. The classifier norms the last stage
// and averages two linear heads (head and the distillation head dist_head).
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_d.h"
#include "model/families/vision_hier.h"

namespace ma::families {
namespace {

// downsamples[i] for every stage but the last (SwiftFormerEncoder indexes it only there): a list of
// booleans, [true] * 4 by default.
std::vector<bool> swiftformer_downsamples(const ModelConfig& cfg, size_t stages) {
  std::vector<bool> down(stages, true);
  const json::Value* v = cfg.raw("downsamples");
  if (!v || v->is_null()) return down;
  if (!v->is_array()) cfg.fail("downsamples", "must list a boolean per stage");
  const auto& items = v->items();
  if (items.size() + 1 < stages)
    cfg.fail("downsamples", "must give a value for each of the " + std::to_string(stages - 1) +
                                " transitions between stages");
  for (size_t i = 0; i + 1 < stages; ++i) {
    if (!items[i].is_bool()) cfg.fail("downsamples", "must list a boolean per stage");
    down[i] = items[i].as_bool();
  }
  return down;
}

// SwiftFormerConvEncoder under `p`: its layer scale [dim, 1, 1] (its own parameter, listed before its
// modules'), a 3 x 3 depthwise conv, a BatchNorm and two pointwise convs through `hidden` channels.
void swiftformer_conv_block(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t hidden) {
  t.add(p + "layer_scale", {dim, 1, 1});
  blocks::conv2d(t, p + "depth_wise_conv", dim, dim, 3, dim);
  detr_batch_norm(t, p + "norm", dim, false);
  blocks::conv2d(t, p + "point_wise_conv1", dim, hidden, 1);
  blocks::conv2d(t, p + "point_wise_conv2", hidden, dim, 1);
}

// SwiftFormerEncoderBlock under `p`: a local representation (the conv encoder with no expansion), the
// additive attention and a BatchNorm'd 1 x 1-conv MLP.
void swiftformer_attention_block(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t hidden,
                                 bool layer_scale) {
  if (layer_scale) {
    t.add(p + "layer_scale_1", {dim, 1, 1});
    t.add(p + "layer_scale_2", {dim, 1, 1});
  }
  swiftformer_conv_block(t, p + "local_representation.", dim, dim);
  t.add(p + "attn.w_g", {dim, 1});  // the attention's own parameter precedes its linears
  for (const char* linear : {"to_query", "to_key", "proj", "final"})
    blocks::linear(t, p + "attn." + linear, dim, dim, true);
  detr_batch_norm(t, p + "linear.norm1", dim, false);
  blocks::conv2d(t, p + "linear.fc1", dim, hidden, 1);
  blocks::conv2d(t, p + "linear.fc2", hidden, dim, 1);
}

}  // namespace

void build_swiftformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SwiftFormerModel");
  const std::string task = supported_task(cfg, cls, "SwiftFormer", {"Model", "ForImageClassification"});
  // SwiftFormerConfig's defaults are swiftformer-xs's. One stage per entry of depths; embed_dims is indexed
  // by stage (and read at [-1] by the head).
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {3, 3, 6, 4});
  if (depths.empty()) cfg.fail("depths", "must list at least one stage");
  const size_t stages = depths.size();
  std::vector<uint64_t> widths = per_stage_dims(cfg, "embed_dims", {48, 56, 112, 220}, stages);
  widths.resize(stages);
  const std::vector<bool> down = swiftformer_downsamples(cfg, stages);
  const auto [down_kh, down_kw] = vit_pair(cfg, "down_patch_size", 3);
  const double mlp_ratio = cfg.number_or("mlp_ratio", 4.0);
  uint64_t block_count = 0;
  std::vector<uint64_t> hidden;  // int(mlp_ratio * dim) of each stage
  for (size_t i = 0; i < stages; ++i) {
    block_count += depths[i];
    const double h = mlp_ratio * static_cast<double>(widths[i]);
    if (!(h >= 1.0) || h > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each embed_dim must make an MLP width from 1 to 2^26");
    hidden.push_back(static_cast<uint64_t>(h));
  }
  cfg.check_layer_list("depths", block_count);
  if (widths[0] / 2 == 0)
    cfg.fail("embed_dims", "must start at 2 or more: the stem's first conv has embed_dims[0] // 2 channels");
  const bool layer_scale = cfg.flag_or("use_layer_scale", true);
  const uint64_t last = widths[stages - 1];

  const std::string p = task == "Model" ? "" : "swiftformer.";
  // The encoder's network list holds the stages and, between two, the downsampling embeddings: one stack
  // over it, as for the other staged towers (a tensor's layer index is its network entry's).
  describe_cnn_backbone(cfg, cls, p + "encoder.network", last, block_count, t);
  t.arch.intermediate_size = hidden[stages - 1];
  t.arch.stacks.back().patch_size = 4;  // the stem's two stride-2 convs

  // SwiftFormerPatchEmbedding: conv, BatchNorm, ReLU, conv, BatchNorm, ReLU (an nn.Sequential).
  const std::string stem = p + "patch_embed.patch_embedding.";
  blocks::conv2d(t, stem + "0", cfg.dim_or("num_channels", 3), widths[0] / 2, 3);
  detr_batch_norm(t, stem + "1", widths[0] / 2, false);
  blocks::conv2d(t, stem + "3", widths[0] / 2, widths[0], 3);
  detr_batch_norm(t, stem + "4", widths[0], false);

  uint64_t entry = 0;
  for (size_t i = 0; i < stages; ++i) {
    const std::string stage = p + "encoder.network." + std::to_string(entry++) + ".blocks.";
    for (uint64_t b = 0; b < depths[i]; ++b) {
      const std::string q = stage + std::to_string(b) + ".";
      if (b + 1 == depths[i])  // the last block of a stage attends; the others are conv encoders
        swiftformer_attention_block(t, q, widths[i], hidden[i], layer_scale);
      else
        swiftformer_conv_block(t, q, widths[i], hidden[i]);
    }
    if (i + 1 == stages || (!down[i] && widths[i] == widths[i + 1])) continue;
    // SwiftFormerEmbeddings: a down_patch_size conv with a bias, then a BatchNorm.
    const std::string e = p + "encoder.network." + std::to_string(entry++) + ".";
    t.add(e + "proj.weight", {widths[i + 1], widths[i], down_kh, down_kw});
    t.add(e + "proj.bias", {widths[i + 1]});
    detr_batch_norm(t, e + "norm", widths[i + 1], false);
  }
  if (task == "Model") return;
  detr_batch_norm(t, "norm", last, false);
  // head and dist_head are nn.Identity for 0 labels.
  if (const uint64_t labels = num_labels(cfg)) {
    blocks::linear(t, "head", last, labels, true);
    blocks::linear(t, "dist_head", last, labels, true);
  }
}

}  // namespace ma::families
