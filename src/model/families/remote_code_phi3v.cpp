// Phi-3-vision and Phi-3.5-vision (Phi3VForCausalLM, modeling_phi3_v.py): Phi-3-mini with an image
// embedding beside its token embedding (model.vision_embed_tokens). The embedding runs a CLIP ViT-L/14-336
// the code hard-codes (the whole CLIPVisionModel, although it reads the second-to-last layer), merges each 2
// x 2 patches into one 4 x 1,024-wide vector (the HD transform), separates rows and images with two learned
// vectors (sub_GN, glb_GN: bare parameters) and projects through Linear, GELU, Linear. Its wte is the token
// embedding itself, a second name for one tensor that the checkpoints store once.
#include <optional>
#include <string>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {

void build_phi3_v(const ModelConfig& cfg, ModelTemplate& t) {
  build_as("phi3", cfg, t);
  t.arch.architecture = "Phi3VForCausalLM";
  t.arch.model_type = "phi3_v";
  // embd_layer "default" (or absent): a text model, no image embedding at all.
  const json::Value* raw_embd = cfg.raw("embd_layer");
  if (!raw_embd || !raw_embd->is_object()) return;
  const std::optional<ModelConfig> embd = cfg.sub("embd_layer");
  const std::optional<ModelConfig> processor = cfg.sub("img_processor");
  if (!processor) cfg.fail("img_processor", "must describe the image processor when embd_layer is an object");
  if (processor->string_or("name", "clip_vision_model") != "clip_vision_model")
    unsupported(cfg, "img_processor", "Phi-3-vision with an image processor other than CLIP");
  const bool hd = embd->flag_or("use_hd_transform", false);
  if (hd != embd->flag_or("with_learnable_separator", false))
    embd->fail("with_learnable_separator", "must equal use_hd_transform, as the model asserts");
  if (embd->string_or("projection_cls", "linear") != "mlp")
    unsupported(cfg, "embd_layer", "Phi-3-vision with a projection_cls other than mlp");
  const uint64_t width = processor->dim_or("image_dim_out", 1024), h = t.arch.hidden_size;
  const std::string p = "model.vision_embed_tokens.";
  t.tie(p + "wte.weight", "model.embed_tokens.weight");
  VitDefaults clip = clip_vision_defaults();  // CLIP_VIT_LARGE_PATCH14_336_CONFIG, whatever the config says
  clip.hidden_size = 1024;
  clip.intermediate_size = 4096;
  clip.num_hidden_layers = 24;
  clip.num_attention_heads = 16;
  clip.image_size = 336;
  clip.patch_size = 14;
  vit_tower(cfg.derived("{}"), p + "img_processor.vision_model.", clip, t);
  const uint64_t merged = hd ? 4 * width : width;
  if (hd) {
    t.add(p + "glb_GN", {1, 1, merged});
    t.add(p + "sub_GN", {1, 1, 1, merged});
  }
  blocks::linear(t, p + "img_projection.0", merged, h, true);
  blocks::linear(t, p + "img_projection.2", h, h, true);
  record_projector(t, p + "img_projection");
}

}  // namespace ma::families::remote
