// PaddleOCR-VL (Baidu, paddleocr_vl): a headless SigLIP tower (so400m's sizes at 384 pixels in patches of
// 14), a projector that normalises each patch and folds spatial_merge_size^2 neighbours into two biased
// linears, and ERNIE-4.5-0.3B. The Hub's configs are the remote code's flat form, the language model's
// fields at the top level; transformers' nest them in text_config. The checkpoints keep the remote code's
// names (model.*, visual.vision_model.*, mlp_AR.*), which transformers renames on load, and two tensors
// sets its model drops: a packed-position table and SigLIP's pooling head.
#include <array>
#include <optional>

#include "core/checked.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// PaddleOCRVisionConfig's defaults: not SigLIP's.
VitDefaults paddleocr_vision_defaults() {
  VitDefaults d;
  d.hidden_size = 1152;
  d.intermediate_size = 4304;
  d.num_hidden_layers = 27;
  d.num_attention_heads = 16;
  d.image_size = 384;
  d.patch_size = 14;
  d.model_type = "paddleocr_vl_vision";
  return d;
}

void build_paddleocr_vl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "PaddleOCRVLForConditionalGeneration";
  const std::optional<ModelConfig> nested = cfg.sub("text_config");
  const ModelConfig& text = nested ? *nested : cfg;
  const LlamaStyle style = read_ernie4_5_text(text, t);
  t.arch.model_type = "ernie4_5";
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);  // the top-level flag ties
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const uint64_t width = vit_tower(vision, "model.visual.vision_model.", paddleocr_vision_defaults(), t);
  const uint64_t merge = vision.dim_or("spatial_merge_size", 2);
  const std::optional<uint64_t> merged = checked_mul(width, merge * merge);  // each at most 2^26
  if (!merged) vision.fail("spatial_merge_size", "squared times hidden_size overflows 64-bit arithmetic");
  const std::string p = "model.projector.";
  blocks::norm(t, p + "pre_norm", width, true);
  blocks::linear(t, p + "linear_1", *merged, *merged, true);
  blocks::linear(t, p + "linear_2", *merged, t.arch.hidden_size, true);
  record_projector(t, "model.projector");
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  t.rename_on_disk("model.language_model.", "model.");
  t.rename_on_disk("model.visual.", "visual.");
  t.rename_on_disk("model.projector.", "mlp_AR.");
  for (const char* prefix :
       {"visual.vision_model.embeddings.packing_position_embedding.", "visual.vision_model.head."})
    t.known_extras.push_back({prefix, "stored by PaddleOCR-VL's checkpoints, not loaded by transformers"});
}

constexpr std::array kPaddleOcrVlFamilies{FamilyBuilder{"paddleocr_vl", build_paddleocr_vl}};

}  // namespace

std::span<const FamilyBuilder> paddleocr_vl() {
  return kPaddleOcrVlFamilies;
}

}  // namespace ma::families
