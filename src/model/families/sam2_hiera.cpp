// SAM 2's image encoder (transformers' Sam2VisionModel): Hiera (Sam2HieraDetModel), a ViT in four stages
// whose first block of each stage doubles the width (a Linear on the residual path) and, in the first
// num_query_pool_stages stage changes, max-pools its queries; then an FPN neck of 1 x 1 lateral convolutions
// from each stage's width to fpn_hidden_size (its sine position encoding has no weights).
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam2.h"

namespace ma::families {
namespace {

// A field transformers passes to nn.Conv2d or reads as a pair: an integer, or a list of two.
std::vector<uint64_t> sam2_pair(const ModelConfig& c, const char* key, uint64_t dflt) {
  if (c.has(key) && !c.raw(key)->is_array()) return {c.dim(key), c.dim(key)};
  std::vector<uint64_t> v = c.dims_or(key, {dflt, dflt});
  if (v.size() != 2) c.fail(key, "must be an integer or a list of two");
  return v;
}

// A per-stage list: Sam2MultiScaleBlock indexes it by stage, so one shorter than blocks_per_stage raises.
std::vector<uint64_t> sam2_per_stage(const ModelConfig& b, const char* key, std::vector<uint64_t> dflt,
                                     size_t stages) {
  std::vector<uint64_t> v = b.dims_or(key, std::move(dflt));
  if (v.size() < stages)
    b.fail(key, "must give each of the " + std::to_string(stages) + " stages of blocks_per_stage a value");
  return v;
}

}  // namespace

void sam2_hiera_det(const ModelConfig& b, const std::string& p, const std::string& cls, ModelTemplate& t) {
  // Sam2HieraDetConfig's defaults are SAM 2.1 Hiera-T's.
  const uint64_t hidden = b.dim_or("hidden_size", 96), channels = b.dim_or("num_channels", 3);
  const std::vector<uint64_t> depths = b.dims_or("blocks_per_stage", {1, 2, 7, 2});
  const size_t stages = depths.size();
  const std::vector<uint64_t> widths = sam2_per_stage(b, "embed_dim_per_stage", {96, 192, 384, 768}, stages);
  const std::vector<uint64_t> heads =
      sam2_per_stage(b, "num_attention_heads_per_stage", {1, 2, 4, 8}, stages);
  const std::vector<uint64_t> windows = sam2_per_stage(b, "window_size_per_stage", {8, 4, 14, 7}, stages);
  const double ratio = b.number_or("mlp_ratio", 4.0);
  if (!(ratio > 0 && ratio <= 64)) b.fail("mlp_ratio", "must be in (0, 64]");
  uint64_t total = 0;
  for (uint64_t d : depths) total += d;
  b.check_layer_list("blocks_per_stage", total);
  // int(dim_out * mlp_ratio), truncated as Python's int() does.
  auto mlp = [&](uint64_t width) { return static_cast<uint64_t>(static_cast<double>(width) * ratio); };

  ArchitectureRecord& a = t.arch;  // the blocks' depth, the last stage's widths
  a.architecture = cls;
  a.hidden_size = widths[stages - 1];
  a.num_layers = total;
  a.num_attention_heads = a.num_key_value_heads = heads[stages - 1];
  a.head_dim = widths[stages - 1] / heads[stages - 1];
  a.intermediate_size = mlp(widths[stages - 1]);
  a.position = PositionKind::Learned;

  // The model's own parameters come first: a background table interpolated to the patch grid plus one
  // window's table tiled over it (window_size_per_stage[0] a side), both hidden_size deep.
  const std::vector<uint64_t> background = sam2_pair(b, "window_positional_embedding_background_size", 7);
  t.add(p + "pos_embed", {1, hidden, background[0], background[1]});
  t.add(p + "pos_embed_window", {1, hidden, windows[0], windows[0]});
  const std::vector<uint64_t> kernel = sam2_pair(b, "patch_kernel_size", 7);
  t.add(p + "patch_embed.projection.weight", {hidden, channels, kernel[0], kernel[1]});
  t.add(p + "patch_embed.projection.bias", {hidden});
  uint64_t index = 0;
  for (size_t stage = 0; stage < stages; ++stage)
    for (uint64_t block = 0; block < depths[stage]; ++block, ++index) {
      // A stage's first block reads the previous stage's width.
      const uint64_t in = stage > 0 && block == 0 ? widths[stage - 1] : widths[stage], out = widths[stage];
      const std::string l = p + "blocks." + std::to_string(index) + ".";
      blocks::norm(t, l + "layer_norm1", in, true);
      blocks::linear(t, l + "attn.qkv", in, 3 * out, true);
      blocks::linear(t, l + "attn.proj", out, out, true);
      blocks::norm(t, l + "layer_norm2", out, true);
      blocks::linear(t, l + "mlp.proj_in", out, mlp(out), true);  // Sam2FeedForward of two layers
      blocks::linear(t, l + "mlp.proj_out", mlp(out), out, true);
      if (in != out) blocks::linear(t, l + "proj", in, out, true);  // the residual's, registered last
    }
}

uint64_t sam2_vision(const ModelConfig& v, const std::string& p, const std::string& cls, ModelTemplate& t) {
  // Sam2VisionModel builds AutoModel.from_config(backbone_config): only Hiera is a SAM 2 backbone here.
  const ModelConfig backbone = sub_or_empty(v, "backbone_config");
  if (const std::string type = backbone.string_or("model_type", "sam2_hiera_det_model");
      type != "sam2_hiera_det_model")
    unsupported(v, "SAM 2 with the backbone " + printable(type) + " (" + backbone.path() + ".model_type)");
  sam2_hiera_det(backbone, p + "backbone.", cls, t);
  // One lateral convolution per backbone_channel_list entry (the stages' widths, deepest first), whatever
  // the backbone's widths are; Sam2VisionConfig's defaults are Hiera-T's.
  const uint64_t fpn = v.dim_or("fpn_hidden_size", 256), kernel = v.dim_or("fpn_kernel_size", 1);
  const std::vector<uint64_t> lateral = v.dims_or("backbone_channel_list", {768, 384, 192, 96});
  for (size_t i = 0; i < lateral.size(); ++i)
    blocks::conv2d(t, p + "neck.convs." + std::to_string(i), lateral[i], fpn, kernel);
  return fpn;
}

}  // namespace ma::families
