#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/units.h"
#include "report/diagram_parts.h"

namespace ma::diagram {
namespace {
// ---- simple style
// ------------------------------------------------------------------------------------------

struct Stat {
  std::string label, value, note;
};

// The feed-forward width under the hidden size: the experts' (MoE), the MLPs' (their range where layers
// differ), a state-space model's d_inner where no layer has an MLP.
std::string ffn_note(const ModelReport& r) {
  const std::vector<LayerSpec>& layers = r.arch.layers();
  std::vector<uint32_t> all(layers.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  if (r.moe) {
    const ValueRange w = expert_widths(r, all);
    if (w.known()) return "expert FFN " + w.text();
  }
  const bool mlp = layers.empty() || std::any_of(layers.begin(), layers.end(),
                                                 [](const LayerSpec& l) { return l.ffn.kind != Ffn::None; });
  if (mlp) {
    const ValueRange w = ffn_widths(r, all);
    return w.known() ? "FFN " + w.text() : "";
  }
  if (r.ssm && !r.ssm->mixers.empty() && r.ssm->mixers.front().shape.inner)
    return "no MLP · d_inner " + with_thousands(r.ssm->mixers.front().shape.inner);
  return "no MLP";
}

// Heads and KV heads of every attention layer, ranges where variants differ (Gemma-4's full layers keep 4
// KV heads of 512, its sliding ones 16 of 256).
Stat heads_stat(const ModelReport& r, const DiagramModel& m) {
  if (attention_free(r.attention) && !r.arch.layers().empty()) {
    // "none (Mamba state-space layers only)": the value says none already.
    std::string why = r.attention.attention_type;
    if (why.starts_with("none (") && why.ends_with(")")) why = why.substr(6, why.size() - 7);
    return {"Heads / KV heads", "none", why};
  }
  ValueRange h, kv, dim;
  for (const diagram::BlockKind& k : m.kinds)
    for (const AttentionVariant& v : attention_variants(r, m, k)) {
      h.add(v.heads);
      kv.add(v.kv_heads);
      dim.add(v.head_dim);
    }
  if (!h.known()) h.add(heads(r));
  if (!kv.known()) kv.add(kv_heads(r));
  if (!dim.known()) dim.add(head_dim(r));
  std::string note = dim.known() ? "head dim " + dim.text() : std::string();
  if (!r.attention.attention_type.empty()) note += (note.empty() ? "" : " · ") + r.attention.attention_type;
  return {"Heads / KV heads", h.text() + " / " + kv.text(), note};
}

// The position encoding; the sliding layers' own rotary base where they have one (Gemma-3/4).
std::string context_note(const ModelReport& r) {
  std::string note = position_line(r);
  const std::optional<RopeSpec>& rope = r.architecture.rope;
  if (!note.empty() && rope && rope->local_theta) note += "; sliding θ " + plain_number(*rope->local_theta);
  return note;
}

Stat kv_stat(const ModelReport& r) {
  const MemoryReport& mem = r.memory;
  if (encoder_only(r) && mem.kv_cache_per_token_bytes == 0)
    return {"KV cache / token", "none", "encoder: no generation cache"};
  // Mamba: a fixed state per sequence, nothing per token.
  if (mem.kv_known && mem.kv_cache_per_token_bytes == 0 && mem.state_bytes_per_sequence)
    return {"KV cache / token", "none",
            "state only: " + human_bytes(mem.state_bytes_per_sequence) + " per sequence"};
  std::string note = mem.kv_cache_dtype;
  if (mem.kv_cache_per_token_decompressed_bytes > mem.kv_cache_per_token_bytes)
    note += (note.empty() ? "" : " · ") + std::string("latent (MLA)");
  if (mem.state_bytes_per_sequence)
    note += (note.empty() ? "" : " · ") + ("+ " + human_bytes(mem.state_bytes_per_sequence) + " state/seq");
  return {"KV cache / token", diagram::dash_bytes(mem.kv_cache_per_token_bytes), note};
}

std::vector<Stat> key_stats(const ModelReport& r, const DiagramModel& m) {
  const ParameterCounts& p = r.parameters;
  const ArchitectureDetails& a = r.architecture;
  std::vector<Stat> st;
  std::string exact = p.total ? with_thousands(p.total) + " exact" : "";
  // A PEFT adapter: the total is the merged model's; what the adapter trains is said beside it.
  if (r.adapter && r.adapter->parameters)
    exact += (exact.empty() ? "" : " · ") + std::string("adapter ") + human_count(r.adapter->parameters);
  st.push_back({"Parameters", diagram::dash_params(p.total), exact});
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
  st.push_back({"Hidden size", diagram::dash_count(a.hidden_size), ffn_note(r)});
  st.push_back(heads_stat(r, m));
  if (!r.capabilities.position_limit)
    st.push_back({"Context", "no limit", "state-space layers only"});
  else
    st.push_back({"Context", diagram::dash_count(a.max_position_embeddings), context_note(r)});
  st.push_back(kv_stat(r));
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

// Where a row's output leaves it: the add's right side (pre-norm, sandwich: below the add, the residual of
// the row comes in), or the bottom of the norm after the add (post-norm).
struct RowExit {
  double x, y;
  bool sideways;
};

// One sub-layer drawn as a horizontal row, entered at (x, y + h/2): [norm] → [part] → ⊕ (pre-norm),
// [norm] → [part] → [norm] → ⊕ (Gemma's sandwich) or [part] → ⊕ → [norm] (post-norm), with the residual
// path from the entry to the add running above or below the row.
RowExit residual_row(Svg& s, double x, double w, double y, double h, const std::string& norm,
                     const PartText& part, const Palette& pal, const NormPlacement& norms, bool arch_above) {
  const double gap = 30, add_r = 13, cy = y + h / 2, entry = x + 18;
  const int norm_count = int{norms.before} + int{norms.after_part} + int{norms.after_add};
  const double norm_w = norm_count > 1 ? 92 : 112;  // two norms in a row leave the part its room
  const double part_w = w - 18 - norm_w * norm_count - gap * (norm_count + 1) - 2 * add_r;
  const double add_x = entry + (norms.before ? norm_w + gap : 0) + part_w + gap +
                       (norms.after_part ? norm_w + gap : 0) + add_r;
  // Below the row, the residual keeps clear of the connector to the next row (in the middle of the gap).
  const double arch = arch_above ? y - 16 : y + h + 10;
  const double add_edge = arch_above ? cy - add_r - 1 : cy + add_r + 1;
  s.elbow_arrow({x, cy, x, arch, add_x, arch, add_x, add_edge}, "#94a3b8", 1.5);
  s.arrow(x, cy, entry - 2, cy, "#64748b", 2);
  // Left to right, each element entered by an arrow from the last one's right edge.
  double at = entry;
  RowExit out{add_x + add_r, cy, true};
  auto next = [&](double width) {
    if (at > entry) s.arrow(at - gap, cy, at - 2, cy);
    const Rect b{at, y, width, h};
    at = b.right() + gap;
    return b;
  };
  auto norm_box = [&] {
    const Rect b = next(norm_w);
    box(s, b, kNorm, norm, {}, 14);
    return b;
  };
  if (norms.before) norm_box();
  box(s, next(part_w), pal, part.title, {part.lines.empty() ? std::string() : part.lines.front()}, 15, 13);
  if (norms.after_part) norm_box();
  s.arrow(at - gap, cy, add_x - add_r - 2, cy);
  plus_node(s, add_x, cy, add_r);
  at = add_x + add_r + gap;
  if (norms.after_add) {
    s.arrow(add_x + add_r, cy, at - 2, cy);
    const Rect b{at, y, norm_w, h};
    box(s, b, kNorm, norm, {}, 14);
    out = {b.cx(), b.bottom(), false};  // post-norm: the next row reads the norm's output
  }
  return out;
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
    if (k.spec.ffn.kind != Ffn::None) rows.emplace_back(ffn_text(r, k, false), ffn_palette(m, k.spec));
    const double row_h = rows.size() > 2 ? 52 : 62, row_gap = rows.size() > 2 ? 40 : 48;
    // Rows centred in the room under the title (above the strip when there is one).
    const double room_top = b.y + 60, room_bottom = varied ? b.bottom() - 70 : b.bottom() - 10;
    const double rows_h = static_cast<double>(rows.size()) * (row_h + 32) +
                          static_cast<double>(rows.size() - 1) * (row_gap - 32);
    const double y0 = std::max(b.y + 84, room_top + (room_bottom - room_top - rows_h) / 2 + 16);
    const double rx = ix + 4, rw = iw - 4;
    std::optional<RowExit> prev;
    for (size_t i = 0; i < rows.size(); ++i) {
      const double y = y0 + static_cast<double>(i) * (row_h + row_gap);
      if (prev) {
        // From where the previous row's output leaves it, down through the gap into this row's entry.
        const double mid = y - row_gap / 2, entry = y + row_h / 2 - 10;
        if (prev->sideways)
          s.elbow_arrow({prev->x, prev->y, prev->x + 10, prev->y, prev->x + 10, mid, rx, mid, rx, entry},
                        "#64748b", 2);
        else
          s.elbow_arrow({prev->x, prev->y, prev->x, mid, rx, mid, rx, entry}, "#64748b", 2);
      }
      prev = residual_row(s, rx, rw, y, row_h, norm, rows[i].first, rows[i].second, m.norms, i == 0);
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
  if (!m.norms.after_add) items.push_back({140, 120, 3});
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
        box(s, b, kIo, "Input", {input_line(r), input_size_line(r)});
        break;
      case 1: {
        box(s, b, kEmbedding, "Embedding", embedding_lines(r));
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
        box(s, b, kHead, head_title(r), head_lines(r, false));
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
