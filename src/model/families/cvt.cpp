// CvT (cvt: CvtModel, CvtForImageClassification; microsoft/cvt-13..w24): three stages, each a strided conv
// token embedding with a LayerNorm, then pre-norm transformer layers whose queries, keys and values first
// pass a depthwise conv + BatchNorm ("dw_bn") over the token map. A stage with cls_token learns one class
// token, shaped by the LAST stage's width (CvtStage uses embed_dim[-1] for every stage).
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

// A per-stage list of booleans (qkv_bias, cls_token); `dflt` when absent.
std::vector<bool> cvt_flags(const ModelConfig& cfg, std::string_view key, std::vector<bool> dflt,
                            size_t stages) {
  if (const json::Value* v = cfg.raw(key); v && !v->is_null()) {
    if (!v->is_array()) cfg.fail(key, "must list a boolean per stage");
    dflt.clear();
    for (const json::Value& x : v->items()) {
      if (!x.is_bool()) cfg.fail(key, "must list a boolean per stage");
      dflt.push_back(x.as_bool());
    }
  }
  if (dflt.size() < stages)
    cfg.fail(key, "must give a value for each of the " + std::to_string(stages) + " stages");
  return dflt;
}

// The MLP widths int(embed_dim[i] * mlp_ratio[i]) (mlp_ratio lists floats; default 4.0 each).
std::vector<uint64_t> cvt_mlp_widths(const ModelConfig& cfg, const std::vector<uint64_t>& widths) {
  std::vector<double> ratios(widths.size(), 4.0);
  if (const json::Value* v = cfg.raw("mlp_ratio"); v && !v->is_null()) {
    if (!v->is_array()) cfg.fail("mlp_ratio", "must list a ratio per stage");
    ratios.clear();
    for (const json::Value& x : v->items()) {
      if (!x.is_number()) cfg.fail("mlp_ratio", "must list a ratio per stage");
      ratios.push_back(x.as_double());
    }
  }
  if (ratios.size() < widths.size()) cfg.fail("mlp_ratio", "must give a value for each stage");
  std::vector<uint64_t> mlp;
  for (size_t i = 0; i < widths.size(); ++i) {
    const double w = ratios[i] * static_cast<double>(widths[i]);
    if (!(w >= 1.0) || w > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each embed_dim must make an MLP width from 1 to 2^26");
    mlp.push_back(static_cast<uint64_t>(w));
  }
  return mlp;
}

// CvtSelfAttentionProjection under `p` for the "dw_bn" method: a depthwise, bias-free conv and a BatchNorm
// (running statistics as buffers). Other methods ("avg", "linear") have no parameters.
void cvt_conv_projection(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t kernel) {
  t.add(p + ".convolution_projection.convolution.weight", {dim, 1, kernel, kernel});
  detr_batch_norm(t, p + ".convolution_projection.normalization", dim, false);
}

}  // namespace

void build_cvt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CvtModel");
  const std::string task = supported_task(cfg, cls, "Cvt", {"Model", "ForImageClassification"});
  // CvtConfig's defaults are cvt-13's. The encoder has one stage per entry of `depth`.
  const std::vector<uint64_t> depths = cfg.dims_or("depth", {1, 2, 10});
  const size_t stages = depths.size();
  const auto list = [&](std::string_view key, std::vector<uint64_t> dflt) {
    return per_stage_dims(cfg, key, std::move(dflt), stages);
  };
  const std::vector<uint64_t> widths = list("embed_dim", {64, 192, 384});
  const std::vector<uint64_t> heads = list("num_heads", {1, 3, 6});
  const std::vector<uint64_t> patches = list("patch_sizes", {7, 3, 3});
  const std::vector<uint64_t> strides = list("patch_stride", {4, 2, 2});
  const std::vector<uint64_t> kernels = list("kernel_qkv", {3, 3, 3});
  const std::vector<bool> qkv_bias = cvt_flags(cfg, "qkv_bias", {true, true, true}, stages);
  const std::vector<bool> cls_token = cvt_flags(cfg, "cls_token", {false, false, true}, stages);
  std::vector<std::string> methods = cfg.strings("qkv_projection_method");
  if (!cfg.has("qkv_projection_method")) methods.assign(stages, "dw_bn");
  if (methods.size() < stages) cfg.fail("qkv_projection_method", "must give a value for each stage");
  const std::vector<uint64_t> mlp = cvt_mlp_widths(cfg, widths);
  uint64_t blocks_total = 0;
  for (size_t i = 0; i < stages; ++i) {
    // CvtStage reads drop_path_rates[stage] from a linspace of depth[stage] rates: an IndexError unless
    // every stage is deeper than its index.
    if (depths[i] <= i)
      cfg.fail("depth", "must exceed each stage's index (CvtStage indexes its drop-path rates by stage)");
    split_heads(cfg, "num_heads", widths[i], heads[i]);
    if (patches[i] > 4096 || kernels[i] > 4096)
      cfg.fail(patches[i] > 4096 ? "patch_sizes" : "kernel_qkv", "must be at most 4096");
    blocks_total += depths[i];
  }
  cfg.check_layer_list("depth", blocks_total);
  const uint64_t last = widths[stages - 1];

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = blocks_total;
  a.hidden_size = last;
  a.num_attention_heads = heads[stages - 1];
  a.intermediate_size = mlp[stages - 1];
  const std::string p = task == "Model" ? "" : "cvt.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.stages", last);
  stack.patch_size = strides[0];

  uint64_t in = cfg.dim_or("num_channels", 3);
  for (size_t s = 0; s < stages; ++s) {
    const uint64_t d = widths[s];
    const std::string g = p + "encoder.stages." + std::to_string(s) + ".";
    if (cls_token[s]) t.add(g + "cls_token", {1, 1, last});
    blocks::conv2d(t, g + "embedding.convolution_embeddings.projection", in, d, patches[s]);
    blocks::norm(t, g + "embedding.convolution_embeddings.normalization", d, true);
    for (uint64_t j = 0; j < depths[s]; ++j) {
      const std::string l = g + "layers." + std::to_string(j) + ".";
      const std::string at = l + "attention.attention.";
      // The query's method is "linear" where the stage's is "avg": only dw_bn has parameters.
      if (methods[s] == "dw_bn")
        for (const char* x : {"query", "key", "value"})
          cvt_conv_projection(t, at + "convolution_projection_" + x, d, kernels[s]);
      for (const char* x : {"query", "key", "value"})
        blocks::linear(t, at + "projection_" + x, d, d, qkv_bias[s]);
      blocks::linear(t, l + "attention.output.dense", d, d, true);
      blocks::linear(t, l + "intermediate.dense", d, mlp[s], true);
      blocks::linear(t, l + "output.dense", mlp[s], d, true);
      blocks::norm(t, l + "layernorm_before", d, true);
      blocks::norm(t, l + "layernorm_after", d, true);
    }
    in = d;
  }
  if (task == "ForImageClassification") {
    blocks::norm(t, "layernorm", last, true);
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", last, labels, true);
  }
}

}  // namespace ma::families
