// Shared pieces of the two diagram styles (diagram_simple.cpp, diagram_detailed.cpp): the facts drawn from
// the report ("—" when unknown), the palette, and the drawing helpers (boxes, residual adds, the layer strip,
// legends). Internal to the diagram renderer.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/model_report.h"
#include "report/diagram_canvas.h"
#include "report/diagram_model.h"
#include "report/diagram_svg.h"

namespace ma::diagram {

inline constexpr double kW = kDiagramWidth, kH = kDiagramHeight, kMargin = 48;
inline const std::string kInk = "#0f172a", kMuted = "#475569", kFaint = "#64748b", kRule = "#e2e8f0";
inline const Palette kIo{"#f1f5f9", "#94a3b8"};
inline const Palette kEmbedding{"#fef3c7", "#d97706"};
inline const Palette kNorm{"#f8fafc", "#94a3b8"};
inline const Palette kHead{"#fce7f3", "#db2777"};
inline const Palette kStack{"#ffffff", "#334155"};
inline const Palette kTower{"#ecfdf5", "#059669"};  // encoders and towers, and what reads them
inline const Palette kProjector{"#f0fdfa", "#0d9488"};

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  double cx() const { return x + w / 2; }
  double cy() const { return y + h / 2; }
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

inline TextStyle style(double size, const std::string& color = kInk, bool bold = false,
                       Anchor a = Anchor::Start, double min_size = 0) {
  return TextStyle{size, color, bold, a, min_size};
}

// A part's box: title and lines of detail.
struct PartText {
  std::string title;
  std::vector<std::string> lines;
};

uint64_t first_nonzero(uint64_t a, uint64_t b);

uint64_t heads(const ModelReport& r);

uint64_t kv_heads(const ModelReport& r);

uint64_t head_dim(const ModelReport& r);

const Estimate* find_estimate(const std::vector<Estimate>& list, std::string_view name);

bool encoder_only(const ModelReport& r);

std::string layer_word(const ModelReport& r);

std::string head_title(const ModelReport& r);

std::string input_line(const ModelReport& r);

// The stack a vision encoder (ViT) embeds image patches into, when the model has no vocabulary; else null.
const StackSummary* patch_stack(const ModelReport& r);

// The input box's second line: the vocabulary, or a vision encoder's image size.
std::string input_size_line(const ModelReport& r);

// The embedding box: "vocab × hidden" or a vision encoder's "patch 16×16 → 768" and its positions, the
// position table, the tie with the head.
std::vector<std::string> embedding_lines(const ModelReport& r);

// The head's mapping, on one line ("4,096 → 128,256 logits", an image classifier's "768 → class logits") or
// two ("4,096 → 128,256", "→ logits").
std::vector<std::string> head_lines(const ModelReport& r, bool one_line);

std::string position_line(const ModelReport& r);

// The smallest and largest of some counts, unknown (0) ones left out: "16", or "4-16" where layers differ.
struct ValueRange {
  uint64_t lo = 0, hi = 0;
  void add(uint64_t v);
  void add(const ValueRange& o);
  bool known() const { return hi != 0; }
  bool operator==(const ValueRange&) const = default;
  std::string text() const;  // "—" when unknown
};

// One attention variant of a kind of layer (Gemma's sliding and full layers): how many layers, and their own
// heads, KV heads, head dim and rotary base as the record's layers give them (the model-wide values where a
// layer leaves one unknown).
struct AttentionVariant {
  int part = -1;     // its index in DiagramModel::parts
  std::string span;  // "sliding 1,024", "chunked 8,192", "full"
  size_t layers = 0;
  ValueRange heads, kv_heads, head_dim;
  std::string rope;  // "RoPE θ 10,000"; the position line for every variant without a base of its own
  bool keys_are_values = false;  // Gemma-4's full layers (attention_k_eq_v): V is K
  bool same_shape(const AttentionVariant& o) const;
};

std::vector<AttentionVariant> attention_variants(const ModelReport& r, const DiagramModel& m,
                                                 const diagram::BlockKind& k);

// "32 heads · 8 KV · dim 128" of all the variants together ("4-16 KV" where they differ).
std::string heads_line(const ModelReport& r, const std::vector<AttentionVariant>& variants);

// The dense FFN widths of layers, their own where the record has them, else the model's intermediate size.
ValueRange ffn_widths(const ModelReport& r, const std::vector<uint32_t>& layers);
// The same for the routed experts of MoE layers.
ValueRange expert_widths(const ModelReport& r, const std::vector<uint32_t>& layers);

std::string ffn_dims(const ModelReport& r, const ValueRange& inner);

// A text that would not fit `width` at `size` broken into lines at its " · " separators, each part as long
// as fits (a part longer than the width alone stays whole, for the box to shrink).
std::vector<std::string> wrap_at_dots(const std::string& text, double width, double size);

std::string moe_line(const ModelReport& r);

std::string shared_line(const ModelReport& r);

PartText mixer_text(const ModelReport& r, const DiagramModel& m, const diagram::BlockKind& k, bool detailed);

PartText ffn_text(const ModelReport& r, const diagram::BlockKind& k, bool detailed);

// A PEFT adapter's projections in one kind of block ("LoRA r 4: q_proj, v_proj"); "" when it adapts none.
std::string adapter_line(const ModelReport& r, bool attention);

// A decoder layer's attention to the encoder's output.
PartText cross_attention_text(const AttentionShape& a);

const Palette& mixer_palette(const DiagramModel& m, const diagram::BlockKind& k);

const Palette& ffn_palette(const DiagramModel& m, const LayerSpec& l);

bool has(const std::string& s);

void background_and_header(Svg& s, const DiagramModel& m, std::string_view view);

void box(Svg& s, const Rect& b, const Palette& p, const std::string& title,
         const std::vector<std::string>& lines, double title_size = 17, double line_size = 13.5);

void stacked_frame(Svg& s, const Rect& b, double step = 6);

void section_label(Svg& s, double x, double y, const std::string& text);

void plus_node(Svg& s, double cx, double cy, double r = 11);

void strip_cell(Svg& s, const DiagramModel& m, const diagram::LayerCell& c, double x, double y, double w,
                double h);

void layer_strip(Svg& s, const DiagramModel& m, double x, double y, double w, double h, bool ticks);

double legend(Svg& s, const std::vector<std::pair<std::string, std::string>>& items, double x, double y,
              double w, double size = 13.5);

std::vector<std::pair<std::string, std::string>> part_legend(const DiagramModel& m);

std::string cell_label(const DiagramModel& m, const diagram::LayerCell& c);

std::string pattern_text(const ModelReport& r, const DiagramModel& m);

std::string render_simple(const ModelReport& r, const DiagramModel& m);
std::string render_detailed(const ModelReport& r, const DiagramModel& m);

}  // namespace ma::diagram
