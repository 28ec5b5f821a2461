#include "analysis/architecture_details.h"

#include <array>
#include <string_view>

#include "analysis/architecture_config.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

// Families whose norms are mean-centred LayerNorms without a bias: their tensors alone look like RMSNorm's.
constexpr std::array<std::string_view, 3> kBiasFreeLayerNorm{"cohere", "cohere2", "mpt"};

// Families with neither a position table nor rotary embeddings; every other supported decoder family
// with attention rotates q and k.
struct PositionFact {
  std::string_view model_type;
  std::string_view position;
};
constexpr std::array<PositionFact, 4> kPositionFacts{{
    {"bloom", "alibi"},
    {"jamba", "none"},             // attention without positions: the Mamba layers carry order
    {"nemotron_h", "none"},        // NoPE attention: NemotronHAttention has no rotary embedding
    {"granitemoehybrid", "none"},  // rotary only with position_embedding_type "rope"
}};

// Multimodal models whose language model always rotates by time/height/width sections (MRoPE), whether or
// not the config spells out mrope_section.
constexpr std::array<std::string_view, 6> kMropeFamilies{"qwen2_vl",     "qwen2_5_vl", "qwen3_vl",
                                                         "qwen3_vl_moe", "qwen3_5",    "qwen3_5_moe"};

// Config keys naming the MLP activation, the one transformers prefers first (Gemma's hidden_activation
// overrides its legacy hidden_act).
constexpr std::array<std::string_view, 6> kActivationKeys{
    "hidden_activation", "hidden_act", "activation_function", "activation", "mlp_hidden_act", "dense_act_fn"};
constexpr std::array<std::string_view, 6> kNormEpsKeys{"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon",
                                                       "norm_epsilon", "norm_eps",       "layernorm_epsilon"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& list, std::string_view s) {
  for (std::string_view x : list)
    if (x == s) return true;
  return false;
}

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
  bool cross_attention = false;
  bool encoder_stack = false;
  bool decoder_stack = false;
};

bool is_bias(std::string_view name) {
  return name.ends_with(".bias") || name.ends_with("_bias");
}

// Norms the placement files under their block's name (BERT's attention.output.LayerNorm).
// The sparse-attention indexer's LayerNorm (DeepSeek-V3.2, GLM-5) is not the decoder's norm.
bool is_norm(const TensorPlacement& p) {
  std::string_view role = p.role;
  if (role.starts_with("indexer")) return false;
  return p.block == "norm" || role.find("norm") != std::string_view::npos ||
         role.find("Norm") != std::string_view::npos || role.starts_with("ln");
}

void add_fact(TensorFacts& f, std::string_view name, const TensorPlacement& p) {
  std::string_view block = p.block;
  const bool bias = is_bias(name);
  std::string_view stack = name.substr(0, p.stack_length);
  if (stack.find("encoder") != std::string_view::npos) f.encoder_stack = true;
  if (stack.find("decoder") != std::string_view::npos) f.decoder_stack = true;
  if (block == "vision" || block == "vision-projector") return;
  if (is_norm(p)) {
    f.norm = true;
    f.norm_bias = f.norm_bias || bias;
  } else if (block == "attention" || block == "cross-attention") {
    f.attention_bias = f.attention_bias || bias;
    f.relative_bias = f.relative_bias || p.role == "relative_attention_bias";
    f.cross_attention = f.cross_attention || block == "cross-attention";
  } else if (block == "mlp" || block == "moe-expert" || block == "shared-expert") {
    f.mlp = true;
    f.mlp_bias = f.mlp_bias || bias;
    f.gated = f.gated || p.role == "gate" || p.role == "gate-up";
  } else if (block == "embedding" && p.role == "position-embedding") {
    f.position_table = true;
  }
}

// The template's parameters when there is one: a quantized checkpoint's tensors say what the quantizer
// stored (AutoGPTQ writes a bias for every linear layer), not what the architecture has.
TensorFacts tensor_facts(const Inventory& inv) {
  TensorFacts f;
  if (inv.model) {
    for (const TemplateTensor& t : inv.model->tensors)
      if (t.kind == TensorKind::Parameter) add_fact(f, t.name, place_tensor(t.name));
  } else {
    for (const InventoryTensor& t : inv.tensors)
      if (t.kind == TensorKind::Parameter) add_fact(f, t.name, t.placement);
  }
  return f;
}

const ArchitectureRecord* arch_of(const ReportInputs& in) {
  return in.inventory.model ? &in.inventory.model->arch : nullptr;
}

// From the record's stacks: an encoder with a decoder, an encoder alone (BERT, T5EncoderModel), or a decoder
// by its mixers.
std::string architecture_type(const ArchitectureRecord& a) {
  const StackSpec* decoder = a.stack(StackRole::Decoder);
  if (a.stack(StackRole::Encoder)) return decoder ? "encoder-decoder" : "encoder-only";
  if (!decoder) return "";
  size_t attention = 0, recurrent = 0;
  for (const LayerSpec& l : decoder->layers) {
    if (l.mixer == Mixer::Attention)
      ++attention;
    else if (l.mixer != Mixer::None)
      ++recurrent;
  }
  if (recurrent && attention) return "hybrid";
  if (recurrent) return "ssm";
  return attention ? "decoder-only" : "";
}

std::string norm_type(const ReportInputs& in, const TensorFacts& f, const LanguageConfig& cfg) {
  if (const ArchitectureRecord* a = arch_of(in); a && listed(kBiasFreeLayerNorm, a->model_type)) return "layernorm";
  if (f.norm_bias) return "layernorm";  // RMSNorm has no bias
  if (f.norm || cfg.find("rms_norm_eps")) return "rmsnorm";
  return "";
}

std::optional<double> norm_eps(const LanguageConfig& cfg) {
  for (std::string_view key : kNormEpsKeys)
    if (auto v = cfg.number(key); v && *v >= 0) return v;
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
  return cfg.flag("alibi").value_or(false) || json_flag(cfg.object("attn_config"), "alibi").value_or(false);
}

std::string position_embedding(const ReportInputs& in, const TensorFacts& f, const LanguageConfig& cfg,
                               const std::string& type) {
  if (type == "ssm") return "none";
  if (f.position_table) return "learned";
  if (f.relative_bias) return "relative";
  if (alibi_flag(cfg)) return "alibi";
  if (cfg.text("position_embedding_type") == "rope") return "rope";
  const ArchitectureRecord* a = arch_of(in);
  if (!a) return "";  // bare weights: rotary embeddings leave no tensor behind
  for (const PositionFact& p : kPositionFacts)
    if (p.model_type == a->model_type) return std::string(p.position);
  return type.empty() ? "" : "rope";
}

// rope_parameters (transformers 5) may be keyed by layer type when the types differ (Gemma-4).
struct RopeSources {
  const json::Value* global = nullptr;
  const json::Value* local = nullptr;
  const json::Value* scaling = nullptr;
};

RopeSources rope_sources(const LanguageConfig& cfg) {
  RopeSources s;
  s.global = cfg.object("rope_parameters");
  s.scaling = cfg.object("rope_scaling");
  if (const json::Value* full = json_member(s.global, "full_attention"); full && full->is_object()) {
    const json::Value* sliding = json_member(s.global, "sliding_attention");
    s.local = sliding && sliding->is_object() ? sliding : nullptr;
    s.global = full;
  }
  return s;
}

// The first of `sources` (then the top-level config) that gives `key` a positive number.
std::optional<double> rope_number(const std::vector<const json::Value*>& sources, const LanguageConfig& cfg,
                                  std::string_view key) {
  for (const json::Value* src : sources)
    if (auto v = json_number(src, key); v && *v > 0) return v;
  if (auto v = cfg.number(key); v && *v > 0) return v;
  return std::nullopt;
}

std::optional<RopeInfo> rope_info(const LanguageConfig& cfg, const ArchitectureRecord* arch,
                                  const std::optional<std::string>& root_model_type) {
  const RopeSources s = rope_sources(cfg);
  const std::vector<const json::Value*> sources{s.global, s.scaling};
  RopeInfo r;
  for (const json::Value* src : sources)
    if (r.type.empty()) r.type = json_text(src, "rope_type").value_or(json_text(src, "type").value_or(""));
  // Qwen-VL's multimodal rope splits the rotary dims by time/height/width (mrope_section).
  if ((r.type.empty() || r.type == "default") &&
      (json_member(s.global, "mrope_section") || json_member(s.scaling, "mrope_section")))
    r.type = "mrope";
  if ((r.type.empty() || r.type == "default") && root_model_type && listed(kMropeFamilies, *root_model_type))
    r.type = "mrope";
  if (r.type.empty()) r.type = "default";
  r.theta = rope_number(sources, cfg, "rope_theta")
                .value_or(cfg.number("rotary_emb_base")
                              .value_or(json_number(cfg.object("attn_config"), "rope_theta").value_or(0)));
  if (r.theta < 0) r.theta = 0;
  r.factor = rope_number(sources, cfg, "factor");
  if (auto o = rope_number(sources, cfg, "original_max_position_embeddings"); o && *o < 1e15)
    r.original_max_position_embeddings = static_cast<uint64_t>(*o);
  r.partial_rotary_factor = rope_number(sources, cfg, "partial_rotary_factor");
  if (!r.partial_rotary_factor) r.partial_rotary_factor = rope_number({}, cfg, "rotary_pct");  // GPT-NeoX
  if (auto dim = cfg.number("rotary_dim");
      !r.partial_rotary_factor && dim && *dim > 0 && arch && arch->head_dim)
    r.partial_rotary_factor = *dim / static_cast<double>(arch->head_dim);  // GPT-J: rotary_dim of head_dim
  if (r.partial_rotary_factor && *r.partial_rotary_factor > 1) r.partial_rotary_factor.reset();
  r.local_theta = s.local ? json_number(s.local, "rope_theta") : cfg.number("rope_local_base_freq");
  if (r.local_theta && *r.local_theta <= 0) r.local_theta.reset();
  return r;
}

}  // namespace

ArchitectureDetails describe_architecture(const ReportInputs& in) {
  ArchitectureDetails d;
  const LanguageConfig cfg(in.config);
  const TensorFacts f = tensor_facts(in.inventory);
  const ArchitectureRecord* a = arch_of(in);
  if (a) {
    d.num_hidden_layers = a->num_layers;
    d.hidden_size = a->hidden_size;
    d.intermediate_size = a->intermediate_size;
    d.num_attention_heads = a->num_attention_heads;
    d.num_key_value_heads = a->num_key_value_heads;
    d.head_dim = a->head_dim;
    d.vocab_size = a->vocab_size;
    d.max_position_embeddings = a->max_position_embeddings;
    d.tie_word_embeddings = a->tie_word_embeddings;
    d.torch_dtype = a->torch_dtype;
  } else {
    d.num_hidden_layers = in.inventory.arch.layers().size();
  }
  d.architecture_type = architecture_type(in.inventory.arch);
  d.norm_type = norm_type(in, f, cfg);
  d.norm_eps = norm_eps(cfg);
  d.activation = activation(cfg);
  d.mlp_type = f.gated ? "gated" : f.mlp ? "plain" : (a ? "none" : "");
  d.position_embedding = position_embedding(in, f, cfg, d.architecture_type);
  if (d.position_embedding == "rope") {
    const json::Value* mt = in.config ? in.config->raw("model_type") : nullptr;
    d.rope =
        rope_info(cfg, a, mt && mt->is_string() ? std::optional<std::string>(mt->as_string()) : std::nullopt);
  }
  d.attention_bias = f.attention_bias;
  d.mlp_bias = f.mlp_bias;
  return d;
}

}  // namespace ma
