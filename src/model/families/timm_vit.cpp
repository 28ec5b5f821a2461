#include "model/families/timm_vit.h"

#include <array>

#include "model/blocks.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// The plain ViTs timm registers (vit_<size>_patch<P>_<IMAGE>): the sizes of "An Image is Worth 16x16 Words"
// and timm's smaller two; no other name of that spelling exists.
struct TimmVitName {
  std::string_view name;
  TimmVitShape shape;
};
constexpr std::array<TimmVitName, 17> kTimmVits{{
    {"vit_tiny_patch16_224", {192, 12, 3, 16, 224}},
    {"vit_tiny_patch16_384", {192, 12, 3, 16, 384}},
    {"vit_small_patch32_224", {384, 12, 6, 32, 224}},
    {"vit_small_patch32_384", {384, 12, 6, 32, 384}},
    {"vit_small_patch16_224", {384, 12, 6, 16, 224}},
    {"vit_small_patch16_384", {384, 12, 6, 16, 384}},
    {"vit_small_patch8_224", {384, 12, 6, 8, 224}},
    {"vit_base_patch32_224", {768, 12, 12, 32, 224}},
    {"vit_base_patch32_384", {768, 12, 12, 32, 384}},
    {"vit_base_patch16_224", {768, 12, 12, 16, 224}},
    {"vit_base_patch16_384", {768, 12, 12, 16, 384}},
    {"vit_base_patch8_224", {768, 12, 12, 8, 224}},
    {"vit_large_patch32_224", {1024, 24, 16, 32, 224}},
    {"vit_large_patch32_384", {1024, 24, 16, 32, 384}},
    {"vit_large_patch16_224", {1024, 24, 16, 16, 224}},
    {"vit_large_patch16_384", {1024, 24, 16, 16, 384}},
    {"vit_huge_patch14_224", {1280, 32, 16, 14, 224}},
}};

}  // namespace

std::optional<TimmVitShape> find_timm_vit(std::string_view architecture) {
  for (const TimmVitName& v : kTimmVits)
    if (v.name == architecture) return v.shape;
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
