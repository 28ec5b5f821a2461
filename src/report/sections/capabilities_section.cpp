// Capabilities: generation, context (declared and rope-extended), long context, LoRA / QLoRA, with evidence.
#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

// "not known" where the report lacks what decides it (no template, no context length), never a false "no".
std::string yes_no_known(bool b, bool known) {
  return known ? yes_no(b) : "not known";
}

void bool_or_null(JsonWriter& w, std::string_view key, bool b, bool known) {
  w.key(key);
  if (known)
    w.value(b);
  else
    w.null();
}

std::string context_line(const Capabilities& s) {
  if (!s.position_limit) return "no limit (state-space layers only)";
  if (!s.max_context_length) return "unknown";
  std::string line = with_thousands(*s.max_context_length);
  if (s.original_context_length && *s.original_context_length != *s.max_context_length) {
    line += " (original " + with_thousands(*s.original_context_length);
    if (!s.rope_scaling_type.empty()) line += ", rope " + s.rope_scaling_type;
    line += ")";
  }
  return line;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

void render_console(ConsoleWriter& w, const Capabilities& s, const ModelReport& r, const RenderOptions& o) {
  (void)r;
  w.heading("CAPABILITIES");
  w.field("can generate", yes_no(s.can_generate));
  w.field("max context", context_line(s));
  w.field("long context (>= " + std::to_string(kLongContextTokens / 1024) + "k)",
          yes_no_known(s.supports_long_context, s.long_context_known()));
  w.field("LoRA", yes_no_known(s.lora_compatible, s.adapters_known));
  w.field("QLoRA", yes_no_known(s.qlora_compatible, s.adapters_known));
  if (!o.detailed) return;
  if (!s.prequantized.empty()) w.field("already quantized", s.prequantized);
  for (const std::string& n : s.notes) w.footnote(n);
}

void write_json(JsonWriter& w, const Capabilities& s) {
  w.key("capabilities").begin_object();
  w.key("can_generate").value(s.can_generate);
  w.key("max_context_length").value_or_null(s.max_context_length);
  w.key("context_limit").value(s.position_limit);
  w.key("original_context_length").value_or_null(s.original_context_length);
  w.key("context_source");
  if (s.context_source.empty())
    w.null();
  else
    w.value(s.context_source);
  w.key("rope_scaling_type");
  if (s.rope_scaling_type.empty())
    w.null();
  else
    w.value(s.rope_scaling_type);
  w.key("rope_scaling_factor");
  if (s.rope_scaling_factor)
    w.value(*s.rope_scaling_factor);
  else
    w.null();
  bool_or_null(w, "supports_long_context", s.supports_long_context, s.long_context_known());
  w.key("long_context_tokens").value(kLongContextTokens);  // from where a context counts as long
  bool_or_null(w, "lora_compatible", s.lora_compatible, s.adapters_known);
  bool_or_null(w, "supports_lora", s.lora_compatible,
               s.adapters_known);  // seed 002's name for the same claim
  bool_or_null(w, "qlora_compatible", s.qlora_compatible, s.adapters_known);
  w.key("lora_target_modules").begin_array();
  for (const auto& m : s.lora_target_modules) w.value(m);
  w.end_array();
  w.key("prequantized");
  if (s.prequantized.empty())
    w.null();
  else
    w.value(s.prequantized);
  w.key("notes").begin_array();
  for (const auto& n : s.notes) w.value(n);
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const Capabilities& s, const ModelReport& r) {
  (void)r;
  w.heading(2, "Capabilities");
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Can generate", yes_no(s.can_generate)},
      {"Max context", context_line(s)},
      {"Long context (>= " + with_thousands(kLongContextTokens) + ")",
       yes_no_known(s.supports_long_context, s.long_context_known())},
      {"LoRA", yes_no_known(s.lora_compatible, s.adapters_known)},
      {"QLoRA", yes_no_known(s.qlora_compatible, s.adapters_known)}};
  if (!s.lora_target_modules.empty()) rows.push_back({"LoRA target modules", joined(s.lora_target_modules)});
  if (!s.prequantized.empty()) rows.push_back({"Already quantized", s.prequantized});
  w.fields(rows);
  std::string list;
  for (const auto& n : s.notes) list += "- " + n + "\n";
  if (!list.empty()) w.paragraph(list);
}

}  // namespace ma
