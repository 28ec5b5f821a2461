#include "report/diagram_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "model/tensor_placement.h"

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

const StackSummary* patch_stack(const ModelReport& r) {
  if (r.architecture.vocab_size) return nullptr;
  const StackSummary* found = nullptr;
  for (const StackSummary& st : r.architecture.stacks)
    if (st.patch_size && (st.role == StackRole::Encoder || st.role == StackRole::Decoder)) found = &st;
  return found;
}

std::string input_size_line(const ModelReport& r) {
  if (const StackSummary* st = patch_stack(r); st && st->image_size)
    return with_thousands(st->image_size) + " × " + with_thousands(st->image_size) + " px";
  return "vocab " + diagram::dash_count(r.architecture.vocab_size);
}

std::vector<std::string> embedding_lines(const ModelReport& r) {
  const ArchitectureDetails& a = r.architecture;
  std::vector<std::string> lines;
  const StackSummary* st = patch_stack(r);
  if (!st) {
    lines.push_back(diagram::dash_count(a.vocab_size) + " × " + diagram::dash_count(a.hidden_size));
  } else {
    // A patch of P×P pixels projected to the hidden width; the record has no channel count (yet).
    const std::string p = with_thousands(st->patch_size);
    lines.push_back("patch " + p + "×" + p + " → " + diagram::dash_count(a.hidden_size));
    const uint64_t positions = first_nonzero(st->positions, a.max_position_embeddings);
    const uint64_t side = st->image_size / st->patch_size, patches = side * side;
    // ViT's [CLS] (and DeiT's [DIST]) take positions beside the patches.
    if (positions && patches && positions > patches)
      lines.push_back(with_thousands(patches) + " patches + " +
                      (positions - patches == 1 ? std::string("[CLS]")
                                                : with_thousands(positions - patches) + " tokens"));
    else if (positions)
      lines.push_back(with_thousands(positions) + " positions");
  }
  if (a.position_embedding == "learned" || a.position_embedding == "sinusoidal")
    lines.push_back("+ " + a.position_embedding + " positions");
  if (a.tie_word_embeddings) lines.push_back("tied with the head");
  return lines;
}

std::vector<std::string> head_lines(const ModelReport& r, bool one_line) {
  const std::string h = diagram::dash_count(r.architecture.hidden_size);
  // An image classifier's labels are not in the record (yet): its head maps to the classes.
  const bool classes =
      patch_stack(r) && r.arch.architecture.find("ForImageClassification") != std::string::npos;
  if (one_line)
    return {h + " → " + (classes ? "class" : diagram::dash_count(r.architecture.vocab_size)) + " logits"};
  return {h + " → " + (classes ? "classes" : diagram::dash_count(r.architecture.vocab_size)), "→ logits"};
}

namespace {

// "RoPE θ 500,000 · yarn ×64"; `parenthesised`: "RoPE θ 500,000 (yarn ×64)", one fact among others.
std::string rope_text(const ArchitectureDetails& a, bool parenthesised) {
  std::string s = "RoPE";
  if (a.rope && a.rope->theta > 0) s += " θ " + plain_number(a.rope->theta);
  if (a.rope && !a.rope->type.empty() && a.rope->type != "default") {
    std::string type = a.rope->type;
    if (a.rope->factor) type += " ×" + plain_number(*a.rope->factor);
    s += parenthesised ? " (" + type + ")" : " · " + type;
  }
  return s;
}

}  // namespace

std::string position_line(const ModelReport& r) {
  const ArchitectureDetails& a = r.architecture;
  if (a.position_embedding == "rope" || a.rope) return rope_text(a, false);
  if (a.position_embedding == "learned") return "learned positions";
  if (a.position_embedding == "sinusoidal") return "sinusoidal positions";
  if (a.position_embedding == "alibi") return "ALiBi position bias";
  if (a.position_embedding == "relative") return "relative position bias";
  if (a.position_embedding == "none") return "no position encoding";
  return "";
}

void ValueRange::add(uint64_t v) {
  if (!v) return;
  lo = lo ? std::min(lo, v) : v;
  hi = std::max(hi, v);
}

void ValueRange::add(const ValueRange& o) {
  add(o.lo);
  add(o.hi);
}

std::string ValueRange::text() const {
  if (!known()) return "—";
  return lo == hi ? with_thousands(hi) : with_thousands(lo) + "-" + with_thousands(hi);
}

bool AttentionVariant::same_shape(const AttentionVariant& o) const {
  return heads == o.heads && kv_heads == o.kv_heads && head_dim == o.head_dim && rope == o.rope &&
         keys_are_values == o.keys_are_values;
}

namespace {

// The rotary embedding of one attention layer, as one fact of its variant's line: "RoPE θ 10,000",
// "RoPE θ 500,000 (yarn ×64)" (no " · " inside, where the line may be broken). Gemma-3/4's windowed layers
// rotate with a base of their own (rope_local_base_freq, rope_parameters.sliding_attention) and plain RoPE;
// the scaling type is the full layers'.
std::string variant_rope(const ModelReport& r, const LayerSpec& l) {
  const ArchitectureDetails& a = r.architecture;
  if (l.attention.window && a.rope && a.rope->local_theta)
    return "RoPE θ " + plain_number(*a.rope->local_theta);
  if (a.position_embedding == "rope" || a.rope) return rope_text(a, true);
  return position_line(r);
}

std::string span_text(const AttentionShape& a) {
  if (!a.window) return "full";
  return std::string(a.span == Span::Chunked ? "chunked " : "sliding ") + with_thousands(a.window);
}

}  // namespace

std::vector<AttentionVariant> attention_variants(const ModelReport& r, const DiagramModel& m,
                                                 const diagram::BlockKind& k) {
  const std::vector<LayerSpec>& layers = r.arch.layers();
  std::vector<AttentionVariant> out;
  for (int part : k.mixer_parts) {
    AttentionVariant v;
    v.part = part;
    for (uint32_t i : k.indices) {
      if (i >= layers.size() || m.cells[i].mixer != part || layers[i].mixer != Mixer::Attention) continue;
      const AttentionShape& a = layers[i].attention;
      if (v.layers++ == 0) {
        v.span = span_text(a);
        v.rope = variant_rope(r, layers[i]);
        v.keys_are_values = a.keys_are_values;
      }
      v.heads.add(a.heads);
      v.kv_heads.add(a.kv_heads);
      v.head_dim.add(a.head_dim);
    }
    if (v.layers == 0) continue;
    // A layer without its own shape (no config: GGUF metadata, bare weights) has the model's.
    if (!v.heads.known()) v.heads.add(heads(r));
    if (!v.kv_heads.known()) v.kv_heads.add(kv_heads(r));
    if (!v.head_dim.known()) v.head_dim.add(head_dim(r));
    out.push_back(std::move(v));
  }
  return out;
}

std::string heads_line(const ModelReport& r, const std::vector<AttentionVariant>& variants) {
  ValueRange h, kv, dim;
  for (const AttentionVariant& v : variants) {
    h.add(v.heads);
    kv.add(v.kv_heads);
    dim.add(v.head_dim);
  }
  if (variants.empty()) {
    h.add(heads(r));
    kv.add(kv_heads(r));
    dim.add(head_dim(r));
  }
  std::string s = h.text() + " heads";
  if (kv.known() && kv != h) s += " · " + kv.text() + " KV";
  if (dim.known()) s += " · dim " + dim.text();
  return s;
}

ValueRange ffn_widths(const ModelReport& r, const std::vector<uint32_t>& layers) {
  const std::vector<LayerSpec>& all = r.arch.layers();
  ValueRange w;
  for (uint32_t i : layers)
    if (i < all.size() && all[i].ffn.kind == Ffn::Dense) w.add(all[i].ffn.intermediate);
  if (!w.known()) w.add(r.architecture.intermediate_size);
  return w;
}

ValueRange expert_widths(const ModelReport& r, const std::vector<uint32_t>& layers) {
  const std::vector<LayerSpec>& all = r.arch.layers();
  ValueRange w;
  for (uint32_t i : layers)
    if (i < all.size() && all[i].ffn.kind == Ffn::Moe) w.add(all[i].ffn.expert_intermediate);
  if (!w.known() && r.moe) w.add(r.moe->expert_intermediate_size);
  return w;
}

std::string ffn_dims(const ModelReport& r, const ValueRange& inner) {
  return diagram::dash_count(r.architecture.hidden_size) + " → " + inner.text() + " → " +
         diagram::dash_count(r.architecture.hidden_size);
}

std::vector<std::string> wrap_at_dots(const std::string& text, double width, double size) {
  static const std::string kDot = " · ";
  if (text_width(text, size) <= width) return {text};
  std::vector<std::string> lines;
  std::string line;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find(kDot, at);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(at, end - at);
    if (!line.empty() && text_width(line + kDot + part, size) > width) {
      lines.push_back(line);
      line = part;
    } else {
      line += (line.empty() ? "" : kDot) + part;
    }
    at = end + kDot.size();
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
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

namespace {

// The attention card's lines. Variants that differ in shape or rotary base (Gemma-4: sliding layers 16 KV
// heads of 256, full layers 4 of 512 with their own base) get a line each; alike ones share the heads and
// position lines, and are only counted.
void attention_lines(const ModelReport& r, const DiagramModel& m, const diagram::BlockKind& k, bool detailed,
                     PartText& t) {
  const std::vector<AttentionVariant> variants = attention_variants(r, m, k);
  const bool differ = std::any_of(variants.begin(), variants.end(),
                                  [&](const AttentionVariant& v) { return !v.same_shape(variants.front()); });
  if (!detailed || !differ) {
    t.lines.push_back(heads_line(r, variants));
    if (!detailed) return;
    if (std::string p = position_line(r); !p.empty() && r.architecture.position_embedding != "learned" &&
                                          r.architecture.position_embedding != "sinusoidal")
      t.lines.push_back(p);
    // The variants among this kind's layers, counted there (Llama-4's dense layers hold 24 of its 36
    // chunked ones).
    if (variants.size() > 1 || (variants.size() == 1 && k.spec.attention.window)) {
      std::string s;
      for (const AttentionVariant& v : variants)
        s += (s.empty() ? "" : " · ") + with_thousands(v.layers) + "× " +
             m.parts[static_cast<size_t>(v.part)].label;
      t.lines.push_back(s);
    }
    return;
  }
  const bool same_heads = std::all_of(variants.begin(), variants.end(), [&](const AttentionVariant& v) {
    return v.heads == variants.front().heads;
  });
  if (same_heads) t.lines.push_back(variants.front().heads.text() + " heads");
  for (const AttentionVariant& v : variants) {
    std::vector<std::string> facts;
    if (!same_heads) facts.push_back(v.heads.text() + " heads");
    if (v.kv_heads.known() && v.kv_heads != v.heads) facts.push_back(v.kv_heads.text() + " KV");
    if (v.head_dim.known()) facts.push_back("dim " + v.head_dim.text());
    if (v.keys_are_values) facts.push_back("K = V");
    if (!v.rope.empty()) facts.push_back(v.rope);
    std::string s = with_thousands(v.layers) + "× " + v.span + ":";
    for (size_t i = 0; i < facts.size(); ++i) s += (i ? " · " : " ") + facts[i];
    t.lines.push_back(s);
  }
}

// The shape of a state-space or linear-attention mixer, as far as the record has it: d_inner and d_state,
// then the heads (Mamba-2, gated DeltaNet), the conv window and Mamba-1's dt rank.
std::vector<std::string> state_lines(const LayerSpec& l) {
  const StateShape& st = l.state;
  std::vector<std::string> lines;
  std::string size;
  if (st.inner) size = "d_inner " + with_thousands(st.inner);
  if (st.state) size += (size.empty() ? "" : " · ") + std::string("d_state ") + with_thousands(st.state);
  if (l.mixer == Mixer::LinearAttention && st.key_heads && st.value_heads)
    size = with_thousands(st.key_heads) + " QK heads × " + with_thousands(st.key_head_dim) + " · " +
           with_thousands(st.value_heads) + " V heads × " + with_thousands(st.value_head_dim);
  if (!size.empty()) lines.push_back(size);
  std::string more;
  if (l.mixer == Mixer::Mamba2 && st.heads)
    more = with_thousands(st.heads) + " heads × " + with_thousands(st.head_dim);
  if (l.mixer == Mixer::Mamba2 && st.groups)
    more += (more.empty() ? "" : " · ") + with_thousands(st.groups) + (st.groups == 1 ? " group" : " groups");
  if (st.conv_kernel)
    more += (more.empty() ? "" : " · ") + std::string("conv ") + std::to_string(st.conv_kernel);
  if (st.dt_rank) more += (more.empty() ? "" : " · ") + std::string("dt rank ") + with_thousands(st.dt_rank);
  if (!more.empty()) lines.push_back(more);
  return lines;
}

// The projections an adapter's LoRA pairs sit on, by the block of the module they adapt
// ("model.layers.0.self_attn.q_proj.lora_A.weight": q_proj in the attention), each name once.
std::vector<std::string> adapted_modules(const AdapterSummary& a, bool attention) {
  std::vector<std::string> names;
  for (const auto& [name, shape] : a.lora_weights) {
    const size_t at = name.find(".lora_A.");
    if (at == std::string::npos) continue;
    const Block b = place_tensor(name).block;
    const bool in_attention = b == Block::Attention || b == Block::CrossAttention;
    const bool in_ffn = b == Block::Mlp || b == Block::MoeExpert || b == Block::SharedExpert;
    if (attention ? !in_attention : !in_ffn) continue;
    const std::string module = name.substr(0, at);
    const std::string leaf = module.substr(module.rfind('.') + 1);
    if (std::find(names.begin(), names.end(), leaf) == names.end()) names.push_back(leaf);
  }
  return names;
}

}  // namespace

std::string adapter_line(const ModelReport& r, bool attention) {
  if (!r.adapter || !r.adapter->r) return "";
  const std::vector<std::string> names = adapted_modules(*r.adapter, attention);
  if (names.empty()) return "";
  const std::string type = r.adapter->peft_type == "LORA" ? "LoRA" : r.adapter->peft_type;
  std::string s = type + " r " + with_thousands(r.adapter->r) + ":";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : " ") + names[i];
  return s;
}

PartText mixer_text(const ModelReport& r, const DiagramModel& m, const diagram::BlockKind& k, bool detailed) {
  const LayerSpec& l = k.spec;
  PartText t;
  if (l.mixer == Mixer::Attention) {
    t.title = diagram::attention_name(l);
    attention_lines(r, m, k, detailed, t);
    if (!detailed) return t;
    // Which projections carry the bias the record does not say (yet): the card says there is one.
    if (r.architecture.attention_bias) t.lines.push_back("with bias");
    if (r.arch.attention_softcap > 0)
      t.lines.push_back("scores soft-capped at " + plain_number(r.arch.attention_softcap));
    if (std::string lora = adapter_line(r, true); !lora.empty()) t.lines.push_back(lora);
    if (l.parallel != Mixer::None && l.mixers_in_sequence)
      t.lines.push_back("then a " + std::string(mixer_title(l.parallel)) + " mixer on the block's output");
    else if (l.parallel != Mixer::None)
      t.lines.push_back("beside a " + std::string(mixer_title(l.parallel)) + " mixer, outputs summed");
    return t;
  }
  if (l.mixer == Mixer::Mamba || l.mixer == Mixer::Mamba2) {
    t.title = std::string(mixer_title(l.mixer)) + " mixer (SSM)";
    const std::vector<std::string> shape = state_lines(l);
    if (!detailed) {  // one line in the simple style: the shape where it is known
      t.lines.push_back(shape.empty() ? "selective state space" : shape.front());
      return t;
    }
    t.lines.push_back("selective state space");
    t.lines.insert(t.lines.end(), shape.begin(), shape.end());
    t.lines.push_back("fixed state, no KV cache");
    return t;
  }
  if (l.mixer == Mixer::LinearAttention) {
    t.title = mixer_title(l.mixer);
    t.lines.push_back("fixed-size state, no KV cache");
    if (detailed)
      for (const std::string& line : state_lines(l)) t.lines.push_back(line);
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

PartText ffn_text(const ModelReport& r, const diagram::BlockKind& k, bool detailed) {
  const LayerSpec& l = k.spec;
  PartText t;
  const std::string& act = r.architecture.activation;
  if (l.ffn.kind == Ffn::Moe) {
    t.title = "Mixture of experts";
    t.lines.push_back(moe_line(r));
    if (std::string s = shared_line(r); !s.empty()) t.lines.push_back(s);
    if (detailed) {
      t.lines.push_back("expert FFN " + expert_widths(r, k.indices).text());
      if (r.moe && r.moe->parameters_per_expert)
        t.lines.push_back(human_count(r.moe->parameters_per_expert) + " params per expert");
      if (std::string lora = adapter_line(r, false); !lora.empty()) t.lines.push_back(lora);
    }
    return t;
  }
  if (l.ffn.kind == Ffn::Dense) {
    const bool gated = r.architecture.mlp_type == "gated";
    t.title = gated ? "Gated MLP" : "MLP";
    if (!act.empty()) t.title += " (" + act + ")";
    // Each layer's own width: DeciLM's (Nemotron-Super-49B) differ from layer to layer.
    t.lines.push_back(ffn_dims(r, ffn_widths(r, k.indices)));
    if (detailed && r.architecture.mlp_bias) t.lines.push_back("with bias");
    if (std::string lora = adapter_line(r, false); detailed && !lora.empty()) t.lines.push_back(lora);
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
