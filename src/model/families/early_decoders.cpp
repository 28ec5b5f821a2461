// Decoders that came before or beside GPT-2 and kept their own layouts: the first GPT (post-norm blocks,
// Conv1D projections, no final norm), CTRL (separate biased q/k/v, a biased head, sinusoidal positions), the
// fairseq ports XGLM (sinusoidal positions) and BioGPT (learned positions two rows longer, a head named
// output_projection), and GPT-NeoX-Japanese (bias-free linears but one attention bias, in the last layer).
// Each ties its head to the token embedding by default; checkpoints written before save_pretrained dropped
// tied names store the copy anyway (classic::causal_lm_head knows it).
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/classic_decoder_parts.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

using classic::causal_lm_head;
using classic::decoder_stack;
using classic::DimKeys;
using classic::Head;
using classic::layer_norm;
using classic::plain_mlp;
using classic::proj;
using classic::read_dims;
using classic::Weights;

// The first GPT (OpenAIGPTLMHeadModel): GPT-2's modules under other names, each block normed after its
// residual add (ln_1 after attention, ln_2 after the MLP), an MLP fixed at four times the width, no final
// norm. The Hub's checkpoint was saved from the base model, without the transformer. prefix and with each
// block's causal mask (attn.bias), a buffer transformers no longer saves.
void build_openai_gpt(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "OpenAIGPTLMHeadModel";
  const DecoderDefaults d{.vocab_size = 40478,
                          .hidden_size = 768,
                          .num_hidden_layers = 12,
                          .num_attention_heads = 12,
                          .tie_word_embeddings = true,
                          .max_position_embeddings = 512};
  read_dims(cfg, classic::kGpt2Keys, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  a.intermediate_size = 4 * h;
  a.post_norm = true;
  a.position = PositionKind::Learned;
  token_embedding(t, "transformer.tokens_embed.weight", a);
  blocks::embedding(t, "transformer.positions_embed.weight", a.max_position_embeddings, h);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    classic::fused_attention(t, p + ".attn", {"c_attn", "c_proj"}, a, true, Weights::Conv1D);
    layer_norm(t, p + ".ln_1", h);
    plain_mlp(t, p + ".mlp", {"c_fc", "c_proj"}, h, a.intermediate_size, true, Weights::Conv1D);
    layer_norm(t, p + ".ln_2", h);
  });
  causal_lm_head(t, "transformer.tokens_embed.weight");
}

// CTRL (CTRLLMHeadModel): pre-norm blocks of separate biased Wq, Wk, Wv and dense, a ReLU MLP of dff in an
// nn.Sequential (ffn.0, ffn.2), a final LayerNorm; sinusoidal positions (a buffer never saved); a head with a
// bias of its own beside the tied weight.
void build_ctrl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "CTRLLMHeadModel";
  const DecoderDefaults d{.vocab_size = 246534,
                          .hidden_size = 1280,
                          .num_hidden_layers = 48,
                          .num_attention_heads = 16,
                          .tie_word_embeddings = true,
                          .max_position_embeddings = 256};
  read_dims(cfg, classic::kGpt2Keys, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  a.intermediate_size = cfg.dim_or("dff", 8192);
  a.position = PositionKind::Sinusoidal;
  token_embedding(t, "transformer.w.weight", a);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    for (const char* m : {"Wq", "Wk", "Wv", "dense"}) proj(t, p + ".multi_head_attention." + m, h, h, true);
    plain_mlp(t, p + ".ffn", {"0", "2"}, h, a.intermediate_size, true);
    layer_norm(t, p + ".layernorm1", h);
    layer_norm(t, p + ".layernorm2", h);
  });
  layer_norm(t, "transformer.layernorm", h);
  Head head;
  head.bias = true;
  causal_lm_head(t, "transformer.w.weight", head);
}

// The fairseq decoders' layer: biased k, v, q and out_proj, with `cross` the same again over an encoder's
// output (encoder_attn), pre-norm, a two-matrix MLP (fc1, fc2).
void fairseq_layer(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t inter, bool cross) {
  for (const char* attention : {".self_attn.", ".encoder_attn."}) {
    if (attention[1] == 'e' && !cross) continue;
    for (const char* m : {"k_proj", "v_proj", "q_proj", "out_proj"}) proj(t, p + attention + m, h, h, true);
  }
  if (cross) layer_norm(t, p + ".encoder_attn_layer_norm", h);
  layer_norm(t, p + ".self_attn_layer_norm", h);
  plain_mlp(t, p, {"fc1", "fc2"}, h, inter, true);
  layer_norm(t, p + ".final_layer_norm", h);
}

// XGLM (XGLMForCausalLM): fairseq's layers under model., scaled token embeddings, sinusoidal positions (a
// table of max_position_embeddings + 2 rows computed at load, not saved), a final LayerNorm. With
// add_cross_attention each layer also attends an encoder's output.
void build_xglm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "XGLMForCausalLM";
  const DecoderDefaults d{.vocab_size = 256008,
                          .hidden_size = 1024,
                          .num_hidden_layers = 24,
                          .num_attention_heads = 16,
                          .tie_word_embeddings = true};
  read_dims(cfg,
            DimKeys{{"d_model", "hidden_size"},
                    {"num_layers", "num_hidden_layers"},
                    {"attention_heads", "num_attention_heads"}},
            d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  a.intermediate_size = cfg.dim_or("ffn_dim", 4096);
  a.position = PositionKind::Sinusoidal;
  const bool cross = cfg.flag_or("add_cross_attention", false);
  token_embedding(t, "model.embed_tokens.weight", a);
  decoder_stack(t, "model.layers",
                [&](const std::string& p) { fairseq_layer(t, p, h, a.intermediate_size, cross); });
  layer_norm(t, "model.layer_norm", h);
  causal_lm_head(t, "model.embed_tokens.weight");
}

// BioGPT (BioGptForCausalLM): fairseq's layers under biogpt., learned positions offset by two rows (a
// parameter of max_position_embeddings + 2 rows), a final LayerNorm, and the head named output_projection.
void build_biogpt(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "BioGptForCausalLM";
  const DecoderDefaults d{.vocab_size = 42384,
                          .hidden_size = 1024,
                          .intermediate_size = 4096,
                          .num_hidden_layers = 24,
                          .num_attention_heads = 16,
                          .tie_word_embeddings = true,
                          .max_position_embeddings = 1024};
  read_dims(cfg, DimKeys{}, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  a.intermediate_size = cfg.dim_or("intermediate_size", d.intermediate_size);
  a.position = PositionKind::Learned;
  token_embedding(t, "biogpt.embed_tokens.weight", a);
  blocks::embedding(t, "biogpt.embed_positions.weight", a.max_position_embeddings + 2, h);
  decoder_stack(t, "biogpt.layers",
                [&](const std::string& p) { fairseq_layer(t, p, h, a.intermediate_size, false); });
  layer_norm(t, "biogpt.layer_norm", h);
  Head head;
  head.name = "output_projection";
  causal_lm_head(t, "biogpt.embed_tokens.weight", head);
}

// GPT-NeoX-Japanese (GPTNeoXJapaneseForCausalLM): GPT-NeoX's layout without its biases, the MLP
// intermediate_multiple_size times the width, and one attention bias (dense_bias, added after the residual)
// owned by the last layer alone. Rotary positions; the 2022 checkpoints still store each layer's inv_freq.
void build_gpt_neox_japanese(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GPTNeoXJapaneseForCausalLM";
  const DecoderDefaults d{.vocab_size = 32000,
                          .hidden_size = 2560,
                          .num_hidden_layers = 32,
                          .num_attention_heads = 32,
                          .tie_word_embeddings = true};
  read_dims(cfg, DimKeys{}, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  a.intermediate_size = h * cfg.dim_or("intermediate_multiple_size", 4);  // each at most 2^26: no wrap
  const std::string base = "gpt_neox_japanese.";
  token_embedding(t, base + "embed_in.weight", a);
  uint64_t layer = 0;
  decoder_stack(t, base + "layers", [&](const std::string& p) {
    layer_norm(t, p + ".input_layernorm", h);
    layer_norm(t, p + ".post_attention_layernorm", h);
    if (++layer == a.num_layers) t.add(p + ".attention.dense_bias", {h});
    classic::fused_attention(t, p + ".attention", {"query_key_value", "dense"}, a, false);
    plain_mlp(t, p + ".mlp", {"dense_h_to_4h", "dense_4h_to_h"}, h, a.intermediate_size, false);
  });
  layer_norm(t, base + "final_layer_norm", h);
  Head head;
  head.name = "embed_out";
  causal_lm_head(t, base + "embed_in.weight", head);
}

constexpr std::array kEarlyDecoders{
    FamilyBuilder{"openai-gpt", build_openai_gpt},
    FamilyBuilder{"ctrl", build_ctrl},
    FamilyBuilder{"xglm", build_xglm},
    FamilyBuilder{"biogpt", build_biogpt},
    FamilyBuilder{"gpt_neox_japanese", build_gpt_neox_japanese},
};

}  // namespace

std::span<const FamilyBuilder> early_decoders() {
  return kEarlyDecoders;
}

}  // namespace ma::families
