// DeepGlint's MLCD vision encoders (MLCDVisionModel: DeepGlint-AI/mlcd-vit-bigG-patch14-{224,336,448} ...):
// CLIP's vision transformer with its learned position table replaced by 2-D rotary positions over the patch
// grid, plus one learned rotary angle vector for the class token (class_pos_emb, half a head wide).
#include <string>

#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_backbones.h"

namespace ma::families {

void build_mlcd(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MLCDVisionModel");
  supported_task(cfg, cls, "MLCDVision", {"Model"});
  // MLCDVisionConfig's defaults: mlcd-vit-bigG-patch14-336's (1664 wide, 48 layers of 16 heads).
  ClipLikeVision v = read_clip_like_vision(
      cfg, {.hidden = 1664, .intermediate = 8192, .layers = 48, .heads = 16, .image = 336, .patch = 14});
  v.position_table = false;
  // MLCDVisionTransformer's own parameter, listed before its modules'.
  t.add("vision_model.class_pos_emb", {1, v.hidden / v.heads / 2});
  clip_like_vision_tower(t, "vision_model.", v);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = v.hidden;
  a.intermediate_size = v.intermediate;
  a.num_layers = v.layers;
  a.num_attention_heads = a.num_key_value_heads = v.heads;
  a.head_dim = v.hidden / v.heads;
}

}  // namespace ma::families
