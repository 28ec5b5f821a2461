// Metadata (seed 002): what the Hub says about the model, and the exact commit the report describes.
#include <algorithm>

#include "core/units.h"
#include "report/onnx_models_report.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

std::string count_or_unknown(const std::optional<uint64_t>& v) {
  return v ? with_thousands(*v) : "unknown";
}

std::string or_none(const std::string& s, const char* none) {
  return s.empty() ? none : s;
}

std::string onnx_models_line(const ModelMetadata& s) {
  return std::to_string(s.onnx_models.size()) + " in folders, not read: name one with --file PATH";
}

}  // namespace

void render_console(ConsoleWriter& w, const ModelMetadata& s, const ModelReport& r, const RenderOptions& o) {
  (void)r;
  w.heading("METADATA");
  w.field("author", or_none(s.author, "unknown"));
  w.field("downloads", count_or_unknown(s.downloads));
  w.field("likes", count_or_unknown(s.likes));
  w.field("license", or_none(s.license, "not declared"));
  if (s.weight_files_bytes) w.field("model size", human_bytes(*s.weight_files_bytes) + " of weight files");
  if (!s.onnx_models.empty()) {
    w.field("ONNX models", onnx_models_line(s));
    // transformers.js's older exports hold thirty (encoder, decoder, decoder with past, each per dtype).
    const size_t shown = o.detailed ? s.onnx_models.size() : std::min<size_t>(s.onnx_models.size(), 8);
    w.table(kOnnxModelColumns, onnx_model_rows(s.onnx_models, shown));
    if (shown < s.onnx_models.size())
      w.footnote("and " + std::to_string(s.onnx_models.size() - shown) +
                 " more: --detailed or --json lists them");
    w.footnote(kOnnxModelsFootnote);
  }
  if (!o.detailed) return;
  w.field("gated", or_none(s.gated, "unknown"));
  w.field("revision", s.revision + (s.commit.empty() || s.commit == s.revision ? "" : " = " + s.commit));
  if (!s.pipeline_tag.empty()) w.field("pipeline", s.pipeline_tag);
  if (!s.last_modified.empty()) w.field("last modified", s.last_modified);
}

void write_json(JsonWriter& w, const std::optional<ModelMetadata>& m) {
  w.key("metadata");
  if (!m) {
    w.null();
    return;
  }
  auto text = [&](const char* key, const std::string& v) {
    w.key(key);
    if (v.empty())
      w.null();
    else
      w.value(v);
  };
  w.begin_object();
  text("repo_id", m->repo_id);
  text("revision", m->revision);
  text("commit", m->commit);
  text("author", m->author);
  w.key("downloads").value_or_null(m->downloads);
  w.key("likes").value_or_null(m->likes);
  text("license", m->license);
  text("gated", m->gated);
  text("pipeline_tag", m->pipeline_tag);
  text("last_modified", m->last_modified);
  w.key("weight_files_bytes").value_or_null(m->weight_files_bytes);
  w.key("onnx_models");
  write_onnx_models_json(w, m->onnx_models);
  w.end_object();
}

void render_document(DocumentWriter& w, const ModelMetadata& s, const ModelReport& r) {
  (void)r;
  w.heading(2, "Metadata");
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Repository", s.repo_id},
      {"Revision", s.revision + (s.commit.empty() || s.commit == s.revision ? "" : " = " + s.commit)},
      {"Author", or_none(s.author, "unknown")},
      {"Downloads", count_or_unknown(s.downloads)},
      {"Likes", count_or_unknown(s.likes)},
      {"License", or_none(s.license, "not declared")},
      {"Gated", or_none(s.gated, "unknown")}};
  if (s.weight_files_bytes)
    rows.push_back({"Model size", human_bytes(*s.weight_files_bytes) + " of weight files"});
  w.fields(rows);
  if (!s.onnx_models.empty()) {
    w.paragraph("ONNX models: " + onnx_models_line(s) + ".");
    w.table(kOnnxModelColumns, onnx_model_rows(s.onnx_models, s.onnx_models.size()));
    w.paragraph(std::string(kOnnxModelsFootnote) + ".");
  }
}

}  // namespace ma
