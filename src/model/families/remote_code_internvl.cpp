// InternVL's own checkpoints (OpenGVLab/InternVL2, 2.5, 3, 3.5: InternVLChatModel, model_type internvl_chat,
// modeling_internvl_chat.py and modeling_intern_vit.py), the layout transformers' InternVL converts from
// (convert_internvl_weights_to_hf.py). The same weights as the -hf checkpoints under other names:
//  - vision_model: InternViT with one fused attn.qkv [3 x width, width] per layer where the -hf form splits
//    q/k/v, layer scales ls1 / ls2, norm1 / norm2 (LayerNorms, or RMSNorms by norm_type, whose default here
//    is rms_norm), optional q/k RMSNorms over the whole width (qk_normalization);
//  - mlp1: LayerNorm, Linear, GELU, Linear from the pixel-shuffled features (width x (1 /
//  downsample_ratio)^2)
//    to the language model's width;
//  - language_model: the llm_config's own causal LM (Qwen2/3, InternLM2, Llama, Phi-3, ...) as its builder
//    makes it, under language_model. InternVLChatConfig forces tie_word_embeddings off for every size.
// select_layer only picks the feature layer at run time: every layer is built.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/remote_code.h"
#include "model/family_registry.h"

namespace ma::families::remote {
namespace {

// Moves everything built so far (names, ties, on-disk names, stack paths) under `prefix`.
void move_under(ModelTemplate& t, const std::string& prefix) {
  for (TemplateTensor& x : t.tensors) {
    x.name = prefix + x.name;
    if (!x.tied_to.empty()) x.tied_to = prefix + x.tied_to;
    for (DiskPiece& d : x.disk) d.name = prefix + d.name;
    if (x.per_expert) x.per_expert->prefix = prefix + x.per_expert->prefix;
  }
  for (ModelTemplate::KnownExtra& e : t.known_extras) e.prefix = prefix + e.prefix;
  for (StackSpec& s : t.arch.stacks) s.path = prefix + s.path;
}

// InternVisionModel under `p`; returns its width.
uint64_t intern_vit(ModelTemplate& t, const std::string& p, const ModelConfig& v) {
  const uint64_t h = v.dim_or("hidden_size", 3200), layers = v.layers_or("num_hidden_layers", 48, 0);
  const uint64_t heads = v.dim_or("num_attention_heads", 25), inter = v.dim_or("intermediate_size", 12800);
  if (h % heads != 0) v.fail("num_attention_heads", "must divide hidden_size");
  const uint64_t image = v.dim_or("image_size", 224), patch = v.dim_or("patch_size", 14);
  if (patch > image) v.fail("patch_size", "must not exceed image_size");
  const bool bias = v.flag_or("qkv_bias", false), qk_norm = v.flag_or("qk_normalization", false);
  const std::string norm_type = v.string_or("norm_type", "rms_norm");
  if (norm_type != "layer_norm" && norm_type != "rms_norm")
    v.fail("norm_type", "must be layer_norm or rms_norm, not " + printable(norm_type));
  const bool layer_norm = norm_type == "layer_norm";
  t.add(p + "embeddings.class_embedding", {1, 1, h});
  t.add(p + "embeddings.patch_embedding.weight", {h, v.dim_or("num_channels", 3), patch, patch});
  t.add(p + "embeddings.patch_embedding.bias", {h});
  t.add(p + "embeddings.position_embedding", {1, (image / patch) * (image / patch) + 1, h});
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "encoder.layers." + std::to_string(i) + ".";
    blocks::linear(t, l + "attn.qkv", h, 3 * h, bias);
    if (qk_norm) {
      blocks::norm(t, l + "attn.q_norm", h, false);
      blocks::norm(t, l + "attn.k_norm", h, false);
    }
    blocks::linear(t, l + "attn.proj", h, h, true);
    blocks::linear(t, l + "mlp.fc1", h, inter, true);
    blocks::linear(t, l + "mlp.fc2", inter, h, true);
    blocks::norm(t, l + "norm1", h, layer_norm);
    blocks::norm(t, l + "norm2", h, layer_norm);
    t.add(l + "ls1", {h});
    t.add(l + "ls2", {h});
  }
  record_vision_tower(t, p + "encoder.layers", h, layers, heads, h / heads, inter, patch, image);
  return h;
}

}  // namespace

void build_internvl_chat(const ModelConfig& cfg, ModelTemplate& t) {
  const std::optional<ModelConfig> llm = cfg.sub("llm_config");
  if (!llm) cfg.fail("llm_config", "must describe the language model");
  const std::string llm_type = llm->string_or("model_type", "");
  if (llm_type.empty() || llm_type == "internvl_chat")
    llm->fail("model_type", "must name the language model's type (qwen2, internlm2, llama, ...)");
  if (!find_family_builder(llm_type))
    unsupported(cfg, "llm_config", "InternVL with a " + printable(llm_type) + " language model");
  build_as(llm_type, *llm, t);
  // The language model's head is its own, whatever llm_config says: untie whatever is tied to the token
  // embedding.
  std::vector<std::string> untied;
  for (TemplateTensor& x : t.tensors) {
    if (x.tied_to.empty()) continue;
    const auto target = std::find_if(t.tensors.begin(), t.tensors.end(),
                                     [&](const TemplateTensor& y) { return y.name == x.tied_to; });
    if (target == t.tensors.end() || !target->embedding) continue;
    x.tied_to.clear();
    x.stored = true;
    untied.push_back(x.name);
  }
  std::erase_if(t.known_extras, [&](const ModelTemplate::KnownExtra& e) {
    return std::find(untied.begin(), untied.end(), e.prefix) != untied.end();
  });
  t.arch.tie_word_embeddings = false;
  move_under(t, "language_model.");
  t.arch.architecture = "InternVLChatModel";
  t.arch.model_type = "internvl_chat";

  const uint64_t vision = intern_vit(t, "vision_model.", sub_or_empty(cfg, "vision_config"));
  const uint64_t in = pixel_shuffled_width(cfg, vision), out = t.arch.hidden_size;
  blocks::norm(t, "mlp1.0", in, true);
  blocks::linear(t, "mlp1.1", in, out, true);
  blocks::linear(t, "mlp1.3", out, out, true);
  record_projector(t, "mlp1");
}

}  // namespace ma::families::remote
