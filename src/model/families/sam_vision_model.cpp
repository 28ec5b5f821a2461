// SamVisionModel (model_type sam_vision_model): SAM's image encoder alone, its config SamVisionConfig at the
// top level, the encoder under vision_encoder as in SamModel.
#include "model/families/segment_anything.h"

namespace ma::families {

void sam_record(const SamShape& s, const std::string& cls, ArchitectureRecord& a) {
  a.architecture = cls;
  a.hidden_size = s.hidden;
  a.num_layers = s.layers;
  a.num_attention_heads = a.num_key_value_heads = s.heads;
  a.head_dim = s.hidden / s.heads;
  a.intermediate_size = s.mlp;
  // A learned table over the patch grid; without it only the decomposed relative tables place patches.
  a.position = s.absolute ? PositionKind::Learned : s.relative ? PositionKind::Relative : PositionKind::None;
}

void sam_vision_model_modules(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t) {
  const SamShape s = read_sam_shape(cfg);
  sam_record(s, cls, t.arch);
  sam_vision_encoder(s, "vision_encoder.", false, t);
}

void build_sam_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  sam_vision_model_modules(cfg, "SamVisionModel", t);
}

}  // namespace ma::families
