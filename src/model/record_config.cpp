#include "model/record_config.h"

#include <array>

#include "model/family_table.h"
#include "model/language_config.h"
#include "model/stored_dtype.h"

namespace ma {
namespace {

// Config keys that hold (or name) a vision tower: a model with one reads images.
constexpr std::array<std::string_view, 6> kVisionKeys = {"vision_config", "mm_vision_tower", "vision_tower",
                                                         "visual",        "vision_encoder",  "vision_model"};

// A floating-point dtype named at `key`, "auto" (the model's own) or absent: unset.
std::optional<DType> cache_dtype(const ModelConfig& cfg, std::string_view key) {
  if (!cfg.has(key)) return std::nullopt;
  const std::string name = cfg.string_or(key, "auto");
  if (name == "auto") return std::nullopt;
  const std::optional<DType> d = dtype_from_any_name(name);
  if (!d || !dtype_info(*d).is_float) cfg.fail(key, "is not a floating-point dtype name");
  return d;
}

// A string of the config, or empty when absent or not a string (identification never fails a report).
std::string text_of(const ModelConfig& cfg, std::string_view key) {
  const json::Value* v = cfg.raw(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<std::string> architectures_of(const ModelConfig& cfg) {
  std::vector<std::string> out;
  const json::Value* v = cfg.raw("architectures");
  if (!v || !v->is_array()) return out;
  for (const json::Value& item : v->items())
    if (item.is_string()) out.emplace_back(item.as_string());
  return out;
}

// The family's own keys for the context length, from the family table.
std::string_view context_keys(const ArchitectureRecord& a) {
  auto rows = families_for_model_type(a.root_model_type);
  const FamilyRow* row = !rows.empty()             ? rows.front()
                         : a.architectures.empty() ? nullptr
                                                   : family_for_architecture(a.architectures.front());
  return row ? row->context_keys : std::string_view();
}

uint64_t lenient_dim(const LanguageConfig& cfg, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    const json::Value* v = cfg.find(k);
    auto n = v ? v->as_uint() : std::nullopt;
    if (n && *n <= ModelConfig::kMaxValue) return *n;
  }
  return 0;
}

}  // namespace

void read_config_facts(const ModelConfig& cfg, ArchitectureRecord& a) {
  a.root_model_type = text_of(cfg, "model_type");
  if (a.model_type.empty()) a.model_type = a.root_model_type;
  a.architectures = architectures_of(cfg);
  for (std::string_view k : kVisionKeys)
    if (cfg.has(k)) {
      a.vision_key = std::string(k);
      break;
    }
  a.context = read_context_declaration(cfg, context_keys(a));
  for (const ModelConfig& o : cfg.language_first())
    if (const json::Value* v = o.raw("use_cache"); v && v->is_bool()) {
      a.use_cache = v->as_bool();
      break;
    }
  // A builder may have found it first (in text_config, or Qwen-1's bf16/fp16 flags).
  if (a.torch_dtype.empty()) a.torch_dtype = text_of(cfg, "torch_dtype");
  if (a.torch_dtype.empty()) a.torch_dtype = text_of(cfg, "dtype");
  if (std::optional<DType> d = declared_float_dtype(a.torch_dtype)) {
    a.stored_dtype =
        d;  // what the checkpoint is expected to hold; its headers, when read, have the last word
    a.stored_dtype_source = "config.json torch_dtype";
  }
  const LanguageConfig language(&cfg);
  a.mtp_layers_declared = lenient_dim(language, {"num_nextn_predict_layers", "mtp_num_hidden_layers"});
  if (a.mtp_layers_declared > ModelConfig::kMaxLayers) a.mtp_layers_declared = 0;  // not a layer count
  for (const ModelConfig& o : cfg.language_first())
    for (std::string_view key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"})
      if (!a.ssm_cache_dtype) a.ssm_cache_dtype = cache_dtype(o, key);
}

ArchitectureRecord record_without_template(const ModelConfig& cfg) {
  ArchitectureRecord a;
  read_config_facts(cfg, a);
  const LanguageConfig lang(&cfg);
  a.hidden_size = lenient_dim(lang, {"hidden_size", "n_embd", "d_model", "n_embed"});
  a.num_layers = lenient_dim(lang, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  a.num_attention_heads = lenient_dim(lang, {"num_attention_heads", "n_head", "num_heads", "n_heads"});
  a.num_key_value_heads = lenient_dim(lang, {"num_key_value_heads", "multi_query_group_num", "n_head_kv"});
  a.intermediate_size = lenient_dim(lang, {"intermediate_size", "ffn_hidden_size", "n_inner", "d_ff"});
  a.vocab_size = lenient_dim(lang, {"vocab_size", "padded_vocab_size"});
  a.max_position_embeddings = a.context.declared ? a.context.declared->value : 0;
  return a;
}

}  // namespace ma
