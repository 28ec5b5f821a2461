// LLaVA-style vision-language models: a vision tower, a projector to the text width and a decoder built from
// the nested text_config with the defaults of its own config class. LLaVA, LLaVA-NeXT and LLaVA-OneVision
// (CLIP or SigLIP towers, a two-layer projector; NeXT and OneVision add image_newline), Mistral 3
// (Mistral-Small-3.1: a Pixtral tower and a patch-merging projector), Idefics3 and SmolVLM (pixel shuffle
// and one linear), PaliGemma (one linear into Gemma) and, with an audio tower, Qwen2-Audio. The decoder
// stack of the record describes the language model only.
#include <array>
#include <string>
#include <string_view>

#include "model/families/decoder_llama.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// The text-only families' readers, so a nested text_config gets the defaults of its own config class.
LlamaStyle read_llava_text(const ModelConfig& cfg, const ModelConfig& text, ModelTemplate& t,
                           std::string_view default_type) {
  const std::string type = text.string_or("model_type", default_type);
  LlamaStyle s;
  if (type == "llama")
    s = read_llama_text(text, t);
  else if (type == "mistral")
    s = read_mistral_text(text, t, 4096);
  else if (type == "qwen2")
    s = read_qwen2_text(text, t);
  else
    unsupported(cfg, cfg.string_or("model_type", "llava") + " with a " + type + " language model");
  t.arch.model_type = type;
  return s;
}

// The original LLaVA repository's checkpoints (LlavaLlamaForCausalLM) keep the Llama layout and an
// nn.Sequential projector; their CLIP tower is loaded separately from mm_vision_tower.
void original_llava_disk_names(ModelTemplate& t) {
  t.rename_on_disk("language_model.", "model.");
  t.rename_on_disk("multi_modal_projector.linear_1.", "model.mm_projector.0.");
  t.rename_on_disk("multi_modal_projector.linear_2.", "model.mm_projector.2.");
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
};

void build_llava_kind(const ModelConfig& cfg, ModelTemplate& t, const LlavaKind& kind) {
  // Configs naming a class transformers lacks (the original LlavaLlamaForCausalLM) load as the bare model.
  const std::string conditional_class = std::string(kind.prefix) + "ForConditionalGeneration";
  const bool conditional = first_architecture(cfg) == conditional_class;
  t.arch.architecture = conditional ? conditional_class : std::string(kind.prefix) + "Model";
  const std::string root = conditional ? "model." : "";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const LlamaStyle style = read_llava_text(cfg, text, t, kind.default_text);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);

  const ModelConfig vcfg = sub_or_empty(cfg, "vision_config");
  const bool siglip =
      vcfg.string_or("model_type", kind.siglip_default ? "siglip_vision_model" : "") == "siglip_vision_model";
  VitDefaults vd = siglip ? siglip_vision_defaults() : clip_vision_defaults();
  if (!cfg.has("vision_config") && !kind.siglip_default) {  // the configs' own CLIP ViT-L/14-336 default
    vd.hidden_size = 1024;
    vd.intermediate_size = 4096;
    vd.num_hidden_layers = 24;
    vd.num_attention_heads = 16;
    vd.image_size = 336;
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
  const uint64_t vision = vit_tower(vcfg, root + "vision_tower.", vd, t);
  if (kind.image_newline) {
    t.add(root + "image_newline", {t.arch.hidden_size});
    if (conditional) t.rename_on_disk(root + "image_newline", "image_newline");
  }
  const json::Value* select = cfg.raw("vision_feature_layer");
  const uint64_t feature_layers = select && select->is_array() ? cfg.ints("vision_feature_layer").size() : 1;
  const bool bias = cfg.flag_or("multimodal_projector_bias", true);
  const uint64_t hidden = t.arch.hidden_size;
  blocks::linear(t, root + "multi_modal_projector.linear_1", vision * feature_layers, hidden, bias);
  blocks::linear(t, root + "multi_modal_projector.linear_2", hidden, hidden, bias);
  record_projector(t, root + "multi_modal_projector");

  llama_style_decoder(t, root + "language_model.", style);
  if (!conditional) {
    original_llava_disk_names(t);
    return;
  }
  lm_head(t, root + "language_model.embed_tokens.weight", t.arch);
  v4_conditional_disk_names(t);
}

void build_llava(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(cfg, t, {"Llava", "llama"});
}
void build_llava_next(const ModelConfig& cfg, ModelTemplate& t) {
  build_llava_kind(cfg, t, {"LlavaNext", "llama", false, true});
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

// A nested config, or `dflt` (parsed only then) when the key is absent or null.
ModelConfig sub_or(const ModelConfig& cfg, std::string_view key, const char* dflt) {
  if (auto s = cfg.sub(key)) return *s;
  return ModelConfig::parse(dflt, cfg.file());
}

void build_mistral3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Mistral3ForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kMistral3Text);
  const std::string type = text.string_or("model_type", "mistral");
  if (type != "mistral") unsupported(cfg, "mistral3 with a " + type + " language model");
  const LlamaStyle style = read_mistral_text(text, t, 0);
  t.arch.model_type = type;
  // Mistral3Config now defaults to tied embeddings (for Ministral 3), but the configs of earlier checkpoints
  // (Mistral-Small-3.1) state nothing and their checkpoints hold their own lm_head, which transformers then
  // leaves untied: untied unless the config says otherwise.
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  const ModelConfig vision_cfg = sub_or(cfg, "vision_config", kMistral3Vision);
  if (vision_cfg.string_or("model_type", "pixtral") != "pixtral")
    vision_cfg.fail("model_type", "Mistral 3's vision tower is Pixtral");
  const uint64_t vision = pixtral_vision_tower(vision_cfg, "model.vision_tower.", t);
  // The projector: an RMSNorm of the tower's output, spatial_merge_size^2 neighbouring patches merged into
  // one, then two linears to the text width (linear_1 takes every layer vision_feature_layer selects).
  const std::string p = "model.multi_modal_projector.";
  const uint64_t merge = cfg.dim_or("spatial_merge_size", 2);
  const json::Value* select = cfg.raw("vision_feature_layer");
  const uint64_t feature_layers = select && select->is_array() ? cfg.ints("vision_feature_layer").size() : 1;
  const bool bias = cfg.flag_or("multimodal_projector_bias", false);
  blocks::norm(t, p + "norm", vision, false);
  blocks::linear(t, p + "patch_merger.merging_layer", vision * merge * merge, vision, false);
  blocks::linear(t, p + "linear_1", vision * feature_layers, t.arch.hidden_size, bias);
  blocks::linear(t, p + "linear_2", t.arch.hidden_size, t.arch.hidden_size, bias);
  record_projector(t, p.substr(0, p.size() - 1));
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  // Hub checkpoints keep transformers 4's layout (Pixtral has no vision_model wrapper).
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("model.vision_tower.", "vision_tower.");
  t.rename_on_disk("model.multi_modal_projector.", "multi_modal_projector.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
}

// ---- Idefics3 / SmolVLM: a headless SigLIP-style tower, pixel shuffle, one linear, a Llama decoder ----

// Idefics3VisionConfig's defaults (SmolVLMVisionConfig's are the same).
VitDefaults idefics3_vision_defaults(std::string_view vision_type) {
  VitDefaults d;
  d.hidden_size = 1152;
  d.num_hidden_layers = 12;
  d.num_attention_heads = 16;
  d.patch_size = 32;
  d.model_type = vision_type;
  return d;
}

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

void build_qwen2_audio(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2AudioForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const LlamaStyle style = read_llava_text(cfg, text, t, "qwen2");
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  // Qwen2AudioEncoderConfig's defaults: Whisper-large-v3's encoder. Its positions are a frozen nn.Embedding,
  // a parameter that num_parameters counts.
  AudioEncoderDefaults audio;
  audio.d_model = 1280;
  audio.layers = 32;
  audio.heads = 20;
  audio.ffn = 5120;
  audio.mel_bins = 128;
  const ModelConfig audio_cfg = sub_or_empty(cfg, "audio_config");
  whisper_audio_encoder(audio_cfg, t, "audio_tower", StackRole::Audio, audio);
  blocks::linear(t, "multi_modal_projector.linear", audio_cfg.dim_or("d_model", audio.d_model),
                 t.arch.hidden_size, true);
  record_projector(t, "multi_modal_projector");
  // transformers 5 keeps transformers 4's layout here: no model. wrapper, the decoder inside language_model.
  llama_style_decoder(t, "language_model.model.", style);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
}

constexpr std::array kLlavaLikeFamilies{
    FamilyBuilder{"llava", build_llava},
    FamilyBuilder{"llava_next", build_llava_next},
    FamilyBuilder{"llava_onevision", build_llava_onevision},
    FamilyBuilder{"mistral3", build_mistral3},
    FamilyBuilder{"idefics3", build_idefics3},
    FamilyBuilder{"smolvlm", build_smolvlm},
    FamilyBuilder{"paligemma", build_paligemma},
    FamilyBuilder{"qwen2_audio", build_qwen2_audio},
};

}  // namespace

std::span<const FamilyBuilder> llava_like() {
  return kLlavaLikeFamilies;
}

}  // namespace ma::families
