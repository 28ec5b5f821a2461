#include "report/simulator_config_report.h"

#include "core/json_writer.h"
#include "core/units.h"
#include "report/console_writer.h"

namespace ma {
namespace {

void write_fact(JsonWriter& w, const FactValue& v) {
  if (const auto* n = std::get_if<uint64_t>(&v)) {
    w.value(*n);
  } else if (const auto* b = std::get_if<bool>(&v)) {
    w.value(*b);
  } else {
    w.null();
  }
}

std::string joined(const std::vector<std::string>& lines, std::string_view separator) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : std::string(separator)) + l;
  return out;
}

}  // namespace

std::string render_simulator_config_json(const SimulatorConfig& cfg, const ConfigValidation& validation) {
  JsonWriter w;
  w.begin_object();
  w.key("model_id").value(cfg.model_id);
  w.key("hf_model_id").value(cfg.hf_model_id);
  w.key("name").value(cfg.name);
  w.key("hidden_size").value(cfg.hidden_size);
  w.key("num_layers").value(cfg.num_layers);
  w.key("vocab_size").value(cfg.vocab_size);
  w.key("total_params").value(cfg.parameters.total);
  w.key("total_params_formatted").value(format_parameter_count(cfg.parameters.total));
  w.key("layer_types").begin_array();
  for (const LayerTypeEntry& e : cfg.layer_types) {
    w.begin_object();
    w.key("name").value(e.name);
    w.key("class").value(e.class_name);
    w.key("count").value(e.count);
    w.key("supported").value(e.supported);
    w.key("specs").begin_object();
    for (const auto& [key, value] : e.specs) {
      w.key(key);
      write_fact(w, value);
    }
    w.end_object();
    if (!e.supported) w.key("gap_report").value(e.gap_report);
    w.end_object();
  }
  w.end_array();
  w.key("validated").value(validation.validated);
  std::vector<std::string> notes = validation.notes;
  notes.insert(notes.end(), cfg.notes.begin(), cfg.notes.end());
  notes.push_back("layer classes from " + cfg.catalogue_source +
                  "; parameter counts exact (the template's tensors, "
                  "as transformers builds them); layer_idx is the first layer of each type");
  w.key("validation_notes").value(joined(notes, "; "));
  w.key("validation_sources").begin_array();
  for (const std::string& s : validation.sources) w.value(s);
  w.end_array();
  w.end_object();
  return indented_json(w.take());  // Mantile's own configs are indented: people read and edit them
}

std::string render_simulator_config_console(const SimulatorConfig& cfg, const ConfigValidation& validation,
                                            bool color) {
  ConsoleWriter c(color);
  c.heading(cfg.hf_model_id + ": simulator config (" + cfg.catalogue_source + ")");
  std::vector<std::vector<std::string>> rows;
  for (const LayerTypeEntry& e : cfg.layer_types)
    rows.push_back({e.name, e.class_name, with_thousands(e.count),
                    e.parameters_known ? with_thousands(e.parameter_count) : "unknown",
                    e.supported ? "yes" : "no: " + e.gap_report});
  c.table({"entry", "class", "count", "params each", "supported"}, rows);
  std::string aside;  // entries outside total_params (MTP layers transformers does not build)
  for (const LayerTypeEntry& e : cfg.layer_types)
    if (!e.in_total_params) aside += (aside.empty() ? "" : ", ") + e.name;
  c.field("total parameters", with_thousands(cfg.parameters.total) + " (" +
                                  format_parameter_count(cfg.parameters.total) + "), the entries' sum" +
                                  (aside.empty() ? "" : " (" + aside + " aside)"));
  c.field("validated", validation.validated ? "yes" : "no");
  for (const std::string& n : validation.notes) c.note(n);
  for (const std::string& n : cfg.notes) c.note(n);
  return c.take();
}

}  // namespace ma
