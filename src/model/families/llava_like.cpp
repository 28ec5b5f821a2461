// LLaVA-style vision-language models: a vision tower, a projector to the text width and a decoder built from
// the nested text_config with the defaults of its own config class. LLaVA, LLaVA-NeXT and LLaVA-OneVision
// (CLIP or SigLIP towers, a two-layer projector; NeXT and OneVision add image_newline), Mistral 3
// (Mistral-Small-3.1: a Pixtral tower and a patch-merging projector; LightOnOCR the same around Qwen3),
// Idefics3 and SmolVLM (pixel shuffle and one linear), PaliGemma (one linear into Gemma), InternVL
// (InternViT, pixel shuffle and a two-layer projector), Idefics2 (a gated MLP and a perceiver resampler) and,
// with an audio tower, Qwen2-Audio and Voxtral. The decoder stack of the record describes the language model
// only.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/deepseek_like.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"
#include "model/families/llava_towers.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// The text-only families' readers, so a nested text_config gets the defaults of its own config class.
// `type`: the language model's model_type.
LlamaStyle read_llava_text_as(const ModelConfig& cfg, const ModelConfig& text, ModelTemplate& t,
                              const std::string& type) {
  LlamaStyle s;
  if (type == "llama" || type == "granite")  // GraniteConfig's defaults and tensors are Llama's
    s = read_llama_text(text, t);
  else if (type == "mistral")
    s = read_mistral_text(text, t, 4096);
  else if (type == "qwen2")
    s = read_qwen2_text(text, t);
  else if (type == "qwen3")
    s = read_qwen3_text(text, t);
  else
    unsupported(cfg, cfg.string_or("model_type", "llava") + " with a " + type + " language model");
  t.arch.model_type = type;
  return s;
}

LlamaStyle read_llava_text(const ModelConfig& cfg, const ModelConfig& text, ModelTemplate& t,
                           std::string_view default_type) {
  return read_llava_text_as(cfg, text, t, text.string_or("model_type", default_type));
}

// The original LLaVA repository's configs (LlavaLlamaForCausalLM, LLaVA-NeXT's and lmms-lab's
// LlavaQwenForCausalLM / LlavaMistralForCausalLM) have no text_config: their classes extend the language
// model's config, whose fields sit at the top level beside the mm_* ones. transformers reads such a config as
// LlavaConfig with a default Llama text_config, a model that cannot load these checkpoints; their layers are
// the top level's. "" for a config of transformers' own form.
std::string original_llava_text_type(const ModelConfig& cfg) {
  if (cfg.has("text_config") || !cfg.has("hidden_size")) return "";
  // The repository's own model_types (llava_llama, llava_qwen, llava_mistral) say it directly.
  const std::string type = cfg.string_or("model_type", "llava");
  if (type == "llava_llama") return "llama";
  if (type == "llava_qwen") return "qwen2";
  if (type == "llava_mistral") return "mistral";
  const std::string cls = first_architecture(cfg);
  if (cls.empty() || cls == "LlavaLlamaForCausalLM") return "llama";
  if (cls == "LlavaMistralForCausalLM") return "mistral";
  if (cls == "LlavaQwenForCausalLM") return "qwen2";
  unsupported(cfg, "original LLaVA with " + printable(cls));
}

// The tower mm_vision_tower names (a Hub id the original code loads from): SigLIP so400m/14-384 or CLIP
// ViT-L/14 at 336 (LLaVA-1.5's) or 224 pixels.
VitDefaults original_llava_tower(const ModelConfig& cfg) {
  const std::string tower = cfg.string_or("mm_vision_tower", "openai/clip-vit-large-patch14-336");
  VitDefaults vd =
      tower.find("siglip") != std::string::npos ? siglip_vision_defaults() : clip_vision_defaults();
  vd.hidden_size = 1024;
  vd.intermediate_size = 4096;
  vd.num_hidden_layers = 24;
  vd.num_attention_heads = 16;
  vd.patch_size = 14;
  vd.image_size = tower.find("336") != std::string::npos ? 336 : 224;
  if (tower.find("siglip") != std::string::npos) {
    vd.hidden_size = 1152;
    vd.intermediate_size = 4304;
    vd.num_hidden_layers = 26;
    vd.image_size = 384;
    vd.use_head = false;
    vd.model_type = "siglip_vision_model";
  }
  return vd;
}

// The original LLaVA repository's checkpoints (LlavaLlamaForCausalLM) keep the Llama layout and an
// nn.Sequential projector; their CLIP tower is loaded separately from mm_vision_tower.
void original_llava_disk_names(ModelTemplate& t) {
  t.rename_on_disk("language_model.", "model.");
  t.rename_on_disk("multi_modal_projector.linear_1.", "model.mm_projector.0.");
  t.rename_on_disk("multi_modal_projector.linear_2.", "model.mm_projector.2.");
  t.rename_on_disk("image_newline", "model.image_newline");
  t.known_extras.push_back({"lm_head.", "LLaVA's language-model head; LlavaModel has none"});
  for (uint64_t i = 0; i < t.arch.num_layers; ++i)
    t.known_extras.push_back({"model.layers." + std::to_string(i) + ".self_attn.rotary_emb.",
                              "rotary inv_freq buffer saved by old transformers versions"});
}

// What sets LLaVA, LLaVA-NeXT and LLaVA-OneVision apart: their classes, the language model and vision tower
// their configs default to, and NeXT's and OneVision's learned image_newline (one text-width vector that
// separates image rows).
struct LlavaKind {
  std::string_view prefix;        // class prefix: "Llava", "LlavaNext", "LlavaOnevision"
  std::string_view default_text;  // text_config's model_type when it names none
  bool siglip_default = false;    // OneVision's default tower: SigLIP so400m/14-384 without its head
  bool image_newline = false;
  // VipLLaVA: the features of vision_feature_layers (plural: five layers by default; the singular key some
  // of its configs carry is not read) side by side, a LayerNorm over them before linear_1, biases always.
  bool layer_normed_projector = false;
  // Video-LLaVA: two towers of the vision config, video_tower then image_tower, where LLaVA has one; its
  // default tower (no vision_config) sees 224 pixels.
  bool video_and_image_towers = false;
  uint64_t default_image_size = 336;
  // LLaVA-NeXT-Video's vision_resampler pools frames' patches; a Conv2d (weights of its own) only when
  // spatial_pool_mode is "conv".
  bool video_pooler = false;
  // VipLLaVA's and Video-LLaVA's configs tie the head by their own flag alone, never text_config's.
  bool text_config_ties = true;
};

// The features linear_1 reads: one tower layer's, or several side by side (a list of layers).
uint64_t feature_layers(const ModelConfig& cfg, const LlavaKind& kind) {
  const std::string_view key = kind.layer_normed_projector ? "vision_feature_layers" : "vision_feature_layer";
  const json::Value* select = cfg.raw(key);
  if (select && select->is_array()) return cfg.ints(key).size();
  return kind.layer_normed_projector && !select ? 5 : 1;  // VipLlavaConfig: (-2, -5, -8, -11, 6)
}

void build_llava_kind(const ModelConfig& cfg, ModelTemplate& t, const LlavaKind& kind) {
  // Configs naming a class transformers lacks (the original LlavaLlamaForCausalLM) load as the bare model.
  const std::string conditional_class = std::string(kind.prefix) + "ForConditionalGeneration";
  const bool conditional = first_architecture(cfg) == conditional_class;
  t.arch.architecture = conditional ? conditional_class : std::string(kind.prefix) + "Model";
  const std::string root = conditional ? "model." : "";
  const std::string original = conditional ? "" : original_llava_text_type(cfg);
  const ModelConfig text = original.empty() ? sub_or_empty(cfg, "text_config") : cfg;
  const LlamaStyle style = original.empty() ? read_llava_text(cfg, text, t, kind.default_text)
                                            : read_llava_text_as(cfg, cfg, t, original);
  t.arch.tie_word_embeddings =
      kind.text_config_ties ? tie_embeddings(cfg, text, false) : cfg.flag_or("tie_word_embeddings", false);

  const ModelConfig vcfg = sub_or_empty(cfg, "vision_config");
  const bool siglip =
      vcfg.string_or("model_type", kind.siglip_default ? "siglip_vision_model" : "") == "siglip_vision_model";
  VitDefaults vd = siglip ? siglip_vision_defaults() : clip_vision_defaults();
  if (!cfg.has("vision_config") && !kind.siglip_default) {  // the configs' own CLIP ViT-L/14-336 default
    vd.hidden_size = 1024;
    vd.intermediate_size = 4096;
    vd.num_hidden_layers = 24;
    vd.num_attention_heads = 16;
    vd.image_size = kind.default_image_size;
    vd.patch_size = 14;
  } else if (!cfg.has("vision_config")) {
    vd.hidden_size = 1152;
    vd.intermediate_size = 4304;
    vd.num_hidden_layers = 26;
    vd.num_attention_heads = 16;
    vd.image_size = 384;
    vd.patch_size = 14;
    vd.use_head = false;
  }
  // LLaVA-NeXT's originals: the learned row separator comes with the "unpad" patch merging. A parameter of
  // the model itself, so registered before its submodules (the towers).
  const bool newline =
      kind.image_newline ||
      (!original.empty() && cfg.string_or("mm_patch_merge_type", "flat").find("unpad") != std::string::npos);
  if (newline) {
    t.add(root + "image_newline", {t.arch.hidden_size});
    if (conditional) t.rename_on_disk(root + "image_newline", "image_newline");
  }
  if (!original.empty()) vd = original_llava_tower(cfg);
  if (kind.video_and_image_towers) vit_tower(vcfg, root + "video_tower.", vd, t);
  const uint64_t vision =
      vit_tower(vcfg, root + (kind.video_and_image_towers ? "image_tower." : "vision_tower."), vd, t);
  const bool bias = kind.layer_normed_projector || cfg.flag_or("multimodal_projector_bias", true);
  const uint64_t hidden = t.arch.hidden_size;
  if (!original.empty() && cfg.string_or("mm_projector_type", "mlp2x_gelu") != "mlp2x_gelu")
    unsupported(cfg,
                "original LLaVA with mm_projector_type " + printable(cfg.string_or("mm_projector_type", "")));
  const uint64_t features =
      original.empty() ? vision * feature_layers(cfg, kind) : cfg.dim_or("mm_hidden_size", vision);
  if (kind.layer_normed_projector)
    blocks::norm(t, root + "multi_modal_projector.projector_layernorm", features, true);
  blocks::linear(t, root + "multi_modal_projector.linear_1", features, hidden, bias);
  blocks::linear(t, root + "multi_modal_projector.linear_2", hidden, hidden, bias);
  record_projector(t, root + "multi_modal_projector");

  llama_style_decoder(t, root + "language_model.", style);
  if (kind.video_pooler && cfg.string_or("spatial_pool_mode", "average") == "conv") {
    const uint64_t stride = cfg.dim_or("spatial_pool_stride", 2);
    const uint64_t out = cfg.dim_or("spatial_pool_out_channels", vision);
    t.add(root + "vision_resampler.pool.weight", {out, vision, stride, stride});
    t.add(root + "vision_resampler.pool.bias", {out});
  }
  if (!conditional) {
    original_llava_disk_names(t);
    return;
  }
  lm_head(t, root + "language_model.embed_tokens.weight", t.arch);
  v4_conditional_disk_names(t);
  for (const char* tower : {"video_tower.", "image_tower."})
    if (kind.video_and_image_towers) t.rename_on_disk(root + tower, std::string(tower) + "vision_model.");
  if (kind.video_pooler) t.rename_on_disk(root + "vision_resampler.", "vision_resampler.");
}

void build_llava(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(cfg, t, {"Llava", "llama"});
}
void build_llava_next_video(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(
      cfg, t,
      {.prefix = "LlavaNextVideo", .default_text = "llama", .image_newline = true, .video_pooler = true});
}
void build_llava_next(const ModelConfig& cfg, ModelTemplate& t) {
  // LLaVA-NeXT-Video's first configs (and its DPO checkpoint's still) name llava_next with their own class.
  if (first_architecture(cfg) == "LlavaNextVideoForConditionalGeneration")
    return build_llava_next_video(cfg, t);
  build_llava_kind(cfg, t, {"LlavaNext", "llama", false, true});
}
void build_vipllava(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(cfg, t,
                   {.prefix = "VipLlava",
                    .default_text = "llama",
                    .layer_normed_projector = true,
                    .text_config_ties = false});
}
void build_video_llava(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(cfg, t,
                   {.prefix = "VideoLlava",
                    .default_text = "llama",
                    .video_and_image_towers = true,
                    .default_image_size = 224,
                    .text_config_ties = false});
}
void build_llava_onevision(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(cfg, t, {"LlavaOnevision", "qwen2", true, true});
}

// ---- Mistral 3: Pixtral tower + patch-merging projector + a Mistral decoder ----

// Mistral3Config's own sub-config defaults (Mistral-Small-3.1's sizes), for a config that omits one.
constexpr const char* kMistral3Text = R"({"model_type":"mistral","head_dim":128,"hidden_size":5120,
    "intermediate_size":32768,"max_position_embeddings":131072,"num_attention_heads":32,"num_hidden_layers":40,
    "num_key_value_heads":8,"vocab_size":131072})";
constexpr const char* kMistral3Vision =
    R"({"model_type":"pixtral","hidden_size":1024,"intermediate_size":4096,
    "patch_size":14,"image_size":1540,"num_hidden_layers":24,"num_attention_heads":16})";

// Mistral 3's projector under `p`: an RMSNorm of the tower's output, spatial_merge_size^2 neighbouring
// patches merged into one, then two linears to the text width, linear_1 reading `feature_layers` of the
// tower's layers side by side.
void mistral3_projector(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t vision,
                        uint64_t feature_layers, bool bias) {
  const uint64_t merge = cfg.dim_or("spatial_merge_size", 2);
  const std::optional<uint64_t> merged = checked_mul(vision, merge * merge);  // each at most 2^26
  if (!merged) cfg.fail("spatial_merge_size", "squared times the tower's width overflows 64-bit arithmetic");
  blocks::norm(t, p + "norm", vision, false);
  blocks::linear(t, p + "patch_merger.merging_layer", *merged, vision, false);
  blocks::linear(t, p + "linear_1", vision * feature_layers, t.arch.hidden_size, bias);
  blocks::linear(t, p + "linear_2", t.arch.hidden_size, t.arch.hidden_size, bias);
  record_projector(t, p.substr(0, p.size() - 1));
}

void build_mistral3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Mistral3ForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kMistral3Text);
  const std::string type = text.string_or("model_type", "mistral");
  // Mistral3Config now defaults to tied embeddings (for Ministral 3), but the configs of earlier checkpoints
  // (Mistral-Small-3.1) state nothing and their checkpoints hold their own lm_head, which transformers then
  // leaves untied: untied unless the config says otherwise.
  const bool tie = tie_embeddings(cfg, text, false);
  // The language model: Mistral's layout (Mistral Small 3.x: mistral; Ministral 3, Devstral 2: ministral3)
  // or a latent-attention mixture (Mistral Small 4: mistral4; Mistral Large 3: deepseek_v3), built first for
  // its width.
  LlamaStyle style;
  const bool latent = type == "mistral4" || type == "deepseek_v3";
  if (type == "mistral")
    style = read_mistral_text(text, t, 0);
  else if (type == "ministral3")
    style = read_ministral3_text(text, t);
  else if (latent)
    mla_language_model(text, type, t, "model.language_model.", tie);
  else
    unsupported(cfg, "mistral3 with a " + type + " language model");
  t.arch.model_type = type;
  t.arch.tie_word_embeddings = tie;
  const ModelConfig vision_cfg = sub_or(cfg, "vision_config", kMistral3Vision);
  if (vision_cfg.string_or("model_type", "pixtral") != "pixtral")
    vision_cfg.fail("model_type", "Mistral 3's vision tower is Pixtral");
  const uint64_t vision = pixtral_vision_tower(vision_cfg, "model.vision_tower.", t);
  // linear_1 takes every layer vision_feature_layer selects.
  const json::Value* select = cfg.raw("vision_feature_layer");
  const uint64_t feature_layers = select && select->is_array() ? cfg.ints("vision_feature_layer").size() : 1;
  mistral3_projector(cfg, t, "model.multi_modal_projector.", vision, feature_layers,
                     cfg.flag_or("multimodal_projector_bias", false));
  if (!latent) {
    llama_style_decoder(t, "model.language_model.", style);
    lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  }
  v4_conditional_disk_names(t, "vision_tower.");  // Pixtral has no vision_model wrapper
}

// ---- LightOnOCR: Mistral 3's model, its modules renamed, with a Qwen3 language model and unbiased linears
// ----

// LightOnOcrConfig's sub-config defaults (LightOnOCR-1B's).
constexpr const char* kLightOnOcrText = R"({"model_type":"qwen3","head_dim":128,"hidden_size":1024,
    "intermediate_size":3072,"max_position_embeddings":40960,"num_attention_heads":16,"num_hidden_layers":28,
    "num_key_value_heads":8,"vocab_size":151936})";
constexpr const char* kLightOnOcrVision = R"({"model_type":"pixtral","head_dim":64,"hidden_size":1024,
    "image_size":1540,"intermediate_size":4096,"num_attention_heads":16,"num_hidden_layers":24,
    "patch_size":14})";

// The projector is Mistral 3's (an RMSNorm, the patch merger, two linears) under vision_projection, its
// linears without biases and linear_1 reading one layer's features.
void build_lighton_ocr(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LightOnOcrForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kLightOnOcrText);
  const LlamaStyle style = read_llava_text(cfg, text, t, "qwen3");
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);  // the top-level flag ties
  const ModelConfig vision_cfg = sub_or(cfg, "vision_config", kLightOnOcrVision);
  if (vision_cfg.string_or("model_type", "pixtral") != "pixtral")
    vision_cfg.fail("model_type", "LightOnOCR's vision tower is Pixtral");
  const uint64_t vision = pixtral_vision_tower(vision_cfg, "model.vision_encoder.", t);
  mistral3_projector(cfg, t, "model.vision_projection.", vision, 1, false);
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

// ---- Idefics3 / SmolVLM: a headless SigLIP-style tower, pixel shuffle, one linear, a Llama decoder ----

}  // namespace

VitDefaults idefics3_vision_defaults(std::string_view vision_type) {
  VitDefaults d;
  d.hidden_size = 1152;
  d.num_hidden_layers = 12;
  d.num_attention_heads = 16;
  d.patch_size = 32;
  d.model_type = vision_type;
  return d;
}

namespace {

void build_idefics3_kind(const ModelConfig& cfg, ModelTemplate& t, std::string_view prefix,
                         std::string_view vision_type) {
  t.arch.architecture = std::string(prefix) + "ForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const LlamaStyle style = read_llava_text(cfg, text, t, "llama");
  // Only the top-level flag ties the head (default: not).
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  const ModelConfig vcfg = sub_or_empty(cfg, "vision_config");
  if (vcfg.string_or("model_type", vision_type) != vision_type)
    vcfg.fail("model_type", "must be " + std::string(vision_type));
  const uint64_t vision = vit_tower(vcfg, "model.vision_model.", idefics3_vision_defaults(vision_type), t);
  // The connector shuffles scale_factor^2 neighbouring patches into one vector, then projects it, unbiased.
  const uint64_t scale = cfg.dim_or("scale_factor", 2);
  blocks::linear(t, "model.connector.modality_projection.proj", vision * scale * scale, t.arch.hidden_size,
                 false);
  record_projector(t, "model.connector");
  llama_style_decoder(t, "model.text_model.", style);
  lm_head(t, "model.text_model.embed_tokens.weight", t.arch);
}

void build_idefics3(const ModelConfig& cfg, ModelTemplate& t) {
  build_idefics3_kind(cfg, t, "Idefics3", "idefics3_vision");
}
void build_smolvlm(const ModelConfig& cfg, ModelTemplate& t) {
  build_idefics3_kind(cfg, t, "SmolVLM", "smolvlm_vision");
}

// ---- Idefics2: the headless SigLIP-style tower, a gated MLP to the text width, a perceiver resampler that
// turns an image's patches into resampler_n_latents vectors, a Mistral decoder ----

// The perceiver resampler (Idefics2PerceiverResampler) at the text width `h`: learned latents; per layer
// RMSNorms of the latents and of the context, a GQA cross-attention of the latents over context + latents,
// and a gated MLP four times as wide, all unbiased; a final RMSNorm. Idefics2Config sets the perceiver's
// width to the text model's whatever its perceiver_config says.
void perceiver_resampler(const ModelConfig& pcfg, const std::string& p, uint64_t h, ModelTemplate& t) {
  const uint64_t latents = pcfg.dim_or("resampler_n_latents", 64);
  const uint64_t depth = pcfg.layers_or("resampler_depth", 3);
  const uint64_t heads = pcfg.dim_or("resampler_n_heads", 16),
                 head_dim = pcfg.dim_or("resampler_head_dim", 96);
  const uint64_t kv_heads = pcfg.dim_or("num_key_value_heads", 4);
  if (kv_heads > heads) pcfg.fail("num_key_value_heads", "must not exceed resampler_n_heads");
  t.add(p + "latents", {latents, h});
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    blocks::norm(t, l + "input_latents_norm", h, false);
    blocks::norm(t, l + "input_context_norm", h, false);
    blocks::linear(t, l + "self_attn.q_proj", h, heads * head_dim, false);
    blocks::linear(t, l + "self_attn.k_proj", h, kv_heads * head_dim, false);
    blocks::linear(t, l + "self_attn.v_proj", h, kv_heads * head_dim, false);
    blocks::linear(t, l + "self_attn.o_proj", heads * head_dim, h, false);
    blocks::norm(t, l + "post_attention_layernorm", h, false);
    blocks::linear(t, l + "mlp.gate_proj", h, 4 * h, false);
    blocks::linear(t, l + "mlp.up_proj", h, 4 * h, false);
    blocks::linear(t, l + "mlp.down_proj", 4 * h, h, false);
  }
  blocks::norm(t, p + "norm", h, false);
}

// Idefics2VisionConfig's defaults.
VitDefaults idefics2_vision_defaults() {
  VitDefaults d;
  d.patch_size = 32;
  d.model_type = "idefics2_vision";
  return d;
}

// Idefics2Config's text model when text_config is absent: Mistral's defaults with a 32,768-token context.
constexpr const char* kIdefics2Text = R"({"model_type":"mistral","max_position_embeddings":32768})";

void build_idefics2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Idefics2ForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kIdefics2Text);
  const LlamaStyle style = read_llava_text(cfg, text, t, "mistral");
  // Only the top-level flag ties the head (default: not).
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  const ModelConfig vcfg = sub_or_empty(cfg, "vision_config");
  const uint64_t vision = vit_tower(vcfg, "model.vision_model.", idefics2_vision_defaults(), t);
  // The modality projection: a gated MLP from the tower's width through the text model's intermediate size.
  const std::string c = "model.connector.";
  const uint64_t h = t.arch.hidden_size, inter = t.arch.intermediate_size;
  blocks::linear(t, c + "modality_projection.gate_proj", vision, inter, false);
  blocks::linear(t, c + "modality_projection.up_proj", vision, inter, false);
  blocks::linear(t, c + "modality_projection.down_proj", inter, h, false);
  perceiver_resampler(sub_or_empty(cfg, "perceiver_config"), c + "perceiver_resampler.", h, t);
  record_projector(t, "model.connector");
  llama_style_decoder(t, "model.text_model.", style);
  lm_head(t, "model.text_model.embed_tokens.weight", t.arch);
}

// ---- PaliGemma: a SigLIP tower without its head, one linear, a Gemma (PaliGemma 2: Gemma 2) decoder ----

// PaliGemmaConfig's own sub-config defaults (PaliGemma 3B's), for a config that omits one.
constexpr const char* kPaliGemmaText = R"({"model_type":"gemma","hidden_size":2048,"num_hidden_layers":18,
    "intermediate_size":16384,"num_attention_heads":8,"num_key_value_heads":1,"vocab_size":257152})";
constexpr const char* kPaliGemmaVision = R"({"model_type":"siglip_vision_model","intermediate_size":4096,
    "hidden_size":1152,"patch_size":14,"image_size":224,"num_hidden_layers":27,"num_attention_heads":16,
    "vision_use_head":false})";

LlamaStyle read_paligemma_text(const ModelConfig& cfg, const ModelConfig& text, ModelTemplate& t) {
  const std::string type = text.string_or("model_type", "gemma");
  t.arch.model_type = type;
  if (type == "gemma2") {
    read_decoder_dims(text, gemma_defaults(), t);
    return gemma_sandwich_style(text, t.arch, text.count_or("sliding_window", 4096), 2);
  }
  if (type != "gemma") unsupported(cfg, "paligemma with a " + type + " language model");
  DecoderDefaults d = gemma_defaults();  // GemmaConfig's own
  d.hidden_size = 3072;
  d.intermediate_size = 24576;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 16;
  read_decoder_dims(text, d, t);
  return attention_bias_style(text);
}

void build_paligemma(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "PaliGemmaForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kPaliGemmaText);
  const LlamaStyle style = read_paligemma_text(cfg, text, t);
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  const ModelConfig vcfg = sub_or(cfg, "vision_config", kPaliGemmaVision);
  const uint64_t vision = vit_tower(vcfg, "model.vision_tower.", siglip_vision_defaults(), t);
  // The projector maps the tower's width to projection_dim, which must be the text width.
  const uint64_t projection = vcfg.dim_or("projection_dim", cfg.dim_or("projection_dim", 2048));
  if (projection != t.arch.hidden_size)
    cfg.fail("projection_dim",
             "must equal text_config.hidden_size (" + std::to_string(t.arch.hidden_size) + ")");
  blocks::linear(t, "model.multi_modal_projector.linear", vision, projection, true);
  record_projector(t, "model.multi_modal_projector");
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  v4_conditional_disk_names(t);
}

// ---- Qwen2-Audio: Whisper's audio encoder, one linear, a Qwen2 decoder ----

}  // namespace

AudioEncoderDefaults whisper_large_v3_encoder() {
  AudioEncoderDefaults audio;
  audio.d_model = 1280;
  audio.layers = 32;
  audio.heads = 20;
  audio.ffn = 5120;
  audio.mel_bins = 128;
  return audio;
}

namespace {

void build_qwen2_audio(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2AudioForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const LlamaStyle style = read_llava_text(cfg, text, t, "qwen2");
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  const AudioEncoderDefaults audio = whisper_large_v3_encoder();
  const ModelConfig audio_cfg = sub_or_empty(cfg, "audio_config");
  whisper_audio_encoder(audio_cfg, t, "audio_tower", StackRole::Audio, audio);
  blocks::linear(t, "multi_modal_projector.linear", audio_cfg.dim_or("d_model", audio.d_model),
                 t.arch.hidden_size, true);
  record_projector(t, "multi_modal_projector");
  // transformers 5 keeps transformers 4's layout here: no model. wrapper, the decoder inside language_model.
  llama_style_decoder(t, "language_model.model.", style);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
}

// ---- Voxtral: Whisper's encoder, four frames stacked into one projector input, a Llama decoder ----

// Qwen3-ASR (qwen3_asr; its forced aligner the token-classification class): Qwen3-Omni's audio encoder, a
// two-linear projector to output_dim, Qwen3 under model.language_model. Each encoder frame is one token.
// Only the top-level flag ties the head (by default); the aligner's score head is never tied.
constexpr const char* kQwen3AsrText = R"({"model_type":"qwen3","hidden_size":2048,"intermediate_size":6144,
    "num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,
    "max_position_embeddings":65536})";

void build_qwen3_asr(const ModelConfig& cfg, ModelTemplate& t) {
  const bool aligner = first_architecture(cfg) == "Qwen3ASRForTokenClassification";
  t.arch.architecture = aligner ? "Qwen3ASRForTokenClassification" : "Qwen3ASRForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kQwen3AsrText);
  const LlamaStyle style = read_llava_text(cfg, text, t, "qwen3");
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  const uint64_t width = qwen3_asr_audio_encoder(audio, t, "model.audio_tower");
  const std::string p = "model.multi_modal_projector.";
  blocks::linear(t, p + "linear_1", width, width, true);
  blocks::linear(t, p + "linear_2", width, audio.dim_or("output_dim", 3584), true);
  record_projector(t, p.substr(0, p.size() - 1));
  llama_style_decoder(t, "model.language_model.", style);
  if (aligner) {
    t.arch.tie_word_embeddings = false;
    blocks::linear(t, "score", t.arch.hidden_size, num_labels(cfg),
                   cfg.flag_or("token_classification_bias", false));
    return;
  }
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

void build_voxtral(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "VoxtralForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  // VoxtralConfig overrides LlamaConfig's defaults with Mistral's (Voxtral-Mini-3B's sizes); the heads stay
  // Llama's 32.
  DecoderDefaults d;
  d.vocab_size = 131072;
  d.hidden_size = 3072;
  d.intermediate_size = 8192;
  d.num_hidden_layers = 30;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 131072;
  read_decoder_dims(text, d, t);
  t.arch.model_type = text.string_or("model_type", "llama");
  if (t.arch.model_type != "llama")
    unsupported(cfg, "voxtral with a " + t.arch.model_type + " language model");
  LlamaStyle style = attention_bias_style(text);
  style.mlp_bias = text.flag_or("mlp_bias", false);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  AudioEncoderDefaults audio = whisper_large_v3_encoder();
  audio.transformers_names = true;
  const ModelConfig audio_cfg = sub_or_empty(cfg, "audio_config");
  whisper_audio_encoder(audio_cfg, t, "audio_tower", StackRole::Audio, audio);
  // The encoder's output is read four frames at a time: intermediate_size (4 x hidden_size for Whisper's
  // shapes) values into the projector.
  const uint64_t frames_in = audio_cfg.dim_or(
      audio_cfg.has("intermediate_size") ? "intermediate_size" : "encoder_ffn_dim", audio.ffn);
  blocks::linear(t, "multi_modal_projector.linear_1", frames_in, t.arch.hidden_size, false);
  blocks::linear(t, "multi_modal_projector.linear_2", t.arch.hidden_size, t.arch.hidden_size, false);
  record_projector(t, "multi_modal_projector");
  // A whole LlamaForCausalLM under language_model, as transformers 5 still builds it.
  llama_style_decoder(t, "language_model.model.", style);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
}

// ---- InternVL (InternVL3 / 3.5 -hf checkpoints): InternViT, pixel shuffle and a two-layer projector ----

// A size InternVLVisionConfig takes as one int or an [height, width] pair.
std::pair<uint64_t, uint64_t> size_pair(const ModelConfig& v, std::string_view key, uint64_t dflt) {
  const json::Value* raw = v.raw(key);
  if (!raw || !raw->is_array()) return {v.dim_or(key, dflt), v.dim_or(key, dflt)};
  const std::vector<int64_t> hw = v.ints(key);
  if (hw.size() != 2 || hw[0] < 1 || hw[1] < 1) v.fail(key, "must be a size or a [height, width] pair");
  return {static_cast<uint64_t>(hw[0]), static_cast<uint64_t>(hw[1])};
}

}  // namespace

uint64_t internvit(ModelTemplate& t, const std::string& p, const ModelConfig& v) {
  const uint64_t h = v.dim_or("hidden_size", 1024), layers = v.layers_or("num_hidden_layers", 24, 0);
  const uint64_t heads = v.dim_or("num_attention_heads", 16), inter = v.dim_or("intermediate_size", 4096);
  if (h % heads != 0) v.fail("num_attention_heads", "must divide hidden_size");
  const auto [image_h, image_w] = size_pair(v, "image_size", 448);
  const auto [patch_h, patch_w] = size_pair(v, "patch_size", 14);
  if (patch_h > image_h || patch_w > image_w) v.fail("patch_size", "must not exceed image_size");
  const uint64_t patches = (image_h / patch_h) * (image_w / patch_w);
  const bool bias = v.flag_or("attention_bias", false), qk_norm = v.flag_or("use_qk_norm", false);
  const std::string norm_type = v.string_or("norm_type", "layer_norm");
  if (norm_type != "layer_norm" && norm_type != "rms_norm")
    v.fail("norm_type", "must be layer_norm or rms_norm, not " + printable(norm_type));
  const bool layer_norm = norm_type == "layer_norm";
  // A module's own parameters come before its children's (the embeddings' tokens and positions before the
  // patch convolution, a layer's scales before its attention).
  t.add(p + "embeddings.cls_token", {1, 1, h});
  if (v.flag_or("use_mask_token", false)) t.add(p + "embeddings.mask_token", {1, 1, h});
  if (v.flag_or("use_absolute_position_embeddings", true))
    t.add(p + "embeddings.position_embeddings", {1, patches + 1, h});
  t.add(p + "embeddings.patch_embeddings.projection.weight",
        {h, v.dim_or("num_channels", 3), patch_h, patch_w});
  t.add(p + "embeddings.patch_embeddings.projection.bias", {h});
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "encoder.layer." + std::to_string(i) + ".";
    t.add(l + "lambda_1", {h});  // layer scales
    t.add(l + "lambda_2", {h});
    for (const char* proj : {"q_proj", "k_proj", "v_proj"})
      blocks::linear(t, l + "attention." + proj, h, h, bias);
    blocks::linear(t, l + "attention.projection_layer", h, h, true);
    if (qk_norm) {  // RMSNorm over the whole width, before the heads split
      blocks::norm(t, l + "attention.q_norm", h, false);
      blocks::norm(t, l + "attention.k_norm", h, false);
    }
    blocks::linear(t, l + "mlp.fc1", h, inter, true);
    blocks::linear(t, l + "mlp.fc2", inter, h, true);
    blocks::norm(t, l + "layernorm_before", h, layer_norm);
    blocks::norm(t, l + "layernorm_after", h, layer_norm);
  }
  if (!v.flag_or("use_mean_pooling", true)) blocks::norm(t, p + "layernorm", h, true);
  record_vision_tower(t, p + "encoder.layer", h, layers, heads, h / heads, inter, patch_h, image_h);
  return h;
}

namespace {

void build_internvl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "InternVLForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const LlamaStyle style = read_llava_text(cfg, text, t, "qwen2");
  // InternVLConfig's own tie_word_embeddings defaults to true, but the InternVL3 checkpoints store lm_head
  // apart from the embeddings (their file sizes), which transformers then keeps untied: without an explicit
  // flag the head is the text model's own.
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  const uint64_t vision = internvit(t, "model.vision_tower.", sub_or_empty(cfg, "vision_config"));
  const uint64_t in = pixel_shuffled_width(cfg, vision), out = t.arch.hidden_size;
  blocks::norm(t, "model.multi_modal_projector.layer_norm", in, true);
  blocks::linear(t, "model.multi_modal_projector.linear_1", in, out, true);
  blocks::linear(t, "model.multi_modal_projector.linear_2", out, out, true);
  record_projector(t, "model.multi_modal_projector");
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  // The -hf checkpoints keep transformers 4's names; InternViT has no vision_model wrapper.
  v4_conditional_disk_names(t, "vision_tower.");
}

constexpr std::array kLlavaLikeFamilies{
    FamilyBuilder{"llava", build_llava},
    // The original LLaVA repository's config classes, under their own names.
    FamilyBuilder{"llava_llama", build_llava},
    FamilyBuilder{"llava_qwen", build_llava},
    FamilyBuilder{"llava_mistral", build_llava},
    FamilyBuilder{"llava_next", build_llava_next},
    // Granite Vision: transformers reads its model_type as LlavaNextConfig (a Granite language model).
    FamilyBuilder{"granitevision", build_llava_next},
    FamilyBuilder{"llava_next_video", build_llava_next_video},
    FamilyBuilder{"vipllava", build_vipllava},
    FamilyBuilder{"video_llava", build_video_llava},
    FamilyBuilder{"llava_onevision", build_llava_onevision},
    FamilyBuilder{"mistral3", build_mistral3},
    FamilyBuilder{"lighton_ocr", build_lighton_ocr},
    FamilyBuilder{"qwen3_asr", build_qwen3_asr},
    FamilyBuilder{"idefics2", build_idefics2},
    FamilyBuilder{"idefics3", build_idefics3},
    FamilyBuilder{"smolvlm", build_smolvlm},
    FamilyBuilder{"paligemma", build_paligemma},
    FamilyBuilder{"qwen2_audio", build_qwen2_audio},
    FamilyBuilder{"internvl", build_internvl},
    FamilyBuilder{"voxtral", build_voxtral},
};

}  // namespace

std::span<const FamilyBuilder> llava_like() {
  return kLlavaLikeFamilies;
}

}  // namespace ma::families
