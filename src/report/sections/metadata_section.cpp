// Metadata (seed 002): what the Hub says about the model, and the exact commit the report describes.
#include <algorithm>

#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

std::string count_or_unknown(const std::optional<uint64_t>& v) {
  return v ? with_thousands(*v) : "unknown";
}

std::string or_none(const std::string& s, const char* none) {
  return s.empty() ? none : s;
}

// The ONNX models offered in folders: file, dtype, size; "-" or "?" where the name or the listing does
// not say (a size is never the part of it that is listed).
std::vector<std::vector<std::string>> onnx_model_rows(const ModelMetadata& s, size_t most) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < most && i < s.onnx_models.size(); ++i) {
    const ListedOnnxModel& m = s.onnx_models[i];
    rows.push_back(
        {m.path, m.dtype.empty() ? "-" : m.dtype, m.size_bytes ? human_bytes(*m.size_bytes) : "?"});
  }
  return rows;
}

std::string onnx_models_line(const ModelMetadata& s) {
  return std::to_string(s.onnx_models.size()) + " in folders, not read: name one with --file PATH";
}

constexpr const char* kOnnxModelsFootnote =
    "dtype: transformers.js's, by the file name (model_fp16.onnx fp16, the model they vary fp32); size: the "
    "graph and the data named after it";

}  // namespace

void render_console(ConsoleWriter& w, const ModelMetadata& s, const ModelReport& r, const RenderOptions& o) {
  (void)r;
  w.heading("Metadata");
  w.field("author", or_none(s.author, "unknown"));
  w.field("downloads", count_or_unknown(s.downloads));
  w.field("likes", count_or_unknown(s.likes));
  w.field("license", or_none(s.license, "not declared"));
  if (s.weight_files_bytes) w.field("model size", human_bytes(*s.weight_files_bytes) + " of weight files");
  if (!s.onnx_models.empty()) {
    w.field("ONNX models", onnx_models_line(s));
    // transformers.js's older exports hold thirty (encoder, decoder, decoder with past, each per dtype).
    const size_t shown = o.detailed ? s.onnx_models.size() : std::min<size_t>(s.onnx_models.size(), 8);
    w.table({"File", "dtype", "Size"}, onnx_model_rows(s, shown));
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
  w.key("onnx_models").begin_array();
  for (const ListedOnnxModel& o : m->onnx_models) {
    w.begin_object();
    w.key("path").value(o.path);
    w.key("dtype").text_or_null(o.dtype);
    w.key("size_bytes").value_or_null(o.size_bytes);
    w.end_object();
  }
  w.end_array();
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
    w.table({"File", "dtype", "Size"}, onnx_model_rows(s, s.onnx_models.size()));
    w.paragraph(std::string(kOnnxModelsFootnote) + ".");
  }
}

}  // namespace ma
