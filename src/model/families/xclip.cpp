// X-CLIP (microsoft/xclip-base-patch32 ...): CLIP's towers read a video frame by frame. Each vision layer
// first lets the frames' class tokens talk (a message token per frame: message_fc, message_ln and a
// message_attn across frames, appended to the frame's tokens for its self-attention); a multi-frame
// integration transformer (mit) then mixes the projected class tokens over time, and a prompt generator
// refines the text embeddings with cross-attention over the frames' patch features.
// Registration order is transformers 5's (modular_x_clip.py): each module a subclass re-assigns keeps its
// parent's place, a new one follows the parent's (XCLIPVisionEncoderLayer's message_* after CLIP's layer,
// XCLIPVisionModel's pre_layernorm after post_layernorm).
// The towers alone (XCLIPTextModel, XCLIPVisionModel) subclass CLIP's flat tower models: their modules sit at
// the root, their checkpoints keep text_model. / vision_model. (conversion_mapping.py maps xclip_text_model
// and xclip_vision_model to clip_text_model's and clip_vision_model's PrefixChange).
#include <string>

#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/decoder_common.h"
#include "model/families/dual_encoders.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// CLIPAttention's four biased projections, keys first: X-CLIP's message_attn.
void xclip_attention(ModelTemplate& t, const std::string& p, uint64_t hidden) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + proj, hidden, hidden, true);
}

// XCLIPVisionModel under `prefix` (XCLIPVisionConfig's defaults: CLIP ViT-B/32's). Returns its width.
uint64_t xclip_vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const ClipLikeVision d = read_clip_like_vision(v, ClipLikeVision{.patch = 32});
  const uint64_t h = d.hidden, side = d.image / d.patch;
  t.add(prefix + "embeddings.class_embedding", {h});
  t.add(prefix + "embeddings.patch_embedding.weight", {h, d.channels, d.patch, d.patch});
  blocks::embedding(t, prefix + "embeddings.position_embedding.weight", side * side + 1, h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = prefix + "encoder.layers." + std::to_string(i) + ".";
    clip_encoder_layer(t, l, h, d.intermediate);
    blocks::linear(t, l + "message_fc", h, h, true);
    blocks::norm(t, l + "message_ln", h, true);
    xclip_attention(t, l + "message_attn.", h);
  }
  blocks::norm(t, prefix + "post_layernorm", h, true);
  blocks::norm(t, prefix + "pre_layernorm", h, true);  // X-CLIP's spelling (CLIP's: pre_layrnorm)
  record_vision_tower(t, prefix + "encoder.layers", h, d.layers, d.heads, h / d.heads, d.intermediate,
                      d.patch, d.image);
  return h;
}

// XCLIPMultiframeIntegrationTransformer: a learned position per frame and CLIP encoder layers of the
// vision config's mit_* sizes.
void xclip_mit(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("mit_hidden_size", 512), inter = v.dim_or("mit_intermediate_size", 2048);
  const uint64_t layers = v.layers_or("mit_num_hidden_layers", 1);
  split_heads(v, "mit_num_attention_heads", hidden, v.dim_or("mit_num_attention_heads", 8));
  t.add(prefix + "position_embedding", {1, v.dim_or("num_frames", 8), hidden});
  for (uint64_t i = 0; i < layers; ++i)
    clip_encoder_layer(t, prefix + "encoder.layers." + std::to_string(i) + ".", hidden, inter);
}

// XCLIPPromptGenerator over the projection width: its scale alpha (a parameter of its own, listed first), a
// LayerNorm on the visual features, prompt_layers layers of bias-free k/v/q cross-attention with a biased
// output proj, two LayerNorms and a 4x MLP (an nn.Sequential: Linear at 0, Linear at 3).
void xclip_prompt_generator(const ModelConfig& cfg, const std::string& prefix, uint64_t width,
                            ModelTemplate& t) {
  split_heads(cfg, "prompt_num_attention_heads", width, cfg.dim_or("prompt_num_attention_heads", 8));
  t.add(prefix + "alpha", {width});
  blocks::norm(t, prefix + "layernorm", width, true);
  const uint64_t layers = cfg.layers_or("prompt_layers", 2, 0);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = prefix + "decoder." + std::to_string(i) + ".";
    for (const char* proj : {"k_proj", "v_proj", "q_proj"})
      blocks::linear(t, l + "cross_attn." + proj, width, width, false);
    blocks::linear(t, l + "cross_attn.proj", width, width, true);
    blocks::norm(t, l + "norm1", width, true);
    blocks::norm(t, l + "norm3", width, true);
    blocks::linear(t, l + "mlp.0", width, 4 * width, true);
    blocks::linear(t, l + "mlp.3", 4 * width, width, true);
  }
}

}  // namespace

void build_xclip(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "XCLIPModel");
  supported_task(cfg, cls, "XCLIP", {"Model"});
  t.arch.architecture = cls;
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  // The model's own parameters come before its modules': CLIPModel's logit_scale, then the projection of
  // the patch features the prompt generator attends to.
  t.add("logit_scale", {});
  const uint64_t vision_width = vision.dim_or("hidden_size", 768);
  t.add("prompts_visual_projection", {vision_width, projection});
  // XCLIPTextConfig's defaults are CLIPTextConfig's.
  const uint64_t text = clip_text_tower(sub_or_empty(cfg, "text_config"), "text_model.", false, t);
  xclip_vision_tower(vision, "vision_model.", t);
  blocks::linear(t, "visual_projection", vision_width, projection, false);
  blocks::linear(t, "text_projection", text, projection, false);
  blocks::norm(t, "prompts_visual_layernorm", vision_width, true);
  xclip_mit(vision, "mit.", t);
  xclip_prompt_generator(cfg, "prompts_generator.", projection, t);
}

// XCLIPTextModel: CLIPTextModel's layout; XCLIPTextConfig's defaults are CLIPTextConfig's.
void build_xclip_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "XCLIPTextModel");
  clip_text_tower(cfg, "", false, t);
  t.rename_on_disk("", "text_model.");
}

// XCLIPVisionModel: the frames' tower alone, without the MIT and the prompt generator (XCLIPModel's own).
void build_xclip_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "XCLIPVisionModel");
  xclip_vision_tower(cfg, "", t);
  standalone_tower_dims(t, StackRole::Vision);
  t.rename_on_disk("", "vision_model.");
}

}  // namespace ma::families
