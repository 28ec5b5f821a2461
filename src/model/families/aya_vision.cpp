// Aya Vision (Cohere Labs: aya-vision-8b, -32b; AyaVisionForConditionalGeneration): a SigLIP tower, a
// pixel-shuffle projector with a SwiGLU (LayerNorm over downsample_factor^2 patches, linear_1 to
// alignment_intermediate_size, the SwiGLU halving it, linear_2 to the text width; every part biased) and a
// Cohere2 (or Cohere) language model, its head tied by default. The tower is built whole although the
// features are read before its post_layernorm. The Hub checkpoints keep transformers 4's names. Command A
// Vision (cohere2_vision) is the same model without the projector's LayerNorm.
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

void build_aya_vision(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "AyaVisionForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string type = text.string_or("model_type", "cohere2");
  if (type != "cohere2" && type != "cohere")
    unsupported(cfg, "aya_vision with a " + type + " language model");
  const LlamaStyle style = type == "cohere2" ? read_cohere2_text(text, t) : read_cohere_text(text, t);
  t.arch.model_type = type;
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);

  // AyaVisionConfig's default tower (SigLIP so400m/14-384 without its head); a given vision_config builds
  // SigLIP's head unless it says vision_use_head false, as the Hub's do.
  VitDefaults vd = siglip_vision_defaults();
  vd.hidden_size = 1152;
  vd.intermediate_size = 4304;
  vd.num_hidden_layers = 26;
  vd.num_attention_heads = 14;
  vd.image_size = 384;
  vd.patch_size = 14;
  vd.use_head = cfg.has("vision_config");
  vd.model_type = "siglip_vision_model";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), "model.vision_tower.", vd, t);
  const uint64_t fold = cfg.dim_or("downsample_factor", 2);
  if (fold > 64) cfg.fail("downsample_factor", "is larger than any real model's (64)");
  const uint64_t in = vision * fold * fold, hidden = t.arch.hidden_size;
  // Not a declared field: without it the projector is the text width wide.
  const uint64_t inner = cfg.dim_or("alignment_intermediate_size", hidden);
  if (inner % 2 != 0) cfg.fail("alignment_intermediate_size", "must be even: the SwiGLU halves it");
  blocks::norm(t, "model.multi_modal_projector.layernorm", in, true);
  blocks::linear(t, "model.multi_modal_projector.linear_1", in, inner, true);
  blocks::linear(t, "model.multi_modal_projector.linear_2", inner / 2, hidden, true);
  record_projector(t, "model.multi_modal_projector");
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  v4_conditional_disk_names(t);
}

// Command A Vision (cohere2_vision, Cohere2VisionForConditionalGeneration): Aya Vision's model with a SigLIP
// tower read after its post_layernorm and a projector without the LayerNorm (linear_1 to
// alignment_intermediate_size, declared here: 36,864 by default), around Cohere2. Its checkpoints keep
// transformers' names but for the tower's vision_model wrapper.
void build_cohere2_vision(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Cohere2VisionForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string type = text.string_or("model_type", "cohere2");
  if (type != "cohere2") unsupported(cfg, "cohere2_vision with a " + type + " language model");
  const LlamaStyle style = read_cohere2_text(text, t);
  t.arch.model_type = type;
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);  // the top-level flag ties
  // Cohere2VisionConfig's default tower; SigLIP builds its pooling head unless vision_use_head says false.
  VitDefaults vd = siglip_vision_defaults();
  vd.hidden_size = 1152;
  vd.image_size = 512;
  vd.num_hidden_layers = 27;
  vd.model_type = "siglip_vision_model";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), "model.vision_tower.", vd, t);
  const uint64_t fold = cfg.dim_or("downsample_factor", 2);
  if (fold > 64) cfg.fail("downsample_factor", "is larger than any real model's (64)");
  const uint64_t inner = cfg.dim_or("alignment_intermediate_size", 36864);
  if (inner % 2 != 0) cfg.fail("alignment_intermediate_size", "must be even: the SwiGLU halves it");
  blocks::linear(t, "model.multi_modal_projector.linear_1", vision * fold * fold, inner, true);
  blocks::linear(t, "model.multi_modal_projector.linear_2", inner / 2, t.arch.hidden_size, true);
  record_projector(t, "model.multi_modal_projector");
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  t.rename_on_disk("model.vision_tower.", "model.vision_tower.vision_model.");
}

constexpr std::array kAyaVisionFamilies{FamilyBuilder{"aya_vision", build_aya_vision},
                                        FamilyBuilder{"cohere2_vision", build_cohere2_vision}};

}  // namespace

std::span<const FamilyBuilder> aya_vision() {
  return kAyaVisionFamilies;
}

}  // namespace ma::families
