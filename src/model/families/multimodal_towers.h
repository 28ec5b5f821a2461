// Vision encoders of the multimodal families (LLaVA, Mistral 3, Gemma-3/4, Llama-4): their tensors belong to
// the template, and each is a vision stack of the record beside the language model's decoder. Also what
// reading their composite configs takes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// A nested config object, or an empty one (every field at its default) when the key is absent or null.
ModelConfig sub_or_empty(const ModelConfig& cfg, std::string_view key);
// A nested config, or `dflt` (parsed only then) when the key is absent or null: a composite config class's
// default sub-config, which differs from the sub-config class's own defaults.
ModelConfig sub_or(const ModelConfig& cfg, std::string_view key, const char* dflt);
// InternVL's pixel shuffle folds each (1 / downsample_ratio)^2 patches of a `vision`-wide tower into one
// token: the width its projector reads.
uint64_t pixel_shuffled_width(const ModelConfig& cfg, uint64_t vision);
// config.json's first `architectures` entry; "" without one.
std::string first_architecture(const ModelConfig& cfg);
// Composite configs spell tying at the top level; older ones only in text_config; `dflt` when neither does.
bool tie_embeddings(const ModelConfig& cfg, const ModelConfig& text, bool dflt);
// Renames on disk to transformers 4's layout of converted conditional-generation checkpoints (llava-hf style:
// language_model.model.*, vision_tower.vision_model.*, multi_modal_projector.*, language_model.lm_head).
// `tower`: where the tower's own modules sit ("vision_tower." for towers without a vision_model wrapper:
// Pixtral, InternViT).
void v4_conditional_disk_names(ModelTemplate& t, std::string_view tower = "vision_tower.vision_model.");
// Error(Unsupported, "unsupported architecture: <what>") on the config's model_type.
[[noreturn]] void unsupported(const ModelConfig& cfg, const std::string& what);

// The class AutoModel builds for a sub-config configured alone (a tower, a bare text model): `cls`, which
// config.json's architectures may name but not contradict (a sub-config class has no heads); else
// Error(Unsupported) (standalone_towers.cpp).
std::string sub_config_class(const ModelConfig& cfg, const std::string& cls);
// A model that is one tower (a vision or audio sub-config configured alone): the record's dimensions are its
// `role` stack's (standalone_towers.cpp).
void standalone_tower_dims(ModelTemplate& t, StackRole role);

// Defaults of a ViT-style vision config class (CLIPVisionConfig, SiglipVisionConfig), which differ by class
// and, for LLaVA, by whether the parent config supplied the sub-config at all.
struct VitDefaults {
  uint64_t hidden_size = 768;
  uint64_t intermediate_size = 3072;
  uint64_t num_hidden_layers = 12;
  uint64_t num_attention_heads = 12;
  uint64_t num_channels = 3;
  uint64_t image_size = 224;
  uint64_t patch_size = 16;
  bool use_head = false;  // SigLIP's attention-pooling head
  // The tower's model_type when its config names none; "": SigLIP's with use_head, else CLIP's.
  std::string_view model_type;
  // The composite config rebuilds the sub-config as model_type's class whatever model_type it names
  // (Cosmos3EdgeConfig): the config's own model_type is not read.
  bool model_type_fixed = false;
};
VitDefaults clip_vision_defaults();
VitDefaults siglip_vision_defaults();

// CLIPVisionModel, SiglipVisionModel or Siglip2VisionModel (SigLIP 2 NaFlex: a linear patch embedding and a
// position table resized to each image) by vision config model_type (the vision models of Idefics2,
// Idefics3 and SmolVLM are SigLIP's without its head, Cosmos3-Edge's SigLIP 2's without its head) under
// `prefix` (e.g. "model.vision_tower."). Returns the tower's hidden size, which the projector consumes.
uint64_t vit_tower(const ModelConfig& vcfg, const std::string& prefix, const VitDefaults& d,
                   ModelTemplate& t);

// One SiglipEncoderLayer under `p` ("...layers.3."), in its registration order: layer_norm1, self_attn's
// k_proj, v_proj, q_proj, out_proj (biased), layer_norm2, mlp.fc1, mlp.fc2. Also the layers copied from it
// (Sam3LiteTextTextEncoderLayer).
void siglip_encoder_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t intermediate);

// CLIP's or SigLIP's text transformer under `prefix` ("text_model."): token and position embeddings, the
// vision towers' encoder layers and a final LayerNorm; SigLIP's adds a biased head over the last token.
// Records it as an encoder stack and the record's text dimensions. Returns the width it outputs (SigLIP:
// projection_size). `default_positions`: the config class's max_position_embeddings when it is not CLIP's 77
// or SigLIP's 64 (OwlViTTextConfig's 16); 0: theirs.
uint64_t clip_text_tower(const ModelConfig& tcfg, const std::string& prefix, bool siglip, ModelTemplate& t,
                         uint64_t default_positions = 0);

// The defaults of a text config class copied from CLIPTextConfig: CLIP's unless the class has its own
// (GroupViTTextConfig: 256 wide, 1,024 intermediate, 4 heads).
struct ClipTextDefaults {
  uint64_t vocab = 49408, hidden = 512, intermediate = 2048, layers = 12, heads = 8, positions = 77;
};
// CLIP's text transformer (no head) under `prefix`, its fields defaulting to `d`'s. Returns its width.
uint64_t clip_text_tower(const ModelConfig& tcfg, const std::string& prefix, const ClipTextDefaults& d,
                         ModelTemplate& t);

// Gemma-4's vision encoder (patch embedder, RMSNorm layers with q/k norms, optional clipped linears).
uint64_t gemma4_vision_tower(const ModelConfig& vcfg, const std::string& prefix, ModelTemplate& t);

// Pixtral's vision encoder (PixtralVisionModel: a bias-free patch conv, RMSNorm pre-norm layers with a
// gated MLP, 2-D rotary positions) under `prefix`. Returns its hidden size.
uint64_t pixtral_vision_tower(const ModelConfig& vcfg, const std::string& prefix, ModelTemplate& t);

// The audio stack of a USM-style conformer (Gemma 3n's, Gemma 4's) in the record: `layers` of MHA whose
// queries see themselves and the context_left - 1 frames before them, and ungated 4 x hidden feed-forwards.
void record_conformer_stack(ModelTemplate& t, const std::string& path, uint64_t hidden, uint64_t layers,
                            uint64_t heads, uint64_t head_dim, uint64_t mel_bins, uint64_t context_left);

// Gemma 4's audio encoder (Gemma4AudioModel, a conformer) under `prefix`: two strided convolutions and a
// projection, then layers of two half-step feed-forwards around relative-position attention (clippable
// q/k/v/post, relative_k_proj, per_dim_scale) and a light depthwise convolution, then a biased output
// projection. Clippable linears carry their four clamp bounds (persistent scalars) when use_clipped_linears,
// on by default here. Returns its output width, output_proj_dims.
uint64_t gemma4_audio_tower(const ModelConfig& acfg, const std::string& prefix, ModelTemplate& t);

// Gemma 3n's vision tower, timm's MobileNetV5-300M encoder (mobilenetv5_300m_enc: its shape is the
// architecture name's, no config field changes it), under `prefix` ("model.vision_tower.timm_model.").
// Returns its output channels (2048).
uint64_t mobilenet_v5_tower(const ModelConfig& vcfg, const std::string& prefix, ModelTemplate& t);

// Gemma 3n's audio encoder (Gemma3nAudioEncoder, a conformer without biases) under `prefix`: two strided
// convolutions and a projection, then blocks of a feed-forward, local relative-position attention, a light
// depthwise convolution and a second feed-forward. Records its stack; returns its width.
uint64_t gemma3n_audio_tower(const ModelConfig& acfg, const std::string& prefix, ModelTemplate& t);

// MiniMax-M3's vision transformer under `prefix`: CLIP's layers over patches of temporal_patch_size frames
// (a bias-free Conv3d), one pre-LayerNorm, no class token, position table or final norm (its positions are
// rotary). Stored as CLIP's vision_model (vision_tower.vision_model.*, the conv as patch_embedding). Returns
// its width.
uint64_t minimax_m3_vision_tower(const ModelConfig& vcfg, const std::string& prefix, ModelTemplate& t);

// HunyuanOCR's vision transformer (HunYuanVLVisionTransformer) under `prefix`: a biased patch conv, a learned
// table of (max_image_size / patch_size)^2 + 1 positions resized to each image, SigLIP's layers (o_proj, no
// final norm) and the patch merger into `text_hidden` (RMSNorm, a 2 x 2 strided conv, a 1 x 1 conv, the
// row-end newline vector, a linear, begin / end / separator vectors, RMSNorm). Stored under transformers 4's
// names on disk (vit.*, perceive.*, dense_h_to_4h ...), which transformers renames on load.
void hunyuan_vl_vision_tower(const ModelConfig& vcfg, const std::string& prefix, uint64_t text_hidden,
                             ModelTemplate& t);

// Llama-4's vision model (unfold patch embedding, LayerNorm layers, pixel-shuffle adapter). Returns its
// vision_output_dim, the projector's input width.
uint64_t llama4_vision_tower(const ModelConfig& vcfg, const std::string& prefix, ModelTemplate& t);

}  // namespace ma::families
