#include "report/onnx_models_report.h"

#include "core/text.h"
#include "core/units.h"
#include "report/console_writer.h"

namespace ma {

std::vector<std::vector<std::string>> onnx_model_rows(const std::vector<ListedOnnxModel>& models,
                                                      size_t most) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < most && i < models.size(); ++i) {
    const ListedOnnxModel& m = models[i];
    rows.push_back(
        {m.path, m.dtype.empty() ? "-" : m.dtype, m.size_bytes ? human_bytes(*m.size_bytes) : "?"});
  }
  return rows;
}

void write_onnx_models_json(JsonWriter& w, const std::vector<ListedOnnxModel>& models) {
  w.begin_array();
  for (const ListedOnnxModel& m : models) {
    w.begin_object();
    w.key("path").value(m.path);
    w.key("dtype").text_or_null(m.dtype);
    w.key("size_bytes").value_or_null(m.size_bytes);
    w.end_object();
  }
  w.end_array();
}

std::string render_onnx_models_console(const std::vector<ListedOnnxModel>& models, std::string_view repo,
                                       bool color) {
  ConsoleWriter w(color);
  w.heading(terminal_safe(repo) + ": " + std::to_string(models.size()) + " ONNX models");
  w.table(kOnnxModelColumns, onnx_model_rows(models, models.size()));
  w.footnote(kOnnxModelsFootnote);
  w.footnote("analyse one with --file PATH");
  return w.take();
}

std::string render_onnx_models_json(const std::vector<ListedOnnxModel>& models, std::string_view repo,
                                    const RunInfo& run) {
  JsonWriter w;
  w.begin_object();
  w.key("source").value(repo);
  w.key("onnx_models");
  write_onnx_models_json(w, models);
  write_run_info(w, run);
  w.end_object();
  return w.take() + "\n";
}

}  // namespace ma
