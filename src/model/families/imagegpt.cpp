// ImageGPT: GPT-2's decoder over colour-cluster tokens (512 clusters and a start token). Its LayerNorms are
// RMS norms with a weight and no bias (ImageGPTLayerNorm); the LM head predicts the 512 clusters, one row
// fewer than the token table, so it is a separate matrix; the classifier average-pools and scores without a
// bias.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/classic_decoder_parts.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// The cross-attention add_cross_attention gives every block: fused key/value, query and output Conv1Ds, then
// its weight-only norm.
void imagegpt_cross_attention(ModelTemplate& t, const std::string& p, uint64_t h) {
  classic::proj(t, p + ".crossattention.c_attn", h, 2 * h, true, classic::Weights::Conv1D);
  classic::proj(t, p + ".crossattention.q_attn", h, h, true, classic::Weights::Conv1D);
  classic::proj(t, p + ".crossattention.c_proj", h, h, true, classic::Weights::Conv1D);
  blocks::norm(t, p + ".ln_cross_attn", h, false);
}

}  // namespace

// ImageGPTConfig's defaults are openai/imagegpt-small's sizes (512 wide, 24 layers of 8 heads, 32 x 32
// positions) and leave the head untied. Tying would share the (vocab_size - 1)-row head with the
// vocab_size-row table, which transformers cannot do: refused. The causal masks are non-persistent buffers.
void build_imagegpt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ImageGPTModel");
  const std::string task =
      supported_task(cfg, cls, "ImageGPT", {"Model", "ForCausalImageModeling", "ForImageClassification"});
  classic::read_dims(cfg, classic::kGpt2Keys,
                     {.vocab_size = 513,
                      .hidden_size = 512,
                      .num_hidden_layers = 24,
                      .num_attention_heads = 8,
                      .tie_word_embeddings = false,
                      .max_position_embeddings = 1024},
                     t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.position = PositionKind::Learned;
  a.intermediate_size = classic::width_or_4x(cfg, "n_inner", a.hidden_size);
  if (a.tie_word_embeddings && task == "ForCausalImageModeling")
    cfg.fail("tie_word_embeddings",
             "must be false: the head has vocab_size - 1 rows, the token table vocab_size");
  if (task == "ForCausalImageModeling" && a.vocab_size < 2)
    cfg.fail("vocab_size", "must be at least 2: the head predicts vocab_size - 1 clusters");
  const bool cross = cfg.flag_or("add_cross_attention", false);
  const uint64_t h = a.hidden_size;
  const std::string prefix = task == "Model" ? "" : "transformer.";
  token_embedding(t, prefix + "wte.weight", a);
  blocks::embedding(t, prefix + "wpe.weight", a.max_position_embeddings, h);
  classic::decoder_stack(t, prefix + "h", [&](const std::string& p) {
    blocks::norm(t, p + ".ln_1", h, false);
    classic::fused_attention(t, p + ".attn", {"c_attn", "c_proj"}, a, true, classic::Weights::Conv1D);
    blocks::norm(t, p + ".ln_2", h, false);
    if (cross) imagegpt_cross_attention(t, p, h);
    classic::plain_mlp(t, p + ".mlp", {"c_fc", "c_proj"}, h, a.intermediate_size, true,
                       classic::Weights::Conv1D);
  });
  blocks::norm(t, prefix + "ln_f", h, false);
  if (task == "ForCausalImageModeling")
    blocks::linear(t, "lm_head", h, a.vocab_size - 1, false);
  else if (task == "ForImageClassification")
    blocks::linear(t, "score", h, num_labels(cfg), false);
}

}  // namespace ma::families
