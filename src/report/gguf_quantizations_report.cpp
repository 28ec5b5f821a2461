#include "report/gguf_quantizations_report.h"

#include <algorithm>
#include <cstdio>

#include "core/json_writer.h"
#include "core/text.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/run_info.h"

namespace ma {
namespace {

std::string two_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// "Q4_K 72.1%, Q6_K 27.5%, F32 0.4%": each type's share of the parameters.
std::string type_mix(const GgufQuantization& q) {
  std::string out;
  for (const GgufTypeShare& t : q.types) {
    const double share =
        q.parameters ? 100.0 * static_cast<double>(t.parameters) / static_cast<double>(q.parameters) : 0;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f%%", share);
    out += (out.empty() ? "" : ", ") + std::string(dtype_info(t.dtype).name) + " " + buf;
  }
  return out;
}

// A model whose size the listing does not give in full (a split part missing) shows "?", never the parts
// that are there as if they were all of it.
std::string gguf_listed_size(const GgufQuantization& q) {
  return q.size_bytes ? human_bytes(*q.size_bytes) : "?";
}

}  // namespace

std::string render_gguf_quantizations_console(const std::vector<GgufQuantization>& models,
                                              std::string_view repo, bool color) {
  ConsoleWriter w(color);
  w.heading(terminal_safe(repo) + ": " + std::to_string(models.size()) + " GGUF models");
  std::vector<std::vector<std::string>> rows;
  for (const GgufQuantization& q : models)
    if (!q.error.empty())
      rows.push_back(
          {terminal_safe(q.file), "-", gguf_listed_size(q), "-", "unreadable: " + terminal_safe(q.error)});
    else
      rows.push_back({terminal_safe(q.file), q.file_type.empty() ? "-" : q.file_type, gguf_listed_size(q),
                      two_decimals(q.bits_per_weight), type_mix(q)});
  w.table({"File", "Type", "Size", "Bits/weight", "Type mix (share of parameters)"}, rows);
  w.footnote("analyse one with --file NAME (a file name, or a quantization such as Q4_K_M)");
  return w.take();
}

std::string render_gguf_quantizations_json(const std::vector<GgufQuantization>& models, std::string_view repo,
                                           const RunInfo& run) {
  JsonWriter w;
  w.begin_object();
  w.key("source").value(repo);
  w.key("gguf_models").begin_array();
  for (const GgufQuantization& q : models) {
    w.newline().begin_object();
    w.key("file").value(q.file);
    w.key("parts").value(q.parts);
    w.key("size_bytes").value_or_null(q.size_bytes);
    w.key("file_type").text_or_null(q.file_type);
    w.key("parameters").value(q.parameters);
    w.key("tensor_bytes").value(q.tensor_bytes);
    w.key("bits_per_weight").value(q.bits_per_weight);
    w.key("error").text_or_null(q.error);
    w.key("types").begin_array();
    for (const GgufTypeShare& t : q.types)
      w.begin_object()
          .key("dtype")
          .value(dtype_info(t.dtype).short_name)
          .key("tensors")
          .value(t.tensors)
          .key("parameters")
          .value(t.parameters)
          .key("bytes")
          .value(t.bytes)
          .end_object();
    w.end_array();
    w.end_object();
  }
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  return w.take() + "\n";
}

}  // namespace ma
