// The mixture-of-experts section: experts, top-k, shared experts, expert size, MoE vs dense layers, and
// total vs active parameters.
#include "analysis/layer_summary.h"
#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

// "256 routed + 1 shared, 8 per token".
std::string experts_text(const MoeSummary& s) {
  std::string t = count_or_unknown(s.num_experts) + " routed";
  if (s.num_shared_experts) t += " + " + with_thousands(s.num_shared_experts) + " shared";
  if (s.zero_experts) t += " + " + with_thousands(s.zero_experts) + " zero-computation";
  return t + ", " + count_or_unknown(s.experts_per_token) + " per token";
}

// "intermediate 2,048; 44.04M parameters each (44,040,192)".
std::string expert_size_text(const MoeSummary& s) {
  std::string t = "intermediate " + count_or_unknown(s.expert_intermediate_size);
  if (s.parameters_per_expert)
    t += "; " + human_count(s.parameters_per_expert) + " parameters each (" +
         with_thousands(s.parameters_per_expert) + ")";
  return t;
}

// "58 of 61: 3-60 (dense: 0-2)".
std::string layers_text(const MoeSummary& s, const ModelReport& r) {
  std::string t = std::to_string(s.moe_layers.size()) + " of " + std::to_string(r.arch.layers().size());
  if (!s.moe_layers.empty()) t += ": " + index_ranges(s.moe_layers);
  if (!s.dense_layers.empty()) t += " (dense: " + index_ranges(s.dense_layers) + ")";
  return t;
}

std::string active_text(const MoeSummary& s) {
  std::string t = human_count(s.active_parameters) + " of " + human_count(s.total_parameters) +
                  " per token (" + with_thousands(s.active_parameters) + " of " +
                  with_thousands(s.total_parameters) + ")";
  // Picks that land on a zero expert run nothing: every pick a routed expert is the most.
  if (s.zero_experts)
    t += "; at least " + human_count(s.min_active_parameters) + " (" +
         with_thousands(s.min_active_parameters) + ") when every pick is a zero expert";
  return t;
}

// How the active count follows from the totals (count_parameters computes it this way).
std::string active_formula(const MoeSummary& s) {
  if (!s.num_experts || !s.experts_per_token) return "";
  return "active = total - routed + routed x top_k / experts = " + with_thousands(s.total_parameters) +
         " - " + with_thousands(s.routed_expert_parameters) + " + " +
         with_thousands(s.routed_expert_parameters) + " x " + std::to_string(s.experts_per_token) + " / " +
         std::to_string(s.num_experts) + " = " + with_thousands(s.active_parameters);
}

void json_indices(JsonWriter& w, std::string_view key, const std::vector<uint32_t>& v) {
  w.key(key).begin_array();
  for (uint32_t i : v) w.value(i);
  w.end_array();
}

}  // namespace

void render_console(ConsoleWriter& w, const MoeSummary& s, const ModelReport& r, const RenderOptions& o) {
  w.heading("MIXTURE OF EXPERTS");
  w.field("experts", experts_text(s));
  w.field("expert size", expert_size_text(s));
  if (s.shared_expert_intermediate_size)
    w.field("shared expert size", "intermediate " + with_thousands(s.shared_expert_intermediate_size));
  w.field("MoE layers", layers_text(s, r));
  w.field("active parameters", active_text(s));
  if (!o.detailed) return;
  w.field("routed expert parameters", with_thousands(s.routed_expert_parameters));
  if (std::string f = active_formula(s); !f.empty()) w.note(f);
}

void write_json(JsonWriter& w, const std::optional<MoeSummary>& s) {
  w.key("moe");
  if (!s) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("num_experts").count_or_null(s->num_experts);
  w.key("experts_per_token").count_or_null(s->experts_per_token);
  w.key("num_shared_experts").value(s->num_shared_experts);
  w.key("expert_intermediate_size").count_or_null(s->expert_intermediate_size);
  w.key("shared_expert_intermediate_size").count_or_null(s->shared_expert_intermediate_size);
  w.key("parameters_per_expert").count_or_null(s->parameters_per_expert);
  w.key("num_moe_layers").value(static_cast<uint64_t>(s->moe_layers.size()));
  json_indices(w, "moe_layers", s->moe_layers);
  json_indices(w, "dense_layers", s->dense_layers);
  w.key("total_parameters").value(s->total_parameters);
  w.key("active_parameters").value(s->active_parameters);
  w.key("zero_experts").value(s->zero_experts);
  w.key("min_active_parameters").value(s->min_active_parameters);
  w.key("routed_expert_parameters").value(s->routed_expert_parameters);
  w.end_object();
}

void render_document(DocumentWriter& w, const MoeSummary& s, const ModelReport& r) {
  w.heading(2, "Mixture of experts");
  std::vector<std::pair<std::string, std::string>> rows = {{"Experts", experts_text(s)},
                                                           {"Expert size", expert_size_text(s)}};
  if (s.shared_expert_intermediate_size)
    rows.push_back(
        {"Shared expert size", "intermediate " + with_thousands(s.shared_expert_intermediate_size)});
  rows.push_back({"MoE layers", layers_text(s, r)});
  rows.push_back({"Active parameters", active_text(s)});
  rows.push_back({"Routed expert parameters", with_thousands(s.routed_expert_parameters)});
  w.fields(rows);
  if (std::string f = active_formula(s); !f.empty()) w.formula(f);
}

}  // namespace ma
