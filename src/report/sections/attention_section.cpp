// The attention section: the headline kind, heads, the compact layer pattern, which fused kernels can run it
// (analysis/attention_kernels.h), and (detailed, Markdown) every layer's kind, heads, head dim and window.
#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

std::string count_or_dash(uint64_t n) {
  return n ? with_thousands(n) : "-";
}

std::string window_text(const LayerAttention& l) {
  if (l.mixer != Mixer::Attention) return "-";
  if (l.window == 0) return "full";
  return (l.chunked ? "chunk " : "sliding ") + with_thousands(l.window);
}

std::vector<std::string> layer_cells(const LayerAttention& l) {
  return {l.kind, count_or_dash(l.heads), count_or_dash(l.kv_heads), count_or_dash(l.head_dim),
          window_text(l)};
}

std::string heads_text(const AttentionSummary& s) {
  if (!s.num_attention_heads) return "unknown";
  return with_thousands(s.num_attention_heads) + " query / " + count_or_dash(s.num_key_value_heads) +
         " kv, head dim " + count_or_dash(s.head_dim);
}

// Consecutive layers with the same attention share one row ("0-4"), so a 60-layer table stays readable.
std::vector<std::vector<std::string>> grouped_rows(const AttentionSummary& s) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < s.layers.size();) {
    const std::vector<std::string> cells = layer_cells(s.layers[i]);
    size_t j = i + 1;
    while (j < s.layers.size() && layer_cells(s.layers[j]) == cells) ++j;
    std::string range = std::to_string(s.layers[i].layer);
    if (j - i > 1) range += "-" + std::to_string(s.layers[j - 1].layer);
    std::vector<std::string> row = cells;
    row.insert(row.begin(), range);
    rows.push_back(std::move(row));
    i = j;
  }
  return rows;
}

// "yes — sliding window as window_size (flash-attn >= 2.3); fp16 / bf16 only".
std::string kernel_text(const KernelSupport& k) {
  std::string t = k.supported ? "yes" : "no";
  for (size_t i = 0; i < k.notes.size(); ++i) t += (i == 0 ? " — " : "; ") + k.notes[i];
  return t;
}

}  // namespace

void render_console(ConsoleWriter& w, const AttentionSummary& s, const ModelReport& r,
                    const RenderOptions& o) {
  (void)r;
  if (s.layers.empty() && s.attention_type.empty()) return;
  w.heading("ATTENTION MECHANISM");
  w.field("type", s.attention_type.empty() ? "unknown" : s.attention_type);
  if (attention_free(s)) return;
  w.field("heads", heads_text(s));
  if (!s.pattern.empty()) w.field("pattern", s.pattern);
  for (const KernelSupport& k : s.kernels.kernels) w.field(k.kernel, kernel_text(k));
  if (!o.detailed || s.layers.empty()) return;
  w.blank();
  w.table({"layers", "kind", "heads", "kv heads", "head dim", "window"}, grouped_rows(s));
}

void write_json(JsonWriter& w, const AttentionSummary& s) {
  w.key("attention").begin_object();
  w.key("attention_type").value(s.attention_type);
  w.key("num_attention_heads").count_or_null(s.num_attention_heads);
  w.key("num_key_value_heads").count_or_null(s.num_key_value_heads);
  w.key("head_dim").count_or_null(s.head_dim);
  w.key("pattern").value(s.pattern);
  w.key("kernels").begin_array();
  for (const KernelSupport& k : s.kernels.kernels) {
    w.begin_object();
    w.key("kernel").value(k.kernel);
    w.key("supported").value(k.supported);
    w.key("notes").begin_array();
    for (const std::string& n : k.notes) w.value(n);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("layers").begin_array();
  for (const LayerAttention& l : s.layers) {
    w.newline().begin_object();
    w.key("layer").value(l.layer);
    w.key("kind").value(l.kind);
    w.key("heads").count_or_null(l.heads);
    w.key("kv_heads").count_or_null(l.kv_heads);
    w.key("head_dim").count_or_null(l.head_dim);
    w.key("window").count_or_null(l.window);
    w.key("chunked").value(l.chunked);
    w.key("compress_ratio").count_or_null(l.compress_ratio);
    w.key("modules").value(l.modules);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const AttentionSummary& s, const ModelReport& r) {
  (void)r;
  if (s.layers.empty() && s.attention_type.empty()) return;
  w.heading(2, "Attention");
  if (attention_free(s)) {
    w.fields({{"Type", s.attention_type}});
    return;
  }
  std::vector<std::pair<std::string, std::string>> fields = {
      {"Type", s.attention_type.empty() ? "unknown" : s.attention_type},
      {"Heads", heads_text(s)},
      {"Pattern", s.pattern.empty() ? "unknown" : s.pattern}};
  for (const KernelSupport& k : s.kernels.kernels) fields.emplace_back(k.kernel, kernel_text(k));
  w.fields(fields);
  const std::vector<std::vector<std::string>> rows = grouped_rows(s);
  if (!rows.empty()) w.table({"Layers", "Kind", "Heads", "KV heads", "Head dim", "Window"}, rows);
}

}  // namespace ma
