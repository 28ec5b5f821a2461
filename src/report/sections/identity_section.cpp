// Basic information: who the model is (family, organization, kind, training objective, class).
#include "report/section_renderers.h"

namespace ma {
namespace {

std::string or_unknown(const std::string& s) {
  return s.empty() ? "unknown" : s;
}

// "LLaMA (Meta)"; a family name with its own parentheses takes the maker after a comma:
// "Nemotron-NAS (DeciLM), NVIDIA".
std::string family_line(const Identity& s) {
  if (s.organization.empty()) return s.family;
  return s.family.ends_with(')') ? s.family + ", " + s.organization : s.family + " (" + s.organization + ")";
}

}  // namespace

void render_console(ConsoleWriter& w, const Identity& s, const ModelReport& r, const RenderOptions& o) {
  (void)r;
  w.heading(o.detailed ? "BASIC INFORMATION: " + s.display_name : "MODEL: " + s.display_name);
  w.field("family", family_line(s));
  if (o.detailed) w.note("family from " + s.family_evidence);
  w.field("type", s.kind);
  if (o.detailed) w.note("type from " + s.kind_evidence);
  w.field("objective", s.training_objective);
  if (o.detailed) w.note("objective from " + s.objective_evidence);
  w.field("architecture", or_unknown(s.architecture_class));
  if (o.detailed) w.field("config model_type", or_unknown(s.model_type));
}

// Seed 002 appendix G's "model_type" is the kind of model ("causal-lm"), so scripts written against the seed
// keep working; the config's own model_type is "config_model_type".
void write_json(JsonWriter& w, const Identity& s) {
  w.key("model_family").value(s.family);
  w.key("model_type").value(s.kind);
  w.key("model_kind").value(s.kind);
  w.key("config_model_type").text_or_null(s.model_type);
  w.key("training_objective").value(s.training_objective);
  w.key("objective_evidence").value(s.objective_evidence);
  w.key("organization").text_or_null(s.organization);
  w.key("architecture_class").text_or_null(s.architecture_class);
  w.key("family_evidence").value(s.family_evidence);
  w.key("kind_evidence").value(s.kind_evidence);
}

void render_document(DocumentWriter& w, const Identity& s, const ModelReport& r) {
  (void)r;
  w.heading(2, "Basic information");
  w.fields({{"Model ID", s.model_id},
            {"Family", s.family},
            {"Organization", or_unknown(s.organization)},
            {"Type", s.kind},
            {"Training objective", s.training_objective},
            {"Architecture class", or_unknown(s.architecture_class)},
            {"Config model_type", or_unknown(s.model_type)}});
  w.paragraph("- Family from " + s.family_evidence + "\n- Type from " + s.kind_evidence +
              "\n- Objective from " + s.objective_evidence + "\n");
}

}  // namespace ma
