#include "analysis/capabilities.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "analysis/identity.h"
#include "core/error.h"
#include "core/units.h"

namespace ma {
namespace {

// Class endings of task heads that classify instead of producing tokens.
constexpr std::array<std::string_view, 6> kClassifierHeads = {
    "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
    "ForMultipleChoice",         "ForImageClassification", "ForAudioClassification"};
// Blocks whose 2-D weights are nn.Linear projections (or GPT-2's Conv1D) that PEFT's LoRA layers wrap.
constexpr std::array<Block, 10> kLoraBlocks = {
    Block::Attention, Block::CrossAttention,  Block::Mlp,   Block::SharedExpert, Block::MoeExpert,
    Block::Mamba,     Block::LinearAttention, Block::RgLru, Block::Rwkv,         Block::Mlstm};

std::string fmt(uint64_t n) {
  return with_thousands(n);
}

std::string fmt_factor(double f) {
  std::string s = std::to_string(f);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.ends_with('.')) s.pop_back();
  return s;
}

// The maximum context from what the config declares: the declared length, extended by rope scaling where it
// says so, or the family's default.
void assess_context(const ArchitectureRecord& a, const Identity& id, Capabilities& c) {
  if (id.kind == "vision") {
    c.notes.push_back("image model: it takes a fixed grid of patches, not a token context");
    return;
  }
  const ContextDeclaration& d = a.context;
  for (const std::string& u : d.unusable) c.notes.push_back(u);
  const std::optional<uint64_t> declared = d.declared ? std::optional(d.declared->value) : std::nullopt;
  if (d.declared) c.context_source = d.declared->key;
  const std::optional<uint64_t> original =
      d.rope_original ? std::optional(d.rope_original->value) : std::nullopt;
  const std::string original_key = d.rope_original ? d.rope_original->key : "";
  c.rope_scaling_type = d.rope_type;
  if (d.rope_factor && *d.rope_factor != 1.0) c.rope_scaling_factor = d.rope_factor;
  std::string scaling = d.rope_type.empty() ? "rope scaling" : "rope scaling '" + d.rope_type + "'";
  if (c.rope_scaling_factor) scaling += " (factor " + fmt_factor(*d.rope_factor) + ")";

  if (declared && original && *declared > *original) {
    c.max_context_length = declared;
    c.original_context_length = original;
    c.notes.push_back(c.context_source + " = " + fmt(*declared) + ", extended by " + scaling + " from " +
                      original_key + " = " + fmt(*original));
    if (c.rope_scaling_factor) {
      double product = *d.rope_factor * static_cast<double>(*original);
      if (std::abs(product - static_cast<double>(*declared)) >= 1)
        c.notes.push_back("factor x original = " + fmt(static_cast<uint64_t>(std::llround(product))) +
                          " differs from " + c.context_source + ": the declared maximum is reported");
    }
  } else if (original && c.rope_scaling_factor && *d.rope_factor > 1 &&
             (!declared || *declared <= *original)) {
    double product = *d.rope_factor * static_cast<double>(*original);
    if (product > static_cast<double>(ModelConfig::kMaxValue)) {
      c.notes.push_back(scaling + " x " + fmt(*original) + " is beyond any real context: ignored");
      c.max_context_length = declared;
    } else {
      c.max_context_length = static_cast<uint64_t>(std::llround(product));
      c.original_context_length = original;
      c.context_source = "rope scaling factor x " + original_key;
      c.notes.push_back("max context = factor " + fmt_factor(*d.rope_factor) + " x " + original_key + " " +
                        fmt(*original) + " (" + scaling + ")");
    }
  } else if (declared) {
    c.max_context_length = declared;
    // An "original" above the maximum (tiny test configs keep Phi-3's 4,096 default) is not one.
    if (original && *original <= *declared) c.original_context_length = original;
    if (c.rope_scaling_factor)
      c.notes.push_back(scaling + " without original_max_position_embeddings: " + c.context_source +
                        " is reported as the maximum" +
                        (d.rope_type == "dynamic"
                             ? " (dynamic NTK scaling stretches positions past it at inference)"
                             : ""));
  } else if (!a.model_type.empty() && a.max_position_embeddings > 0 && !a.stacks.empty()) {
    c.max_context_length = a.max_position_embeddings;
    c.context_source = "transformers default";
    c.notes.push_back("the config names no context length: " + fmt(*c.max_context_length) +
                      " is the default of transformers' " + id.model_type + " config");
  } else {
    c.notes.push_back("the config declares no maximum context length");
  }
  if (d.relative_buckets && c.max_context_length)
    c.notes.push_back("relative position buckets: " + c.context_source +
                      " is the trained length, not a hard limit");
  if (d.encoder_frames && id.kind == "speech")
    c.notes.push_back("decoder tokens; the encoder takes max_source_positions = " + fmt(*d.encoder_frames) +
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
  c.adapters_known = !in.inventory.tensors.empty();
  if (c.lora_target_modules.empty()) {
    c.notes.push_back(!c.adapters_known ? "no tensor inventory: LoRA compatibility unknown"
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
  assess_generation(id, c);
  assess_context(in.inventory.arch, id, c);
  c.supports_long_context = c.max_context_length && *c.max_context_length >= kLongContextTokens;
  // A stack of recurrent layers alone (Mamba, Mamba-2) has no positions and keeps one state whatever the
  // length: no limit to report, whatever length the config carries.
  const std::vector<LayerSpec>& layers = in.inventory.arch.layers();
  if (!layers.empty() && std::none_of(layers.begin(), layers.end(), [](const LayerSpec& l) {
        return l.mixer == Mixer::Attention || l.mixer == Mixer::None;
      })) {
    c.position_limit = false;
    c.max_context_length.reset();
    c.original_context_length.reset();
    c.supports_long_context = true;
    c.notes.push_back(
        "state-space layers only: no positions, a fixed-size state per sequence, no context limit");
  }
  assess_adapters(in, c);
  return c;
}

}  // namespace ma
