// SegGPT (model_type seggpt: SegGptModel, SegGptForImageSegmentation; BAAI/seggpt-vit-large): a ViT-L
// whose input is the prompt image stacked over the query image (896 x 448 pixels by default) and, in a second
// batch half, the prompt mask over a masked-out target. Its layers are SAM's (one fused qkv, decomposed
// relative positions rel_pos_h / rel_pos_w sized by image_size / patch_size) in ViT's pre-norm order, and
// the embeddings carry five learned tokens beside an absolute table sized by pretrain_image_size (224: the
// 196 positions + 1 are interpolated at run time). The segmentation head concatenates the final LayerNorm's
// output at len(intermediate_hidden_state_indices) layers and decodes it to a 3-channel mask at pixel level.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_f.h"

namespace ma::families {
namespace {

struct SegGptShape {
  uint64_t hidden = 1024, heads = 16, layers = 24, mlp = 4096, channels = 3, patch = 16;
  uint64_t image_h = 896, image_w = 448, pretrain = 224, decoder = 64, features = 4;
  bool qkv_bias = true, relative = true;
};

// SegGptConfig's fields at its defaults (seggpt-vit-large). image_size may be one int or [height, width];
// patch_size is used as an int (SegGptAttention divides each side by config.patch_size).
SegGptShape read_seggpt_shape(const ModelConfig& cfg) {
  SegGptShape s;
  s.hidden = cfg.dim_or("hidden_size", s.hidden);
  s.heads = cfg.dim_or("num_attention_heads", s.heads);
  split_heads(cfg, "num_attention_heads", s.hidden, s.heads);
  s.layers = cfg.layers_or("num_hidden_layers", s.layers);
  s.mlp = cfg.dim_or("mlp_dim", 4 * s.hidden);  // mlp_dim None: int(hidden_size * 4)
  s.channels = cfg.dim_or("num_channels", s.channels);
  s.patch = cfg.dim_or("patch_size", s.patch);
  if (cfg.has("image_size")) {
    const auto [h, w] = vit_pair(cfg, "image_size", s.image_h);
    s.image_h = h;
    s.image_w = w;
  }
  if (s.patch > s.image_h || s.patch > s.image_w) cfg.fail("patch_size", "must not exceed image_size");
  s.pretrain = cfg.dim_or("pretrain_image_size", s.pretrain);
  if (s.patch > s.pretrain) cfg.fail("patch_size", "must not exceed pretrain_image_size");
  s.decoder = cfg.dim_or("decoder_hidden_size", s.decoder);
  s.qkv_bias = cfg.flag_or("qkv_bias", true);
  s.relative = cfg.flag_or("use_relative_position_embeddings", true);
  // SegGptConfig raises unless merge_index <= min(intermediate_hidden_state_indices) (min of an empty list
  // raises too); the decoder reads as many features as the list names.
  std::vector<int64_t> indices = cfg.ints("intermediate_hidden_state_indices");
  if (!cfg.has("intermediate_hidden_state_indices")) indices = {5, 11, 17, 23};
  if (indices.empty()) cfg.fail("intermediate_hidden_state_indices", "must name at least one layer");
  int64_t lowest = indices.front();
  for (const int64_t i : indices) lowest = std::min(lowest, i);
  if (cfg.number_or("merge_index", 2) > static_cast<double>(lowest))
    cfg.fail("merge_index", "must not exceed the lowest of intermediate_hidden_state_indices");
  s.features = indices.size();
  return s;
}

// SegGptLayer under `p`: the attention (its own rel_pos_h / rel_pos_w first in state_dict, then qkv and
// proj), the MLP (lin1, lin2), then layernorm_before and layernorm_after, in registration order.
void seggpt_layer(ModelTemplate& t, const std::string& p, const SegGptShape& s) {
  const uint64_t head_dim = s.hidden / s.heads;
  if (s.relative) {
    t.add(p + "attention.rel_pos_h", {2 * (s.image_h / s.patch) - 1, head_dim});
    t.add(p + "attention.rel_pos_w", {2 * (s.image_w / s.patch) - 1, head_dim});
  }
  blocks::linear(t, p + "attention.qkv", s.hidden, 3 * s.hidden, s.qkv_bias);
  blocks::linear(t, p + "attention.proj", s.hidden, s.hidden, true);
  blocks::linear(t, p + "mlp.lin1", s.hidden, s.mlp, true);
  blocks::linear(t, p + "mlp.lin2", s.mlp, s.hidden, true);
  blocks::norm(t, p + "layernorm_before", s.hidden, true);
  blocks::norm(t, p + "layernorm_after", s.hidden, true);
}

// SegGptModel under `prefix`: the embeddings' five tokens and position table (their own parameters, listed
// before their patch_embeddings), the patch projection, the layers and the final LayerNorm.
void seggpt_body(ModelTemplate& t, const std::string& prefix, const SegGptShape& s) {
  const std::string e = prefix + "embeddings.";
  for (const char* token : {"mask_token", "segment_token_input", "segment_token_prompt",
                            "type_token_semantic", "type_token_instance"})
    t.add(e + token, {1, 1, 1, s.hidden});
  const uint64_t side = s.pretrain / s.patch;
  t.add(e + "position_embeddings", {1, side * side + 1, s.hidden});
  blocks::conv2d(t, e + "patch_embeddings.projection", s.channels, s.hidden, s.patch);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layers", s.hidden);
  encoder.patch_size = s.patch;
  encoder.image_size = s.image_h;
  for (uint64_t i = 0; i < s.layers; ++i) {
    seggpt_layer(t, encoder.path + "." + std::to_string(i) + ".", s);
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::norm(t, prefix + "encoder.layernorm", s.hidden, true);
}

}  // namespace

void build_seggpt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SegGptModel");
  const std::string task = supported_task(cfg, cls, "SegGpt", {"Model", "ForImageSegmentation"});
  const SegGptShape s = read_seggpt_shape(cfg);
  TextEncoderDims d;
  d.layers = s.layers;
  d.layer.hidden = s.hidden;
  d.layer.heads = s.heads;
  d.layer.ffn = s.mlp;
  d.max_positions = (s.pretrain / s.patch) * (s.pretrain / s.patch) + 1;
  fill_encoder_record(t, cls, d);
  t.arch.activation = cfg.string_or("hidden_act", "gelu");
  t.arch.norm = NormKind::LayerNorm;
  t.arch.attention_bias = s.qkv_bias;
  t.arch.mlp_bias = true;
  if (task == "Model") {
    seggpt_body(t, "", s);
    return;
  }
  seggpt_body(t, "model.", s);
  // SegGptDecoder: every patch's concatenated features to a patch_size^2 x decoder_hidden_size pixel block,
  // then SegGptDecoderHead: a 3 x 3 conv, a channels-first LayerNorm, a 1 x 1 conv to RGB.
  blocks::linear(t, "decoder.decoder_embed", s.hidden * s.features, s.patch * s.patch * s.decoder, true);
  blocks::conv2d(t, "decoder.decoder_pred.conv", s.decoder, s.decoder, 3);
  blocks::norm(t, "decoder.decoder_pred.layernorm", s.decoder, true);
  blocks::conv2d(t, "decoder.decoder_pred.head", s.decoder, 3, 1);
}

}  // namespace ma::families
