// Gemma 4's assistant models (gemma4_assistant: the E2B, E4B, 26B-A4B and 31B drafters; and
// gemma4_unified_assistant: Gemma 4 12B's), small Gemma 4 text models for multi-token-prediction drafting.
// Every layer reads the target model's keys and values, so none has k/v projections. pre_projection maps the
// target's [token embedding, last hidden state] (2 x backbone_hidden_size) into the drafter's width,
// post_projection maps its output back; the head is tied to the embeddings and, with use_ordered_embeddings,
// scored only over the tokens of the best centroids (masked_embedding: a centroid linear and the int64
// token_ordering buffer that groups the vocabulary by centroid).
#include "core/error.h"
#include "model/families/decoder_common.h"
#include "model/families/decoders_b.h"
#include "model/families/gemma4_text.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// Gemma4AssistantForCausalLM and its unified copy register model, lm_head, pre_projection, post_projection
// and masked_embedding (centroids, then the token_ordering buffer, which checkpoints store: the model cards'
// 78M (E2B) and 78.8M (E4B) count its 262,144 entries).
void gemma4_drafter(const ModelConfig& cfg, const ModelConfig& text, ModelTemplate& t, bool unified_text,
                    uint64_t default_backbone) {
  t.arch.model_type = text.string_or("model_type", unified_text ? "gemma4_unified_text" : "gemma4_text");
  gemma4_text_decoder(text, t, "model.", {.unified = unified_text, .assistant = true});
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);
  const uint64_t h = t.arch.hidden_size;
  const uint64_t backbone = cfg.dim_or("backbone_hidden_size", default_backbone);
  lm_head(t, "model.embed_tokens.weight", t.arch);
  blocks::linear(t, "pre_projection", 2 * backbone, h, false);
  blocks::linear(t, "post_projection", h, backbone, false);
  if (!cfg.flag_or("use_ordered_embeddings", false)) return;
  // The embedder's own buffer precedes its centroids module in state_dict.
  TemplateTensor& ordering = t.add("masked_embedding.token_ordering", {t.arch.vocab_size});
  ordering.kind = TensorKind::Buffer;
  ordering.disk.push_back({.name = ordering.name, .shape = ordering.shape, .dtype = DType::I64});
  blocks::linear(t, "masked_embedding.centroids", h, cfg.dim_or("num_centroids", 2048), false);
}

// Gemma4AssistantConfig.validate_architecture: a drafter has no per-layer embeddings, experts or
// double-wide MLPs, and shares every layer's cache. Gemma4TextConfig's defaults give it per-layer embeddings
// (256 wide, 262,144 rows), so its config must say 0 for both.
void check_gemma4_drafter_text(const ModelConfig& text) {
  const uint64_t layers = text.layers_or("num_hidden_layers", 30);
  if (text.count_or("hidden_size_per_layer_input", 256) != 0)
    text.fail("hidden_size_per_layer_input", "must be 0 in a Gemma 4 assistant");
  if (text.count_or("vocab_size_per_layer_input", 262144) != 0)
    text.fail("vocab_size_per_layer_input", "must be 0 in a Gemma 4 assistant");
  if (text.flag_or("enable_moe_block", false))
    text.fail("enable_moe_block", "must be false in a Gemma 4 assistant");
  if (text.flag_or("use_double_wide_mlp", false))
    text.fail("use_double_wide_mlp", "must be false in a Gemma 4 assistant");
  const uint64_t shared = text.count_or("num_kv_shared_layers", 0);
  if (shared != 0 && shared != layers)
    text.fail("num_kv_shared_layers", "must be num_hidden_layers in a Gemma 4 assistant (all layers shared)");
}

}  // namespace

// Gemma4AssistantForCausalLM. Its config class builds no default text model: text_config is required.
void build_gemma4_assistant(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma4AssistantForCausalLM";
  const std::optional<ModelConfig> text = cfg.sub("text_config");
  if (!text) cfg.fail("text_config", "is required: the assistant's Gemma 4 text model");
  if (text->string_or("model_type", "gemma4_text") != "gemma4_text")
    unsupported(cfg, "gemma4_assistant with a " + text->string_or("model_type", "") + " text model");
  check_gemma4_drafter_text(*text);
  gemma4_drafter(cfg, *text, t, false, 1536);  // backbone: Gemma 4 E2B's width
}

// Gemma4UnifiedAssistantForCausalLM: text_config is an AutoConfig, a default Gemma4UnifiedTextConfig when
// absent. Its config class checks nothing: layers below num_kv_shared_layers keep their k/v projections, and
// a gemma4_text model keeps whatever its config gives it.
void build_gemma4_unified_assistant(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma4UnifiedAssistantForCausalLM";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string text_type = text.string_or("model_type", "gemma4_unified_text");
  if (text_type != "gemma4_unified_text" && text_type != "gemma4_text")
    unsupported(cfg, "gemma4_unified_assistant with a " + text_type + " text model");
  gemma4_drafter(cfg, text, t, text_type == "gemma4_unified_text", 3840);  // backbone: Gemma 4 12B's width
}

}  // namespace ma::families
