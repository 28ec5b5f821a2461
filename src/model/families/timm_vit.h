// timm's VisionTransformer (timm/models/vision_transformer.py) in timm's own names (cls_token, pos_embed,
// patch_embed.proj, blocks.N.attn.qkv ...), for the plain architectures timm registers as
// vit_{tiny,small,base,large,huge}_patch{P}_{IMAGE}: a class token, learned positions, pre-norm blocks with
// biased fused q/k/v and a 4x MLP, a final LayerNorm and, with classes, a Linear head on the class token.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/model_template.h"

namespace ma::families {

struct TimmVitShape {
  uint64_t width, depth, heads, patch, image;
};

// The shape of a registered plain ViT name (a pretrained tag such as ".augreg2_in21k_ft_in1k" already
// removed); none for any other name, the CLIP, DINOv2, SigLIP and register variants included.
std::optional<TimmVitShape> find_timm_vit(std::string_view architecture);

// timm's pre-norm Block under `b` ("...blocks.3."), in registration order: norm1, attn.qkv, attn.proj, norm2,
// mlp.fc1, mlp.fc2, all biased but the fused q/k/v where qkv_bias is false.
void timm_pre_norm_block(ModelTemplate& t, const std::string& b, uint64_t width, uint64_t mlp,
                         bool qkv_bias = true);

// The whole VisionTransformer under `p` with a head of `classes` outputs (none for 0), recorded as an
// encoder stack of `cls`.
void timm_vit(ModelTemplate& t, const std::string& p, const TimmVitShape& v, uint64_t classes,
              const std::string& cls);

}  // namespace ma::families
