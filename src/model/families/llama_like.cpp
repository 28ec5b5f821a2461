// Llama and the decoders that share its layout: embed_tokens, N x (self_attn + MLP + per-layer norms), final
// norm, lm_head. They differ in defaults, biases, q/k norms, fused projections, which norms a layer carries
// and which layers attend through a sliding window; one parameterised builder covers them all.
#include <array>

#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

void build_llama(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LlamaForCausalLM";
  llama_causal_lm(t, read_llama_text(cfg, t));
}

void build_mistral(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MistralForCausalLM";
  llama_causal_lm(t, read_mistral_text(cfg, t, 0));
}

// Ministral (Ministral-8B-2410): Mistral's tensors; a window on the layers layer_types calls sliding, and on
// every layer when it lists none (as MinistralConfig fills it in), none when sliding_window is null.
void build_ministral(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MinistralForCausalLM";
  LlamaStyle s = read_mistral_text(cfg, t, 0);
  s.sliding_window = 0;
  s.windows = interleaved_windows(cfg, t.arch.num_layers, window_or_none(cfg, 4096), t.arch.num_layers + 1);
  llama_causal_lm(t, s);
}

void build_ministral3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Ministral3ForCausalLM";
  llama_causal_lm(t, read_ministral3_text(cfg, t));
}

void build_qwen2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2ForCausalLM";
  llama_causal_lm(t, read_qwen2_text(cfg, t));
}

void build_qwen3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen3ForCausalLM";
  llama_causal_lm(t, read_qwen3_text(cfg, t));
}

void build_gemma(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GemmaForCausalLM";
  DecoderDefaults d = gemma_defaults();
  d.hidden_size = 3072;
  d.intermediate_size = 24576;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 16;
  read_decoder_dims(cfg, d, t);
  llama_causal_lm(t, attention_bias_style(cfg));
}

void build_gemma2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma2ForCausalLM";
  read_decoder_dims(cfg, gemma_defaults(), t);
  // Gemma2Config has no sliding_window_pattern: without layer_types every other layer slides.
  llama_causal_lm(t, gemma_sandwich_style(cfg, t.arch, cfg.count_or("sliding_window", 4096), 2));
}

// VaultGemma (Google's differentially private Gemma): Gemma-2's layers without the norms after attention and
// after the MLP (its decoder layer deletes post_attention_layernorm and post_feedforward_layernorm).
void build_vaultgemma(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "VaultGemmaForCausalLM";
  read_decoder_dims(cfg, gemma_defaults(), t);
  LlamaStyle s = gemma_sandwich_style(cfg, t.arch, cfg.count_or("sliding_window", 4096), 2);
  s.layer_norms = {"input_layernorm", "pre_feedforward_layernorm"};
  llama_causal_lm(t, s);
}

void build_gemma3_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma3ForCausalLM";
  gemma3_text_decoder(cfg, t, "model.", true);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

void build_phi3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Phi3ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 32064;
  d.hidden_size = 3072;
  d.intermediate_size = 8192;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;  // Phi-3 projections never carry biases, whatever attention_bias says
  s.fused_qkv = true;
  s.mlp = Mlp::FusedGated;
  s.sliding_window = cfg.count_or("sliding_window", 0);
  llama_causal_lm(t, s);
}

}  // namespace

// Cohere's and Cohere2's shared defaults and layer: attention and MLP side by side after one LayerNorm.
LlamaStyle read_cohere_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.norm = NormKind::LayerNorm;  // mean-centred, without a bias: its tensors alone look like RMSNorm's
  DecoderDefaults d;
  d.vocab_size = 256000;
  d.hidden_size = 8192;
  d.intermediate_size = 22528;
  d.num_hidden_layers = 40;
  d.num_attention_heads = 64;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 8192;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.layer_norms = {"input_layernorm"};
  if (cfg.flag_or("use_qk_norm", false)) s.qk_norm = QkNorm::HeadMatrix;  // Cohere's; Cohere2 has none
  return s;
}

LlamaStyle read_cohere2_text(const ModelConfig& cfg, ModelTemplate& t) {
  LlamaStyle s = read_cohere_text(cfg, t);
  s.qk_norm = QkNorm::None;  // Cohere2's attention has no q/k norms, whatever use_qk_norm says
  ArchitectureRecord& a = t.arch;
  heads_split_hidden(cfg, a);  // as Cohere2Config sets head_dim
  // Without layer_types every sliding_window_pattern-th layer (4) attends fully and the others slide.
  s.windows = interleaved_windows(cfg, a.num_layers, cfg.count_or("sliding_window", 4096),
                                  cfg.dim_or("sliding_window_pattern", 4));
  return s;
}

namespace {

void build_cohere(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "CohereForCausalLM";
  llama_causal_lm(t, read_cohere_text(cfg, t));
}

void build_cohere2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Cohere2ForCausalLM";
  llama_causal_lm(t, read_cohere2_text(cfg, t));
}

void build_olmo2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Olmo2ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50304;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.qk_norm = QkNorm::FullWidth;
  s.layer_norms = {"post_attention_layernorm", "post_feedforward_layernorm"};
  llama_causal_lm(t, s);
}

void build_starcoder2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Starcoder2ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 49152;
  d.hidden_size = 3072;
  d.intermediate_size = 12288;
  d.num_hidden_layers = 30;
  d.num_attention_heads = 24;
  d.num_key_value_heads = 2;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = s.o_bias = s.mlp_bias = cfg.flag_or("use_bias", true);
  s.norm_bias = true;  // nn.LayerNorm keeps its bias even when use_bias is false
  s.mlp = Mlp::Plain;
  s.sliding_window = cfg.count_or("sliding_window", 0);
  llama_causal_lm(t, s);
}

constexpr std::array kLlamaLikeFamilies{
    FamilyBuilder{"llama", build_llama},
    // Code Llama's model_type: transformers reads it as LlamaConfig.
    FamilyBuilder{"code_llama", build_llama},
    FamilyBuilder{"mistral", build_mistral},
    FamilyBuilder{"ministral", build_ministral},
    FamilyBuilder{"ministral3", build_ministral3},
    FamilyBuilder{"qwen2", build_qwen2},
    FamilyBuilder{"qwen3", build_qwen3},
    FamilyBuilder{"gemma", build_gemma},
    FamilyBuilder{"gemma2", build_gemma2},
    FamilyBuilder{"vaultgemma", build_vaultgemma},
    FamilyBuilder{"gemma3_text", build_gemma3_text},
    FamilyBuilder{"phi3", build_phi3},
    FamilyBuilder{"cohere", build_cohere},
    FamilyBuilder{"cohere2", build_cohere2},
    FamilyBuilder{"olmo2", build_olmo2},
    FamilyBuilder{"starcoder2", build_starcoder2},
};

}  // namespace

std::span<const FamilyBuilder> llama_like() {
  return kLlamaLikeFamilies;
}

}  // namespace ma::families
