// Hiera (hiera: HieraModel, HieraForImageClassification; facebook/hiera-tiny-224-hf ... huge): a patch conv
// with a learned position per token, then stages of pre-norm layers with a fused qkv; each stage's first
// layer widens the tokens (embed_dim * embed_dim_multiplier^stage) through its attention and, alongside, a
// `proj` Linear for the residual, registered after the layer's MLP. The pooler is a LayerNorm over the
// averaged tokens (HieraModel builds it by default).
#include <cmath>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_d.h"
#include "model/families/vision_hier.h"

namespace ma::families {
namespace {

// One HieraLayer under `p` from `in` to `out` channels, in registration order.
void hiera_layer(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t mlp) {
  blocks::norm(t, p + "layernorm_before", in, true);
  blocks::linear(t, p + "attn.qkv", in, 3 * out, true);
  blocks::linear(t, p + "attn.proj", out, out, true);
  blocks::norm(t, p + "layernorm_after", out, true);
  blocks::linear(t, p + "mlp.fc1", out, mlp, true);
  blocks::linear(t, p + "mlp.fc2", mlp, out, true);
  if (in != out) blocks::linear(t, p + "proj", in, out, true);
}

}  // namespace

void build_hiera(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "HieraModel");
  const std::string task = supported_task(cfg, cls, "Hiera", {"Model", "ForImageClassification"});
  // HieraConfig's defaults are hiera-base-224's: 4 stages of [2, 3, 16, 3] layers from 96 channels.
  const uint64_t embed = cfg.dim_or("embed_dim", 96);
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {2, 3, 16, 3});
  if (depths.empty()) cfg.fail("depths", "must list at least one stage");
  const size_t stages = depths.size();
  const std::vector<uint64_t> heads = per_stage_dims(cfg, "num_heads", {1, 2, 4, 8}, stages);
  // HieraConfig raises unless fewer stages pool their queries than there are stages.
  if (cfg.count_or("num_query_pool", 3) >= stages)
    cfg.fail("num_query_pool", "must be less than the number of stages (" + std::to_string(stages) + ")");
  const double multiplier = cfg.number_or("embed_dim_multiplier", 2.0);
  const double mlp_ratio = cfg.number_or("mlp_ratio", 4.0);
  // Stage i's width int(embed_dim * multiplier ** i) and MLP width int(width * mlp_ratio).
  std::vector<uint64_t> widths, mlps;
  uint64_t layers = 0;
  for (size_t i = 0; i < stages; ++i) {
    const double w = static_cast<double>(embed) * std::pow(multiplier, static_cast<double>(i));
    if (!(w >= 1.0) || w > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("embed_dim_multiplier", "must keep every stage's width from 1 to 2^26");
    widths.push_back(static_cast<uint64_t>(w));
    const double m = static_cast<double>(widths[i]) * mlp_ratio;
    if (!(m >= 1.0) || m > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each stage's width must make an MLP width from 1 to 2^26");
    mlps.push_back(static_cast<uint64_t>(m));
    layers += depths[i];
  }
  cfg.check_layer_list("depths", layers);
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 224);
  const auto [stride_h, stride_w] = vit_pair(cfg, "patch_stride", 4);
  const auto [kernel_h, kernel_w] = vit_pair(cfg, "patch_size", 7);
  if (stride_h > image_h || stride_w > image_w) cfg.fail("patch_stride", "must not exceed image_size");
  const uint64_t last = widths[stages - 1];

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = layers;
  a.hidden_size = last;
  a.num_attention_heads = a.num_key_value_heads = heads[stages - 1];
  a.head_dim = last / heads[stages - 1];
  a.intermediate_size = mlps[stages - 1];
  const std::string p = task == "Model" ? "" : "hiera.";
  // Its stages differ in width: one stack over them, as for Swin (a tensor's layer index is its stage's).
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.stages", last);
  stack.patch_size = stride_h;
  stack.image_size = image_h;

  // HieraEmbeddings' own position table (one per token of the strided grid) precedes its patch conv.
  t.add(p + "embeddings.position_embeddings", {1, (image_h / stride_h) * (image_w / stride_w), embed});
  t.add(p + "embeddings.patch_embeddings.projection.weight",
        {embed, cfg.dim_or("num_channels", 3), kernel_h, kernel_w});
  t.add(p + "embeddings.patch_embeddings.projection.bias", {embed});
  uint64_t in = embed;
  for (size_t i = 0; i < stages; ++i) {
    for (uint64_t j = 0; j < depths[i]; ++j)
      hiera_layer(t, p + "encoder.stages." + std::to_string(i) + ".layers." + std::to_string(j) + ".",
                  j == 0 ? in : widths[i], widths[i], mlps[i]);
    in = widths[i];
  }
  blocks::norm(t, p + "pooler.layernorm", last, true);
  // The classifier is nn.Identity for 0 labels.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", last, labels, true);
}

}  // namespace ma::families
