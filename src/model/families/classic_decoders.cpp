// Decoders of the GPT-2 era and their descendants: GPT-2, GPT-BigCode (StarCoder), GPT-Neo, GPT-J, CodeGen,
// GPT-NeoX (Pythia), OPT, BLOOM, Falcon, Phi and MPT. Unlike Llama they mostly fuse q/k/v into one projection
// (GPT-2 even stores it transposed, as a Conv1D), use biased LayerNorms and two-matrix MLPs, and each config
// class spells the common dimensions its own way.
#include <array>
#include <string_view>
#include <vector>

#include "model/families/classic_decoder_parts.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

using namespace classic;  // NOLINT: this file is the pieces' main user

// --- GPT-2 and GPT-BigCode: wte + wpe, ln_1 / attn.c_attn / attn.c_proj / ln_2 / mlp.c_fc / mlp.c_proj. ---

DecoderDefaults gpt2_defaults() {
  DecoderDefaults d;
  d.vocab_size = 50257;
  d.hidden_size = 768;
  d.num_hidden_layers = 12;
  d.num_attention_heads = 12;
  d.max_position_embeddings = 1024;
  d.tie_word_embeddings = true;
  return d;
}

void read_gpt2_dims(const ModelConfig& cfg, ModelTemplate& t) {
  read_dims(cfg, kGpt2Keys, gpt2_defaults(), t);
  t.arch.intermediate_size = width_or_4x(cfg, "n_inner", t.arch.hidden_size);
}

void build_gpt2_style(const ModelConfig& cfg, ModelTemplate& t, Weights w) {
  gpt2_body(cfg, t, "transformer.", w);
  causal_lm_head(t, "transformer.wte.weight");
}

void build_gpt2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GPT2LMHeadModel";
  read_gpt2_dims(cfg, t);
  build_gpt2_style(cfg, t, Weights::Conv1D);
}

void build_gpt_bigcode(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GPTBigCodeForCausalLM";
  read_gpt2_dims(cfg, t);
  const bool multi_query = cfg.flag_or("multi_query", true);
  if (multi_query) t.arch.num_key_value_heads = 1;
  if (multi_query && cfg.flag_or("add_cross_attention", false))
    cfg.fail("add_cross_attention", "is not supported together with multi_query");
  build_gpt2_style(cfg, t, Weights::Linear);
}

// --- GPT-J: bias-free q/k/v/out_proj, biased fc_in/fc_out MLP in parallel, one norm, biased head. ---

// GPTJConfig's defaults, which CodeGenConfig repeats.
DecoderDefaults gptj_defaults() {
  DecoderDefaults d;
  d.vocab_size = 50400;
  d.hidden_size = 4096;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 16;
  d.max_position_embeddings = 2048;
  return d;
}

void build_gptj(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GPTJForCausalLM";
  read_dims(cfg, kGpt2Keys, gptj_defaults(), t);
  const ArchitectureRecord& a = t.arch;
  t.arch.intermediate_size = width_or_4x(cfg, "n_inner", a.hidden_size);
  blocks::Attention at = standard_attention(a);
  at.o = "out_proj";
  at.key_first = true;  // GPTJAttention registers k_proj, v_proj, q_proj
  token_embedding(t, "transformer.wte.weight", a);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    layer_norm(t, p + ".ln_1", a.hidden_size);
    blocks::attention(t, p + ".attn", at);
    plain_mlp(t, p + ".mlp", {"fc_in", "fc_out"}, a.hidden_size, a.intermediate_size, true);
  });
  layer_norm(t, "transformer.ln_f", a.hidden_size);
  Head head;
  head.bias = true;
  causal_lm_head(t, "transformer.wte.weight", head);
}

// --- GPT-Neo: GPT-2's layout in nn.Linear, bias-free q/k/v under attn.attention, global and local layers.
// ---

// GPTNeoConfig's attention_types, [[["global", "local"], 12]]: each entry a list of kinds repeated n times,
// expanded in order into one kind per layer. Local layers attend over the last window_size tokens.
std::vector<uint64_t> gpt_neo_windows(const ModelConfig& cfg, uint64_t layers) {
  const uint64_t window = cfg.dim_or("window_size", 256);
  std::vector<uint64_t> windows;
  const json::Value* types = cfg.raw("attention_types");
  if (!types) {  // the default: global and local alternating, 12 times
    for (uint64_t i = 0; i < 24; ++i) windows.push_back(i % 2 ? window : 0);
  } else {
    auto bad = [&] { cfg.fail("attention_types", "must be a list of [[kinds...], repeats] pairs"); };
    if (!types->is_array()) bad();
    for (const json::Value& entry : types->items()) {
      if (!entry.is_array() || entry.items().size() != 2 || !entry.items()[0].is_array()) bad();
      const std::optional<uint64_t> repeats = entry.items()[1].as_uint();
      if (!repeats) bad();
      if (*repeats > ModelConfig::kMaxLayers)
        cfg.fail("attention_types",
                 "repeats a pattern more than " + std::to_string(ModelConfig::kMaxLayers) + " times");
      for (uint64_t r = 0; r < *repeats && windows.size() <= ModelConfig::kMaxLayers; ++r)
        for (const json::Value& kind : entry.items()[0].items()) {
          if (kind.as_string() != "global" && kind.as_string() != "local")
            cfg.fail("attention_types", "kinds must be \"global\" or \"local\"");
          windows.push_back(kind.as_string() == "local" ? window : 0);
        }
    }
  }
  // GPTNeoConfig refuses a config whose expanded kinds do not number num_layers.
  if (windows.size() != layers)
    cfg.fail("attention_types", "expands to " + std::to_string(windows.size()) +
                                    " layers where num_layers is " + std::to_string(layers));
  return windows;
}

void build_gpt_neo(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GPTNeoForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50257;
  d.hidden_size = 2048;
  d.num_hidden_layers = 24;
  d.num_attention_heads = 16;
  d.tie_word_embeddings = true;
  DimKeys k;
  k.layers = {"num_layers", "num_hidden_layers"};
  k.heads = {"num_heads", "num_attention_heads"};
  read_dims(cfg, k, d, t);
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  t.arch.intermediate_size = width_or_4x(cfg, "intermediate_size", h);
  const std::vector<uint64_t> windows = gpt_neo_windows(cfg, a.num_layers);
  blocks::Attention at = standard_attention(a);
  at.o = "out_proj";
  at.o_bias = true;
  token_embedding(t, "transformer.wte.weight", a);
  blocks::embedding(t, "transformer.wpe.weight", a.max_position_embeddings, h);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    layer_norm(t, p + ".ln_1", h);
    blocks::attention(t, p + ".attn.attention", at);
    layer_norm(t, p + ".ln_2", h);
    plain_mlp(t, p + ".mlp", {"c_fc", "c_proj"}, h, a.intermediate_size, true);
  });
  std::vector<LayerSpec>& layers = t.arch.stacks.back().layers;
  for (size_t i = 0; i < layers.size(); ++i) set_window(layers[i].attention, windows[i]);
  layer_norm(t, "transformer.ln_f", h);
  causal_lm_head(t, "transformer.wte.weight");
}

// --- CodeGen: GPT-J's parallel layer with q/v/k fused (qkv_proj, bias-free), a biased untied head. ---

void build_codegen(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "CodeGenForCausalLM";
  read_dims(cfg, kGpt2Keys, gptj_defaults(), t);
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  t.arch.intermediate_size = width_or_4x(cfg, "n_inner", h);
  token_embedding(t, "transformer.wte.weight", a);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    layer_norm(t, p + ".ln_1", h);
    fused_attention(t, p + ".attn", {"qkv_proj", "out_proj"}, a, false);
    plain_mlp(t, p + ".mlp", {"fc_in", "fc_out"}, h, a.intermediate_size, true);
  });
  layer_norm(t, "transformer.ln_f", h);
  Head head;
  head.bias = true;
  causal_lm_head(t, "transformer.wte.weight", head);
}

// --- GPT-NeoX: fused query_key_value, two norms per layer; the head is embed_out in checkpoints. ---

void build_gpt_neox(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GPTNeoXForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50432;
  d.hidden_size = 6144;
  d.num_hidden_layers = 44;
  d.num_attention_heads = 64;
  read_dims(cfg, {}, d, t);
  const ArchitectureRecord& a = t.arch;
  t.arch.intermediate_size = cfg.dim_or("intermediate_size", 24576);
  const bool attention_bias = cfg.flag_or("attention_bias", true);
  token_embedding(t, "gpt_neox.embed_in.weight", a);
  decoder_stack(t, "gpt_neox.layers", [&](const std::string& p) {
    layer_norm(t, p + ".input_layernorm", a.hidden_size);
    layer_norm(t, p + ".post_attention_layernorm", a.hidden_size);
    fused_attention(t, p + ".attention", {"query_key_value", "dense"}, a, attention_bias);
    plain_mlp(t, p + ".mlp", {"dense_h_to_4h", "dense_4h_to_h"}, a.hidden_size, a.intermediate_size, true);
  });
  layer_norm(t, "gpt_neox.final_layer_norm", a.hidden_size);
  Head head;
  head.disk_name = "embed_out.weight";
  causal_lm_head(t, "gpt_neox.embed_in.weight", head);
}

// --- OPT: learned positions offset by 2, projections around a narrower embedding, post-LN option. ---

// OPT's learned positional embedding reserves two rows before position 0 (a fairseq convention).
constexpr uint64_t kOptPositionOffset = 2;

void opt_norm(ModelTemplate& t, const std::string& prefix, uint64_t dim, bool affine) {
  if (affine) layer_norm(t, prefix, dim);
}

void build_opt(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "OPTForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50272;
  d.hidden_size = 768;
  d.num_hidden_layers = 12;
  d.num_attention_heads = 12;
  d.tie_word_embeddings = true;
  read_dims(cfg, {}, d, t);
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  t.arch.intermediate_size = cfg.dim_or("ffn_dim", 3072);
  const uint64_t proj_dim = cfg.dim_or("word_embed_proj_dim", h);
  const bool bias = cfg.flag_or("enable_bias", true);
  const bool affine = cfg.flag_or("layer_norm_elementwise_affine", true);
  const bool final_norm =
      cfg.flag_or("do_layer_norm_before", true) && !cfg.flag_or("_remove_final_layer_norm", false);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = bias;
  at.o = "out_proj";
  at.key_first = true;  // OPTAttention registers k_proj, v_proj, q_proj

  blocks::embedding(t, "model.decoder.embed_tokens.weight", a.vocab_size, proj_dim);
  const uint64_t positions = a.max_position_embeddings + kOptPositionOffset;
  blocks::embedding(t, "model.decoder.embed_positions.weight", positions, h);
  if (final_norm) opt_norm(t, "model.decoder.final_layer_norm", h, affine);
  if (proj_dim != h) {
    blocks::linear(t, "model.decoder.project_out", h, proj_dim, false);
    blocks::linear(t, "model.decoder.project_in", proj_dim, h, false);
  }
  decoder_stack(t, "model.decoder.layers", [&](const std::string& p) {
    blocks::attention(t, p + ".self_attn", at);
    opt_norm(t, p + ".self_attn_layer_norm", h, affine);
    plain_mlp(t, p, {"fc1", "fc2"}, h, a.intermediate_size, bias);
    opt_norm(t, p + ".final_layer_norm", h, affine);
  });
  Head head;
  head.in = proj_dim;
  causal_lm_head(t, "model.decoder.embed_tokens.weight", head);
}

// --- BLOOM: ALiBi (no position table), a LayerNorm right after the word embeddings, fused biased qkv. ---

void build_bloom(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "BloomForCausalLM";
  t.arch.position = PositionKind::Alibi;
  DecoderDefaults d;
  d.vocab_size = 250880;
  d.hidden_size = 64;
  d.num_hidden_layers = 2;
  d.num_attention_heads = 8;
  d.max_position_embeddings = 0;  // ALiBi: no trained length limit
  d.tie_word_embeddings = true;
  DimKeys k;
  k.hidden = {"n_embed", "hidden_size"};  // n_embed is the legacy spelling and wins when present
  k.layers = {"n_layer", "num_hidden_layers"};
  k.heads = {"n_head", "num_attention_heads"};
  read_dims(cfg, k, d, t);
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  t.arch.intermediate_size = 4 * h;  // BloomMLP has no width setting
  token_embedding(t, "transformer.word_embeddings.weight", a);
  layer_norm(t, "transformer.word_embeddings_layernorm", h);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    layer_norm(t, p + ".input_layernorm", h);
    fused_attention(t, p + ".self_attention", {"query_key_value", "dense"}, a, true);
    layer_norm(t, p + ".post_attention_layernorm", h);
    plain_mlp(t, p + ".mlp", {"dense_h_to_4h", "dense_4h_to_h"}, h, a.intermediate_size, true);
  });
  layer_norm(t, "transformer.ln_f", h);
  causal_lm_head(t, "transformer.word_embeddings.weight");
}

// --- Falcon: fused qkv sized by multi_query / num_kv_heads; the norms depend on the decoder variant. ---

uint64_t falcon_kv_heads(const ModelConfig& cfg, const ArchitectureRecord& a, bool new_arch) {
  if (new_arch) return cfg.dim_or("num_kv_heads", a.num_attention_heads);
  return cfg.flag_or("multi_query", true) ? 1 : a.num_attention_heads;
}

// Sequential layers norm before attention and before the MLP; parallel ones share one norm, or (the 40B/180B
// decoder, num_ln_in_parallel_attn = 2) use one for each branch.
void falcon_norms(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, bool new_arch) {
  const uint64_t h = t.arch.hidden_size;
  const uint64_t norms = cfg.count_or("num_ln_in_parallel_attn", new_arch ? 2 : 1);
  if (!cfg.flag_or("parallel_attn", true)) {
    layer_norm(t, p + ".input_layernorm", h);
    layer_norm(t, p + ".post_attention_layernorm", h);
  } else if (norms == 2) {
    layer_norm(t, p + ".ln_attn", h);
    layer_norm(t, p + ".ln_mlp", h);
  } else {
    layer_norm(t, p + ".input_layernorm", h);
  }
}

void build_falcon(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FalconForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 65024;
  d.hidden_size = 4544;
  d.num_hidden_layers = 32;
  d.num_attention_heads = 71;
  d.tie_word_embeddings = true;
  DimKeys k;
  k.hidden = {"n_embed", "hidden_size"};
  read_dims(cfg, k, d, t);
  const bool new_arch = cfg.flag_or("new_decoder_architecture", false);
  t.arch.num_key_value_heads = falcon_kv_heads(cfg, t.arch, new_arch);
  check_kv_heads(cfg, "num_kv_heads", t.arch);
  const ArchitectureRecord& a = t.arch;
  t.arch.intermediate_size = width_or_4x(cfg, "ffn_hidden_size", a.hidden_size);
  const bool bias = cfg.flag_or("bias", false);
  token_embedding(t, "transformer.word_embeddings.weight", a);
  decoder_stack(t, "transformer.h", [&](const std::string& p) {
    fused_attention(t, p + ".self_attention", {"query_key_value", "dense"}, a, bias);
    plain_mlp(t, p + ".mlp", {"dense_h_to_4h", "dense_4h_to_h"}, a.hidden_size, a.intermediate_size, bias);
    falcon_norms(cfg, t, p, new_arch);
  });
  layer_norm(t, "transformer.ln_f", a.hidden_size);
  causal_lm_head(t, "transformer.word_embeddings.weight");
}

// --- Phi (1, 1.5, 2): biased q/k/v/dense with partial rotary, one norm per parallel layer, biased head. ---

void build_phi(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "PhiForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 51200;
  d.hidden_size = 2048;
  d.num_hidden_layers = 24;
  d.num_attention_heads = 32;
  read_dims(cfg, {}, d, t);
  t.arch.num_key_value_heads = cfg.dim_or("num_key_value_heads", t.arch.num_attention_heads);
  check_kv_heads(cfg, "num_key_value_heads", t.arch);
  const ArchitectureRecord& a = t.arch;
  t.arch.intermediate_size = cfg.dim_or("intermediate_size", 8192);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = true;
  at.o = "dense";
  const bool qk_layernorm = cfg.flag_or("qk_layernorm", false);
  token_embedding(t, "model.embed_tokens.weight", a);
  decoder_stack(t, "model.layers", [&](const std::string& p) {
    blocks::attention(t, p + ".self_attn", at);
    if (qk_layernorm) {  // biased LayerNorms over one head, unlike blocks::Attention's RMSNorm q/k norms
      layer_norm(t, p + ".self_attn.q_layernorm", a.head_dim);
      layer_norm(t, p + ".self_attn.k_layernorm", a.head_dim);
    }
    plain_mlp(t, p + ".mlp", {"fc1", "fc2"}, a.hidden_size, a.intermediate_size, true);
    layer_norm(t, p + ".input_layernorm", a.hidden_size);
  });
  layer_norm(t, "model.final_layernorm", a.hidden_size);
  Head head;
  head.bias = true;
  causal_lm_head(t, "model.embed_tokens.weight", head);
}

// --- MPT: ALiBi, bias-free everything (norms included), fused Wqkv. ---

void build_mpt(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MptForCausalLM";
  t.arch.norm = NormKind::LayerNorm;  // mean-centred, without a bias: its tensors alone look like RMSNorm's
  DecoderDefaults d;
  d.vocab_size = 50368;
  d.hidden_size = 2048;
  d.num_hidden_layers = 24;
  d.num_attention_heads = 16;
  d.tie_word_embeddings = true;
  DimKeys k;
  k.hidden = {"d_model", "hidden_size"};
  k.layers = {"n_layers", "num_hidden_layers"};
  k.heads = {"n_heads", "num_attention_heads"};
  k.positions = {"max_seq_len"};
  read_dims(cfg, k, d, t);
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  // transformers' MptMLP is always 4x wide and bias-free, whatever expansion_ratio / no_bias say; multi-query
  // attn_types still get full q/k/v.
  t.arch.intermediate_size = 4 * h;
  token_embedding(t, "transformer.wte.weight", a);
  decoder_stack(t, "transformer.blocks", [&](const std::string& p) {
    blocks::norm(t, p + ".norm_1", h, false);
    fused_attention(t, p + ".attn", {"Wqkv", "out_proj"}, a, false);
    blocks::norm(t, p + ".norm_2", h, false);
    plain_mlp(t, p + ".ffn", {"up_proj", "down_proj"}, h, a.intermediate_size, false);
  });
  blocks::norm(t, "transformer.norm_f", h, false);
  causal_lm_head(t, "transformer.wte.weight");
}

// gpt-sw3: GPT-SW3's model_type, which transformers reads as GPT2Config.
constexpr std::array kClassicDecoderFamilies{
    FamilyBuilder{"gpt2", build_gpt2},       FamilyBuilder{"gpt_bigcode", build_gpt_bigcode},
    FamilyBuilder{"gptj", build_gptj},       FamilyBuilder{"gpt_neox", build_gpt_neox},
    FamilyBuilder{"gpt_neo", build_gpt_neo}, FamilyBuilder{"codegen", build_codegen},
    FamilyBuilder{"opt", build_opt},         FamilyBuilder{"bloom", build_bloom},
    FamilyBuilder{"falcon", build_falcon},   FamilyBuilder{"phi", build_phi},
    FamilyBuilder{"mpt", build_mpt},         FamilyBuilder{"gpt-sw3", build_gpt2},
};

}  // namespace

std::span<const FamilyBuilder> classic_decoders() {
  return kClassicDecoderFamilies;
}

}  // namespace ma::families
