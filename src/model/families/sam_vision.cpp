#include "model/families/sam_vision.h"

#include <algorithm>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"

namespace ma::families {

void sam_neck(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, bool original) {
  t.add(p + (original ? "0" : "conv1") + ".weight", {out, in, 1, 1});
  blocks::norm(t, p + (original ? "1" : "layer_norm1"), out, true);
  t.add(p + (original ? "2" : "conv2") + ".weight", {out, out, 3, 3});
  blocks::norm(t, p + (original ? "3" : "layer_norm2"), out, true);
}

SamShape read_sam_shape(const ModelConfig& s, std::optional<uint64_t> fixed_mlp) {
  SamShape x;
  x.hidden = s.dim_or("hidden_size", x.hidden);
  x.heads = s.dim_or("num_attention_heads", x.heads);
  x.layers = s.layers_or("num_hidden_layers", x.layers);
  x.channels = s.dim_or("num_channels", x.channels);
  x.image = s.dim_or("image_size", x.image);
  x.patch = s.dim_or("patch_size", x.patch);
  x.window = s.count_or("window_size", x.window);
  x.out = s.dim_or("output_channels", x.out);
  if (x.hidden % x.heads != 0)
    s.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(x.hidden) + ")");
  if (x.image < x.patch) s.fail("image_size", "must be at least patch_size");
  x.qkv_bias = s.flag_or("qkv_bias", true);
  x.relative = s.flag_or("use_rel_pos", true);
  x.absolute = s.flag_or("use_abs_pos", true);
  if (s.has("global_attn_indexes")) x.global = s.ints("global_attn_indexes");
  if (fixed_mlp) {
    x.mlp = s.dim_or("mlp_dim", *fixed_mlp);
    return x;
  }
  // mlp_dim, else hidden_size x mlp_ratio truncated as Python's int() does.
  const double ratio = s.number_or("mlp_ratio", 4.0);
  if (!s.has("mlp_dim") && !(ratio > 0 && ratio <= 64)) s.fail("mlp_ratio", "must be in (0, 64]");
  x.mlp = s.has("mlp_dim") ? s.dim("mlp_dim") : static_cast<uint64_t>(static_cast<double>(x.hidden) * ratio);
  if (x.mlp == 0) s.fail("mlp_ratio", "gives an MLP of no width");
  return x;
}

void sam_vision_encoder(const SamShape& s, const std::string& p, bool original, ModelTemplate& t) {
  const uint64_t h = s.hidden, grid = s.image / s.patch;
  // pos_embed is the encoder's own parameter: registered before its modules.
  if (s.absolute) t.add(p + "pos_embed", {1, grid, grid, h});
  const std::string patch = p + (original ? "patch_embed.proj" : "patch_embed.projection");
  t.add(patch + ".weight", {h, s.channels, s.patch, s.patch});
  t.add(patch + ".bias", {h});
  for (uint64_t i = 0; i < s.layers; ++i) {
    const std::string l = p + (original ? "blocks." : "layers.") + std::to_string(i) + ".";
    blocks::norm(t, l + (original ? "norm1" : "layer_norm1"), h, true);
    if (s.relative) {  // a global layer's tables span the whole grid, a windowed one's its window
      const bool whole = s.window == 0 || std::find(s.global.begin(), s.global.end(),
                                                    static_cast<int64_t>(i)) != s.global.end();
      const uint64_t span = 2 * (whole ? grid : s.window) - 1;
      t.add(l + "attn.rel_pos_h", {span, h / s.heads});
      t.add(l + "attn.rel_pos_w", {span, h / s.heads});
    }
    blocks::linear(t, l + "attn.qkv", h, 3 * h, s.qkv_bias);
    blocks::linear(t, l + "attn.proj", h, h, true);
    blocks::norm(t, l + (original ? "norm2" : "layer_norm2"), h, true);
    blocks::linear(t, l + "mlp.lin1", h, s.mlp, true);
    blocks::linear(t, l + "mlp.lin2", s.mlp, h, true);
  }
  sam_neck(t, p + "neck.", h, s.out, original);
  record_vision_tower(t, p + (original ? "blocks" : "layers"), h, s.layers, s.heads, h / s.heads, s.mlp,
                      s.patch, s.image);
}

}  // namespace ma::families
