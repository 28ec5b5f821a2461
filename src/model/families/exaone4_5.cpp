// EXAONE 4.5 (LG AI Research, exaone4_5): Qwen2.5-VL's vision tower with grouped key/value heads in its fused
// qkv, in front of EXAONE 4's language model (norms after each half, per-head q/k norms, "LLLG" windows).
// Its checkpoints keep transformers' names (model.visual, model.language_model, lm_head) and add a
// multi-token-prediction head (mtp.*) that transformers does not load.
#include <array>

#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/qwen_hybrid_blocks.h"

namespace ma::families {
namespace {

void build_exaone4_5(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Exaone4_5_ForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  // transformers reads the old exaone4_5_text as exaone4.
  const std::string type = text.string_or("model_type", "exaone4");
  if (type != "exaone4" && type != "exaone4_5_text")
    text.fail("model_type", "must be exaone4 (or exaone4_5_text), found '" + printable(type) + "'");
  t.arch.model_type = "exaone4";
  DecoderDefaults d;  // Exaone4Config's
  d.vocab_size = 102400;
  d.intermediate_size = 16384;
  d.num_key_value_heads = 32;
  read_decoder_dims(text, d, t);
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);  // only the top-level flag ties
  LlamaStyle s;
  s.qk_norm = QkNorm::PerHead;
  s.layer_norms = {"post_attention_layernorm", "post_feedforward_layernorm"};
  s.windows = exaone4_windows(text, t.arch.num_layers);
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  qwen::VisionTower v = qwen::read_vision(vision, qwen::VisionKind::Qwen2_5, false);
  v.kv_heads = vision.dim_or("num_key_value_heads", 8);
  if (v.heads % v.kv_heads != 0) vision.fail("num_key_value_heads", "must divide num_heads");
  qwen::vision_tower(t, "model.visual", v);
  llama_style_decoder(t, "model.language_model.", s);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  t.known_extras.push_back({"mtp.", "multi-token-prediction head: transformers does not load it"});
}

constexpr std::array kExaone45Families{FamilyBuilder{"exaone4_5", build_exaone4_5}};

}  // namespace

std::span<const FamilyBuilder> exaone4_5() {
  return kExaone45Families;
}

}  // namespace ma::families
