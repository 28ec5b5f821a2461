// HunyuanOCR (Tencent, hunyuan_vl): a SigLIP-style vision transformer over a large learned position table,
// a convolutional patch merger with newline and begin / end vectors, and Hunyuan's dense decoder. The Hub's
// config is flat (the language model's fields at the top level); the checkpoint keeps transformers 4's
// names (model.*, vit.*), which transformers renames on load.
#include <array>
#include <optional>

#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

void build_hunyuan_vl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "HunYuanVLForConditionalGeneration";
  const std::optional<ModelConfig> nested = cfg.sub("text_config");
  const ModelConfig& text = nested ? *nested : cfg;
  DecoderDefaults d;  // HunYuanVLTextConfig's
  d.vocab_size = 290943;
  d.intermediate_size = 11008;
  d.tie_word_embeddings = true;
  const LlamaStyle style = read_hunyuan_dense_text(text, d, t);
  t.arch.model_type = "hunyuan_v1_dense";
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);
  // The merger's output width is the text model's whatever out_hidden_size says: transformers sets it so.
  hunyuan_vl_vision_tower(sub_or_empty(cfg, "vision_config"), "model.vision_tower.", t.arch.hidden_size, t);
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  t.rename_on_disk("model.language_model.", "model.");
}

constexpr std::array kHunyuanVlFamilies{FamilyBuilder{"hunyuan_vl", build_hunyuan_vl}};

}  // namespace

std::span<const FamilyBuilder> hunyuan_vl() {
  return kHunyuanVlFamilies;
}

}  // namespace ma::families
