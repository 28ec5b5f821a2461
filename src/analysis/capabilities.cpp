#include "analysis/capabilities.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "analysis/identity.h"
#include "core/error.h"
#include "core/units.h"
#include "io/file_source.h"
#include "model/family_table.h"

namespace ma {
namespace {

// Where configs keep their context length when the family table names none, in order of precedence.
constexpr std::string_view kGenericContextKeys =
    "max_position_embeddings n_positions max_sequence_length seq_length max_seq_len model_max_length";
// Class endings of task heads that classify instead of producing tokens.
constexpr std::array<std::string_view, 6> kClassifierHeads = {
    "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
    "ForMultipleChoice",         "ForImageClassification", "ForAudioClassification"};
// Blocks whose 2-D weights are nn.Linear projections (or GPT-2's Conv1D) that PEFT's LoRA layers wrap.
constexpr std::array<std::string_view, 7> kLoraBlocks = {
    "attention", "cross-attention", "mlp", "shared-expert", "moe-expert", "mamba", "linear-attention"};
constexpr uint64_t kMaxQuantConfigBytes = 1 << 20;

std::string fmt(uint64_t n) {
  return with_thousands(n);
}

std::string fmt_factor(double f) {
  std::string s = std::to_string(f);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.ends_with('.')) s.pop_back();
  return s;
}

// A positive integer length, or nullopt with a note when the value is unusable (configs are untrusted; a
// tokenizer-style 1e30 "infinite" sentinel or a string is not a context length).
std::optional<uint64_t> length_field(const json::Value* v, const std::string& where,
                                     std::vector<std::string>& notes) {
  if (!v || v->is_null()) return std::nullopt;
  auto n = v->as_uint();
  if (n && *n >= 1 && *n <= ModelConfig::kMaxValue) return n;
  notes.push_back(where + " is not a usable length (" +
                  std::string(v->is_number() ? v->raw() : "not a number") + "): ignored");
  return std::nullopt;
}

// The config objects to read, language model first: a multimodal config keeps its lengths in text_config.
std::vector<ModelConfig> config_objects(const ModelConfig* cfg) {
  std::vector<ModelConfig> out;
  if (!cfg) return out;
  if (const json::Value* t = cfg->raw("text_config"); t && t->is_object())
    out.push_back(*cfg->sub("text_config"));
  out.push_back(*cfg);
  return out;
}

std::string where(const ModelConfig& c, std::string_view key) {
  return c.path().empty() ? std::string(key) : c.path() + "." + std::string(key);
}

struct Rope {
  std::string type;
  std::optional<double> factor;
  std::optional<uint64_t> original;
  std::string original_key;
};

// rope_scaling, or transformers 5's rope_parameters (per layer type for Gemma-4 / Laguna: the full-attention
// layers' entry is the one that sets the reach).
Rope read_rope(const std::vector<ModelConfig>& objs, std::vector<std::string>& notes) {
  Rope r;
  for (const ModelConfig& c : objs) {
    const json::Value* rope = c.raw("rope_scaling");
    std::string key = "rope_scaling";
    if (!rope || !rope->is_object()) rope = c.raw("rope_parameters"), key = "rope_parameters";
    if (!rope || !rope->is_object()) continue;
    if (const json::Value* full = rope->find("full_attention"); full && full->is_object()) {
      rope = full;
      key += ".full_attention";
    }
    for (std::string_view k : {"rope_type", "type"})
      if (const json::Value* t = rope->find(k); t && t->is_string() && r.type.empty())
        r.type = t->as_string();
    if (const json::Value* f = rope->find("factor"); f && f->is_number() && f->as_double() > 0)
      r.factor = f->as_double();
    std::string okey = where(c, key + ".original_max_position_embeddings");
    r.original = length_field(rope->find("original_max_position_embeddings"), okey, notes);
    if (r.original) r.original_key = okey;
    break;
  }
  for (const ModelConfig& c : objs) {
    if (r.original) break;
    r.original = length_field(c.raw("original_max_position_embeddings"),
                              where(c, "original_max_position_embeddings"), notes);
    if (r.original) r.original_key = where(c, "original_max_position_embeddings");
  }
  if (r.type == "default") r.type.clear();  // "default" is plain RoPE: no scaling
  return r;
}

void assess_context(const ReportInputs& in, const Identity& id, const FamilyRow* row, Capabilities& c) {
  if (id.kind == "vision") {
    c.notes.push_back("image model: it takes a fixed grid of patches, not a token context");
    return;
  }
  auto objs = config_objects(in.config);
  std::string_view keys = row && !row->context_keys.empty() ? row->context_keys : kGenericContextKeys;
  std::optional<uint64_t> declared;
  for (std::string_view key : list_items(keys)) {
    for (const ModelConfig& o : objs)
      if ((declared = length_field(o.raw(key), where(o, key), c.notes))) {
        c.context_source = where(o, key);
        break;
      }
    if (declared) break;
  }
  Rope rope = read_rope(objs, c.notes);
  c.rope_scaling_type = rope.type;
  if (rope.factor && *rope.factor != 1.0) c.rope_scaling_factor = rope.factor;
  std::string scaling = rope.type.empty() ? "rope scaling" : "rope scaling '" + rope.type + "'";
  if (c.rope_scaling_factor) scaling += " (factor " + fmt_factor(*rope.factor) + ")";

  if (declared && rope.original && *declared > *rope.original) {
    c.max_context_length = declared;
    c.original_context_length = rope.original;
    c.notes.push_back(c.context_source + " = " + fmt(*declared) + ", extended by " + scaling + " from " +
                      rope.original_key + " = " + fmt(*rope.original));
    if (c.rope_scaling_factor) {
      double product = *rope.factor * static_cast<double>(*rope.original);
      if (std::abs(product - static_cast<double>(*declared)) >= 1)
        c.notes.push_back("factor x original = " + fmt(static_cast<uint64_t>(std::llround(product))) +
                          " differs from " + c.context_source + ": the declared maximum is reported");
    }
  } else if (rope.original && c.rope_scaling_factor && *rope.factor > 1 &&
             (!declared || *declared <= *rope.original)) {
    double product = *rope.factor * static_cast<double>(*rope.original);
    if (product > static_cast<double>(ModelConfig::kMaxValue)) {
      c.notes.push_back(scaling + " x " + fmt(*rope.original) + " is beyond any real context: ignored");
      c.max_context_length = declared;
    } else {
      c.max_context_length = static_cast<uint64_t>(std::llround(product));
      c.original_context_length = rope.original;
      c.context_source = "rope scaling factor x " + rope.original_key;
      c.notes.push_back("max context = factor " + fmt_factor(*rope.factor) + " x " + rope.original_key + " " +
                        fmt(*rope.original) + " (" + scaling + ")");
    }
  } else if (declared) {
    c.max_context_length = declared;
    // An "original" above the maximum (tiny test configs keep Phi-3's 4,096 default) is not one.
    if (rope.original && *rope.original <= *declared) c.original_context_length = rope.original;
    if (c.rope_scaling_factor)
      c.notes.push_back(
          scaling + " without original_max_position_embeddings: " + c.context_source +
          " is reported as the maximum" +
          (rope.type == "dynamic" ? " (dynamic NTK scaling stretches positions past it at inference)" : ""));
  } else if (in.inventory.model && in.inventory.model->arch.max_position_embeddings > 0) {
    c.max_context_length = in.inventory.model->arch.max_position_embeddings;
    c.context_source = "transformers default";
    c.notes.push_back("the config names no context length: " + fmt(*c.max_context_length) +
                      " is the default of transformers' " + id.model_type + " config");
  } else {
    c.notes.push_back("the config declares no maximum context length");
  }
  if (in.config && in.config->has("relative_attention_num_buckets") && c.max_context_length)
    c.notes.push_back("relative position buckets: " + c.context_source +
                      " is the trained length, not a hard limit");
  if (in.config && id.kind == "speech")
    if (auto src = length_field(in.config->raw("max_source_positions"), "max_source_positions", c.notes))
      c.notes.push_back("decoder tokens; the encoder takes max_source_positions = " + fmt(*src) +
                        " audio frames");
}

void assess_generation(const Identity& id, Capabilities& c) {
  for (std::string_view head : kClassifierHeads)
    if (id.architecture_class.ends_with(head)) {
      c.notes.push_back("cannot generate: " + id.architecture_class + " is a classification head");
      return;
    }
  if (id.kind == "causal-lm" || id.kind == "seq2seq" || id.kind == "vision-language" || id.kind == "speech") {
    c.can_generate = true;
    c.notes.push_back("can generate: " + id.kind + " (" + id.kind_evidence + ")");
  } else {
    c.notes.push_back("cannot generate: " + id.kind + " model (" + id.kind_evidence + ")");
  }
}

// The module name a LoRA layer would wrap: "model.layers.0.self_attn.q_proj.weight" -> "q_proj".
std::string_view lora_module(const InventoryTensor& t) {
  if (t.shape.size() != 2) return {};  // fused 3-D expert tensors and convolutions are not nn.Linear
  if (std::find(kLoraBlocks.begin(), kLoraBlocks.end(), t.placement.block) == kLoraBlocks.end()) return {};
  std::string_view n = t.name;
  for (std::string_view leaf : {".weight", ".qweight"})
    if (n.ends_with(leaf)) {
      n.remove_suffix(leaf.size());
      std::string_view module = n.substr(n.rfind('.') + 1);
      if (module.find("norm") != std::string_view::npos) return {};
      return module;
    }
  return {};
}

// The method a checkpoint is already quantized with, as its config files declare it (config.json, NVIDIA
// ModelOpt's hf_quant_config.json, ...) or as the stored tensors show; empty when it is not.
std::string prequantization(const ReportInputs& in, bool& bnb_4bit) {
  if (const auto& q = in.inventory.arch.quantization) {
    bnb_4bit = q->key == "bitsandbytes_4bit";
    return q->label;
  }
  const Inventory& inv = in.inventory;
  if (inv.checkpoint && inv.checkpoint->headers_read) {
    if (inv.checkpoint->quantization_scales > 0) return "stored quantization scales";
    for (const InventoryTensor& t : inv.tensors)
      if (t.kind == TensorKind::Parameter && t.dtype && dtype_bits(*t.dtype) <= 8 &&
          dtype_info(*t.dtype).is_float)
        return "stored " + std::string(dtype_info(*t.dtype).short_name) + " weights";
  }
  return {};
}

void assess_adapters(const ReportInputs& in, Capabilities& c) {
  for (const InventoryTensor& t : in.inventory.tensors) {
    std::string_view m = lora_module(t);
    if (!m.empty() && std::find(c.lora_target_modules.begin(), c.lora_target_modules.end(), m) ==
                          c.lora_target_modules.end())
      c.lora_target_modules.emplace_back(m);
  }
  if (c.lora_target_modules.empty()) {
    c.notes.push_back(in.inventory.tensors.empty() ? "no tensor inventory: LoRA compatibility unknown"
                                                   : "no linear projections found: LoRA not applicable");
  } else {
    c.lora_compatible = true;
    std::string list;
    for (const auto& m : c.lora_target_modules) list += (list.empty() ? "" : ", ") + m;
    c.notes.push_back("LoRA: linear projections to target: " + list);
    if (std::find(c.lora_target_modules.begin(), c.lora_target_modules.end(), "c_attn") !=
        c.lora_target_modules.end())
      c.notes.push_back("GPT-2-style Conv1D projections: PEFT wraps them with fan_in_fan_out=True");
  }
  bool bnb_4bit = false;
  c.prequantized = prequantization(in, bnb_4bit);
  if (!c.lora_compatible) return;
  if (c.prequantized.empty()) {
    c.qlora_compatible = true;
    c.notes.push_back(
        "QLoRA: unquantized weights can be loaded in 4-bit NF4 (bitsandbytes) under the adapters");
  } else if (bnb_4bit) {
    c.qlora_compatible = true;
    c.notes.push_back("QLoRA: already bitsandbytes 4-bit, the QLoRA base format");
  } else {
    c.notes.push_back("QLoRA: not for this checkpoint, already quantized as " + c.prequantized +
                      "; QLoRA quantizes 16-bit weights itself, so start from the unquantized model");
  }
}

}  // namespace

Capabilities assess_capabilities(const ReportInputs& in) {
  Capabilities c;
  Identity id = identify(in);
  auto rows = families_for_model_type(id.model_type);
  const FamilyRow* row = rows.empty() ? family_for_architecture(id.architecture_class) : rows.front();
  assess_generation(id, c);
  assess_context(in, id, row, c);
  c.supports_long_context = c.max_context_length && *c.max_context_length >= kLongContextTokens;
  assess_adapters(in, c);
  return c;
}

}  // namespace ma
