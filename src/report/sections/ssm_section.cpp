// The state-space section: each Mamba / Mamba-2 / gated-DeltaNet / short-conv / RG-LRU mixer's shape and the
// layers using it, the attention layers beside them in a hybrid. Labels are the JSON keys, so a figure is
// found under its name.
#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

// "26 of 52: 0-3,5,7". An interleaved hybrid's list runs to hundreds of characters: the summary then gives
// the count and leaves the list to --detailed (and the JSON).
std::string layers_text(const std::vector<uint32_t>& layers, uint64_t total, bool detailed) {
  constexpr size_t kSummaryListChars = 48;
  std::string t = std::to_string(layers.size()) + " of " + std::to_string(total);
  const std::string list = index_ranges(layers);
  if (list.empty()) return t;
  if (!detailed && list.size() > kSummaryListChars) return t + " (--detailed lists them)";
  return t + ": " + list;
}

// The shape's rows, label and value, in the order they are shown; zero fields (not part of this kind, or
// not stated by the config) are left out.
std::vector<std::pair<std::string, std::string>> shape_rows(const SsmMixer& m) {
  const StateShape& s = m.shape;
  std::vector<std::pair<std::string, std::string>> rows;
  auto add = [&](const char* label, uint64_t v) {
    if (v) rows.emplace_back(label, with_thousands(v));
  };
  if (m.mixer == Mixer::ShortConv) {  // LFM2: a conv window over the hidden channels
    add("channels", s.inner);
    add("conv kernel", s.conv_kernel);
    return rows;
  }
  if (m.mixer == Mixer::Mlstm) {  // xLSTM: a key x value memory per head
    add("heads", s.heads);
    add("key head dim", s.key_head_dim);
    add("value head dim", s.value_head_dim);
    return rows;
  }
  if (m.mixer == Mixer::Rwkv) {  // RWKV: one recurrence per channel
    add("channels", s.inner);
    return rows;
  }
  if (m.mixer == Mixer::RgLru) {  // RecurrentGemma: lru_width channels, gates in diagonal blocks
    add("lru width", s.inner);
    add("gate blocks", s.heads);
    add("conv kernel", s.conv_kernel);
    return rows;
  }
  if (m.mixer == Mixer::LinearAttention) {
    if (s.key_heads)
      rows.emplace_back("key heads x dim",
                        with_thousands(s.key_heads) + " x " + with_thousands(s.key_head_dim));
    if (s.value_heads)
      rows.emplace_back("value heads x dim",
                        with_thousands(s.value_heads) + " x " + with_thousands(s.value_head_dim));
    add("conv kernel", s.conv_kernel);
    return rows;
  }
  add("d_state", s.state);
  if (s.inner)
    rows.emplace_back("d_inner", with_thousands(s.inner) +
                                     (m.expand > 0 ? " (" + brief_number(m.expand) + " x hidden)" : ""));
  if (s.heads)
    rows.emplace_back("heads x head_dim", with_thousands(s.heads) + " x " + with_thousands(s.head_dim));
  add("groups", s.groups);
  add("conv kernel", s.conv_kernel);
  add("dt rank", s.dt_rank);
  add("chunk size", s.chunk_size);
  return rows;
}

}  // namespace

void render_console(ConsoleWriter& w, const SsmSummary& s, const ModelReport&, const RenderOptions& o) {
  w.heading("STATE-SPACE MIXERS");
  for (const SsmMixer& m : s.mixers) {
    w.field(std::string(mixer_title(m.mixer)) + " layers", layers_text(m.layers, s.num_layers, o.detailed));
    for (const auto& [label, value] : shape_rows(m)) w.field("  " + label, value);
  }
  if (!s.attention_layers.empty())
    w.field("attention layers", layers_text(s.attention_layers, s.num_layers, o.detailed));
  if (!s.parallel_layers.empty())
    w.field("parallel layers", layers_text(s.parallel_layers, s.num_layers, o.detailed) +
                                   " (both mixers side by side, outputs summed)");
  if (!s.sequential_layers.empty())
    w.field("sequential layers", layers_text(s.sequential_layers, s.num_layers, o.detailed) +
                                     " (attention, then the state-space mixer on its output)");
}

void write_json(JsonWriter& w, const std::optional<SsmSummary>& s) {
  w.key("ssm");
  if (!s) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("mixers").begin_array();
  for (const SsmMixer& m : s->mixers) {
    const StateShape& st = m.shape;
    w.begin_object();
    w.key("mixer").value(mixer_name(m.mixer));
    w.key("num_layers").value(static_cast<uint64_t>(m.layers.size()));
    w.key("layers").begin_array();
    for (uint32_t i : m.layers) w.value(i);
    w.end_array();
    if (m.mixer == Mixer::ShortConv || m.mixer == Mixer::Rwkv) {
      w.key("channels").count_or_null(st.inner);
    } else if (m.mixer == Mixer::RgLru) {
      w.key("lru_width").count_or_null(st.inner);
      w.key("gate_blocks").count_or_null(st.heads);
    } else if (m.mixer == Mixer::Mlstm) {
      w.key("heads").count_or_null(st.heads);
      w.key("key_head_dim").count_or_null(st.key_head_dim);
      w.key("value_head_dim").count_or_null(st.value_head_dim);
    } else if (m.mixer == Mixer::LinearAttention) {
      w.key("key_heads").count_or_null(st.key_heads);
      w.key("key_head_dim").count_or_null(st.key_head_dim);
      w.key("value_heads").count_or_null(st.value_heads);
      w.key("value_head_dim").count_or_null(st.value_head_dim);
    } else {
      w.key("d_state").count_or_null(st.state);
      w.key("d_inner").count_or_null(st.inner);
      w.key("expand").value_or_null(m.expand > 0 ? std::optional<double>(m.expand) : std::nullopt);
      w.key("heads").count_or_null(st.heads);
      w.key("head_dim").count_or_null(st.head_dim);
      w.key("groups").count_or_null(st.groups);
      w.key("dt_rank").count_or_null(st.dt_rank);
      w.key("chunk_size").count_or_null(st.chunk_size);
    }
    w.key("conv_kernel").count_or_null(st.conv_kernel);
    w.end_object();
  }
  w.end_array();
  w.key("attention_layers").begin_array();
  for (uint32_t i : s->attention_layers) w.value(i);
  w.end_array();
  w.key("parallel_layers").begin_array();
  for (uint32_t i : s->parallel_layers) w.value(i);
  w.end_array();
  w.key("sequential_layers").begin_array();
  for (uint32_t i : s->sequential_layers) w.value(i);
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const SsmSummary& s, const ModelReport&) {
  w.heading(2, "State-space mixers");
  std::vector<std::pair<std::string, std::string>> rows;
  for (const SsmMixer& m : s.mixers) {
    rows.emplace_back(std::string(mixer_title(m.mixer)) + " layers",
                      layers_text(m.layers, s.num_layers, true));
    for (const auto& [label, value] : shape_rows(m)) rows.emplace_back(label, value);
  }
  if (!s.attention_layers.empty())
    rows.emplace_back("Attention layers", layers_text(s.attention_layers, s.num_layers, true));
  if (!s.parallel_layers.empty())
    rows.emplace_back("Parallel layers", layers_text(s.parallel_layers, s.num_layers, true) +
                                             " (both mixers side by side, outputs summed)");
  if (!s.sequential_layers.empty())
    rows.emplace_back("Sequential layers", layers_text(s.sequential_layers, s.num_layers, true) +
                                               " (attention, then the state-space mixer on its output)");
  w.fields(rows);
}

}  // namespace ma
