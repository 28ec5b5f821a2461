#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "report/diagram_parts.h"

namespace ma::diagram {
namespace {
// ---- detailed style
// ----------------------------------------------------------------------------------------

// The main stack's box: "N × layer" and one line per kind of layer with its colours.
void stack_box(Svg& s, const ModelReport& r, const DiagramModel& m, const Rect& b) {
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
    // A line too long at its smallest size breaks after its last " + " that fits ("6 × Attention +
    // Cross-attention + MLP" was cut in T5's box), the rest on a second line.
    const std::string line = std::to_string(k.indices.size()) + " × " + k.title;
    const double width = f.w - 62;
    size_t cut = std::string::npos;
    if (text_width(line, 11) > width)
      for (size_t at = line.find(" + "); at != std::string::npos; at = line.find(" + ", at + 1))
        if (text_width(line.substr(0, at + 2), 11) <= width) cut = at;
    if (cut == std::string::npos) {
      s.fit(f.x + 50, ly, width, line, style(14, kInk, false, Anchor::Start, 11));
    } else {
      s.fit(f.x + 50, ly, width, line.substr(0, cut + 2), style(11, kInk, false, Anchor::Start, 11));
      ly += 16;
      s.fit(f.x + 50, ly, width, line.substr(cut + 3), style(11, kInk, false, Anchor::Start, 11));
    }
    ly += 26;
  }
}

// The model's forward pass as a vertical column on the left: input, towers and projector, embedding, the
// encoder of an encoder-decoder, the main stack, final norm, head. Scaled down together when they do not fit.
void pipeline_column(Svg& s, const ModelReport& r, const DiagramModel& m, const Rect& area) {
  const ArchitectureDetails& a = r.architecture;
  enum class What { Input, Side, Embedding, Encoder, Stack, Norm, Head };
  struct Item {
    What what;
    double h;
    const SideStack* side = nullptr;
  };
  auto side_height = [](const SideStack& st) { return 34.0 + 17.0 * static_cast<double>(st.lines.size()); };
  std::vector<Item> items = {{What::Input, 60}};
  const bool cross_label = m.encoder && m.cross_attention;  // labels the arrow from encoder to stack
  for (const SideStack& t : m.towers) items.push_back({What::Side, side_height(t), &t});
  items.push_back({What::Embedding, 92});
  if (m.encoder) items.push_back({What::Encoder, side_height(*m.encoder), &*m.encoder});
  items.push_back({What::Stack, std::clamp(84.0 + 26.0 * static_cast<double>(m.kinds.size()), 130.0, 250.0)});
  if (!m.norms.after_add) items.push_back({What::Norm, 56});
  items.push_back({What::Head, 80});
  const double label_gap = cross_label ? 16 : 0;
  double arrow_h = 28, total = arrow_h * static_cast<double>(items.size() - 1) + label_gap;
  for (const Item& it : items) total += it.h;
  // Fit the column: arrows shrink first (to 16), then every box alike (never below 3/4 of its height).
  if (total > area.h) {
    const double boxes = total - arrow_h * static_cast<double>(items.size() - 1);
    const double arrows = static_cast<double>(items.size() - 1);
    arrow_h = std::max(16.0, (area.h - label_gap - boxes) / arrows);
    const double scale = std::clamp((area.h - label_gap - arrow_h * arrows) / boxes, 0.75, 1.0);
    total = arrow_h * arrows + label_gap;
    for (Item& it : items) total += it.h *= scale;
  }
  double y = area.y + std::max(0.0, (area.h - total) / 2);
  double prev_bottom = -1;
  for (const Item& it : items) {
    if (it.what == What::Stack) y += label_gap;
    const Rect b{area.x, y, area.w, it.h};
    if (prev_bottom >= 0) {
      s.arrow(b.cx(), prev_bottom + 4, b.cx(), b.y - (it.what == What::Stack ? 16 : 4), "#64748b", 2);
      if (it.what == What::Stack && cross_label)
        s.fit(b.cx() + 8, prev_bottom + 16, b.w / 2 - 8, "to cross-attention",
              style(12, kFaint, false, Anchor::Start, 9));
    }
    switch (it.what) {
      case What::Input:
        box(s, b, kIo, "Input", {input_line(r)}, 16);
        break;
      case What::Side:
        box(s, b, it.side->role == StackRole::Projector ? kProjector : kTower, it.side->title, it.side->lines,
            15, 12.5);
        break;
      case What::Embedding: {
        std::vector<std::string> lines = embedding_lines(r);
        if (!m.towers.empty()) lines.push_back("image tokens join the text");
        box(s, b, kEmbedding, "Embedding", lines, 16);
        break;
      }
      case What::Encoder:
        box(s, b, kTower, it.side->title, it.side->lines, 15, 12.5);
        break;
      case What::Stack:
        stack_box(s, r, m, b);
        break;
      case What::Norm:
        box(s, b, kNorm, "Final norm", {diagram::norm_name(a.norm_type)}, 16);
        break;
      case What::Head:
        box(s, b, kHead, head_title(r), head_lines(r, true), 16);
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
                            (k.indices.size() == 1 ? " layer: " : " layers: ") + index_ranges(k.indices);
  s.fit(c.x + 16, c.y + 54, c.w - 32, which, style(13, kFaint, false, Anchor::Start, 11));

  enum class Kind { Norm, Part, Add };
  struct Element {
    Kind kind;
    PartText text;
    Palette pal;
    double h;
    bool ends_sublayer = false;  // the residual stream goes on from here: the add, or a post-norm after it
  };
  const double bw = c.w - 58, bx = c.x + 14;
  const std::string norm = diagram::norm_name(r.architecture.norm_type);
  const Element norm_element{Kind::Norm, {norm, {}}, kNorm, 32};
  std::vector<Element> els;
  auto sub_layer = [&](PartText t, const Palette& pal) {
    // A line too wide for the box even at 12 px breaks between its facts rather than shrinking to 11 px or
    // being cut (Gemma-4's per-variant lines in a card a third of the width).
    std::vector<std::string> lines;
    for (const std::string& line : t.lines)
      for (std::string& part : wrap_at_dots(line, bw - 16, 12)) lines.push_back(std::move(part));
    t.lines = std::move(lines);
    const double h = 34 + 18 * static_cast<double>(t.lines.size());
    if (m.norms.before) els.push_back(norm_element);
    els.push_back({Kind::Part, std::move(t), pal, h});
    if (m.norms.after_part) els.push_back(norm_element);  // Gemma's post-sub-layer norm, before the add
    els.push_back({Kind::Add, {}, {}, 24, !m.norms.after_add});
    if (m.norms.after_add) {  // post-norm: the next sub-layer and its residual read the norm's output
      els.push_back(norm_element);
      els.back().ends_sublayer = true;
    }
  };
  if (k.spec.mixer != Mixer::None) sub_layer(mixer_text(r, m, k, true), mixer_palette(m, k));
  if (k.spec.cross_attention) sub_layer(cross_attention_text(*k.spec.cross_attention), kTower);
  if (k.spec.ffn.kind != Ffn::None) sub_layer(ffn_text(r, k, true), ffn_palette(m, k.spec));

  const double top = c.y + 72, bottom = c.bottom() - 16;
  double content = 0;
  for (const Element& e : els) content += e.h;
  const double gaps = static_cast<double>(els.size() + 1);
  // Three sub-layers (self-attention, cross-attention, MLP) or four norms (Gemma) may not fit at full height:
  // the norms and adds shrink first (their text is one short line), then every element (never below 4/5),
  // so that the gaps keep their minimum.
  const double room = bottom - top - 14 * gaps;
  if (content > room) {
    content = 0;
    for (Element& e : els) {
      if (e.kind == Kind::Norm) e.h = 24;
      if (e.kind == Kind::Add) e.h = 20;
      content += e.h;
    }
  }
  if (content > room) {
    const double scale = std::max(0.8, room / content);
    content = 0;
    for (Element& e : els) content += e.h *= scale;
  }
  const double gap = std::clamp((bottom - top - content) / gaps, 14.0, 26.0);
  const double res_x = c.right() - 22;  // residual lane
  const double ax = bx + bw / 2;        // the main axis
  double y = top;
  s.text(ax + 8, y + 4, "from previous layer", style(12, kFaint, false, Anchor::Start));
  double branch_y = y + gap / 2;  // where the current sub-layer's residual leaves the axis
  for (const Element& e : els) {
    s.arrow(ax, y, ax, y + gap - 2, "#64748b", 1.8);
    y += gap;
    if (e.kind == Kind::Add) {
      const double r_add = 11, cy = y + e.h / 2;
      s.elbow_arrow({ax, branch_y, res_x, branch_y, res_x, cy, ax + r_add + 1, cy}, "#94a3b8", 1.5);
      plus_node(s, ax, cy, r_add);
    } else {
      const double w = e.kind == Kind::Norm ? std::min(bw, 150.0) : bw;
      box(s, {ax - w / 2, y, w, e.h}, e.pal, e.text.title, e.text.lines, e.kind == Kind::Norm ? 14 : 15, 13);
    }
    if (e.ends_sublayer) branch_y = y + e.h + gap / 2;
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

// A total as the panel shows it: what is missing where it is unknown ("pass --context"), not a bare dash.
std::string estimate_value(const Estimate& e) {
  if (!e.known && !e.unknown_because.empty()) return e.unknown_because;
  return diagram::dash_bytes(e.bytes);
}

// The KV cache rows: per token and for the batch. A model whose layers keep a fixed state only (Mamba) has
// no per-token cache, and its batch figure needs no context.
void kv_rows(const ModelReport& r, std::vector<PanelRow>& rows) {
  const MemoryReport& mem = r.memory;
  if (encoder_only(r) && mem.kv_cache_per_token_bytes == 0) {
    rows.push_back({"Per token", "none (encoder)"});
    return;
  }
  const bool state_only = mem.kv_known && mem.kv_cache_per_token_bytes == 0 && mem.state_bytes_per_sequence;
  rows.push_back(
      {"Per token", state_only ? "none (state only)" : diagram::dash_bytes(mem.kv_cache_per_token_bytes)});
  if (mem.kv_cache_per_token_decompressed_bytes > mem.kv_cache_per_token_bytes)
    rows.push_back({"Per token, decompressed", human_bytes(mem.kv_cache_per_token_decompressed_bytes)});
  const std::string batch = "Batch " + with_thousands(mem.batch);
  if (mem.context)
    rows.push_back(
        {batch + " × " + with_thousands(mem.context) + " tokens", diagram::dash_bytes(mem.kv_cache_bytes)});
  else if (mem.kv_cache_total_known())
    rows.push_back({batch + ", any length", diagram::dash_bytes(mem.kv_cache_bytes)});
  else
    rows.push_back({batch + ", context unknown", mem.kv_known ? "pass --context" : "—"});
}

// A PEFT adapter: its rank and alpha, and the parameters it trains (the total above is the merged model's).
void adapter_rows(const ModelReport& r, std::vector<PanelRow>& rows) {
  if (!r.adapter) return;
  const AdapterSummary& a = *r.adapter;
  std::string label = (a.peft_type == "LORA" ? std::string("LoRA") : a.peft_type) + " adapter";
  if (a.r) label += ", r " + with_thousands(a.r) + " · α " + plain_number(a.alpha);
  rows.push_back({label, diagram::dash_params(a.parameters) + " trainable"});
}

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
  adapter_rows(r, rows);
  rows.push_back({"Weights", "", true});
  if (mem.weights.empty()) rows.push_back({"BF16", "—"});
  for (const Estimate& e : mem.weights)
    rows.push_back({estimate_label(e.name), diagram::dash_bytes(e.bytes)});
  rows.push_back({"KV cache" + (mem.kv_cache_dtype.empty() ? std::string() : " (" + mem.kv_cache_dtype + ")"),
                  "", true});
  kv_rows(r, rows);
  if (mem.state_bytes_per_sequence)
    rows.push_back({"SSM state / sequence", human_bytes(mem.state_bytes_per_sequence)});
  // The totals only; their parts and formulas are in the Markdown export.
  std::vector<PanelRow> totals;
  if (const Estimate* e = find_estimate(mem.inference, "inference_total"))
    totals.push_back({"Inference (weights + KV + act.)", estimate_value(*e)});
  for (const auto& [name, label] : kTrainingTotals)
    if (const Estimate* e = find_estimate(mem.training, name)) totals.push_back({label, estimate_value(*e)});
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

}  // namespace

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

}  // namespace ma::diagram
