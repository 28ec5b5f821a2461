#include "report/diagram_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"

namespace ma::diagram {
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
  if (t.empty()) return "Layer";
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
  const bool encoder_decoder = r.architecture.encoder_layers && r.architecture.decoder_layers;
  // Short enough for the simple style's narrow input box ("source + target token ids" was cut there).
  if (r.identity.kind == "speech") return encoder_decoder ? "audio + token ids" : "audio features";
  if (encoder_decoder) return "source + target ids";
  for (const StackSummary& st : r.architecture.stacks) {
    if (st.role == StackRole::Vision) return "token ids + images";
    if (st.role == StackRole::Audio) return "token ids + audio";
  }
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
  if (a.position_embedding == "sinusoidal") return "sinusoidal positions";
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

PartText mixer_text(const ModelReport& r, const DiagramModel& m, const diagram::BlockKind& k, bool detailed) {
  const LayerSpec& l = k.spec;
  PartText t;
  if (l.mixer == Mixer::Attention) {
    t.title = diagram::attention_name(l);
    t.lines.push_back(heads_line(r));
    if (!detailed) return t;
    if (std::string p = position_line(r); !p.empty() && r.architecture.position_embedding != "learned" &&
                                          r.architecture.position_embedding != "sinusoidal")
      t.lines.push_back(p);
    // Sliding and full variants within this kind of layer, with their counts.
    if (k.mixer_parts.size() > 1 || (k.mixer_parts.size() == 1 && k.spec.attention.window)) {
      std::string s;
      for (int pi : k.mixer_parts) {
        const LayerPart& part = m.parts[static_cast<size_t>(pi)];
        s += (s.empty() ? "" : " · ") + with_thousands(part.layers) + "× " + part.label;
      }
      t.lines.push_back(s);
    }
    if (r.architecture.attention_bias) t.lines.push_back("QKV bias");
    if (l.parallel != Mixer::None && l.mixers_in_sequence)
      t.lines.push_back("then a " + std::string(mixer_title(l.parallel)) + " mixer on the block's output");
    else if (l.parallel != Mixer::None)
      t.lines.push_back("beside a " + std::string(mixer_title(l.parallel)) + " mixer, outputs summed");
    return t;
  }
  if (l.mixer == Mixer::Mamba || l.mixer == Mixer::Mamba2) {
    t.title = std::string(mixer_title(l.mixer)) + " mixer (SSM)";
    t.lines.push_back("selective state space");
    if (detailed) t.lines.push_back("fixed state, no KV cache");
    return t;
  }
  if (l.mixer == Mixer::LinearAttention) {
    t.title = mixer_title(l.mixer);
    t.lines.push_back("fixed-size state, no KV cache");
    return t;
  }
  if (l.mixer == Mixer::ShortConv) {
    t.title = mixer_title(l.mixer);
    t.lines.push_back("gated, over the last " + std::to_string(l.state.conv_kernel) + " tokens");
    if (detailed) t.lines.push_back("conv window as state, no KV cache");
    return t;
  }
  if (l.mixer == Mixer::Mlstm) {
    t.title = mixer_title(l.mixer);
    t.lines.push_back(std::to_string(l.state.heads) + " heads of matrix memory, exponential gates");
    if (detailed) t.lines.push_back("fixed state, no KV cache");
    return t;
  }
  if (l.mixer == Mixer::Rwkv) {
    t.title = mixer_title(l.mixer);
    t.lines.push_back("decayed sums of past values per channel, token shift");
    if (detailed) t.lines.push_back("fixed state, no KV cache");
    return t;
  }
  if (l.mixer == Mixer::RgLru) {
    t.title = "RG-LRU recurrent block";
    t.lines.push_back("conv over the last " + std::to_string(l.state.conv_kernel) +
                      " tokens, gated linear recurrence");
    if (detailed) t.lines.push_back("fixed state, no KV cache");
    return t;
  }
  t.title = mixer_name(l.mixer);
  return t;
}

PartText cross_attention_text(const AttentionShape& a) {
  std::string heads = with_thousands(a.heads) + " heads";
  if (a.head_dim) heads += " · dim " + with_thousands(a.head_dim);
  return {"Cross-attention", {heads, "keys and values from the encoder"}};
}

PartText ffn_text(const ModelReport& r, const LayerSpec& l, bool detailed) {
  PartText t;
  const std::string& act = r.architecture.activation;
  if (l.ffn.kind == Ffn::Moe) {
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
  if (l.ffn.kind == Ffn::Dense) {
    const bool gated = r.architecture.mlp_type == "gated";
    t.title = gated ? "Gated MLP" : "MLP";
    if (!act.empty()) t.title += " (" + act + ")";
    t.lines.push_back(ffn_dims(r, r.architecture.intermediate_size));
    if (detailed && r.architecture.mlp_bias) t.lines.push_back("with bias");
    return t;
  }
  t.title = ffn_name(l.ffn.kind);
  return t;
}

const Palette& mixer_palette(const DiagramModel& m, const diagram::BlockKind& k) {
  static const Palette kNone{"#ffffff", "#94a3b8"};
  return k.mixer_parts.empty() ? kNone : m.parts[static_cast<size_t>(k.mixer_parts.front())].colour;
}

const Palette& ffn_palette(const DiagramModel& m, const LayerSpec& l) {
  for (const LayerPart& p : m.parts)
    if (!p.is_mixer && p.key == ffn_name(l.ffn.kind)) return p.colour;
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
         const std::vector<std::string>& lines, double title_size, double line_size) {
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

void stacked_frame(Svg& s, const Rect& b, double step) {
  s.rect(b.x + 2 * step, b.y - 2 * step, b.w, b.h, "#f8fafc", "#cbd5e1", 14, 1.2);
  s.rect(b.x + step, b.y - step, b.w, b.h, "#f8fafc", "#94a3b8", 14, 1.2);
  s.rect(b.x, b.y, b.w, b.h, kStack.fill, kStack.stroke, 14, 2);
}

void section_label(Svg& s, double x, double y, const std::string& text) {
  s.text(x, y, text, style(14, kFaint, true));
}

void plus_node(Svg& s, double cx, double cy, double r) {
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
              double w, double size) {
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
  // The strip's cells show the mixer and the feed-forward; a decoder's cross-attention is named here.
  if (c.mixer >= 0 && m.cross_attention) s += " + cross-attention";
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

}  // namespace ma::diagram
