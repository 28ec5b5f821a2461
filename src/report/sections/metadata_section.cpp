// Metadata (seed 002): what the Hub says about the model, and the exact commit the report describes.
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

}  // namespace

void render_console(ConsoleWriter& w, const ModelMetadata& s, const ModelReport& r, const RenderOptions& o) {
  (void)r;
  w.heading("Metadata");
  w.field("author", or_none(s.author, "unknown"));
  w.field("downloads", count_or_unknown(s.downloads));
  w.field("likes", count_or_unknown(s.likes));
  w.field("license", or_none(s.license, "not declared"));
  if (s.weight_files_bytes) w.field("model size", human_bytes(*s.weight_files_bytes) + " of weight files");
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
}

}  // namespace ma
