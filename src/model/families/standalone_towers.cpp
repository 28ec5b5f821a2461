// Group standalone_towers: the vision and audio towers of multimodal models configured alone, as AutoModel
// builds them from the tower's own model_type (PixtralVisionModel, Idefics3VisionTransformer,
// SmolVLMVisionTransformer, InternVLVisionModel, Qwen2AudioEncoder, VoxtralEncoder, Gemma3nAudioEncoder,
// Gemma 3n's TimmWrapperModel):
// the composite's tower modules at the top level, without its prefix. Each reuses the composite's builder,
// so a tower alone is exactly the tower inside.
#include <array>
#include <string>

#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/llava_towers.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

void build_pixtral_vision(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "PixtralVisionModel");
  pixtral_vision_tower(cfg, "", t);
  standalone_tower_dims(t, StackRole::Vision);
}

// Idefics3VisionTransformer / SmolVLMVisionTransformer: SigLIP's embeddings, encoder and post_layernorm, no
// head, at the top level (the composite's vision_model).
void build_idefics3_vision_kind(const ModelConfig& cfg, ModelTemplate& t, const std::string& cls,
                                std::string_view vision_type) {
  t.arch.architecture = sub_config_class(cfg, cls);
  vit_tower(cfg, "", idefics3_vision_defaults(vision_type), t);
  standalone_tower_dims(t, StackRole::Vision);
}
void build_idefics3_vision(const ModelConfig& cfg, ModelTemplate& t) {
  build_idefics3_vision_kind(cfg, t, "Idefics3VisionTransformer", "idefics3_vision");
}
void build_smolvlm_vision(const ModelConfig& cfg, ModelTemplate& t) {
  build_idefics3_vision_kind(cfg, t, "SmolVLMVisionTransformer", "smolvlm_vision");
}

void build_internvl_vision(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "InternVLVisionModel");
  internvit(t, "", cfg);
  standalone_tower_dims(t, StackRole::Vision);
}

// Whisper's encoder alone (conv1, conv2, embed_positions, layers, layer_norm at the top level; the average
// pooler has no weights). whisper_audio_encoder names its modules under a prefix, dropped here.
void build_whisper_encoder_alone(const ModelConfig& cfg, ModelTemplate& t, const AudioEncoderDefaults& d) {
  const std::string prefix = "audio_tower";
  whisper_audio_encoder(cfg, t, prefix, StackRole::Audio, d);
  for (TemplateTensor& x : t.tensors) x.name.erase(0, prefix.size() + 1);
  StackSpec& s = *t.arch.stack(StackRole::Audio);
  s.path.erase(0, prefix.size() + 1);
  standalone_tower_dims(t, StackRole::Audio);
  t.arch.max_position_embeddings = s.positions;
}

void build_qwen2_audio_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Qwen2AudioEncoder");
  build_whisper_encoder_alone(cfg, t, whisper_large_v3_encoder());
}

void build_voxtral_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "VoxtralEncoder");
  AudioEncoderDefaults d = whisper_large_v3_encoder();
  d.transformers_names = true;  // VoxtralEncoderConfig: hidden_size, num_hidden_layers, ...
  build_whisper_encoder_alone(cfg, t, d);
}

void build_gemma3n_audio(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Gemma3nAudioEncoder");
  gemma3n_audio_tower(cfg, "", t);
  standalone_tower_dims(t, StackRole::Audio);
}

// Gemma3nVisionConfig (a TimmWrapperConfig) alone: AutoModel maps gemma3n_vision to TimmWrapperModel, whose
// timm model sits under timm_model, the composite's model.vision_tower.timm_model without the prefix.
void build_gemma3n_vision(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "TimmWrapperModel");
  mobilenet_v5_tower(cfg, "timm_model.", t);
  standalone_tower_dims(t, StackRole::Vision);
}

constexpr std::array kStandaloneTowerFamilies{
    FamilyBuilder{"pixtral", build_pixtral_vision},
    FamilyBuilder{"idefics3_vision", build_idefics3_vision},
    FamilyBuilder{"smolvlm_vision", build_smolvlm_vision},
    FamilyBuilder{"internvl_vision", build_internvl_vision},
    FamilyBuilder{"qwen2_audio_encoder", build_qwen2_audio_encoder},
    FamilyBuilder{"voxtral_encoder", build_voxtral_encoder},
    FamilyBuilder{"gemma3n_audio", build_gemma3n_audio},
    FamilyBuilder{"gemma3n_vision", build_gemma3n_vision},
};

}  // namespace

std::string sub_config_class(const ModelConfig& cfg, const std::string& cls) {
  const std::string named = architecture_of(cfg, cls);
  if (named != cls) unsupported(cfg, named);
  return named;
}

void standalone_tower_dims(ModelTemplate& t, StackRole role) {
  ArchitectureRecord& a = t.arch;
  const StackSpec& s = *a.stack(role);
  a.hidden_size = s.hidden;
  a.num_layers = s.layers.size();
  if (s.layers.empty()) return;
  const LayerSpec& l = s.layers.front();
  a.num_attention_heads = l.attention.heads;
  a.num_key_value_heads = l.attention.kv_heads;
  a.head_dim = l.attention.head_dim;
  a.intermediate_size = l.ffn.intermediate;
}

std::span<const FamilyBuilder> standalone_towers() {
  return kStandaloneTowerFamilies;
}

}  // namespace ma::families
