// The CLIP vision transformer that GIT, Kosmos-2 and IDEFICS each copy under their own class names
// (GitVisionTransformer, Kosmos2VisionTransformer, IdeficsVisionTransformer): a class token, a bias-free
// patch convolution and a learned position per patch and for the class token, a LayerNorm before the layers
// (pre_layrnorm, sic) and one after them (MLCD's copy has no position table: its positions are rotary).
// Unlike vit_tower (multimodal_towers.h) its config is read by the caller: IDEFICS spells the width
// embed_dim and its vision configs name no CLIP model_type.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

struct ClipLikeVision {
  uint64_t hidden = 768, intermediate = 3072, layers = 12, heads = 12, channels = 3, image = 224, patch = 16;
  bool position_table = true;  // false: no embeddings.position_embedding (MLCD's positions are rotary)
  std::string_view pre_norm = "pre_layrnorm";  // CLIP's spelling (sic); OWL-ViT's and OWLv2's: pre_layernorm
};

// Reads a CLIP-style vision config over `d` (the family config class's defaults); `hidden_key` is the
// width's field ("hidden_size", IDEFICS' "embed_dim"). Refuses heads that do not divide the width and
// patches larger than the image, naming the field.
ClipLikeVision read_clip_like_vision(const ModelConfig& v, ClipLikeVision d,
                                     const std::string& hidden_key = "hidden_size");

// One CLIPEncoderLayer under `p` ("...encoder.layers.3."), in its registration order: self_attn's k_proj,
// v_proj, q_proj, out_proj (biased), layer_norm1, mlp.fc1, mlp.fc2, layer_norm2. Also the layers of the
// towers copied from CLIP's (GroupViT's stages, X-CLIP's multi-frame integration transformer).
void clip_encoder_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t intermediate);

// The tower's tensors under `prefix` ("git.image_encoder.vision_model.") in transformers' registration order,
// and its Vision stack in the record. The position_ids buffer is not persistent: not in the template.
void clip_like_vision_tower(ModelTemplate& t, const std::string& prefix, const ClipLikeVision& v);

}  // namespace ma::families
