// Vision-language models: a vision tower (SigLIP / Gemma-4 / Llama-4 vision) or a plain patch projection
// (Fuyu), a projector, and a language model built from the nested text_config with the defaults of
// its own config class. The decoder stack of the record describes the language model only. The language
// models of Gemma-4, Llama-4 and Fuyu (Persimmon) also build alone, as their *ForCausalLM classes.
#include <array>

#include "core/checked.h"
#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/gemma4_text.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

void rms_norms(ModelTemplate& t, const std::string& p, uint64_t dim,
               std::initializer_list<const char*> names) {
  for (const char* n : names) blocks::norm(t, p + n, dim, false);
}

// The decoder stack of the language model, whose layers the builder then appends.
StackSpec& language_stack(ModelTemplate& t, const std::string& lm) {
  return t.arch.add_stack(StackRole::Decoder, lm + "layers");
}

// ---- Gemma-3: SigLIP tower + soft-embedding projector + Gemma-3 text decoder ----

// Gemma3ForConditionalGeneration with its names under `root` ("" alone; "model." inside ShieldGemma 2).
// Every Gemma-3 Hub checkpoint predates the transformers 5 layout: language_model.model.*, vision_tower.*,
// multi_modal_projector.*, language_model.lm_head, with no root whatever class wraps it.
void gemma3_conditional(const ModelConfig& cfg, ModelTemplate& t, const std::string& root) {
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "gemma3_text");
  const std::string m = root + "model.";
  const uint64_t vision =
      vit_tower(sub_or_empty(cfg, "vision_config"), m + "vision_tower.", siglip_vision_defaults(), t);
  gemma3_text_decoder(text, t, m + "language_model.", false);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);
  t.add(m + "multi_modal_projector.mm_input_projection_weight", {vision, t.arch.hidden_size});
  blocks::norm(t, m + "multi_modal_projector.mm_soft_emb_norm", vision, false);
  record_projector(t, m + "multi_modal_projector");
  t.order_modules({m + "vision_tower.", m + "multi_modal_projector.", m + "language_model."});
  lm_head(t, m + "language_model.embed_tokens.weight", t.arch, root + "lm_head.weight");
  t.rename_on_disk(m + "language_model.", "language_model.model.");
  t.rename_on_disk(m + "vision_tower.", "vision_tower.vision_model.");
  t.rename_on_disk(m + "multi_modal_projector.", "multi_modal_projector.");
  t.rename_on_disk(root + "lm_head.", "language_model.lm_head.");
}

void build_gemma3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma3ForConditionalGeneration";
  gemma3_conditional(cfg, t, "");
}

// ShieldGemma 2 (shieldgemma2, ShieldGemma2ForImageClassification): a Gemma-3 4B held as `model`, whose
// logits of two tokens (yes, no) are the classes; no head of its own. Its checkpoint is Gemma-3's as stored,
// to which transformers adds the "model." prefix on load.
void build_shieldgemma2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "ShieldGemma2ForImageClassification";
  gemma3_conditional(cfg, t, "model.");
}

// ---- Gemma-4: sliding/global attention with per-kind head shapes, optional MoE and per-layer embeddings
// ----

struct Gemma4Text {
  uint64_t global_head_dim = 0;
  uint64_t global_kv_heads = 0;
  bool k_eq_v = false;  // global layers reuse k_proj for values (no v_proj)
  bool bias = false;
  uint64_t first_shared = 0;     // layers from here on reuse an earlier layer's keys/values
  bool shared_kv_stored = true;  // checkpoints still store those layers' keys and values (extras)
  bool double_wide_mlp = false;
  uint64_t per_layer_input = 0;  // PLE width (0: none)
  bool moe = false;
  std::vector<uint64_t> reshaped;  // layers per_layer_config gives their own shape: global ones only
};

// Configs transformers writes since mid-2026 state the global layers' shape per layer, per_layer_config
// {"05": {"head_dim": 512, "num_key_value_heads": 1}, ...}, where older ones say global_head_dim and
// num_global_key_value_heads (then ignored). Every entry must give the same shape, the only form transformers
// writes for Gemma 4; each must name a global layer (checked once the layer kinds are known).
void read_per_layer_config(const ModelConfig& text, const ArchitectureRecord& a, Gemma4Text& g) {
  const std::optional<ModelConfig> layers = text.sub("per_layer_config");
  if (!layers) return;
  std::optional<std::pair<uint64_t, uint64_t>> shape;
  for (const json::Member& m : text.raw("per_layer_config")->members()) {
    const std::string key(m.key);
    uint64_t index = 0;
    bool digits = !key.empty() && key.size() <= 6;
    for (char c : key) digits = digits && c >= '0' && c <= '9';
    if (digits) index = std::stoull(key);
    if (!digits || index >= a.num_layers)
      layers->fail(key, "must be the index of a layer below num_hidden_layers");
    const std::optional<ModelConfig> entry = layers->sub(key);
    if (!entry) continue;
    const std::pair<uint64_t, uint64_t> mine{entry->dim_or("head_dim", a.head_dim),
                                             entry->dim_or("num_key_value_heads", a.num_key_value_heads)};
    if (shape && *shape != mine) layers->fail(key, "global layers of different shapes are not supported");
    shape = mine;
    g.reshaped.push_back(index);
  }
  if (!shape) return;
  g.global_head_dim = shape->first;
  g.global_kv_heads = shape->second;
}

Gemma4Text read_gemma4_text(const ModelConfig& text, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 262144;
  d.hidden_size = 2304;
  d.intermediate_size = 9216;
  d.num_hidden_layers = 30;
  d.num_attention_heads = 8;
  d.num_key_value_heads = 4;
  d.head_dim = 256;
  d.max_position_embeddings = 131072;
  read_decoder_dims(text, d, t);
  ArchitectureRecord& a = t.arch;
  Gemma4Text g;
  g.global_head_dim = text.count_or("global_head_dim", 512);
  if (g.global_head_dim == 0) g.global_head_dim = a.head_dim;
  g.k_eq_v = text.flag_or("attention_k_eq_v", false);
  g.global_kv_heads =
      g.k_eq_v ? text.dim_or("num_global_key_value_heads", a.num_key_value_heads) : a.num_key_value_heads;
  read_per_layer_config(text, a, g);
  if (a.num_attention_heads % g.global_kv_heads != 0)
    text.fail(g.reshaped.empty() ? "num_global_key_value_heads" : "per_layer_config",
              "global key/value heads must divide num_attention_heads");
  g.bias = text.flag_or("attention_bias", false);
  const uint64_t shared = text.count_or("num_kv_shared_layers", 0);
  if (shared > a.num_layers) text.fail("num_kv_shared_layers", "must not exceed num_hidden_layers");
  g.first_shared = a.num_layers - shared;
  g.double_wide_mlp = text.flag_or("use_double_wide_mlp", false);
  g.per_layer_input = text.count_or("hidden_size_per_layer_input", 256);
  g.moe = text.flag_or("enable_moe_block", false);
  if (g.moe) {
    a.num_experts = text.dim("num_experts");
    a.experts_per_token = text.dim("top_k_experts");
    a.moe_intermediate_size = text.dim("moe_intermediate_size");
    if (a.experts_per_token > a.num_experts) text.fail("top_k_experts", "must not exceed num_experts");
  }
  return g;
}

// A KV-shared layer reads an earlier layer's cache: transformers builds no keys or values for it, but Gemma
// 4's checkpoints (E2B, E4B) still store them, extras it drops on load.
void gemma4_attention(ModelTemplate& t, const std::string& p, const Gemma4Text& g, bool global, bool shared) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t hd = global ? g.global_head_dim : a.head_dim;
  const uint64_t kv = global ? g.global_kv_heads : a.num_key_value_heads;
  // Registered q_proj, q_norm, k_norm, k_proj, v_proj, o_proj.
  blocks::linear(t, p + "q_proj", a.hidden_size, a.num_attention_heads * hd, g.bias);
  blocks::norm(t, p + "q_norm", hd, false);
  const size_t first = t.tensors.size();
  if (!shared || g.shared_kv_stored) {
    blocks::norm(t, p + "k_norm", hd, false);
    blocks::linear(t, p + "k_proj", a.hidden_size, kv * hd, g.bias);
    if (!(g.k_eq_v && global)) blocks::linear(t, p + "v_proj", a.hidden_size, kv * hd, g.bias);
  }
  const size_t last = t.tensors.size();
  blocks::linear(t, p + "o_proj", a.num_attention_heads * hd, a.hidden_size, g.bias);
  if (!shared || !g.shared_kv_stored) return;
  for (size_t i = first; i < last; ++i) t.tensors[i].kind = TensorKind::Extra;
  for (const char* module : {"k_proj.", "v_proj.", "k_norm."})
    t.known_extras.push_back(
        {p + module, "keys and values of a KV-shared layer: transformers drops them on load"});
}

void gemma4_moe(ModelTemplate& t, const std::string& p) {
  const ArchitectureRecord& a = t.arch;
  // The router's own scales come before its proj module.
  t.add(p + "router.scale", {a.hidden_size});
  t.add(p + "router.per_expert_scale", {a.num_experts});
  blocks::linear(t, p + "router.proj", a.hidden_size, a.num_experts, false);
  blocks::stacked_experts(t, p + "experts", {a.num_experts, 2 * a.moe_intermediate_size, a.hidden_size},
                          {a.num_experts, a.hidden_size, a.moe_intermediate_size});
  rms_norms(t, p, a.hidden_size,
            {"post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"});
}

// Global layers have their own head dim and (with attention_k_eq_v) their own kv heads; the last
// num_kv_shared_layers read an earlier layer's cache; MoE blocks run the dense MLP beside the experts.
LayerSpec gemma4_layer_shape(const ArchitectureRecord& a, const Gemma4Text& g, uint64_t i, uint64_t window) {
  LayerSpec l = attention_layer(a, window, g.moe ? Ffn::Moe : Ffn::Dense);
  AttentionShape& at = l.attention;
  if (window == 0) {
    at.head_dim = g.global_head_dim;
    at.kv_heads = g.global_kv_heads;
    at.kind = attention_kind_of(a.num_attention_heads, at.kv_heads);
    at.keys_are_values = g.k_eq_v;
  }
  at.shares_cache = i >= g.first_shared;
  const bool wide = g.double_wide_mlp && i >= g.first_shared && g.first_shared > 0;
  const uint64_t mlp = a.intermediate_size * (wide ? 2 : 1);
  if (g.moe) {
    l.ffn.shared_experts = 1;
    l.ffn.shared_intermediate = mlp;
  } else {
    l.ffn.intermediate = mlp;
  }
  return l;
}

void gemma4_layer(ModelTemplate& t, const std::string& p, const Gemma4Text& g, uint64_t i, bool global) {
  const ArchitectureRecord& a = t.arch;
  // The layer's own buffer, registered after its norms, comes before its modules' tensors in state_dict.
  t.add(p + "layer_scalar", {1}).kind = TensorKind::Buffer;
  gemma4_attention(t, p + "self_attn.", g, global, i >= g.first_shared);
  const bool wide = g.double_wide_mlp && i >= g.first_shared && g.first_shared > 0;
  blocks::gated_mlp(t, p + "mlp", a.hidden_size, a.intermediate_size * (wide ? 2 : 1));
  rms_norms(t, p, a.hidden_size,
            {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
             "post_feedforward_layernorm"});
  if (g.per_layer_input) {
    blocks::linear(t, p + "per_layer_input_gate", a.hidden_size, g.per_layer_input, false);
    blocks::linear(t, p + "per_layer_projection", g.per_layer_input, a.hidden_size, false);
    blocks::norm(t, p + "post_per_layer_input_norm", a.hidden_size, false);
  }
  if (g.moe) gemma4_moe(t, p);
}

}  // namespace

void gemma4_text_decoder(const ModelConfig& text, ModelTemplate& t, const std::string& lm,
                         Gemma4TextVariant variant) {
  Gemma4Text g = read_gemma4_text(text, t);
  const bool unified = variant.unified;
  if (variant.assistant) {
    if (text.count_or("num_kv_shared_layers", 0) == 0) g.first_shared = 0;
    g.shared_kv_stored = false;
  }
  if (unified) {
    g.per_layer_input = 0;
    g.moe = false;
    t.arch.num_experts = t.arch.experts_per_token = t.arch.moe_intermediate_size = 0;
  }
  const ArchitectureRecord& a = t.arch;
  uint64_t window = text.count_or("sliding_window", unified ? 1024 : 512);
  if (text.string_or("use_bidirectional_attention", unified ? "vision" : "") == "all")
    window = window / 2 + 1;
  const std::vector<uint64_t> windows = interleaved_windows(text, a.num_layers, window, 6, true);
  for (uint64_t i : g.reshaped)
    if (windows[i] != 0) text.fail("per_layer_config", "gives a sliding-attention layer a shape of its own");
  token_embedding(t, lm + "embed_tokens.weight", a);
  StackSpec& stack = language_stack(t, lm);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const bool global = windows[i] == 0;
    gemma4_layer(t, lm + "layers." + std::to_string(i) + ".", g, i, global);
    stack.layers.push_back(gemma4_layer_shape(a, g, i, windows[i]));
  }
  blocks::norm(t, lm + "norm", a.hidden_size, false);
  if (!g.per_layer_input) return;
  const uint64_t packed = a.num_layers * g.per_layer_input;  // every layer's PLE slice in one table
  blocks::embedding(t, lm + "embed_tokens_per_layer.weight",
                    text.dim_or("vocab_size_per_layer_input", 262144), packed);
  blocks::linear(t, lm + "per_layer_model_projection", a.hidden_size, packed, false);
  blocks::norm(t, lm + "per_layer_projection_norm", g.per_layer_input, false);
}

namespace {

void build_gemma4(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma4ForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "gemma4_text");
  // Gemma4Model registers vision_tower, language_model, audio_tower, embed_vision, embed_audio.
  const std::optional<ModelConfig> vision = cfg.sub("vision_config"), audio = cfg.sub("audio_config");
  const uint64_t vision_width = vision ? gemma4_vision_tower(*vision, "model.vision_tower.", t) : 0;
  gemma4_text_decoder(text, t, "model.language_model.");
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);
  const uint64_t audio_width = audio ? gemma4_audio_tower(*audio, "model.audio_tower.", t) : 0;
  if (vision) {
    blocks::linear(t, "model.embed_vision.embedding_projection", vision_width, t.arch.hidden_size, false);
    record_projector(t, "model.embed_vision");
  }
  if (audio)
    blocks::linear(t, "model.embed_audio.embedding_projection", audio_width, t.arch.hidden_size, false);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

// Gemma 4 12B (gemma4_unified): no vision or audio encoder. An image's 48 x 48 pixel patches pass
// LayerNorms and a dense layer into a factorised 2-D position table, then a weightless RMSNorm and a
// projection to the text width; audio frames of audio_embed_dim samples only the norm and a projection. The
// checkpoint names the vision modules vision_embedder and its projection embed_vision.embedding_projection,
// which transformers renames on load.
void build_gemma4_unified(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma4UnifiedForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "gemma4_unified_text");
  gemma4_text_decoder(text, t, "model.language_model.", {.unified = true});
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);  // the top-level flag ties
  const uint64_t h = t.arch.hidden_size;
  if (auto v = cfg.sub("vision_config")) {
    const std::string e = "model.embed_vision.";
    const std::optional<uint64_t> side =
        checked_mul(v->dim_or("patch_size", 16), v->dim_or("pooling_kernel_size", 3));
    const std::optional<uint64_t> values =
        side ? checked_mul(*side * *side, 3) : std::nullopt;  // each <= 2^26
    if (!values || *side > (uint64_t{1} << 26))
      v->fail("patch_size", "times pooling_kernel_size is too large");
    const uint64_t embed = v->dim_or("mm_embed_dim", 3840), out = v->dim_or("output_proj_dims", embed);
    blocks::norm(t, e + "patch_ln1", *values, true);
    blocks::linear(t, e + "patch_dense", *values, embed, true);
    blocks::norm(t, e + "patch_ln2", embed, true);
    t.add(e + "pos_embedding", {v->dim_or("mm_posemb_size", 1120), 2, embed});
    blocks::norm(t, e + "pos_norm", embed, true);
    blocks::linear(t, e + "multimodal_embedder.embedding_projection", out, h, false);
    record_projector(t, "model.embed_vision");
    t.rename_on_disk(e, "model.vision_embedder.");
    t.rename_on_disk("model.vision_embedder.multimodal_embedder.", e);
  }
  if (auto audio = cfg.sub("audio_config"))
    blocks::linear(t, "model.embed_audio.embedding_projection", audio->dim_or("audio_embed_dim", 640), h,
                   false);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

// Gemma 4 12B's language model alone (gemma4_unified_text: Gemma4UnifiedForCausalLM), at model.* with a
// tied head.
void build_gemma4_unified_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma4UnifiedForCausalLM";
  gemma4_text_decoder(cfg, t, "model.", {.unified = true});
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

// Gemma-4's language model alone (gemma4_text: Gemma4ForCausalLM), at model.* with a tied head.
void build_gemma4_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma4ForCausalLM";
  gemma4_text_decoder(cfg, t, "model.");
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

// ---- Llama-4: MoE (with a shared expert) interleaved with dense layers, chunked attention on RoPE layers
// ----

struct Llama4Layers {
  std::vector<bool> moe;
  std::vector<uint64_t> window;  // attention_chunk_size on chunked (RoPE) layers, 0 on global NoPE layers
};

Llama4Layers read_llama4_layers(const ModelConfig& text, uint64_t layers) {
  Llama4Layers l{std::vector<bool>(layers, false), std::vector<uint64_t>(layers, 0)};
  if (text.has("moe_layers")) {
    for (int64_t i : text.ints("moe_layers")) {
      if (i < 0 || static_cast<uint64_t>(i) >= layers)
        text.fail("moe_layers", "entries must be layer indices");
      l.moe[static_cast<size_t>(i)] = true;
    }
  } else {
    const uint64_t step = text.dim_or("interleave_moe_layer_step", 1);
    for (uint64_t i = step - 1; i < layers; i += step) l.moe[i] = true;
  }
  std::vector<int64_t> rope = text.ints("no_rope_layers");  // 1: RoPE (chunked) layer, 0: NoPE (global) layer
  if (rope.empty()) {
    const uint64_t interval = text.dim_or("no_rope_layer_interval", 4);
    for (uint64_t i = 0; i < layers; ++i) rope.push_back((i + 1) % interval != 0);
  }
  if (rope.size() < layers) text.fail("no_rope_layers", "must cover every layer");
  const uint64_t chunk = text.count_or("attention_chunk_size", 8192);
  for (uint64_t i = 0; i < layers; ++i) l.window[i] = rope[i] ? chunk : 0;
  return l;
}

void llama4_moe(ModelTemplate& t, const std::string& p) {
  const ArchitectureRecord& a = t.arch;
  blocks::stacked_experts(t, p + "experts", {a.num_experts, a.hidden_size, 2 * a.moe_intermediate_size},
                          {a.num_experts, a.moe_intermediate_size, a.hidden_size});
  blocks::linear(t, p + "router", a.hidden_size, a.num_experts, false);
  blocks::gated_mlp(t, p + "shared_expert", a.hidden_size, a.moe_intermediate_size);
}

void llama4_text_decoder(const ModelConfig& text, ModelTemplate& t, const std::string& lm) {
  DecoderDefaults d;
  d.vocab_size = 202048;
  d.hidden_size = 5120;
  d.intermediate_size = 16384;  // intermediate_size_mlp: the dense layers' width
  d.num_hidden_layers = 48;
  d.num_attention_heads = 40;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 4096 * 32;
  read_decoder_dims(text, d, t);
  ArchitectureRecord& a = t.arch;
  a.intermediate_size = text.dim_or("intermediate_size_mlp", 16384);
  a.moe_intermediate_size = text.dim_or("intermediate_size", 8192);
  a.num_experts = text.dim_or("num_local_experts", 16);
  a.experts_per_token = text.dim_or("num_experts_per_tok", 1);
  a.num_shared_experts = 1;
  if (a.experts_per_token > a.num_experts)
    text.fail("num_experts_per_tok", "must not exceed num_local_experts");
  const Llama4Layers layers = read_llama4_layers(text, a.num_layers);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = text.flag_or("attention_bias", false);  // the q/k L2 norm has no weights
  token_embedding(t, lm + "embed_tokens.weight", a);
  StackSpec& stack = language_stack(t, lm);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = lm + "layers." + std::to_string(i) + ".";
    blocks::attention(t, p + "self_attn", at);
    if (layers.moe[i])
      llama4_moe(t, p + "feed_forward.");
    else
      blocks::gated_mlp(t, p + "feed_forward", a.hidden_size, a.intermediate_size);
    rms_norms(t, p, a.hidden_size, {"input_layernorm", "post_attention_layernorm"});
    LayerSpec l = attention_layer(a, 0, layers.moe[i] ? Ffn::Moe : Ffn::Dense);
    set_window(l.attention, layers.window[i], Span::Chunked);
    if (layers.moe[i]) l.ffn.shared_intermediate = a.moe_intermediate_size;  // one shared expert
    stack.layers.push_back(l);
  }
  blocks::norm(t, lm + "norm", a.hidden_size, false);
}

void build_llama4(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Llama4ForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "llama4_text");
  const uint64_t vision = llama4_vision_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", t);
  llama4_text_decoder(text, t, "language_model.model.");
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  blocks::linear(t, "multi_modal_projector.linear_1", vision, t.arch.hidden_size, false);
  record_projector(t, "multi_modal_projector");
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
  t.order_modules({"vision_model.", "multi_modal_projector.", "language_model."});
}

// Llama-4's language model alone (llama4_text: Llama4ForCausalLM), at model.* with its own head.
void build_llama4_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Llama4ForCausalLM";
  llama4_text_decoder(cfg, t, "model.");
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

// ---- Fuyu: a Persimmon decoder fed by one linear projection of raw image patches ----

void persimmon_decoder(const ModelConfig& text, ModelTemplate& t, const std::string& lm) {
  DecoderDefaults d;
  d.vocab_size = 262144;
  d.hidden_size = 4096;
  d.intermediate_size = 16384;
  d.num_hidden_layers = 36;
  d.num_attention_heads = 64;
  d.max_position_embeddings = 16384;
  read_decoder_dims(text, d, t);
  const ArchitectureRecord& a = t.arch;
  if (a.num_key_value_heads != a.num_attention_heads || a.head_dim * a.num_attention_heads != a.hidden_size)
    text.fail("num_key_value_heads", "Persimmon attention is plain multi-head over hidden_size");
  const bool qk_norm = text.flag_or("qk_layernorm", true);
  token_embedding(t, lm + "embed_tokens.weight", a);
  StackSpec& stack = language_stack(t, lm);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = lm + "layers." + std::to_string(i) + ".";
    blocks::linear(t, p + "self_attn.query_key_value", a.hidden_size, 3 * a.hidden_size, true);
    blocks::linear(t, p + "self_attn.dense", a.hidden_size, a.hidden_size, true);
    if (qk_norm) {
      blocks::norm(t, p + "self_attn.q_layernorm", a.head_dim, true);
      blocks::norm(t, p + "self_attn.k_layernorm", a.head_dim, true);
    }
    blocks::linear(t, p + "mlp.dense_h_to_4h", a.hidden_size, a.intermediate_size, true);
    blocks::linear(t, p + "mlp.dense_4h_to_h", a.intermediate_size, a.hidden_size, true);
    blocks::norm(t, p + "input_layernorm", a.hidden_size, true);
    blocks::norm(t, p + "post_attention_layernorm", a.hidden_size, true);
    stack.layers.push_back(attention_layer(a));
  }
  blocks::norm(t, lm + "final_layernorm", a.hidden_size, true);
}

// Persimmon alone (PersimmonForCausalLM), Fuyu's language model without the image patches.
void build_persimmon(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "PersimmonForCausalLM";
  persimmon_decoder(cfg, t, "model.");
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

void build_fuyu(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FuyuForCausalLM";
  // Without text_config, FuyuConfig hands its own top-level fields to the Persimmon text config.
  const bool nested = cfg.has("text_config");
  const ModelConfig text = nested ? sub_or_empty(cfg, "text_config") : cfg;
  t.arch.model_type = nested ? text.string_or("model_type", "persimmon") : "persimmon";
  if (t.arch.model_type != "persimmon")
    unsupported(cfg, "fuyu with a " + t.arch.model_type + " language model");
  persimmon_decoder(text, t, "model.language_model.");
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  const uint64_t patch = cfg.dim_or("patch_size", 30);
  blocks::linear(t, "model.vision_embed_tokens", patch * patch * cfg.dim_or("num_channels", 3),
                 cfg.dim_or("hidden_size", 4096), true);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  // Hub checkpoints keep the transformers 4 layout.
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("model.vision_embed_tokens.", "vision_embed_tokens.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
}

constexpr std::array kMultimodalFamilies{
    FamilyBuilder{"gemma3", build_gemma3},
    FamilyBuilder{"gemma4", build_gemma4},
    FamilyBuilder{"llama4", build_llama4},
    FamilyBuilder{"fuyu", build_fuyu},
    FamilyBuilder{"gemma4_text", build_gemma4_text},
    FamilyBuilder{"gemma4_unified", build_gemma4_unified},
    FamilyBuilder{"gemma4_unified_text", build_gemma4_unified_text},
    FamilyBuilder{"shieldgemma2", build_shieldgemma2},
    FamilyBuilder{"llama4_text", build_llama4_text},
    FamilyBuilder{"persimmon", build_persimmon},
};

}  // namespace

std::span<const FamilyBuilder> multimodal() {
  return kMultimodalFamilies;
}

}  // namespace ma::families
