// The PEFT adapter section: what the adapter is, its own tensors, and its base model (where it was found,
// or that it was not); the rest of the report then describes the base, which the merged model is.
#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

std::string list_text(const std::vector<std::string>& v) {
  std::string t;
  for (const std::string& s : v) t += (t.empty() ? "" : ", ") + s;
  return t.empty() ? "-" : t;
}

// "r 4, alpha 8 (scaling alpha / r = 2)".
std::string adapter_rank_text(const AdapterSummary& a) {
  if (!a.r) return "-";
  return "r " + with_thousands(a.r) + ", alpha " + short_number(a.alpha) + " (scaling " +
         (a.rslora ? "alpha / sqrt(r)" : "alpha / r") + " = " + short_number(a.scaling) + ")";
}

// "q_proj: r 8, alpha 32 (scaling 4); ..." for the modules rank_pattern / alpha_pattern set apart.
std::string patterns_text(const AdapterSummary& a) {
  std::string t;
  for (const AdapterPattern& p : a.patterns)
    t += (t.empty() ? "" : "; ") + p.pattern + ": r " + with_thousands(p.r) + ", alpha " +
         short_number(p.alpha) + " (scaling " + short_number(p.scaling) + ")";
  return t;
}

std::string base_text(const AdapterSummary& a) {
  if (a.base_model.empty() && a.base_found_at.empty()) return "not named in adapter_config.json";
  if (a.base_found_at.empty()) return a.base_model + " — not found locally or in the cache (pass --base DIR)";
  return (a.base_model.empty() ? std::string("--base") : a.base_model) + " — found at " +
         a.base_found_at.string();
}

std::string merged_text(const AdapterSummary& a) {
  if (!a.base_parameters) return "unknown without the base model";
  return with_thousands(*a.base_parameters) +
         " parameters, as the base (LoRA merges B·A into its weights); " +
         with_thousands(*a.base_parameters + a.parameters) + " unmerged (base + adapter)";
}

std::vector<std::pair<std::string, std::string>> rows(const AdapterSummary& a) {
  std::vector<std::pair<std::string, std::string>> r = {
      {"type", a.peft_type.empty() ? "unknown" : a.peft_type + (a.dora ? " (DoRA)" : "")},
      {"rank", adapter_rank_text(a)}};
  if (!a.patterns.empty()) r.emplace_back("rank / alpha patterns", patterns_text(a));
  r.emplace_back("target modules", list_text(a.target_modules));
  if (!a.modules_to_save.empty()) r.emplace_back("modules saved whole", list_text(a.modules_to_save));
  r.emplace_back("adapter tensors", with_thousands(a.tensors) + ", " + with_thousands(a.parameters) +
                                        " parameters, " + bytes_exactly(a.bytes));
  r.emplace_back("base model", base_text(a));
  r.emplace_back("merged model", merged_text(a));
  return r;
}

}  // namespace

void render_console(ConsoleWriter& w, const AdapterSummary& a, const ModelReport&, const RenderOptions&) {
  w.heading("PEFT ADAPTER");
  for (const auto& [label, value] : rows(a)) w.field(label, value);
  if (!a.base_found_at.empty())
    w.note("every other figure of this report is the base model's, which the merged model is");
}

void write_json(JsonWriter& w, const std::optional<AdapterSummary>& a) {
  w.key("adapter");
  if (!a) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("peft_type").text_or_null(a->peft_type);
  w.key("r").value(a->r);
  w.key("lora_alpha").value(a->alpha);
  w.key("use_rslora").value(a->rslora);
  w.key("use_dora").value(a->dora);
  w.key("scaling").value(a->scaling);
  w.key("patterns").begin_array();  // rank_pattern / alpha_pattern, each with its scaling
  for (const AdapterPattern& p : a->patterns) {
    w.begin_object();
    w.key("pattern").value(p.pattern);
    w.key("r").value(p.r);
    w.key("lora_alpha").value(p.alpha);
    w.key("scaling").value(p.scaling);
    w.end_object();
  }
  w.end_array();
  w.key("target_modules").begin_array();
  for (const std::string& m : a->target_modules) w.value(m);
  w.end_array();
  w.key("modules_to_save").begin_array();
  for (const std::string& m : a->modules_to_save) w.value(m);
  w.end_array();
  w.key("adapter_tensors").value(a->tensors);
  w.key("adapter_parameters").value(a->parameters);
  w.key("adapter_bytes").value(a->bytes);
  w.key("base_model").text_or_null(a->base_model);
  w.key("base_found_at").text_or_null(a->base_found_at.string());
  w.key("merged_parameters").value_or_null(a->base_parameters);
  w.key("unmerged_parameters")
      .value_or_null(a->base_parameters ? std::optional<uint64_t>(*a->base_parameters + a->parameters)
                                        : std::nullopt);
  w.end_object();
}

void render_document(DocumentWriter& w, const AdapterSummary& a, const ModelReport&) {
  w.heading(2, "PEFT adapter");
  w.fields(rows(a));
}

}  // namespace ma
