#include "model/record_facts.h"

#include <algorithm>
#include <array>

#include "core/error.h"
#include "model/language_config.h"
#include "model/stored_dtype.h"

namespace ma {
namespace {

// Config keys naming the MLP activation, the one transformers prefers first (Gemma's hidden_activation
// overrides its legacy hidden_act).
constexpr std::array<std::string_view, 6> kActivationKeys{
    "hidden_activation", "hidden_act", "activation_function", "activation", "mlp_hidden_act", "dense_act_fn"};
constexpr std::array<std::string_view, 6> kNormEpsKeys{"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon",
                                                       "norm_epsilon", "norm_eps",       "layernorm_epsilon"};

// What the language model's tensors say about its blocks (vision towers are placed in their own block).
struct TensorFacts {
  bool norm = false;
  bool norm_bias = false;
  bool attention_bias = false;
  bool mlp = false;
  bool mlp_bias = false;
  bool gated = false;
  bool position_table = false;  // a learned position-embedding table
  bool relative_bias = false;   // T5's relative attention bias
  bool input_norm = false;      // a norm on a sub-layer's input (input_layernorm, pre_feedforward_layernorm)
  bool output_norm = false;     // a norm on the feed-forward's output, before its add
};

// The norm a layer applies to its feed-forward's output before the residual add, under transformers' name
// and llama.cpp's (Gemma-2/3/4, OLMo-2, EXAONE-4); and the names of a norm on a sub-layer's input. A
// post_attention_layernorm alone says nothing: Llama's is the MLP's input norm, OLMo-2's the attention's
// output norm.
bool names_output_norm(std::string_view name) {
  return name.find("post_feedforward_layernorm") != std::string_view::npos ||
         name.find(".post_ffw_norm") != std::string_view::npos;
}
bool names_input_norm(std::string_view name) {
  for (std::string_view n : {"input_layernorm", "pre_feedforward_layernorm", ".attn_norm.", ".ffn_norm."})
    if (name.find(n) != std::string_view::npos) return true;
  return false;
}

bool is_bias(std::string_view name) {
  return name.ends_with(".bias") || name.ends_with("_bias");
}

// Norms the placement files under their block's name (BERT's attention.output.LayerNorm).
// The sparse-attention indexer's LayerNorm (DeepSeek-V3.2, GLM-5) is not the decoder's norm.
bool is_norm(const TensorPlacement& p) {
  std::string_view role = p.role;
  if (role.starts_with("indexer")) return false;
  return p.block == Block::Norm || role.find("norm") != std::string_view::npos ||
         role.find("Norm") != std::string_view::npos || role.starts_with("ln");
}

// The width a dense MLP's up projection produces, or its down projection takes, in one layer.
struct MlpWidths {
  std::optional<uint32_t> layer;
  Block block;
  uint64_t up_out = 0, down_in = 0;
};

// ChatGLM's dense_h_to_4h is named like an ungated up projection (GPT-NeoX's) but holds gate and up fused:
// its output is twice what dense_4h_to_h takes, as the SwiGLU halves it. An ungated MLP's widths are equal.
bool fused_gate_up(const std::vector<MlpWidths>& widths) {
  for (const MlpWidths& w : widths)
    if (w.down_in && w.up_out == 2 * w.down_in) return true;
  return false;
}

// Notes a 2-D weight of a dense MLP's up or down projection (stacked experts are named gate_up_proj when
// fused).
void note_mlp_width(const NamedPlacement& t, std::vector<MlpWidths>& widths) {
  const TensorPlacement& p = t.placement;
  if (!t.shape || t.shape->size() != 2 || !t.name.ends_with(".weight")) return;
  if (p.block != Block::Mlp && p.block != Block::SharedExpert) return;
  if (p.role != "up" && p.role != "down") return;
  auto it = std::find_if(widths.begin(), widths.end(),
                         [&](const MlpWidths& w) { return w.layer == p.layer && w.block == p.block; });
  if (it == widths.end()) it = widths.insert(widths.end(), MlpWidths{p.layer, p.block});
  if (p.role == "up")
    it->up_out = (*t.shape)[0];  // nn.Linear's weight is [out, in]
  else
    it->down_in = (*t.shape)[1];
}

TensorFacts tensor_facts(const std::vector<NamedPlacement>& tensors) {
  TensorFacts f;
  std::vector<MlpWidths> widths;
  for (const NamedPlacement& t : tensors) {
    const TensorPlacement& p = t.placement;
    const Block block = p.block;
    const bool bias = is_bias(t.name);
    if (is_tower(block)) continue;
    if (is_norm(p)) {
      f.norm = true;
      f.norm_bias = f.norm_bias || bias;
      f.output_norm = f.output_norm || names_output_norm(t.name);
      f.input_norm = f.input_norm || names_input_norm(t.name);
    } else if (block == Block::Attention || block == Block::CrossAttention) {
      // Only the projections' biases: the DSA indexer's LayerNorm (GLM-5, DeepSeek-V3.2) has one too.
      f.attention_bias = f.attention_bias || (bias && is_attention_projection_role(p.role));
      f.relative_bias = f.relative_bias || p.role == "relative_attention_bias";
    } else if (block == Block::Mlp || block == Block::MoeExpert || block == Block::SharedExpert) {
      f.mlp = true;
      f.mlp_bias = f.mlp_bias || bias;
      f.gated = f.gated || p.role == "gate" || p.role == "gate-up";
      note_mlp_width(t, widths);
    } else if (block == Block::Embedding && p.role == "position-embedding") {
      f.position_table = true;
    }
  }
  f.gated = f.gated || fused_gate_up(widths);
  return f;
}

bool has_recurrent_layers_only(const ArchitectureRecord& a) {
  bool recurrent = false;
  for (const LayerSpec& l : a.layers()) {
    if (l.mixer == Mixer::Attention) return false;
    recurrent = recurrent || l.mixer != Mixer::None;
  }
  return recurrent;
}

bool has_attention(const ArchitectureRecord& a) {
  for (const StackSpec& s : a.stacks)
    for (const LayerSpec& l : s.layers)
      if (l.mixer == Mixer::Attention) return true;
  return false;
}

// The tensor-visible facts, for configs and bare weights alike.
void apply_tensor_facts(const TensorFacts& f, ArchitectureRecord& a) {
  if (a.norm == NormKind::Unknown && f.norm) a.norm = f.norm_bias ? NormKind::LayerNorm : NormKind::RmsNorm;
  a.attention_bias = a.attention_bias || f.attention_bias;
  a.mlp_bias = a.mlp_bias || f.mlp_bias;
  if (f.output_norm && !a.post_norm) {
    a.norm_after_sublayer = true;
    a.norm_before_sublayer = f.input_norm;  // OLMo-2 and EXAONE-4 norm the outputs only
  }
  for (StackSpec& s : a.stacks)
    for (LayerSpec& l : s.layers) l.ffn.gated = l.ffn.gated && (f.gated || !f.mlp);
  if (a.position != PositionKind::Unknown) return;
  if (has_recurrent_layers_only(a))
    a.position = PositionKind::None;
  else if (f.position_table)
    a.position = PositionKind::Learned;
  else if (f.relative_bias)
    a.position = PositionKind::Relative;
}

// The range a described number must lie in; out of it the number is left out of the record, with a warning.
enum class FactRange {
  NonNegative,  // a norm's eps
  Positive,     // a scaling factor, a soft cap, a rotary dimension
  Fraction,     // a share of the head dimension: (0, 1]
  RotaryBase,   // rope_theta and its aliases: positive, and a number at all (see fact_number)
};

bool in_fact_range(double v, FactRange range) {
  switch (range) {
    case FactRange::NonNegative:
      return v >= 0;
    case FactRange::Fraction:
      return v > 0 && v <= 1;
    case FactRange::Positive:
    case FactRange::RotaryBase:
      return v > 0;
  }
  return false;
}

std::string_view fact_range_text(FactRange range) {
  switch (range) {
    case FactRange::NonNegative:
      return "at least 0";
    case FactRange::Fraction:
      return "above 0 and at most 1";
    case FactRange::Positive:
    case FactRange::RotaryBase:
      return "above 0";
  }
  return "";
}

// `key` of `where` as a number in `range`, or nullopt: absent and null say nothing; another type, or a value
// out of range, is left out with a warning naming the field. A rotary base that is no number at all fails
// the analysis (exit 3): transformers computes the rotary frequencies from it (base ** (2i/d)) when it
// builds the model, so such a config builds no model there either. One that is not positive builds (into
// infinite or NaN frequencies), so it is only left out.
std::optional<double> fact_number(const ModelConfig& where, std::string_view key, FactRange range) {
  const json::Value* raw = where.raw(key);
  if (range == FactRange::RotaryBase && raw && !raw->is_null() && !raw->is_number())
    where.fail(key, "must be a number (the rotary embedding's base), found " + json_kind_text(*raw));
  const std::optional<double> v = where.described_number(key);
  if (!v || in_fact_range(*v, range)) return v;
  where.warn(key, "must be " + std::string(fact_range_text(range)) + ", found " + printable(raw->raw()) +
                      ": left out of the report");
  return std::nullopt;
}

// The same at the language model's object (text_config first) that holds `key`.
std::optional<double> fact_number(const LanguageConfig& cfg, std::string_view key, FactRange range) {
  const ModelConfig* where = cfg.owner(key);
  return where ? fact_number(*where, key, range) : std::nullopt;
}

std::optional<double> norm_eps(const LanguageConfig& cfg) {
  for (std::string_view key : kNormEpsKeys)
    if (auto v = fact_number(cfg, key, FactRange::NonNegative)) return v;
  return std::nullopt;
}

std::string activation(const LanguageConfig& cfg) {
  for (std::string_view key : kActivationKeys)
    if (auto v = cfg.text(key)) return *v;
  // T5 names the feed-forward as a whole; T5Config maps "gated-gelu" to gelu_new.
  if (auto ff = cfg.text("feed_forward_proj")) {
    std::string act = ff->starts_with("gated-") ? ff->substr(6) : *ff;
    return act == "gelu" && ff->starts_with("gated-") ? "gelu_new" : act;
  }
  return "";
}

bool alibi_flag(const LanguageConfig& cfg) {
  if (cfg.flag("alibi").value_or(false)) return true;
  const std::optional<ModelConfig> attn = cfg.object("attn_config");  // MPT
  return attn && attn->described_flag("alibi").value_or(false);
}

// rope_parameters (transformers 5) may be keyed by layer type when the types differ (Gemma-4). Held as
// config objects, so that a message names the field ("rope_parameters.full_attention.rope_theta").
struct RopeSources {
  std::optional<ModelConfig> global;
  std::optional<ModelConfig> local;
  std::optional<ModelConfig> scaling;
};

RopeSources rope_sources(const LanguageConfig& cfg) {
  RopeSources s;
  s.global = cfg.object("rope_parameters");
  s.scaling = cfg.object("rope_scaling");
  if (s.global)
    if (std::optional<ModelConfig> full = s.global->described_object("full_attention")) {
      s.local = s.global->described_object("sliding_attention");
      s.global = std::move(full);
    }
  return s;
}

// The first of `sources` (then the top-level config) that gives `key` a number in `range`.
std::optional<double> rope_number(const std::vector<const ModelConfig*>& sources, const LanguageConfig& cfg,
                                  std::string_view key, FactRange range = FactRange::Positive) {
  for (const ModelConfig* src : sources)
    if (src)
      if (auto v = fact_number(*src, key, range)) return v;
  return fact_number(cfg, key, range);
}

std::optional<std::string> rope_type_of(const ModelConfig* src) {
  if (!src) return std::nullopt;
  if (auto t = src->described_text("rope_type")) return t;
  return src->described_text("type");
}

// The rotary base: rope_theta (rope_parameters, rope_scaling, the config), else GPT-NeoX-era
// rotary_emb_base, else MPT's attn_config.rope_theta; 0 when none gives one.
double rotary_theta(const std::vector<const ModelConfig*>& sources, const LanguageConfig& cfg) {
  if (auto theta = rope_number(sources, cfg, "rope_theta", FactRange::RotaryBase)) return *theta;
  if (auto base = fact_number(cfg, "rotary_emb_base", FactRange::RotaryBase)) return *base;
  if (const std::optional<ModelConfig> attn = cfg.object("attn_config"))
    if (auto theta = fact_number(*attn, "rope_theta", FactRange::RotaryBase)) return *theta;
  return 0;
}

// `preset`: what the builder already knows (a family that always uses MRoPE).
RopeSpec rope_spec(const LanguageConfig& cfg, const ArchitectureRecord& a,
                   const std::optional<RopeSpec>& preset) {
  const RopeSources s = rope_sources(cfg);
  const std::vector<const ModelConfig*> sources{s.global ? &*s.global : nullptr,
                                                s.scaling ? &*s.scaling : nullptr};
  RopeSpec r;
  for (const ModelConfig* src : sources)
    if (r.type.empty()) r.type = rope_type_of(src).value_or("");
  // Qwen-VL's multimodal rope splits the rotary dims by time/height/width (mrope_section).
  if ((r.type.empty() || r.type == "default") &&
      ((s.global && s.global->has("mrope_section")) || (s.scaling && s.scaling->has("mrope_section"))))
    r.type = "mrope";
  if ((r.type.empty() || r.type == "default") && preset && !preset->type.empty()) r.type = preset->type;
  if (r.type.empty()) r.type = "default";
  r.theta = rotary_theta(sources, cfg);
  r.factor = rope_number(sources, cfg, "factor");
  if (auto o = rope_number(sources, cfg, "original_max_position_embeddings"); o && *o < 1e15)
    r.original_max_position_embeddings = static_cast<uint64_t>(*o);
  r.partial_rotary_factor = rope_number(sources, cfg, "partial_rotary_factor", FactRange::Fraction);
  if (!r.partial_rotary_factor)
    r.partial_rotary_factor = fact_number(cfg, "rotary_pct", FactRange::Fraction);  // GPT-NeoX
  if (auto dim = fact_number(cfg, "rotary_dim", FactRange::Positive);
      !r.partial_rotary_factor && dim && a.head_dim)
    r.partial_rotary_factor = *dim / static_cast<double>(a.head_dim);  // GPT-J: rotary_dim of head_dim
  if (r.partial_rotary_factor && *r.partial_rotary_factor > 1) r.partial_rotary_factor.reset();
  r.local_theta = s.local ? fact_number(*s.local, "rope_theta", FactRange::RotaryBase)
                          : fact_number(cfg, "rope_local_base_freq", FactRange::RotaryBase);
  return r;
}

}  // namespace

void derive_facts(const ModelConfig& config, const std::vector<NamedPlacement>& tensors,
                  ArchitectureRecord& a) {
  check_declared_dtype_names(config);
  const LanguageConfig cfg(&config);
  apply_tensor_facts(tensor_facts(tensors), a);
  if (a.norm == NormKind::Unknown && cfg.find("rms_norm_eps")) a.norm = NormKind::RmsNorm;
  if (!a.norm_eps) a.norm_eps = norm_eps(cfg);
  if (a.activation.empty()) a.activation = activation(cfg);
  if (auto cap = fact_number(cfg, "attn_logit_softcapping", FactRange::Positive)) a.attention_softcap = *cap;
  if (a.position == PositionKind::Unknown) {
    if (alibi_flag(cfg))
      a.position = PositionKind::Alibi;
    else if (cfg.text("position_embedding_type") == "rope" || has_attention(a))
      a.position = PositionKind::Rope;
  }
  if (a.position == PositionKind::Rope)
    a.rope = rope_spec(cfg, a, a.rope);
  else
    a.rope.reset();
}

void derive_facts(const std::vector<NamedPlacement>& tensors, ArchitectureRecord& a) {
  // Rotary embeddings leave no tensor behind: without a config the position encoding stays unknown unless a
  // table or relative buckets show it.
  apply_tensor_facts(tensor_facts(tensors), a);
}

}  // namespace ma
