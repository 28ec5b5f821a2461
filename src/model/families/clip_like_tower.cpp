#include "model/families/clip_like_tower.h"

#include "model/blocks.h"
#include "model/families/decoder_common.h"

namespace ma::families {

ClipLikeVision read_clip_like_vision(const ModelConfig& v, ClipLikeVision d, const std::string& hidden_key) {
  ClipLikeVision r;
  r.hidden = v.dim_or(hidden_key, d.hidden);
  r.intermediate = v.dim_or("intermediate_size", d.intermediate);
  r.layers = v.layers_or("num_hidden_layers", d.layers);
  r.heads = v.dim_or("num_attention_heads", d.heads);
  if (r.hidden % r.heads != 0)
    v.fail("num_attention_heads", "must divide " + hidden_key + " (" + std::to_string(r.hidden) + ")");
  r.channels = v.dim_or("num_channels", d.channels);
  r.image = v.dim_or("image_size", d.image);
  r.patch = v.dim_or("patch_size", d.patch);
  if (r.patch > r.image) v.fail("patch_size", "must not exceed image_size (" + std::to_string(r.image) + ")");
  return r;
}

void clip_encoder_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t intermediate) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})  // CLIP registers k, v, q
    blocks::linear(t, p + "self_attn." + proj, hidden, hidden, true);
  blocks::norm(t, p + "layer_norm1", hidden, true);
  blocks::linear(t, p + "mlp.fc1", hidden, intermediate, true);
  blocks::linear(t, p + "mlp.fc2", intermediate, hidden, true);
  blocks::norm(t, p + "layer_norm2", hidden, true);
}

void clip_like_vision_tower(ModelTemplate& t, const std::string& prefix, const ClipLikeVision& v) {
  const uint64_t h = v.hidden, side = v.image / v.patch;
  const std::string e = prefix + "embeddings.";
  t.add(e + "class_embedding", {h});
  t.add(e + "patch_embedding.weight", {h, v.channels, v.patch, v.patch});
  if (v.position_table) blocks::embedding(t, e + "position_embedding.weight", side * side + 1, h);
  blocks::norm(t, prefix + std::string(v.pre_norm), h, true);
  for (uint64_t i = 0; i < v.layers; ++i) {
    clip_encoder_layer(t, prefix + "encoder.layers." + std::to_string(i) + ".", h, v.intermediate);
  }
  blocks::norm(t, prefix + "post_layernorm", h, true);
  record_vision_tower(t, prefix + "encoder.layers", h, v.layers, v.heads, h / v.heads, v.intermediate,
                      v.patch, v.image);
}

}  // namespace ma::families
