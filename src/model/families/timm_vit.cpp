#include "model/families/timm_vit.h"

#include <array>

#include "model/blocks.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// The ViT sizes of "An Image is Worth 16x16 Words" and timm's smaller two (vit_tiny, vit_small).
struct TimmVitSize {
  std::string_view name;
  uint64_t width, depth, heads;
};
constexpr std::array<TimmVitSize, 5> kTimmVitSizes{{
    {"tiny", 192, 12, 3},
    {"small", 384, 12, 6},
    {"base", 768, 12, 12},
    {"large", 1024, 24, 16},
    {"huge", 1280, 32, 16},
}};

// The plain names timm registers (vit_<size>_patch<P>_<IMAGE>); others of that spelling do not exist.
constexpr std::array<std::string_view, 17> kTimmVitNames{
    "vit_tiny_patch16_224",  "vit_tiny_patch16_384",  "vit_small_patch32_224", "vit_small_patch32_384",
    "vit_small_patch16_224", "vit_small_patch16_384", "vit_small_patch8_224",  "vit_base_patch32_224",
    "vit_base_patch32_384",  "vit_base_patch16_224",  "vit_base_patch16_384",  "vit_base_patch8_224",
    "vit_large_patch32_224", "vit_large_patch32_384", "vit_large_patch16_224", "vit_large_patch16_384",
    "vit_huge_patch14_224"};

uint64_t timm_vit_number(std::string_view digits) {
  uint64_t n = 0;
  for (const char c : digits) n = 10 * n + static_cast<uint64_t>(c - '0');
  return n;
}

}  // namespace

std::optional<TimmVitShape> find_timm_vit(std::string_view architecture) {
  bool registered = false;
  for (const std::string_view n : kTimmVitNames) registered = registered || n == architecture;
  if (!registered) return std::nullopt;
  // vit_<size>_patch<P>_<IMAGE>
  const std::string_view rest = architecture.substr(4);
  const size_t size_end = rest.find('_');
  const std::string_view size = rest.substr(0, size_end);
  const std::string_view patch_and_image = rest.substr(size_end + 1 + 5);  // after "_patch"
  const size_t split = patch_and_image.find('_');
  for (const TimmVitSize& s : kTimmVitSizes)
    if (s.name == size)
      return TimmVitShape{s.width, s.depth, s.heads, timm_vit_number(patch_and_image.substr(0, split)),
                          timm_vit_number(patch_and_image.substr(split + 1))};
  return std::nullopt;
}

void timm_pre_norm_block(ModelTemplate& t, const std::string& b, uint64_t width, uint64_t mlp,
                         bool qkv_bias) {
  blocks::norm(t, b + "norm1", width, true);
  blocks::linear(t, b + "attn.qkv", width, 3 * width, qkv_bias);
  blocks::linear(t, b + "attn.proj", width, width, true);
  blocks::norm(t, b + "norm2", width, true);
  blocks::linear(t, b + "mlp.fc1", width, mlp, true);
  blocks::linear(t, b + "mlp.fc2", mlp, width, true);
}

void timm_vit(ModelTemplate& t, const std::string& p, const TimmVitShape& v, uint64_t classes,
              const std::string& cls) {
  const uint64_t h = v.width, mlp = 4 * h, side = v.image / v.patch, tokens = side * side + 1;
  // The model's own parameters come before its modules' in state_dict: the class token and the positions
  // (one per patch and one for the class token), then the patch convolution.
  t.add(p + "cls_token", {1, 1, h});
  t.add(p + "pos_embed", {1, tokens, h});
  blocks::conv2d(t, p + "patch_embed.proj", 3, h, v.patch);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = h;
  a.num_layers = v.depth;
  a.num_attention_heads = a.num_key_value_heads = v.heads;
  a.head_dim = h / v.heads;
  a.intermediate_size = mlp;
  a.max_position_embeddings = tokens;
  // The whole model sits under the wrapper's timm_model, a vision module to the name rules, so the facts
  // they would read off the tensors are set here: LayerNorms, a learned position table, biased layers and
  // an ungated GELU MLP.
  a.norm = NormKind::LayerNorm;
  a.position = PositionKind::Learned;
  a.attention_bias = a.mlp_bias = true;
  StackSpec& s = a.add_stack(StackRole::Encoder, p + "blocks", h);
  s.patch_size = v.patch;
  s.image_size = v.image;
  for (uint64_t i = 0; i < v.depth; ++i) {
    timm_pre_norm_block(t, s.path + "." + std::to_string(i) + ".", h, mlp);
    LayerSpec layer = attention_dense_layer();
    layer.ffn.gated = false;
    s.layers.push_back(layer);
  }
  blocks::norm(t, p + "norm", h, true);
  if (classes > 0) blocks::linear(t, p + "head", h, classes, true);
}

}  // namespace ma::families
