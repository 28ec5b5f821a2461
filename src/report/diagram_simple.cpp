#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "report/diagram_parts.h"

namespace ma::diagram {
namespace {
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
                  : r.parameters.towers ? "the text model (towers run once per input)"
                                        : "mixture of experts"});
  else
    st.push_back(
        {"Active per token", diagram::dash_params(p.total), p.total ? "dense: every parameter" : ""});
  std::string kinds;
  if (m.kinds.size() > 1)
    for (const diagram::BlockKind& k : m.kinds)
      kinds += (kinds.empty() ? "" : " · ") + std::to_string(k.indices.size()) + " " + k.title;
  if (a.encoder_layers && a.decoder_layers)
    st.push_back({"Layers", with_thousands(a.encoder_layers) + " + " + with_thousands(a.decoder_layers),
                  "encoder + decoder"});
  else
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
    if (k.spec.mixer != Mixer::None) rows.emplace_back(mixer_text(r, m, k, false), mixer_palette(m, k));
    if (k.spec.cross_attention) rows.emplace_back(cross_attention_text(*k.spec.cross_attention), kTower);
    if (k.spec.ffn.kind != Ffn::None) rows.emplace_back(ffn_text(r, k.spec, false), ffn_palette(m, k.spec));
    const double row_h = rows.size() > 2 ? 52 : 62, row_gap = rows.size() > 2 ? 40 : 48;
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
    s.fit(ix + 44, y, iw - 44, line + "   (layers " + index_ranges(k.indices) + ")", style(15, kInk));
    y += 32;
  }
  if (const std::string p = pattern_text(r, m); !p.empty() && y < b.bottom() - 16)
    s.fit(ix, b.bottom() - 20, iw, p, style(13, kFaint, false, Anchor::Start, 11));
}

// Under the embedding: the encoder of an encoder-decoder (fed by the embedding, read by the decoder's
// cross-attention), or the towers and projector whose output joins the embedded text.
void side_box(Svg& s, const DiagramModel& m, const Rect& embedding, const Rect& stack) {
  if (!m.encoder && m.towers.empty()) return;
  const Rect b{embedding.x, embedding.bottom() + 40, embedding.w, 104};
  if (m.encoder) {
    box(s, b, kTower, m.encoder->title, m.encoder->lines, 15, 12.5);
    s.arrow(embedding.cx(), embedding.bottom() + 4, embedding.cx(), b.y - 4, "#64748b", 2);
    if (m.cross_attention) {
      // Straight into the stack, whose cross-attention row reads the encoder's keys and values.
      const double y = std::min(b.cy(), stack.bottom() - 24);
      s.arrow(b.right() + 4, y, stack.x - 4, y, "#059669", 2);
      s.text((b.right() + stack.x) / 2, y - 8, "K/V", style(12, "#059669", true, Anchor::Middle));
    }
    return;
  }
  // Towers and projector in one box: the tower's shape, then what the projector maps to.
  std::string title;
  std::vector<std::string> lines;
  for (const SideStack& t : m.towers) {
    title += (title.empty() ? "" : " + ") + t.title;
    if (!t.lines.empty()) lines.push_back(t.lines.front());
  }
  box(s, b, kTower, title, lines, 15, 12.5);
  s.arrow(embedding.cx(), b.y - 4, embedding.cx(), embedding.bottom() + 4, "#059669", 2);
}

}  // namespace

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
  Rect prev, embedding, stack;
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
        if (a.position_embedding == "learned" || a.position_embedding == "sinusoidal")
          lines.push_back("+ " + a.position_embedding + " positions");
        if (a.tie_word_embeddings) lines.push_back("tied with the head");
        box(s, b, kEmbedding, "Embedding", lines);
        embedding = b;
        break;
      }
      case 2:
        simple_stack(s, r, m, b);
        stack = b;
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
  side_box(s, m, embedding, stack);
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

}  // namespace ma::diagram
