#include "report/diagram_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "report/diagram_canvas.h"
#include "report/diagram_model.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::DiagramModel;
using diagram::LayerPart;
using diagram::Palette;
using diagram::Svg;
using diagram::TextStyle;

constexpr double kW = kDiagramWidth, kH = kDiagramHeight, kMargin = 48;
const std::string kInk = "#0f172a", kMuted = "#475569", kFaint = "#64748b", kRule = "#e2e8f0";
const Palette kIo{"#f1f5f9", "#94a3b8"};
const Palette kEmbedding{"#fef3c7", "#d97706"};
const Palette kNorm{"#f8fafc", "#94a3b8"};
const Palette kHead{"#fce7f3", "#db2777"};
const Palette kStack{"#ffffff", "#334155"};

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  double cx() const { return x + w / 2; }
  double cy() const { return y + h / 2; }
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

TextStyle style(double size, const std::string& color = kInk, bool bold = false, Anchor a = Anchor::Start,
                double min_size = 0) {
  return TextStyle{size, color, bold, a, min_size};
}

// ---- facts drawn from the report, "—" when unknown ------------------------------------------------------

uint64_t first_nonzero(uint64_t a, uint64_t b) {
  return a ? a : b;
}
uint64_t heads(const ModelReport& r) {
  return first_nonzero(r.attention.num_attention_heads, r.architecture.num_attention_heads);
}
uint64_t kv_heads(const ModelReport& r) {
  return first_nonzero(r.attention.num_key_value_heads, r.architecture.num_key_value_heads);
}
uint64_t head_dim(const ModelReport& r) {
  return first_nonzero(r.attention.head_dim, r.architecture.head_dim);
}

std::string plain_number(double v) {
  if (v > 0 && v < 1e15 && std::floor(v) == v) return with_thousands(static_cast<uint64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

const Estimate* find_estimate(const std::vector<Estimate>& list, std::string_view name) {
  for (const Estimate& e : list)
    if (e.name == name) return &e;
  return nullptr;
}

bool encoder_only(const ModelReport& r) {
  return r.architecture.architecture_type == "encoder-only";
}

std::string layer_word(const ModelReport& r) {
  const std::string& t = r.architecture.architecture_type;
  if (t == "encoder-only") return "Encoder layer";
  if (t.empty() || t == "encoder-decoder") return "Layer";
  return "Decoder layer";
}

std::string head_title(const ModelReport& r) {
  const std::string& k = r.identity.kind;
  if (k == "causal-lm" || k == "seq2seq" || k == "vision-language") return "LM head";
  if (k == "masked-lm") return "MLM head";
  return "Output head";
}

std::string input_line(const ModelReport& r) {
  if (r.identity.kind == "vision") return "image patches";
  if (r.identity.kind == "speech") return "audio features";
  return "token ids";
}

std::string position_line(const ModelReport& r) {
  const ArchitectureDetails& a = r.architecture;
  if (a.position_embedding == "rope" || a.rope) {
    std::string s = "RoPE";
    if (a.rope && a.rope->theta > 0) s += " θ " + plain_number(a.rope->theta);
    if (a.rope && !a.rope->type.empty() && a.rope->type != "default") {
      s += " · " + a.rope->type;
      if (a.rope->factor) s += " ×" + plain_number(*a.rope->factor);
    }
    return s;
  }
  if (a.position_embedding == "learned") return "learned positions";
  if (a.position_embedding == "alibi") return "ALiBi position bias";
  if (a.position_embedding == "relative") return "relative position bias";
  if (a.position_embedding == "none") return "no position encoding";
  return "";
}

std::string heads_line(const ModelReport& r) {
  std::string s = diagram::dash_count(heads(r)) + " heads";
  if (kv_heads(r) && kv_heads(r) != heads(r)) s += " · " + with_thousands(kv_heads(r)) + " KV";
  if (head_dim(r)) s += " · dim " + with_thousands(head_dim(r));
  return s;
}

std::string ffn_dims(const ModelReport& r, uint64_t inner) {
  return diagram::dash_count(r.architecture.hidden_size) + " → " + diagram::dash_count(inner) + " → " +
         diagram::dash_count(r.architecture.hidden_size);
}

std::string moe_line(const ModelReport& r) {
  if (!r.moe) return "—";
  std::string s = diagram::dash_count(r.moe->num_experts) + " experts · top-" +
                  diagram::dash_count(r.moe->experts_per_token);
  return s;
}

std::string shared_line(const ModelReport& r) {
  if (!r.moe || r.moe->num_shared_experts == 0) return "";
  const uint64_t n = r.moe->num_shared_experts;
  return "+ " + with_thousands(n) + (n == 1 ? " shared expert" : " shared experts");
}

// A part's box: title and lines of detail.
struct PartText {
  std::string title;
  std::vector<std::string> lines;
};

PartText mixer_text(const ModelReport& r, const DiagramModel& m, const diagram::BlockKind& k, bool detailed) {
  const LayerSpec& l = k.spec;
  PartText t;
  if (l.mixer == "attention") {
    t.title = diagram::attention_name(l.attention);
    t.lines.push_back(heads_line(r));
    if (!detailed) return t;
    if (std::string p = position_line(r); !p.empty() && r.architecture.position_embedding != "learned")
      t.lines.push_back(p);
    // Sliding and full variants within this kind of layer, with their counts.
    if (k.mixer_parts.size() > 1 || (k.mixer_parts.size() == 1 && k.spec.sliding_window)) {
      std::string s;
      for (int pi : k.mixer_parts) {
        const LayerPart& part = m.parts[static_cast<size_t>(pi)];
        s += (s.empty() ? "" : " · ") + with_thousands(part.layers) + "× " + part.label;
      }
      t.lines.push_back(s);
    }
    if (r.architecture.attention_bias) t.lines.push_back("QKV bias");
    return t;
  }
  if (l.mixer == "mamba" || l.mixer == "mamba2") {
    t.title = (l.mixer == "mamba" ? "Mamba" : "Mamba-2") + std::string(" mixer (SSM)");
    t.lines.push_back("selective state space");
    if (detailed) t.lines.push_back("fixed state, no KV cache");
    return t;
  }
  if (l.mixer == "linear-attention") {
    t.title = "Linear attention";
    t.lines.push_back("fixed-size state, no KV cache");
    return t;
  }
  t.title = l.mixer;
  return t;
}

PartText ffn_text(const ModelReport& r, const LayerSpec& l, bool detailed) {
  PartText t;
  const std::string& act = r.architecture.activation;
  if (l.ffn == "moe") {
    t.title = "Mixture of experts";
    t.lines.push_back(moe_line(r));
    if (std::string s = shared_line(r); !s.empty()) t.lines.push_back(s);
    if (detailed) {
      const uint64_t inner = r.moe ? r.moe->expert_intermediate_size : 0;
      t.lines.push_back("expert FFN " + diagram::dash_count(inner));
      if (r.moe && r.moe->parameters_per_expert)
        t.lines.push_back(human_count(r.moe->parameters_per_expert) + " params per expert");
    }
    return t;
  }
  if (l.ffn == "dense") {
    const bool gated = r.architecture.mlp_type == "gated";
    t.title = gated ? "Gated MLP" : "MLP";
    if (!act.empty()) t.title += " (" + act + ")";
    t.lines.push_back(ffn_dims(r, r.architecture.intermediate_size));
    if (detailed && r.architecture.mlp_bias) t.lines.push_back("with bias");
    return t;
  }
  t.title = l.ffn;
  return t;
}

const Palette& mixer_palette(const DiagramModel& m, const diagram::BlockKind& k) {
  static const Palette kNone{"#ffffff", "#94a3b8"};
  return k.mixer_parts.empty() ? kNone : m.parts[static_cast<size_t>(k.mixer_parts.front())].colour;
}

const Palette& ffn_palette(const DiagramModel& m, const LayerSpec& l) {
  for (const LayerPart& p : m.parts)
    if (!p.is_mixer && p.key == l.ffn) return p.colour;
  static const Palette kNone{"#ffffff", "#94a3b8"};
  return kNone;
}

bool has(const std::string& s) {
  return !s.empty() && s != "none";
}

// ---- drawing helpers
// ---------------------------------------------------------------------------------------

void background_and_header(Svg& s, const DiagramModel& m, std::string_view view) {
  s.rect(0, 0, kW, kH, "#ffffff");
  s.rect(0, 0, kW, 96, "#0f172a");
  const double text_w = kW - 2 * kMargin - 300;
  s.fit(kMargin, 50, text_w, m.title, style(30, "#ffffff", true, Anchor::Start, 18));
  if (!m.subtitle.empty())
    s.fit(kMargin, 80, text_w, m.subtitle, style(16, "#cbd5e1", false, Anchor::Start, 12));
  s.text(kW - kMargin, 50, view, style(16, "#e2e8f0", true, Anchor::End));
  s.text(kW - kMargin, 78, "ModelAnalyzer", style(13, "#94a3b8", false, Anchor::End));
}

// A rounded box with a bold title and centred detail lines, the whole block centred vertically.
void box(Svg& s, const Rect& b, const Palette& p, const std::string& title,
         const std::vector<std::string>& lines, double title_size = 17, double line_size = 13.5) {
  s.rect(b.x, b.y, b.w, b.h, p.fill, p.stroke, 10, 1.8);
  const double lh = line_size * 1.4;
  const double content = title_size * 0.75 + static_cast<double>(lines.size()) * lh;
  double y = b.cy() - content / 2 + title_size * 0.75;
  const double tw = b.w - 16;
  s.fit(b.cx(), y, tw, title, style(title_size, kInk, true, Anchor::Middle, std::max(11.0, title_size - 5)));
  for (const std::string& line : lines) {
    y += lh;
    s.fit(b.cx(), y, tw, line, style(line_size, kMuted, false, Anchor::Middle, 11));
  }
}

void stacked_frame(Svg& s, const Rect& b, double step = 6) {
  s.rect(b.x + 2 * step, b.y - 2 * step, b.w, b.h, "#f8fafc", "#cbd5e1", 14, 1.2);
  s.rect(b.x + step, b.y - step, b.w, b.h, "#f8fafc", "#94a3b8", 14, 1.2);
  s.rect(b.x, b.y, b.w, b.h, kStack.fill, kStack.stroke, 14, 2);
}

void section_label(Svg& s, double x, double y, const std::string& text) {
  s.text(x, y, text, style(14, kFaint, true));
}

void plus_node(Svg& s, double cx, double cy, double r = 11) {
  s.circle(cx, cy, r, "#ffffff", "#475569", 1.6);
  s.line(cx - r * 0.55, cy, cx + r * 0.55, cy, "#475569", 1.8);
  s.line(cx, cy - r * 0.55, cx, cy + r * 0.55, "#475569", 1.8);
}

// A cell of the layer strip: the mixer's colour on top, the feed-forward's below (one colour if one part).
void strip_cell(Svg& s, const DiagramModel& m, const diagram::LayerCell& c, double x, double y, double w,
                double h) {
  auto colour = [&](int i) { return m.parts[static_cast<size_t>(i)].colour.stroke; };
  if (c.mixer >= 0 && c.ffn >= 0) {
    const double top = std::round(h * 0.6);
    s.rect(x, y, w, top, colour(c.mixer));
    s.rect(x, y + top, w, h - top, colour(c.ffn));
  } else if (c.mixer >= 0 || c.ffn >= 0) {
    s.rect(x, y, w, h, colour(c.mixer >= 0 ? c.mixer : c.ffn));
  } else {
    s.rect(x, y, w, h, "#e2e8f0");
  }
}

// The layer strip: one cell per layer across `w`, or runs of equal layers when cells would be under 3 px.
void layer_strip(Svg& s, const DiagramModel& m, double x, double y, double w, double h, bool ticks) {
  const size_t n = m.cells.size();
  if (n == 0) {
    s.rect(x, y, w, h, "#f1f5f9", "#cbd5e1", 4);
    s.text(x + w / 2, y + h / 2 + 5, "layer structure unknown", style(13, kFaint, false, Anchor::Middle));
    return;
  }
  const double pitch = w / static_cast<double>(n);
  const double gap = pitch >= 6 ? 1.5 : 0;
  auto at = [&](size_t i) { return x + pitch * static_cast<double>(i); };
  if (pitch >= 3) {
    for (size_t i = 0; i < n; ++i) strip_cell(s, m, m.cells[i], at(i), y, pitch - gap, h);
  } else {
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j < n && m.cells[j] == m.cells[i]) ++j;
      strip_cell(s, m, m.cells[i], at(i), y, at(j) - at(i), h);
      i = j;
    }
  }
  if (!ticks) return;
  // Index labels every `step` layers, step from 1-2-5-10-... so that labels never touch.
  const double label_w = diagram::text_width(std::to_string(n - 1), 12) + 8;
  size_t step = 1;
  for (size_t base = 1; pitch * static_cast<double>(step) < label_w; base *= 10) {
    for (size_t f : {1, 2, 5}) {
      step = f * base;
      if (pitch * static_cast<double>(step) >= label_w) break;
    }
  }
  for (size_t i = 0; i < n; i += step)
    s.text(at(i) + (pitch - gap) / 2, y + h + 16, std::to_string(i),
           style(12, kFaint, false, Anchor::Middle));
}

// Legend chips flowing left to right, wrapping; returns the height used.
double legend(Svg& s, const std::vector<std::pair<std::string, std::string>>& items, double x, double y,
              double w, double size = 13.5) {
  double cx = x, cy = y;
  const double line_h = size + 10;
  for (const auto& [colour, label] : items) {
    const double item_w = 18 + diagram::text_width(label, size) + 22;
    if (cx > x && cx + item_w > x + w) {
      cx = x;
      cy += line_h;
    }
    s.rect(cx, cy - size * 0.8, 12, 12, colour, "none", 2);
    s.fit(cx + 18, cy, x + w - cx - 18, label, style(size, kInk));
    cx += item_w;
  }
  return cy - y + line_h;
}

std::vector<std::pair<std::string, std::string>> part_legend(const DiagramModel& m) {
  std::vector<std::pair<std::string, std::string>> items;
  for (const LayerPart& p : m.parts)
    items.emplace_back(p.colour.stroke, p.label + "  ×" + with_thousands(p.layers));
  return items;
}

std::string cell_label(const DiagramModel& m, const diagram::LayerCell& c) {
  std::string s;
  if (c.mixer >= 0) s = m.parts[static_cast<size_t>(c.mixer)].label;
  if (c.ffn >= 0) s += (s.empty() ? "" : " + ") + m.parts[static_cast<size_t>(c.ffn)].label;
  return s.empty() ? "empty" : s;
}

// "8 × [5 Sliding GQA (1024) + MLP, 1 GQA attention + MLP]" for a periodic stack; the run list otherwise.
std::string pattern_text(const ModelReport& r, const DiagramModel& m) {
  if (m.cells.empty()) return "";
  if (m.period == 1)
    return "all " + with_thousands(m.cells.size()) + " layers identical: " + cell_label(m, m.cells[0]);
  if (m.period > 1) {
    std::string unit;
    for (size_t i = 0; i < m.period;) {
      size_t j = i;
      while (j < m.period && m.cells[j] == m.cells[i]) ++j;
      unit += (unit.empty() ? "" : ", ") + std::to_string(j - i) + "× " + cell_label(m, m.cells[i]);
      i = j;
    }
    return "repeating unit of " + std::to_string(m.period) + " layers, " +
           std::to_string(m.cells.size() / m.period) + " times: [" + unit + "]";
  }
  if (!r.attention.pattern.empty()) return "attention: " + r.attention.pattern;
  return "";
}

// ---- simple style
// ------------------------------------------------------------------------------------------

struct Stat {
  std::string label, value, note;
};

std::vector<Stat> key_stats(const ModelReport& r, const DiagramModel& m) {
  const ParameterCounts& p = r.parameters;
  const ArchitectureDetails& a = r.architecture;
  std::vector<Stat> st;
  st.push_back(
      {"Parameters", diagram::dash_params(p.total), p.total ? with_thousands(p.total) + " exact" : ""});
  if (p.active)
    st.push_back({"Active per token", diagram::dash_params(*p.active),
                  r.moe ? "top-" + diagram::dash_count(r.moe->experts_per_token) + " of " +
                              diagram::dash_count(r.moe->num_experts) + " experts"
                        : "mixture of experts"});
  else
    st.push_back(
        {"Active per token", diagram::dash_params(p.total), p.total ? "dense: every parameter" : ""});
  std::string kinds;
  if (m.kinds.size() > 1)
    for (const diagram::BlockKind& k : m.kinds)
      kinds += (kinds.empty() ? "" : " · ") + std::to_string(k.indices.size()) + " " + k.title;
  st.push_back({"Layers", diagram::dash_count(m.num_layers), kinds.empty() ? a.architecture_type : kinds});
  const uint64_t inner =
      r.moe && r.moe->expert_intermediate_size ? r.moe->expert_intermediate_size : a.intermediate_size;
  st.push_back({"Hidden size", diagram::dash_count(a.hidden_size),
                inner ? (r.moe ? "expert FFN " : "FFN ") + with_thousands(inner) : ""});
  st.push_back(
      {"Heads / KV heads", diagram::dash_count(heads(r)) + " / " + diagram::dash_count(kv_heads(r)),
       (head_dim(r) ? "head dim " + with_thousands(head_dim(r)) : std::string()) +
           (r.attention.attention_type.empty() ? ""
                                               : (head_dim(r) ? " · " : "") + r.attention.attention_type)});
  st.push_back({"Context", diagram::dash_count(a.max_position_embeddings), position_line(r)});
  std::string kv_note = r.memory.kv_cache_dtype;
  if (r.memory.kv_cache_per_token_decompressed_bytes > r.memory.kv_cache_per_token_bytes)
    kv_note += (kv_note.empty() ? "" : " · ") + std::string("latent (MLA)");
  if (r.memory.state_bytes_per_sequence)
    kv_note += (kv_note.empty() ? "" : " · ") +
               ("+ " + human_bytes(r.memory.state_bytes_per_sequence) + " state/seq");
  if (encoder_only(r) && r.memory.kv_cache_per_token_bytes == 0)
    st.push_back({"KV cache / token", "none", "encoder: no generation cache"});
  else
    st.push_back({"KV cache / token", diagram::dash_bytes(r.memory.kv_cache_per_token_bytes), kv_note});
  const Estimate* bf16 = find_estimate(r.memory.weights, "weights_bf16");
  const Estimate* stored = find_estimate(r.memory.weights, "weights_stored");
  std::string wnote;
  if (r.quantization.quantized) wnote = "checkpoint: " + r.quantization.method;
  if (stored && stored->bytes) wnote += (wnote.empty() ? "as stored: " : ", ") + human_bytes(stored->bytes);
  st.push_back({"Weights (BF16)", diagram::dash_bytes(bf16 ? bf16->bytes : 0), wnote});
  return st;
}

void stat_card(Svg& s, const Rect& b, const Stat& st, const std::string& accent) {
  s.rect(b.x, b.y, b.w, b.h, "#f8fafc", kRule, 12, 1.2);
  s.rect(b.x, b.y + 14, 5, b.h - 28, accent, "none", 2);
  const double tw = b.w - 44;
  s.fit(b.x + 24, b.y + 32, tw, st.label, style(15, kMuted, true, Anchor::Start, 12));
  s.fit(b.x + 24, b.y + 78, tw, st.value, style(34, kInk, true, Anchor::Start, 20));
  if (!st.note.empty()) s.fit(b.x + 24, b.y + 108, tw, st.note, style(14, kFaint, false, Anchor::Start, 11));
}

// One sub-layer drawn as a horizontal row: [norm] → [part] → ⊕ (pre-norm) or [part] → ⊕ → [norm] (post-norm),
// entered at (x, y + h/2), with the residual path from the entry to the add running above or below the row.
// Returns the centre x of the add.
double residual_row(Svg& s, double x, double w, double y, double h, const std::string& norm,
                    const PartText& part, const Palette& pal, bool post_norm, bool arch_above) {
  const double norm_w = 112, gap = 30, add_r = 13, cy = y + h / 2;
  const double part_w = w - norm_w - 2 * gap - 2 * add_r - 18;
  Rect norm_box, part_box;
  double add_x;
  const double entry = x + 18;
  if (!post_norm) {
    norm_box = {entry, y, norm_w, h};
    part_box = {norm_box.right() + gap, y, part_w, h};
    add_x = part_box.right() + gap + add_r;
  } else {
    part_box = {entry, y, part_w, h};
    add_x = part_box.right() + gap + add_r;
    norm_box = {add_x + add_r + gap, y, norm_w, h};
  }
  const double arch = arch_above ? y - 16 : y + h + 16;
  const double add_edge = arch_above ? cy - add_r - 1 : cy + add_r + 1;
  s.elbow_arrow({x, cy, x, arch, add_x, arch, add_x, add_edge}, "#94a3b8", 1.5);
  s.arrow(x, cy, entry - 2, cy, "#64748b", 2);
  box(s, norm_box, kNorm, norm, {}, 14);
  box(s, part_box, pal, part.title, {part.lines.empty() ? std::string() : part.lines.front()}, 15, 13);
  if (!post_norm) {
    s.arrow(norm_box.right(), cy, part_box.x - 2, cy);
    s.arrow(part_box.right(), cy, add_x - add_r - 2, cy);
  } else {
    s.arrow(part_box.right(), cy, add_x - add_r - 2, cy);
    s.arrow(add_x + add_r, cy, norm_box.x - 2, cy);
  }
  plus_node(s, add_x, cy, add_r);
  return add_x;
}

void simple_stack(Svg& s, const ModelReport& r, const DiagramModel& m, const Rect& b) {
  stacked_frame(s, b);
  const double ix = b.x + 24, iw = b.w - 48;
  const bool uniform_kind = m.kinds.size() <= 1;
  std::string title = uniform_kind ? diagram::dash_count(m.num_layers) + " × " + layer_word(r)
                      : r.architecture.architecture_type.find("hybrid") != std::string::npos
                          ? diagram::dash_count(m.num_layers) + " layers · hybrid stack"
                          : diagram::dash_count(m.num_layers) + " × " + layer_word(r) + " · " +
                                std::to_string(m.kinds.size()) + " kinds";
  s.fit(ix, b.y + 38, iw, title, style(21, kInk, true, Anchor::Start, 15));
  const bool varied = m.period != 1 && !m.cells.empty();
  if (uniform_kind && !m.kinds.empty()) {
    const diagram::BlockKind& k = m.kinds.front();
    const std::string norm = diagram::norm_name(r.architecture.norm_type);
    std::vector<std::pair<PartText, Palette>> rows;
    if (has(k.spec.mixer)) rows.emplace_back(mixer_text(r, m, k, false), mixer_palette(m, k));
    if (has(k.spec.ffn)) rows.emplace_back(ffn_text(r, k.spec, false), ffn_palette(m, k.spec));
    const double row_h = 62, row_gap = 48;
    // Rows centred in the room under the title (above the strip when there is one).
    const double room_top = b.y + 60, room_bottom = varied ? b.bottom() - 70 : b.bottom() - 10;
    const double rows_h = static_cast<double>(rows.size()) * (row_h + 32) +
                          static_cast<double>(rows.size() - 1) * (row_gap - 32);
    const double y0 = std::max(b.y + 84, room_top + (room_bottom - room_top - rows_h) / 2 + 16);
    const double rx = ix + 4, rw = iw - 4;
    double prev_add = -1;
    for (size_t i = 0; i < rows.size(); ++i) {
      const double y = y0 + static_cast<double>(i) * (row_h + row_gap);
      if (prev_add >= 0) {
        // From the previous row's add down through the gap into this row's entry.
        const double mid = y - row_gap / 2;
        s.elbow_arrow({prev_add, y - row_gap + 13, prev_add, mid, rx, mid, rx, y + row_h / 2 - 10}, "#64748b",
                      2);
      }
      prev_add = residual_row(s, rx, rw, y, row_h, norm, rows[i].first, rows[i].second, m.post_norm, i == 0);
    }
    if (varied) {
      const double sy = b.bottom() - 60;
      layer_strip(s, m, ix, sy, iw, 22, false);
      legend(s, part_legend(m), ix, sy + 44, iw, 13);
    }
    return;
  }
  // Hybrid: the whole layer pattern, then one line per kind of layer.
  section_label(s, ix, b.y + 76, "LAYER PATTERN");
  layer_strip(s, m, ix, b.y + 90, iw, 52, true);
  double y = b.y + 190;
  for (const diagram::BlockKind& k : m.kinds) {
    if (y > b.bottom() - 14) break;
    double cx = ix;
    const diagram::LayerCell& c = m.cells[k.indices.front()];
    for (int pi : {c.mixer, c.ffn}) {
      if (pi < 0) continue;
      s.rect(cx, y - 12, 14, 14, m.parts[static_cast<size_t>(pi)].colour.stroke, "none", 3);
      cx += 18;
    }
    const std::string line = std::to_string(k.indices.size()) + " × " + k.title;
    s.fit(ix + 44, y, iw - 44, line + "   (layers " + compact_ranges(k.indices) + ")", style(15, kInk));
    y += 32;
  }
  if (const std::string p = pattern_text(r, m); !p.empty() && y < b.bottom() - 16)
    s.fit(ix, b.bottom() - 20, iw, p, style(13, kFaint, false, Anchor::Start, 11));
}

std::string render_simple(const ModelReport& r, const DiagramModel& m) {
  Svg s(kDiagramWidth, kDiagramHeight, m.title + " — architecture");
  background_and_header(s, m, "Architecture overview");
  const ArchitectureDetails& a = r.architecture;
  const double cy = 322;
  struct Item {
    double w, h;
    int kind;  // 0 input, 1 embedding, 2 stack, 3 norm, 4 head
  };
  std::vector<Item> items = {{150, 120, 0}, {220, 150, 1}, {600, 340, 2}};
  if (!m.post_norm) items.push_back({140, 120, 3});
  items.push_back({200, 150, 4});
  double total = 0;
  for (const Item& it : items) total += it.w;
  const double gap = std::min(80.0, (kW - 2 * kMargin - total) / static_cast<double>(items.size() - 1));
  double x = (kW - total - gap * static_cast<double>(items.size() - 1)) / 2;
  Rect prev;
  for (size_t i = 0; i < items.size(); ++i) {
    const Rect b{x, cy - items[i].h / 2, items[i].w, items[i].h};
    if (i > 0) s.arrow(prev.right() + 6, cy, b.x - (items[i].kind == 2 ? 4 : 6), cy, "#64748b", 2.2);
    switch (items[i].kind) {
      case 0:
        box(s, b, kIo, "Input", {input_line(r), "vocab " + diagram::dash_count(a.vocab_size)});
        break;
      case 1: {
        std::vector<std::string> lines = {diagram::dash_count(a.vocab_size) + " × " +
                                          diagram::dash_count(a.hidden_size)};
        if (a.position_embedding == "learned") lines.push_back("+ learned positions");
        if (a.tie_word_embeddings) lines.push_back("tied with the head");
        box(s, b, kEmbedding, "Embedding", lines);
        break;
      }
      case 2:
        simple_stack(s, r, m, b);
        break;
      case 3:
        box(s, b, kNorm, "Final norm", {diagram::norm_name(a.norm_type)});
        break;
      default:
        box(s, b, kHead, head_title(r),
            {diagram::dash_count(a.hidden_size) + " → " + diagram::dash_count(a.vocab_size), "→ logits"});
    }
    prev = b;
    x += items[i].w + gap;
  }
  section_label(s, kMargin, 566, "KEY STATISTICS");
  const std::vector<Stat> stats = key_stats(r, m);
  const std::vector<std::string> accents = {"#2563eb", "#ea580c", "#059669", "#4f46e5",
                                            "#0ea5e9", "#d97706", "#db2777", "#64748b"};
  const double cw = (kW - 2 * kMargin - 3 * 16) / 4, ch = 130;
  for (size_t i = 0; i < stats.size() && i < 8; ++i) {
    const Rect b{kMargin + static_cast<double>(i % 4) * (cw + 16),
                 582 + static_cast<double>(i / 4) * (ch + 16), cw, ch};
    stat_card(s, b, stats[i], accents[i]);
  }
  return s.finish();
}

// ---- detailed style
// ----------------------------------------------------------------------------------------

// The model's forward pass as a vertical column on the left.
void pipeline_column(Svg& s, const ModelReport& r, const DiagramModel& m, const Rect& area) {
  const ArchitectureDetails& a = r.architecture;
  const double arrow_h = 28;
  const double stack_h = std::clamp(84.0 + 26.0 * static_cast<double>(m.kinds.size()), 130.0, 250.0);
  std::vector<std::pair<double, int>> items = {{60, 0}, {92, 1}, {stack_h, 2}};
  if (!m.post_norm) items.push_back({56, 3});
  items.push_back({80, 4});
  double total = arrow_h * static_cast<double>(items.size() - 1);
  for (auto& it : items) total += it.first;
  double y = area.y + std::max(0.0, (area.h - total) / 2);
  double prev_bottom = -1;
  for (const auto& [h, kind] : items) {
    const Rect b{area.x, y, area.w, h};
    if (prev_bottom >= 0) s.arrow(b.cx(), prev_bottom + 4, b.cx(), b.y - (kind == 2 ? 16 : 4), "#64748b", 2);
    switch (kind) {
      case 0:
        box(s, b, kIo, "Input", {input_line(r)}, 16);
        break;
      case 1: {
        std::vector<std::string> lines = {diagram::dash_count(a.vocab_size) + " × " +
                                          diagram::dash_count(a.hidden_size)};
        if (a.position_embedding == "learned") lines.push_back("+ learned positions");
        if (a.tie_word_embeddings) lines.push_back("tied with the head");
        box(s, b, kEmbedding, "Embedding", lines, 16);
        break;
      }
      case 2: {
        const Rect f{b.x, b.y, b.w - 12, b.h};
        stacked_frame(s, f, 6);
        s.fit(f.cx(), f.y + 34, f.w - 20, diagram::dash_count(m.num_layers) + " × " + layer_word(r),
              style(18, kInk, true, Anchor::Middle, 13));
        double ly = f.y + 70;
        for (const diagram::BlockKind& k : m.kinds) {
          if (ly > f.bottom() - 12) break;
          double cx = f.x + 16;
          const diagram::LayerCell& c = m.cells[k.indices.front()];
          for (int pi : {c.mixer, c.ffn}) {
            if (pi < 0) continue;
            s.rect(cx, ly - 11, 12, 12, m.parts[static_cast<size_t>(pi)].colour.stroke, "none", 2);
            cx += 15;
          }
          s.fit(f.x + 50, ly, f.w - 62, std::to_string(k.indices.size()) + " × " + k.title,
                style(14, kInk, false, Anchor::Start, 11));
          ly += 26;
        }
        break;
      }
      case 3:
        box(s, b, kNorm, "Final norm", {diagram::norm_name(a.norm_type)}, 16);
        break;
      default:
        box(s, b, kHead, head_title(r),
            {diagram::dash_count(a.hidden_size) + " → " + diagram::dash_count(a.vocab_size) + " logits"}, 16);
    }
    prev_bottom = b.bottom();
    y = b.bottom() + arrow_h;
  }
}

// The inside of one kind of layer, flowing downwards, residual paths on the right.
void block_card(Svg& s, const ModelReport& r, const DiagramModel& m, const diagram::BlockKind& k,
                const Rect& c) {
  s.rect(c.x, c.y, c.w, c.h, "#ffffff", "#cbd5e1", 14, 1.4);
  // Header: the colours of this kind's parts, its title and which layers.
  double hx = c.x + 16;
  const diagram::LayerCell& cell = m.cells[k.indices.front()];
  for (int pi : {cell.mixer, cell.ffn}) {
    if (pi < 0) continue;
    s.rect(hx, c.y + 18, 14, 14, m.parts[static_cast<size_t>(pi)].colour.stroke, "none", 3);
    hx += 18;
  }
  s.fit(hx + 6, c.y + 31, c.right() - hx - 22, k.title, style(17, kInk, true, Anchor::Start, 12));
  const std::string which = with_thousands(k.indices.size()) +
                            (k.indices.size() == 1 ? " layer: " : " layers: ") + compact_ranges(k.indices);
  s.fit(c.x + 16, c.y + 54, c.w - 32, which, style(13, kFaint, false, Anchor::Start, 11));

  struct Element {
    int kind;  // 0 norm, 1 part, 2 add
    PartText text;
    Palette pal;
    double h;
  };
  const std::string norm = diagram::norm_name(r.architecture.norm_type);
  std::vector<Element> els;
  auto sub_layer = [&](PartText t, const Palette& pal) {
    const double h = 34 + 18 * static_cast<double>(t.lines.size());
    if (!m.post_norm) els.push_back({0, {norm, {}}, kNorm, 32});
    els.push_back({1, std::move(t), pal, h});
    els.push_back({2, {}, {}, 24});
    if (m.post_norm) els.push_back({0, {norm, {}}, kNorm, 32});
  };
  if (has(k.spec.mixer)) sub_layer(mixer_text(r, m, k, true), mixer_palette(m, k));
  if (has(k.spec.ffn)) sub_layer(ffn_text(r, k.spec, true), ffn_palette(m, k.spec));

  const double top = c.y + 72, bottom = c.bottom() - 16;
  double content = 0;
  for (const Element& e : els) content += e.h;
  const double gaps = static_cast<double>(els.size() + 1);
  const double gap = std::clamp((bottom - top - content) / gaps, 10.0, 26.0);
  const double res_x = c.right() - 22;  // residual lane
  const double bw = c.w - 58, bx = c.x + 14;
  const double ax = bx + bw / 2;  // the main axis
  double y = top;
  s.text(ax + 8, y + 4, "from previous layer", style(12, kFaint, false, Anchor::Start));
  double branch_y = y + gap / 2;  // where the current sub-layer's residual leaves the axis
  for (const Element& e : els) {
    s.arrow(ax, y, ax, y + gap - 2, "#64748b", 1.8);
    y += gap;
    if (e.kind == 2) {
      const double r_add = 11, cy = y + e.h / 2;
      s.elbow_arrow({ax, branch_y, res_x, branch_y, res_x, cy, ax + r_add + 1, cy}, "#94a3b8", 1.5);
      plus_node(s, ax, cy, r_add);
      branch_y = y + e.h + gap / 2;
    } else {
      const double w = e.kind == 0 ? std::min(bw, 150.0) : bw;
      box(s, {ax - w / 2, y, w, e.h}, e.pal, e.text.title, e.text.lines, e.kind == 0 ? 14 : 15, 13);
    }
    y += e.h;
  }
  s.arrow(ax, y, ax, y + gap - 2, "#64748b", 1.8);
  s.text(ax + 8, y + gap - 4, "to next layer", style(12, kFaint, false, Anchor::Start));
}

struct PanelRow {
  std::string label, value;
  bool heading = false;
};

std::string estimate_label(const std::string& name) {
  static const std::vector<std::pair<std::string, std::string>> kNames = {
      {"weights_fp32", "FP32"},       {"weights_bf16", "BF16"}, {"weights_fp16", "FP16"},
      {"weights_fp8", "FP8"},         {"weights_int8", "INT8"}, {"weights_int4", "INT4 (+ scales)"},
      {"weights_stored", "As stored"}};
  for (const auto& [k, v] : kNames)
    if (k == name) return v;
  std::string s = name;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

const std::vector<std::pair<std::string, std::string>> kTrainingTotals = {
    {"training_full_fp32_total", "Full fine-tune, fp32 AdamW"},
    {"training_mixed_bf16_total", "Full fine-tune, bf16 mixed"},
    {"training_mixed_bf16_checkpointed_total", "… with checkpointing"},
    {"training_lora_total", "LoRA"},
    {"training_qlora_total", "QLoRA"}};

std::vector<PanelRow> panel_rows(const ModelReport& r) {
  const ParameterCounts& p = r.parameters;
  const MemoryReport& mem = r.memory;
  std::vector<PanelRow> rows;
  rows.push_back({"Parameters", "", true});
  rows.push_back(
      {"Total", diagram::dash_params(p.total) + (p.total ? "  (" + with_thousands(p.total) + ")" : "")});
  if (p.active) rows.push_back({"Active per token", diagram::dash_params(*p.active)});
  rows.push_back({"Embedding", diagram::dash_params(p.embedding)});
  rows.push_back({"Non-embedding", diagram::dash_params(p.non_embedding)});
  if (p.routed_experts) rows.push_back({"Routed experts", diagram::dash_params(p.routed_experts)});
  rows.push_back({"Weights", "", true});
  if (mem.weights.empty()) rows.push_back({"BF16", "—"});
  for (const Estimate& e : mem.weights)
    rows.push_back({estimate_label(e.name), diagram::dash_bytes(e.bytes)});
  rows.push_back({"KV cache" + (mem.kv_cache_dtype.empty() ? std::string() : " (" + mem.kv_cache_dtype + ")"),
                  "", true});
  if (encoder_only(r) && mem.kv_cache_per_token_bytes == 0) {
    rows.push_back({"Per token", "none (encoder)"});
  } else {
    rows.push_back({"Per token", diagram::dash_bytes(mem.kv_cache_per_token_bytes)});
    if (mem.kv_cache_per_token_decompressed_bytes > mem.kv_cache_per_token_bytes)
      rows.push_back({"Per token, decompressed", human_bytes(mem.kv_cache_per_token_decompressed_bytes)});
    rows.push_back(
        {"Batch " + with_thousands(mem.batch) + " × " + diagram::dash_count(mem.context) + " tokens",
         diagram::dash_bytes(mem.kv_cache_bytes)});
  }
  if (mem.state_bytes_per_sequence)
    rows.push_back({"SSM state / sequence", human_bytes(mem.state_bytes_per_sequence)});
  // The totals only; their parts and formulas are in the Markdown export.
  std::vector<PanelRow> totals;
  if (const Estimate* e = find_estimate(mem.inference, "inference_total"))
    totals.push_back({"Inference (weights + KV + act.)", diagram::dash_bytes(e->bytes)});
  for (const auto& [name, label] : kTrainingTotals)
    if (const Estimate* e = find_estimate(mem.training, name))
      totals.push_back({label, diagram::dash_bytes(e->bytes)});
  if (!totals.empty()) {
    rows.push_back({"Inference & training", "", true});
    rows.insert(rows.end(), totals.begin(), totals.end());
  }
  rows.push_back({"Quantization", "", true});
  const QuantizationInfo& q = r.quantization;
  std::string qv = q.quantized ? q.method : "none";
  if (q.quantized && q.bits) qv += " · " + std::to_string(*q.bits) + "-bit";
  if (!q.quantized && !r.architecture.torch_dtype.empty()) qv += " (" + r.architecture.torch_dtype + ")";
  rows.push_back({"Method", qv});
  return rows;
}

void memory_panel(Svg& s, const ModelReport& r, const Rect& b) {
  s.rect(b.x, b.y, b.w, b.h, "#f8fafc", kRule, 14, 1.2);
  s.text(b.x + 20, b.y + 34, "Parameters & memory", style(18, kInk, true));
  double y = b.y + 50;
  const double lx = b.x + 20, rx = b.right() - 20;
  for (const PanelRow& row : panel_rows(r)) {
    const double need = row.heading ? 30 + 23 : 23;
    if (y + need > b.bottom() - 8) break;
    if (row.heading) {
      y += 24;
      s.text(lx, y, row.label, style(13, kFaint, true));
      s.line(lx, y + 6, rx, y + 6, kRule, 1);
      y += 8;
      continue;
    }
    y += 23;
    const double value_w = std::min(diagram::text_width(row.value, 14.5, true), (rx - lx) * 0.62);
    s.fit(rx, y, value_w + 1, row.value, style(14.5, kInk, true, Anchor::End, 11));
    s.fit(lx, y, rx - lx - value_w - 14, row.label, style(14.5, kMuted, false, Anchor::Start, 11));
  }
}

void pattern_card(Svg& s, const ModelReport& r, const DiagramModel& m, const Rect& b) {
  s.rect(b.x, b.y, b.w, b.h, "#ffffff", "#cbd5e1", 14, 1.4);
  s.text(b.x + 20, b.y + 30, "Layer pattern", style(17, kInk, true));
  const double after = b.x + 20 + diagram::text_width("Layer pattern", 17, true) + 16;
  s.fit(after, b.y + 30, b.right() - 20 - after,
        diagram::dash_count(m.num_layers) + " layers · one cell per layer, mixer above, feed-forward below",
        style(13, kFaint, false, Anchor::Start, 11));
  const double sx = b.x + 20, sw = b.w - 40;
  layer_strip(s, m, sx, b.y + 46, sw, 38, true);
  const double used = legend(s, part_legend(m), sx, b.y + 126, sw, 13.5);
  const std::string pattern = pattern_text(r, m);
  if (!pattern.empty() && b.y + 126 + used < b.bottom() - 4)
    s.fit(sx, b.y + 126 + used + 2, sw, pattern, style(13, kMuted, false, Anchor::Start, 11));
}

std::string render_detailed(const ModelReport& r, const DiagramModel& m) {
  Svg s(kDiagramWidth, kDiagramHeight, m.title + " — architecture (detailed)");
  background_and_header(s, m, "Architecture — detailed");
  const double top = 124, bottom = kH - 32;
  const Rect left{kMargin, top + 14, 250, bottom - top - 14};
  const Rect panel{kW - kMargin - 380, top, 380, bottom - top};
  const double mx = left.right() + 36, mw = panel.x - 28 - mx;
  const Rect pattern{mx, bottom - 190, mw, 190};
  section_label(s, left.x, top, "FORWARD PASS");
  pipeline_column(s, r, m, {left.x, left.y + 10, left.w, left.h - 10});
  // Up to three kinds of layer side by side; more are named in the pipeline column.
  const size_t shown = std::min<size_t>(m.kinds.size(), 3);
  section_label(s, mx, top, shown > 1 ? "LAYER INTERNALS (ONE CARD PER KIND OF LAYER)" : "LAYER INTERNALS");
  const double card_gap = 16, card_top = top + 14, card_h = pattern.y - 18 - card_top;
  const double card_w =
      shown ? (mw - card_gap * static_cast<double>(shown - 1)) / static_cast<double>(shown) : mw;
  for (size_t i = 0; i < shown; ++i)
    block_card(s, r, m, m.kinds[i],
               {mx + static_cast<double>(i) * (card_w + card_gap), card_top, card_w, card_h});
  if (shown == 0) {
    s.rect(mx, card_top, mw, card_h, "#f8fafc", "#cbd5e1", 14);
    s.text(mx + mw / 2, card_top + card_h / 2, "layer structure unknown",
           style(15, kFaint, false, Anchor::Middle));
  }
  if (m.kinds.size() > shown)
    s.text(mx + mw, top, "+" + std::to_string(m.kinds.size() - shown) + " more kinds (see the stack)",
           style(13, kFaint, false, Anchor::End));
  pattern_card(s, r, m, pattern);
  memory_panel(s, r, panel);
  return s.finish();
}

}  // namespace

std::string render_diagram_svg(const ModelReport& report, DiagramStyle style) {
  const diagram::DiagramModel m = diagram::build_diagram_model(report);
  return style == DiagramStyle::Simple ? render_simple(report, m) : render_detailed(report, m);
}

}  // namespace ma
