// LeViT (levit: LevitModel, LevitForImageClassification, LevitForImageClassificationWithTeacher;
// facebook/levit-128S..384): a four-conv stem, then stages of attention and MLP residual layers whose every
// linear is a bias-free nn.Linear followed by a BatchNorm1d (MLPLayerWithBN). Between stages an attention
// layer subsamples the queries (LevitAttentionSubsample, not residual) and an MLP follows it. Every attention
// learns one bias per head and distinct (|dx|, |dy|) offset, indexed by a persistent int64 buffer.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"
#include "model/families/vision_hier_b.h"

namespace ma::families {
namespace {

// MLPLayerWithBN under `p`: linear (no bias), then batch_norm with its running statistics as buffers.
void levit_linear_bn(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  blocks::linear(t, p + ".linear", in, out, false);
  detr_batch_norm(t, p + ".batch_norm", out, false);
}

// The attention's own parameter and buffer, which state_dict lists before its linears: attention_biases
// [heads, offsets] and attention_bias_idxs [queries, keys] (int64).
void levit_attention_biases(ModelTemplate& t, const std::string& p, uint64_t heads, uint64_t offsets,
                            uint64_t queries, uint64_t keys) {
  t.add(p + "attention_biases", {heads, offsets});
  const std::string index = p + "attention_bias_idxs";
  TemplateTensor& x = t.add(index, {queries, keys});
  x.kind = TensorKind::Buffer;
  x.disk.push_back({.name = index, .shape = x.shape, .dtype = DType::I64});
}

// The distinct |q * stride - k| along one side, for the queries of an `out`-wide grid and the keys of an
// `in`-wide one: the offsets in each direction (the bias table holds every pair of them).
uint64_t levit_side_offsets(uint64_t in, uint64_t out, uint64_t stride) {
  std::set<uint64_t> seen;
  for (uint64_t q = 0; q < out; ++q)
    for (uint64_t k = 0; k < in; ++k) seen.insert(q * stride > k ? q * stride - k : k - q * stride);
  return seen.size();
}

// LevitMLPLayer under `p`: linear_up to `hidden`, linear_down back.
void levit_mlp(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t hidden) {
  levit_linear_bn(t, p + "linear_up", dim, hidden);
  levit_linear_bn(t, p + "linear_down", hidden, dim);
}

// LevitClassificationLayer under `p`: a BatchNorm1d over the pooled features, then a Linear.
void levit_classifier(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t labels) {
  detr_batch_norm(t, p + ".batch_norm", dim, false);
  blocks::linear(t, p + ".linear", dim, labels, true);
}

}  // namespace

void build_levit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "LevitModel");
  const std::string task = supported_task(
      cfg, cls, "Levit", {"Model", "ForImageClassification", "ForImageClassificationWithTeacher"});
  // LevitConfig's defaults are levit-128S's stage widths with levit-128's depths and heads.
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {4, 4, 4});
  const size_t stages = depths.size();
  // LevitConfig builds down_ops for two subsamplings (after stages 0 and 1) and the encoder indexes it by
  // stage: a fourth stage is an IndexError.
  if (stages > 3) cfg.fail("depths", "must list at most 3 stages (LevitConfig defines two subsamplings)");
  const auto list = [&](std::string_view key, std::vector<uint64_t> dflt) {
    return per_stage_dims(cfg, key, std::move(dflt), stages);
  };
  const std::vector<uint64_t> widths = list("hidden_sizes", {128, 256, 384});
  const std::vector<uint64_t> heads = list("num_attention_heads", {4, 8, 12});
  const std::vector<uint64_t> key_dims = list("key_dim", {16, 16, 16});
  const std::vector<uint64_t> attention_ratios = list("attention_ratio", {2, 2, 2});
  // mlp_ratio 0 drops a stage's MLP layers (`if mlp_ratio > 0`).
  std::vector<uint64_t> mlp_ratios = {2, 2, 2};
  if (cfg.has("mlp_ratio")) {
    mlp_ratios.clear();
    for (const int64_t r : cfg.ints("mlp_ratio")) {
      if (r < 0 || static_cast<uint64_t>(r) > ModelConfig::kMaxValue)
        cfg.fail("mlp_ratio", "must be from 0 to 2^26");
      mlp_ratios.push_back(static_cast<uint64_t>(r));
    }
    if (mlp_ratios.size() < stages)
      cfg.fail("mlp_ratio", "must give a value for each of the " + std::to_string(stages) + " stages");
  }
  // down_ops[i] = ["Subsample", key_dim[0], hidden_sizes[i] // key_dim[0], 4, 2, 2], read from
  // hidden_sizes[0] and [1] whatever the depth; a subsampling stage i also outputs hidden_sizes[i + 1].
  if (widths.size() < 2)
    cfg.fail("hidden_sizes", "must give at least 2 widths (LevitConfig reads hidden_sizes[1])");
  const size_t subsamplings = stages < 3 ? stages : 2;
  if (widths.size() < subsamplings + 1)
    cfg.fail("hidden_sizes", "must give a width after each subsampling stage");
  const uint64_t sub_key = key_dims[0];
  uint64_t blocks_total = 0;
  for (size_t i = 0; i < stages; ++i) {
    blocks_total += depths[i];
    if (i < subsamplings && widths[i] < sub_key)
      cfg.fail("hidden_sizes",
               "must be at least key_dim[0] in a subsampling stage (its heads are width // key_dim[0])");
  }
  cfg.check_layer_list("depths", blocks_total);
  const uint64_t patch = cfg.dim_or("patch_size", 16);
  uint64_t resolution = cfg.dim_or("image_size", 224) / patch;
  if (resolution == 0 || resolution > 1024) cfg.fail("image_size", "must give 1 to 1024 patches per side");
  const uint64_t last = widths[stages - 1];

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = blocks_total;
  a.hidden_size = last;
  a.num_attention_heads = heads[stages - 1];
  a.intermediate_size = last * mlp_ratios[stages - 1];
  const std::string p = task == "Model" ? "" : "levit.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.stages", last);
  stack.patch_size = patch;
  stack.image_size = cfg.dim_or("image_size", 224);

  // LevitPatchEmbeddings: four strided convs to 1/8, 1/4, 1/2 and all of hidden_sizes[0].
  const uint64_t kernel = cfg.dim_or("kernel_size", 3);
  uint64_t in = cfg.dim_or("num_channels", 3);
  for (uint64_t i = 1; i <= 4; ++i) {
    const uint64_t out = widths[0] >> (4 - i);
    if (out == 0)
      cfg.fail("hidden_sizes", "hidden_sizes[0] must be at least 8 (the stem's first conv is 1/8 of it)");
    const std::string e = p + "patch_embeddings.embedding_layer_" + std::to_string(i);
    t.add(e + ".convolution.weight", {out, in, kernel, kernel});
    detr_batch_norm(t, e + ".batch_norm", out, false);
    in = out;
  }

  for (size_t s = 0; s < stages; ++s) {
    const uint64_t dim = widths[s];
    const uint64_t h = heads[s];
    const uint64_t kd = key_dims[s];
    const uint64_t value = attention_ratios[s] * kd * h;
    uint64_t k = 0;
    const auto layer = [&] {
      return p + "encoder.stages." + std::to_string(s) + ".layers." + std::to_string(k++) + ".";
    };
    for (uint64_t d = 0; d < depths[s]; ++d) {
      const std::string m = layer() + "module.";
      // (|dx|, |dy|) for dx, dy in 0..resolution-1: resolution^2 offsets.
      levit_attention_biases(t, m, h, resolution * resolution, resolution * resolution,
                             resolution * resolution);
      levit_linear_bn(t, m + "queries_keys_values", dim, value + 2 * kd * h);
      levit_linear_bn(t, m + "projection", value, dim);
      if (mlp_ratios[s] > 0) levit_mlp(t, layer() + "module.", dim, dim * mlp_ratios[s]);
    }
    if (s < subsamplings) {
      // down_ops: key_dim[0], hidden_sizes[s] // key_dim[0] heads, attention ratio 4, MLP ratio 2, stride 2.
      const uint64_t sub_heads = dim / sub_key;
      const uint64_t next = widths[s + 1];
      const uint64_t out_res = (resolution - 1) / 2 + 1;
      const std::string m = layer();
      const uint64_t side = levit_side_offsets(resolution, out_res, 2);
      levit_attention_biases(t, m, sub_heads, side * side, out_res * out_res, resolution * resolution);
      levit_linear_bn(t, m + "keys_values", dim, 4 * sub_key * sub_heads + sub_key * sub_heads);
      levit_linear_bn(t, m + "queries", dim, sub_key * sub_heads);
      levit_linear_bn(t, m + "projection", 4 * sub_key * sub_heads, next);
      levit_mlp(t, layer() + "module.", next, next * 2);
      resolution = out_res;
    }
  }

  if (task != "Model") {
    // Classifiers over the mean of the last stage; nn.Identity for 0 labels.
    if (const uint64_t labels = num_labels(cfg)) {
      levit_classifier(t, "classifier", last, labels);
      if (task == "ForImageClassificationWithTeacher")
        levit_classifier(t, "classifier_distill", last, labels);
    }
  }
}

}  // namespace ma::families
