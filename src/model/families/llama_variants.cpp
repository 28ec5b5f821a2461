// Decoders with Llama's layout that differ from it by one kind of tensor or its name: Granite (its
// multipliers are scalars, not tensors), Helium (a square o_proj), SmolLM3 (NoPE layers), Seed-OSS (o_proj's
// bias on a flag of its own), ERNIE 4.5 (one use_bias for every projection), Arcee (an ungated relu² MLP),
// OLMo (LayerNorms without parameters), OLMo 3 and EXAONE 4 (norms after each half only, q/k norms),
// Hunyuan (q/k norms under other names), Apertus (ungated xIELU MLP with learned scalars), Nemotron
// (LayerNorm1P with biases, ungated relu² MLP), StableLM (LayerNorms with biases, optional per-head q/k
// LayerNorms, a parallel residual without the second norm) and GLM-4 (fused gate and up; GLM-4-0414 with
// norms after each half too). Each builder mirrors its transformers class: the config class's defaults, then
// what its modules create.
#include <array>

#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"

namespace ma::families {

std::vector<uint64_t> exaone4_windows(const ModelConfig& cfg, uint64_t layers) {
  if (const json::Value* v = cfg.raw("sliding_window"); v && v->is_null()) return {};
  const uint64_t window = cfg.count_or("sliding_window", 4096);
  if (cfg.has("layer_types")) return interleaved_windows(cfg, layers, window, 1);  // the pattern is unread
  const json::Value* pattern = cfg.raw("sliding_window_pattern");
  if (!pattern || !pattern->is_string())
    return interleaved_windows(cfg, layers, window, cfg.dim_or("sliding_window_pattern", 4));
  const std::string_view spelled = pattern->as_string();
  if (spelled.empty() || spelled.find_first_not_of("LG") != std::string_view::npos)
    cfg.fail("sliding_window_pattern", "must be a layer count or a string of L (local) and G (global)");
  std::vector<uint64_t> w(layers, 0);
  for (uint64_t i = 0; i < layers; ++i) w[i] = spelled[i % spelled.size()] == 'L' ? window : 0;
  return w;
}

LlamaStyle read_ernie4_5_text(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 103424;
  d.hidden_size = 1024;
  d.intermediate_size = 3072;
  d.num_hidden_layers = 18;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 2;
  d.head_dim = 128;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;  // one use_bias for all seven projections
  s.qkv_bias = s.o_bias = s.mlp_bias = cfg.flag_or("use_bias", false);
  return s;
}

LlamaStyle read_hunyuan_dense_text(const ModelConfig& cfg, const DecoderDefaults& d, ModelTemplate& t) {
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);  // the MLP never has biases
  s.qk_norm = QkNorm::PerHead;
  s.q_norm = "query_layernorm";
  s.k_norm = "key_layernorm";
  return s;
}

namespace {

void build_granite(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GraniteForCausalLM";
  // GraniteConfig's defaults are LlamaConfig's; embedding_multiplier, residual_multiplier,
  // attention_multiplier and logits_scaling scale activations and hold no weights.
  llama_causal_lm(t, read_llama_text(cfg, t));
}

void build_helium(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "HeliumForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 48000;
  d.hidden_size = 2560;
  d.intermediate_size = 7040;
  d.num_hidden_layers = 24;
  d.num_attention_heads = 20;
  d.num_key_value_heads = 20;
  d.head_dim = 128;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  // HeliumAttention's o_proj is Linear(hidden_size, hidden_size, bias=False) whatever attention_bias says:
  // only a model whose heads span hidden_size runs.
  const ArchitectureRecord& a = t.arch;
  if (a.num_attention_heads * a.head_dim != a.hidden_size)
    cfg.fail("head_dim", "Helium's o_proj is hidden_size square: num_attention_heads x head_dim (" +
                             std::to_string(a.num_attention_heads * a.head_dim) +
                             ") must equal hidden_size (" + std::to_string(a.hidden_size) + ")");
  LlamaStyle s = attention_bias_style(cfg);
  s.o_bias = false;
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  llama_causal_lm(t, s);
}

// SmolLM3 leaves rotary embeddings out of every no_rope_layer_interval-th layer (or where no_rope_layers
// says 0) and, with use_sliding_window, slides a window on the layers that keep them.
std::vector<uint64_t> smollm3_windows(const ModelConfig& cfg, uint64_t layers) {
  const uint64_t window = cfg.count_or("sliding_window", 0);
  if (!cfg.flag_or("use_sliding_window", false) || window == 0) return {};
  if (cfg.has("layer_types")) return interleaved_windows(cfg, layers, window, 1);
  const std::vector<int64_t> rope = cfg.ints("no_rope_layers");
  if (!rope.empty()) cfg.check_layer_list("no_rope_layers", rope.size());
  const uint64_t interval = cfg.dim_or("no_rope_layer_interval", 4);
  std::vector<uint64_t> w(layers, 0);
  for (uint64_t i = 0; i < layers; ++i)
    if (rope.empty() ? (i + 1) % interval != 0 : rope[i] != 0) w[i] = window;
  return w;
}

void build_smollm3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "SmolLM3ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 128256;
  d.hidden_size = 2048;
  d.num_hidden_layers = 36;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 4;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  s.windows = smollm3_windows(cfg, t.arch.num_layers);
  llama_causal_lm(t, s);
}

void build_seed_oss(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "SeedOssForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 155136;
  d.intermediate_size = 27648;
  d.num_hidden_layers = 64;
  d.num_attention_heads = 80;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 524288;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = cfg.flag_or("attention_bias", true);
  s.o_bias = cfg.flag_or("attention_out_bias", false);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  llama_causal_lm(t, s);
}

void build_ernie4_5(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Ernie4_5ForCausalLM";
  llama_causal_lm(t, read_ernie4_5_text(cfg, t));
}

void build_arcee(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "ArceeForCausalLM";
  DecoderDefaults d;
  d.hidden_size = 2560;
  d.intermediate_size = 18432;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  s.mlp = Mlp::Ungated;
  llama_causal_lm(t, s);
}

void build_olmo(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "OlmoForCausalLM";
  t.arch.norm = NormKind::LayerNorm;  // OlmoLayerNorm: F.layer_norm without weight or bias
  DecoderDefaults d;
  d.vocab_size = 50304;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);  // the MLP never has biases
  s.norm_weights = false;
  llama_causal_lm(t, s);
}

// OLMo 3 and EXAONE 4 normalise each half's output (no input_layernorm) and their queries and keys.
LlamaStyle post_norm_style(QkNorm qk_norm) {
  LlamaStyle s;
  s.qk_norm = qk_norm;
  s.layer_norms = {"post_attention_layernorm", "post_feedforward_layernorm"};
  return s;
}

void build_olmo3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Olmo3ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50304;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = post_norm_style(QkNorm::FullWidth);
  s.qkv_bias = s.o_bias = cfg.flag_or("attention_bias", false);
  // Olmo3Config: without layer_types every fourth layer attends fully and the others slide.
  s.windows = interleaved_windows(cfg, t.arch.num_layers, cfg.count_or("sliding_window", 4096), 4);
  llama_causal_lm(t, s);
}

void build_exaone4(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Exaone4ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 102400;
  d.intermediate_size = 16384;
  d.num_key_value_heads = 32;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = post_norm_style(QkNorm::PerHead);  // no projection can carry a bias
  s.windows = exaone4_windows(cfg, t.arch.num_layers);
  llama_causal_lm(t, s);
}

void build_hunyuan_dense(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "HunYuanDenseV1ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 290943;
  llama_causal_lm(t, read_hunyuan_dense_text(cfg, d, t));
}

void build_apertus(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "ApertusForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 131072;
  d.intermediate_size = 14336;
  d.max_position_embeddings = 65536;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.qk_norm = QkNorm::PerHead;
  s.mlp = Mlp::Ungated;
  s.xielu = cfg.string_or("hidden_act", "xielu") == "xielu";
  s.layer_norms = {"attention_layernorm", "feedforward_layernorm"};
  llama_causal_lm(t, s);
}

void build_nemotron(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "NemotronForCausalLM";
  t.arch.norm = NormKind::LayerNorm;  // LayerNorm1P: a LayerNorm with its bias that scales by weight + 1
  DecoderDefaults d;
  d.vocab_size = 256000;
  d.hidden_size = 6144;
  d.intermediate_size = 24576;
  d.num_attention_heads = 48;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp = Mlp::Ungated;
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  s.norm_bias = true;
  llama_causal_lm(t, s);
}

void build_stablelm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "StableLmForCausalLM";
  LlamaStyle s = read_stablelm_text(cfg, t);
  if (cfg.flag_or("qk_layernorm", false)) s.qk_norm = QkNorm::HeadList;
  // With use_parallel_residual attention and MLP share the input norm.
  if (cfg.flag_or("use_parallel_residual", false)) s.layer_norms = {"input_layernorm"};
  llama_causal_lm(t, s);
}

// GLM-4 (glm) and GLM-4-0414 (glm4): q/k/v biased by attention_bias (true), o_proj never; gate and up fused.
LlamaStyle read_glm_text(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 151552;
  d.intermediate_size = 13696;
  d.num_hidden_layers = 40;
  d.num_key_value_heads = 2;
  d.head_dim = 128;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = cfg.flag_or("attention_bias", true);
  s.mlp = Mlp::FusedGated;
  return s;
}

void build_glm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GlmForCausalLM";
  llama_causal_lm(t, read_glm_text(cfg, t));
}

void build_glm4(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Glm4ForCausalLM";
  LlamaStyle s = read_glm_text(cfg, t);
  // A norm on each half's output as well as its input, registered as Glm4DecoderLayer does
  // (post_attention_layernorm, the MLP's input norm, before post_self_attn_layernorm).
  s.layer_norms = {"input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                   "post_mlp_layernorm"};
  llama_causal_lm(t, s);
}

constexpr std::array kLlamaVariantFamilies{
    FamilyBuilder{"granite", build_granite},   FamilyBuilder{"helium", build_helium},
    FamilyBuilder{"smollm3", build_smollm3},   FamilyBuilder{"seed_oss", build_seed_oss},
    FamilyBuilder{"ernie4_5", build_ernie4_5}, FamilyBuilder{"arcee", build_arcee},
    FamilyBuilder{"olmo", build_olmo},         FamilyBuilder{"olmo3", build_olmo3},
    FamilyBuilder{"exaone4", build_exaone4},   FamilyBuilder{"hunyuan_v1_dense", build_hunyuan_dense},
    FamilyBuilder{"apertus", build_apertus},   FamilyBuilder{"nemotron", build_nemotron},
    FamilyBuilder{"glm", build_glm},           FamilyBuilder{"glm4", build_glm4},
    FamilyBuilder{"stablelm", build_stablelm},
};

}  // namespace

std::span<const FamilyBuilder> llama_variants() {
  return kLlamaVariantFamilies;
}

}  // namespace ma::families
