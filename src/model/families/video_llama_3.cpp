// VideoLLaMA3 (video_llama_3, video_llama_3_vision; DAMO-NLP-SG's VideoLLaMA3-2B / -7B in transformers'
// form): a SigLIP-shaped vision encoder without a position table (its patches are placed by 2-D rotary
// positions, so any image size works) whose post_layernorm output is pooled by merge size, a two-linear GELU
// projector (readout.0, readout.2) into the language model's width, and a Qwen2 language model built as
// AutoModel builds text_config. VideoLlama3Model registers vision_model, projector, language_model; the
// conditional-generation class adds lm_head after them.
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/vlm_2026.h"

namespace ma::families {
namespace {

// VideoLlama3VisionConfig's fields and defaults (SigLIP-base's; the released models' tower is so400m's).
struct VideoLlama3Vision {
  uint64_t hidden = 768, intermediate = 3072, layers = 12, heads = 12, channels = 3, patch = 16;
};

VideoLlama3Vision read_video_llama_3_vision(const ModelConfig& v) {
  VideoLlama3Vision r;
  r.hidden = v.dim_or("hidden_size", r.hidden);
  r.intermediate = v.dim_or("intermediate_size", r.intermediate);
  r.layers = v.layers_or("num_hidden_layers", r.layers, 0);
  r.heads = v.dim_or("num_attention_heads", r.heads);
  // VideoLlama3VisionAttention raises unless the heads divide the width.
  if (r.hidden % r.heads != 0)
    v.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(r.hidden) + ")");
  r.channels = v.dim_or("num_channels", r.channels);
  r.patch = v.dim_or("patch_size", r.patch);
  return r;
}

// VideoLlama3VisionModel under `prefix`: a biased patch convolution, SigLIP's layers (layer_norm1,
// self_attn with k, v, q registered first, layer_norm2, mlp) and post_layernorm. The rotary inv_freq buffer
// is not persistent.
void video_llama_3_vision_tower(ModelTemplate& t, const std::string& prefix, const VideoLlama3Vision& v) {
  const uint64_t h = v.hidden;
  t.add(prefix + "embeddings.patch_embedding.weight", {h, v.channels, v.patch, v.patch});
  t.add(prefix + "embeddings.patch_embedding.bias", {h});
  for (uint64_t i = 0; i < v.layers; ++i) {
    const std::string l = prefix + "encoder.layers." + std::to_string(i) + ".";
    blocks::norm(t, l + "layer_norm1", h, true);
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      blocks::linear(t, l + "self_attn." + proj, h, h, true);
    blocks::norm(t, l + "layer_norm2", h, true);
    blocks::linear(t, l + "mlp.fc1", h, v.intermediate, true);
    blocks::linear(t, l + "mlp.fc2", v.intermediate, h, true);
  }
  blocks::norm(t, prefix + "post_layernorm", h, true);
  record_vision_tower(t, prefix + "encoder.layers", h, v.layers, v.heads, h / v.heads, v.intermediate,
                      v.patch, 0);
}

}  // namespace

void build_video_llama_3_vision(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VideoLlama3VisionModel");
  if (cls != "VideoLlama3VisionModel") unsupported(cfg, cls);
  const VideoLlama3Vision v = read_video_llama_3_vision(cfg);
  t.arch.architecture = cls;
  t.arch.hidden_size = v.hidden;
  t.arch.num_layers = v.layers;
  t.arch.num_attention_heads = t.arch.num_key_value_heads = v.heads;
  t.arch.head_dim = v.hidden / v.heads;
  t.arch.intermediate_size = v.intermediate;
  video_llama_3_vision_tower(t, "", v);
}

void build_video_llama_3(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VideoLlama3ForConditionalGeneration");
  if (cls != "VideoLlama3ForConditionalGeneration" && cls != "VideoLlama3Model") unsupported(cfg, cls);
  // VideoLlama3Config builds CONFIG_MAPPING[text_config["model_type"]] (a given text_config must name it),
  // else Qwen2Config().
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string type = cfg.has("text_config") ? sub_model_type(cfg, "text_config") : "qwen2";
  if (type != "qwen2") unsupported(cfg, "video_llama_3 with a " + type + " language model");
  const LlamaStyle style = read_qwen2_text(text, t);
  t.arch.architecture = cls;
  t.arch.model_type = type;
  // VideoLlama3Config ties when either its own flag or the text config's says so.
  t.arch.tie_word_embeddings =
      cfg.flag_or("tie_word_embeddings", false) || text.flag_or("tie_word_embeddings", false);

  const VideoLlama3Vision v = read_video_llama_3_vision(sub_or_empty(cfg, "vision_config"));
  const bool head = cls == "VideoLlama3ForConditionalGeneration";
  const std::string p = head ? "model." : "";
  video_llama_3_vision_tower(t, p + "vision_model.", v);
  blocks::linear(t, p + "projector.readout.0", v.hidden, t.arch.hidden_size, true);
  blocks::linear(t, p + "projector.readout.2", t.arch.hidden_size, t.arch.hidden_size, true);
  record_projector(t, p + "projector");
  llama_style_decoder(t, p + "language_model.", style);
  if (head) lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

}  // namespace ma::families
