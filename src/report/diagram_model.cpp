#include "report/diagram_model.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/units.h"

namespace ma::diagram {
namespace {

// Colours by part kind (Tailwind-like 100/600 pairs): attention blue, latent attention indigo, sliding
// windows sky, state-space mixers green, linear attention teal, dense MLP slate, mixture of experts orange.
const Palette kAttention{"#dbeafe", "#2563eb"};
const Palette kLatent{"#e0e7ff", "#4f46e5"};
const Palette kSliding{"#e0f2fe", "#7dd3fc"};
const Palette kMamba{"#d1fae5", "#059669"};
const Palette kLinear{"#ccfbf1", "#0d9488"};
const Palette kMlp{"#f1f5f9", "#64748b"};
const Palette kMoe{"#ffedd5", "#ea580c"};
const Palette kOther{"#f3e8ff", "#9333ea"};
// For a second part that would get a colour already taken (two sliding windows, say).
const std::array<Palette, 4> kSpare = {Palette{"#fae8ff", "#c026d3"}, Palette{"#fef9c3", "#ca8a04"},
                                       Palette{"#ffe4e6", "#e11d48"}, Palette{"#ecfccb", "#65a30d"}};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The attention kind when the record knows the layer's heads (a config), else nothing to say.
std::string known_kind(const LayerSpec& l) {
  return l.attention.heads ? std::string(attention_kind_name(l.attention.kind)) : "";
}

std::string mixer_key(const LayerSpec& l) {
  if (l.mixer != Mixer::Attention) return std::string(mixer_name(l.mixer));
  return "attention/" + known_kind(l) + "/" + std::string(span_name(l.attention.span)) + "/" +
         std::to_string(l.attention.window) + "/" + std::string(mixer_name(l.parallel)) +
         (l.mixers_in_sequence ? "/then" : "");
}

LayerPart mixer_part(const LayerSpec& l) {
  LayerPart p{mixer_key(l), std::string(mixer_name(l.mixer)), kOther, true, 0};
  switch (l.mixer) {
    case Mixer::Attention: {
      const std::string kind = upper(known_kind(l));
      if (l.attention.window) {
        const char* span = l.attention.span == Span::Chunked ? "Chunked " : "Sliding ";
        p.label = span + (kind.empty() ? std::string("attention") : kind) + " (" +
                  with_thousands(l.attention.window) + ")";
        p.colour = kSliding;
      } else {
        p.label = kind.empty() ? "Attention" : kind + " attention";
        p.colour = l.attention.kind == AttentionKind::Mla && l.attention.heads ? kLatent : kAttention;
      }
      if (l.parallel != Mixer::None)  // side by side (Falcon-H1) or one after the other (Zamba2)
        p.label += (l.mixers_in_sequence ? " → " : " + ") + std::string(mixer_title(l.parallel));
      break;
    }
    case Mixer::Mamba:
    case Mixer::Mamba2:
      p.label = std::string(mixer_title(l.mixer));
      p.colour = kMamba;
      break;
    case Mixer::LinearAttention:
    case Mixer::ShortConv:
    case Mixer::RgLru:
    case Mixer::Rwkv:
    case Mixer::Mlstm:
      p.label = std::string(mixer_title(l.mixer));
      p.colour = kLinear;
      break;
    case Mixer::None:
      break;
  }
  return p;
}

LayerPart ffn_part(const LayerSpec& l) {
  if (l.ffn.kind == Ffn::Moe) return {"moe", "MoE", kMoe, false, 0};
  return {"dense", "MLP", kMlp, false, 0};
}

int intern(std::vector<LayerPart>& parts, LayerPart p) {
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].key == p.key) return static_cast<int>(i);
  // Keep colours distinct within one diagram: a later part whose colour is taken gets a spare one.
  size_t spare = 0;
  auto taken = [&](const Palette& c) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](const LayerPart& q) { return q.colour.stroke == c.stroke; });
  };
  while (taken(p.colour) && spare < kSpare.size()) p.colour = kSpare[spare++];
  parts.push_back(std::move(p));
  return static_cast<int>(parts.size() - 1);
}

std::string block_title(const LayerSpec& l) {
  std::string ffn = l.ffn.kind != Ffn::None ? ffn_part(l).label : "";
  // Zamba2: the attention block (with its MLP) runs first, the mixer on its output.
  if (l.mixer == Mixer::Attention && l.mixers_in_sequence)
    return "Attention" + (ffn.empty() ? "" : " + " + ffn) + " → " + std::string(mixer_title(l.parallel));
  std::string mixer;
  if (l.mixer == Mixer::Attention)
    mixer = l.parallel == Mixer::None ? "Attention" : "Attention + " + std::string(mixer_title(l.parallel));
  else if (l.mixer != Mixer::None)
    mixer = mixer_part(l).label;
  if (l.cross_attention && !mixer.empty()) mixer += " + Cross-attention";
  if (mixer.empty()) return ffn.empty() ? "Empty layer" : ffn;
  return ffn.empty() ? mixer : mixer + " + " + ffn;
}

std::string subtitle(const ModelReport& r) {
  std::vector<std::string> parts;
  for (const std::string* s : {&r.identity.family, &r.identity.architecture_class,
                               &r.architecture.architecture_type, &r.identity.kind}) {
    if (!s->empty() && std::find(parts.begin(), parts.end(), *s) == parts.end()) parts.push_back(*s);
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "  ·  ") + p;
  return out;
}

std::string side_title(StackRole role) {
  switch (role) {
    case StackRole::Vision:
      return "Vision tower";
    case StackRole::Audio:
      return "Audio tower";
    case StackRole::Projector:
      return "Projector";
    case StackRole::Encoder:
      return "Encoder";
    default:
      return std::string(stack_role_name(role));
  }
}

SideStack side_stack(const StackSummary& st) {
  SideStack s{st.role, side_title(st.role), {}};
  std::string shape;
  if (st.layers) shape = with_thousands(st.layers) + (st.layers == 1 ? " layer" : " layers");
  if (st.hidden) shape += (shape.empty() ? "" : " · ") + with_thousands(st.hidden) + " wide";
  if (st.heads) shape += " · " + with_thousands(st.heads) + " heads";
  if (st.role == StackRole::Projector && st.hidden) shape = "to " + with_thousands(st.hidden) + " wide";
  if (!shape.empty()) s.lines.push_back(shape);
  std::string input;
  if (st.patch_size) input = "patch " + with_thousands(st.patch_size);
  if (st.image_size) input += (input.empty() ? "" : " · ") + with_thousands(st.image_size) + " px";
  if (st.mel_bins) input = with_thousands(st.mel_bins) + " mel bins";
  if (st.positions) input += (input.empty() ? "" : " · ") + with_thousands(st.positions) + " positions";
  if (!input.empty()) s.lines.push_back(input);
  if (st.parameters) s.lines.push_back(human_count(st.parameters) + " parameters");
  return s;
}

// The stacks beside the main one: towers and projector feed it, an encoder (of an encoder-decoder) is read
// by its cross-attention. The MTP module is stored, not built, and not drawn.
void side_stacks(const ModelReport& r, DiagramModel& m) {
  for (StackRole role : {StackRole::Vision, StackRole::Audio, StackRole::Projector})
    for (const StackSummary& st : r.architecture.stacks)
      if (st.role == role) m.towers.push_back(side_stack(st));
  if (r.architecture.encoder_layers && r.architecture.decoder_layers)
    for (const StackSummary& st : r.architecture.stacks)
      if (st.role == StackRole::Encoder) m.encoder = side_stack(st);
  for (const LayerSpec& l : r.arch.layers()) m.cross_attention = m.cross_attention || l.cross_attention;
}

// The record says whether a layer norms before each sub-layer, after its output (before the add:
// Gemma-2/3/4's four norms a layer, OLMo-2's two) or after its residual add (post-norm).
NormPlacement norm_placement(const ArchitectureRecord& a) {
  NormPlacement n;
  n.before = !a.post_norm && a.norm_before_sublayer;
  n.after_part = !a.post_norm && a.norm_after_sublayer;
  n.after_add = a.post_norm;
  return n;
}

}  // namespace

size_t repeat_period(const std::vector<LayerCell>& cells) {
  const size_t n = cells.size();
  if (n == 0) return 0;
  for (size_t p = 1; p <= std::max<size_t>(1, n / 2); ++p) {
    if (n % p != 0) continue;
    bool ok = true;
    for (size_t i = p; i < n && ok; ++i) ok = cells[i] == cells[i % p];
    if (ok) return p;
  }
  return 0;
}

DiagramModel build_diagram_model(const ModelReport& r) {
  DiagramModel m;
  m.title = !r.identity.display_name.empty() ? r.identity.display_name
            : r.identity.model_id.empty()    ? "Unnamed model"
                                             : r.identity.model_id;
  m.subtitle = subtitle(r);
  const std::vector<LayerSpec>& layers = r.arch.layers();
  m.num_layers = layers.empty() ? r.architecture.num_hidden_layers : layers.size();
  m.norms = norm_placement(r.arch);
  // Mixers first so that the legend reads mixer kinds, then feed-forward kinds.
  for (const LayerSpec& l : layers)
    if (l.mixer != Mixer::None) intern(m.parts, mixer_part(l));
  for (const LayerSpec& l : layers)
    if (l.ffn.kind != Ffn::None) intern(m.parts, ffn_part(l));
  for (uint32_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& l = layers[i];
    LayerCell c;
    if (l.mixer != Mixer::None) c.mixer = intern(m.parts, mixer_part(l));
    if (l.ffn.kind != Ffn::None) c.ffn = intern(m.parts, ffn_part(l));
    if (c.mixer >= 0) ++m.parts[static_cast<size_t>(c.mixer)].layers;
    if (c.ffn >= 0) ++m.parts[static_cast<size_t>(c.ffn)].layers;
    m.cells.push_back(c);
    const std::string type = l.type();
    auto kind =
        std::find_if(m.kinds.begin(), m.kinds.end(), [&](const BlockKind& k) { return k.type == type; });
    if (kind == m.kinds.end()) {
      m.kinds.push_back({type, block_title(l), l, {}, {}});
      kind = m.kinds.end() - 1;
    }
    kind->indices.push_back(i);
    if (c.mixer >= 0 &&
        std::find(kind->mixer_parts.begin(), kind->mixer_parts.end(), c.mixer) == kind->mixer_parts.end())
      kind->mixer_parts.push_back(c.mixer);
  }
  m.period = repeat_period(m.cells);
  side_stacks(r, m);
  return m;
}

std::string dash_count(uint64_t v) {
  return v ? with_thousands(v) : "—";
}
std::string dash_params(uint64_t v) {
  return v ? human_count(v) : "—";
}
std::string dash_bytes(uint64_t v) {
  return v ? human_bytes(v) : "—";
}

std::string attention_name(const LayerSpec& l) {
  if (l.mixer == Mixer::LinearAttention) return std::string(mixer_title(l.mixer));
  if (l.mixer != Mixer::Attention || !l.attention.heads) return "Self-attention";
  switch (l.attention.kind) {
    case AttentionKind::Mha:
      return "Multi-head attention";
    case AttentionKind::Gqa:
      return "Grouped-query attention";
    case AttentionKind::Mqa:
      return "Multi-query attention";
    case AttentionKind::Mla:
      return "Multi-head latent attention";
  }
  return "Self-attention";
}

std::string norm_name(const std::string& norm_type) {
  if (norm_type == "rmsnorm") return "RMSNorm";
  if (norm_type == "layernorm") return "LayerNorm";
  return norm_type.empty() ? "Norm" : norm_type;
}

}  // namespace ma::diagram
