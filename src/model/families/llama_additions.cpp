// Decoders that are Llama plus or minus a few tensors per layer: CWM (no attention biases at all), Jais-2
// (LayerNorms with biases, an ungated biased MLP), BitNet (a norm inside attention and inside the MLP),
// GraniteSWA (one attention-sink logit per head), HyperCLOVA X (norms after each half too, "Peri-LN"),
// DiffLlama (differential attention's four lambda vectors) and nanochat (no norm weights, a two-matrix MLP).
// Each builder mirrors its transformers class: the config class's defaults, then what its modules create.
#include <array>
#include <limits>

#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// layer_types when listed; else every `period`-th layer from the first attends fully and the others slide
// (CwmConfig's and GraniteSWAConfig's default: full where i % 4 == 0).
std::vector<uint64_t> full_from_first_windows(const ModelConfig& cfg, uint64_t layers, uint64_t window,
                                              uint64_t period) {
  if (cfg.has("layer_types")) return interleaved_windows(cfg, layers, window, 1);
  std::vector<uint64_t> w(layers, window);
  for (uint64_t i = 0; i < layers; i += period) w[i] = 0;
  return w;
}

// CWM (Meta's Code World Model): Llama's tensors, its attention without a bias option.
void build_cwm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "CwmForCausalLM";
  DecoderDefaults d;  // CwmConfig's: the 32B model's sizes
  d.vocab_size = 128256;
  d.hidden_size = 6144;
  d.intermediate_size = 21504;
  d.num_hidden_layers = 64;
  d.num_attention_heads = 48;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  s.windows = full_from_first_windows(cfg, t.arch.num_layers, window_or_none(cfg, 8192), 4);
  llama_causal_lm(t, s);
}

// Jais-2: nn.LayerNorm (weight and bias) everywhere, biases on every projection by default, and an ungated
// relu² MLP (up_proj, down_proj).
void build_jais2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Jais2ForCausalLM";
  t.arch.norm = NormKind::LayerNorm;
  DecoderDefaults d;
  d.vocab_size = 150272;
  d.hidden_size = 3328;
  d.intermediate_size = 26624;
  d.num_attention_heads = 26;
  d.max_position_embeddings = 8192;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = s.o_bias = cfg.flag_or("attention_bias", true);
  s.mlp_bias = cfg.flag_or("mlp_bias", true);
  s.mlp = Mlp::Ungated;
  s.norm_bias = true;
  llama_causal_lm(t, s);
}

// BitNet b1.58: an RMSNorm before o_proj (attn_sub_norm, hidden wide) and before down_proj (ffn_sub_norm,
// intermediate wide). Counted as the unpacked model transformers builds from the bf16 checkpoints; a
// "bitlinear" quantization_config packs the projections into uint8 buffers four weights a byte.
void build_bitnet(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "BitNetForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 128256;
  d.hidden_size = 2560;
  d.intermediate_size = 6912;
  d.num_hidden_layers = 30;
  d.num_attention_heads = 20;
  d.num_key_value_heads = 5;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  const uint64_t h = t.arch.hidden_size, inter = t.arch.intermediate_size;
  s.layer_extras = [h, inter](ModelTemplate& m, const std::string& layer) {
    blocks::norm(m, layer + ".self_attn.attn_sub_norm", h, false);
    blocks::norm(m, layer + ".mlp.ffn_sub_norm", inter, false);
  };
  llama_causal_lm(t, s);
}

// GraniteSWA (Granite "swash"): Granite with one learned attention-sink logit per head in every layer, full
// and sliding attention interleaved.
void build_granite_swa(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GraniteSWAForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 100352;
  d.hidden_size = 2560;
  d.intermediate_size = 8192;
  d.num_hidden_layers = 24;
  d.num_attention_heads = 20;
  d.num_key_value_heads = 4;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 8192;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  s.windows = full_from_first_windows(cfg, t.arch.num_layers, window_or_none(cfg, 128), 4);
  const uint64_t heads = t.arch.num_attention_heads;
  s.layer_extras = [heads](ModelTemplate& m, const std::string& layer) {
    m.add(layer + ".self_attn.sinks", {heads});
  };
  llama_causal_lm(t, s);
}

// HyperCLOVA X SEED: Llama with, under use_post_norm, an RMSNorm after attention (post_norm1) and after the
// MLP (post_norm2) as well as before them.
void build_hyperclovax(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "HyperCLOVAXForCausalLM";
  LlamaStyle s = read_llama_text(cfg, t);
  if (cfg.flag_or("use_post_norm", true))
    s.layer_norms = {"input_layernorm", "post_attention_layernorm", "post_norm1", "post_norm2"};
  llama_causal_lm(t, s);
}

// DiffLlama: differential attention learns four head_dim vectors a layer (lambda_q1, lambda_k1, lambda_q2,
// lambda_k2); its GroupNorm has no affine weights.
void build_diffllama(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DiffLlamaForCausalLM";
  DecoderDefaults d;
  d.hidden_size = 2048;
  d.intermediate_size = 8192;
  d.num_hidden_layers = 16;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);  // the MLP never has biases
  const uint64_t head_dim = t.arch.head_dim;
  s.layer_extras = [head_dim](ModelTemplate& m, const std::string& layer) {
    for (const char* lambda : {"lambda_q1", "lambda_k1", "lambda_q2", "lambda_k2"})
      m.add(layer + ".self_attn." + lambda, {head_dim});
  };
  llama_causal_lm(t, s);
}

// nanochat: every RMSNorm (the layers', the per-head q/k norms, the final one) is parameter-free, and the MLP
// is fc1 -> relu² -> fc2.
void build_nanochat(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "NanoChatForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50304;
  d.hidden_size = 768;
  d.intermediate_size = 8192;
  d.num_hidden_layers = 12;
  d.num_attention_heads = 6;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp = Mlp::Fc;
  s.norm_weights = false;
  llama_causal_lm(t, s);
}

constexpr std::array kLlamaAdditionFamilies{
    FamilyBuilder{"cwm", build_cwm},
    FamilyBuilder{"jais2", build_jais2},
    FamilyBuilder{"bitnet", build_bitnet},
    FamilyBuilder{"granite_swa", build_granite_swa},
    FamilyBuilder{"hyperclovax", build_hyperclovax},
    FamilyBuilder{"diffllama", build_diffllama},
    FamilyBuilder{"nanochat", build_nanochat},
};

}  // namespace

std::span<const FamilyBuilder> llama_additions() {
  return kLlamaAdditionFamilies;
}

}  // namespace ma::families
