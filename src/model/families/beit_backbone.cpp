// BeitBackbone: a ViT whose keys have no bias, with optional absolute positions, a relative position bias
// table per layer (or one shared by all) and a learned scale on both residual branches. BeitConfig's defaults
// are BEiT-base's at 224 pixels in 16-pixel patches, with layer scales (0.1) and neither position scheme.
#include <string>
#include <utility>

#include "model/blocks.h"
#include "model/families/beit.h"
#include "model/families/encoders_common.h"

namespace ma::families {

void beit_relative_position_bias(ModelTemplate& t, const std::string& p, std::pair<uint64_t, uint64_t> window,
                                 uint64_t heads) {
  const uint64_t distances = (2 * window.first - 1) * (2 * window.second - 1) + 3;
  t.add(p + "relative_position_bias.relative_position_bias_table", {distances, heads});
}

namespace {

// A BeitLayer under `p` ("...encoder.layer.N."): lambda_1 / lambda_2 (its own parameters, before its
// submodules), then its modules in `layout`; `own_bias` is the layer's relative position bias window.
void beit_layer(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t ffn, uint64_t heads, bool scaled,
                const std::pair<uint64_t, uint64_t>* own_bias, BeitLayout layout) {
  const size_t first = t.tensors.size();
  if (scaled) {
    t.add(p + "lambda_1", {h});
    t.add(p + "lambda_2", {h});
  }
  if (layout == BeitLayout::Transformers4) {
    const std::string self = p + "attention.attention.";
    blocks::linear(t, self + "query", h, h, true);
    blocks::linear(t, self + "key", h, h, false);  // BEiT's keys have no bias
    blocks::linear(t, self + "value", h, h, true);
    if (own_bias) beit_relative_position_bias(t, self, *own_bias, heads);
    blocks::linear(t, p + "attention.output.dense", h, h, true);
    blocks::linear(t, p + "intermediate.dense", h, ffn, true);
    blocks::linear(t, p + "output.dense", ffn, h, true);
    blocks::norm(t, p + "layernorm_before", h, true);
    blocks::norm(t, p + "layernorm_after", h, true);
    return;
  }
  // modular_beit.py: ViT's attention and MLP, the bias table registered last; Hub checkpoints keep the
  // transformers 4 names, the table under attention.attention.
  blocks::linear(t, p + "attention.q_proj", h, h, true);
  blocks::linear(t, p + "attention.k_proj", h, h, false);
  blocks::linear(t, p + "attention.v_proj", h, h, true);
  blocks::linear(t, p + "attention.o_proj", h, h, true);
  blocks::norm(t, p + "layernorm_before", h, true);
  blocks::norm(t, p + "layernorm_after", h, true);
  blocks::linear(t, p + "mlp.fc1", h, ffn, true);
  blocks::linear(t, p + "mlp.fc2", ffn, h, true);
  const std::string path = p.substr(0, p.size() - 1);
  vit_layer_on_disk(t, first, path, path);
  if (!own_bias) return;
  beit_relative_position_bias(t, p, *own_bias, heads);
  TemplateTensor& table = t.tensors.back();
  table.disk.push_back(
      {p + "attention.attention.relative_position_bias.relative_position_bias_table", table.shape});
}

}  // namespace

uint64_t beit_encoder(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                      BeitLayout layout, ModelTemplate& t) {
  read_base_encoder_record(cfg, cls, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  a.intermediate_size = cfg.dim_or("intermediate_size", 3072);
  const auto image = vit_pair(cfg, "image_size", 224), patch = vit_pair(cfg, "patch_size", 16);
  if (patch.first > image.first || patch.second > image.second)
    cfg.fail("patch_size", "must not exceed image_size");
  const std::pair<uint64_t, uint64_t> window{image.first / patch.first, image.second / patch.second};
  const uint64_t patches = window.first * window.second;
  a.max_position_embeddings = patches + 1;
  // BeitEmbeddings registers its own parameters before its patch_embeddings child.
  const std::string e = prefix + "embeddings.";
  t.add(e + "cls_token", {1, 1, h});
  if (cfg.flag_or("use_mask_token", false)) t.add(e + "mask_token", {1, 1, h});
  if (cfg.flag_or("use_absolute_position_embeddings", false))
    t.add(e + "position_embeddings", {1, patches + 1, h});
  const std::string proj = e + "patch_embeddings.projection";
  t.add(proj + ".weight", {h, cfg.dim_or("num_channels", 3), patch.first, patch.second});
  t.add(proj + ".bias", {h});
  const uint64_t heads = a.num_attention_heads;
  if (cfg.flag_or("use_shared_relative_position_bias", false))
    beit_relative_position_bias(t, prefix + "encoder.", window, heads);
  const bool own_bias = cfg.flag_or("use_relative_position_bias", false);
  const bool scaled = cfg.number_or("layer_scale_init_value", 0.1) > 0;
  StackSpec& s = a.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  s.patch_size = patch.first;
  s.image_size = image.first;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    beit_layer(t, s.path + "." + std::to_string(i) + ".", h, a.intermediate_size, heads, scaled,
               own_bias ? &window : nullptr, layout);
    s.layers.push_back(attention_dense_layer());
  }
  return h;
}

uint64_t beit_backbone(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                       ModelTemplate& t) {
  // The feature pyramid of BEiT's segmentation backbones: no ZoeDepth checkpoint has one.
  if (cfg.flag_or("add_fpn", false)) cfg.fail("add_fpn", "must be false: BEiT's FPN is not modelled");
  return beit_encoder(cfg, cls, prefix, BeitLayout::Transformers4, t);
}

}  // namespace ma::families
