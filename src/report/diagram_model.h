// What an architecture diagram shows, worked out from a ModelReport before anything is drawn: the kinds of
// mixer and feed-forward parts with their legend labels and colours, one cell per decoder layer, the distinct
// layer structures (block kinds) and the smallest repeating unit of the layer pattern.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model_report.h"

namespace ma::diagram {

struct Palette {
  std::string fill;    // light background of a box
  std::string stroke;  // its border, and the colour of its cells in the layer strip
};

// One kind of layer part: a mixer ("attention/gqa/0", "mamba2") or a feed-forward ("moe").
struct LayerPart {
  std::string key;
  std::string label;  // legend text: "GQA attention", "Sliding GQA (1024)", "Mamba-2", "MoE"
  Palette colour;
  bool is_mixer = true;
  uint64_t layers = 0;  // how many layers contain it
};

// A layer as the strip draws it: indices into DiagramModel::parts, -1 where the layer has no such part.
struct LayerCell {
  int mixer = -1;
  int ffn = -1;
  bool operator==(const LayerCell&) const = default;
};

// Layers that share one structure (LayerSpec::type(): mixer and feed-forward kinds).
struct BlockKind {
  std::string type;   // "attention+moe"
  std::string title;  // "Attention + MoE"
  LayerSpec spec;     // the first layer of this kind
  std::vector<uint32_t> indices;
  std::vector<int> mixer_parts;  // distinct attention variants (e.g. sliding and full) among these layers
};

// A stack beside the main one, drawn as one box of the forward pass: the encoder of an encoder-decoder, a
// vision or audio tower, the projector.
struct SideStack {
  StackRole role = StackRole::Encoder;
  std::string title;               // "Encoder", "Vision tower", "Projector"
  std::vector<std::string> lines;  // "12 layers · 768 wide · 12 heads", "patch 14 · 336 px", "303.51M params"
};

// Where a layer's norms sit around each sub-layer f (attention, MLP) and its residual add.
struct NormPlacement {
  bool before = true;       // x + f(norm(x)): pre-norm, most decoders
  bool after_part = false;  // f's output normed before the add: the "sandwich" of Gemma-2/3/4 (with `before`)
  bool after_add =
      false;  // norm(x + f(x)): post-norm, BERT, BART; the next sub-layer reads the norm's output
};

struct DiagramModel {
  std::string title;     // the model id
  std::string subtitle;  // family · class · architecture type · kind
  uint64_t num_layers = 0;
  std::vector<LayerPart> parts;  // in order of first appearance, mixers before feed-forwards
  std::vector<LayerCell> cells;  // one per layer
  std::vector<BlockKind> kinds;  // in order of first appearance
  size_t period = 0;             // smallest repeating unit of `cells` (1: uniform); 0: none
  NormPlacement norms;
  // Towers and the projector, in the order the input flows through them; the encoder of an encoder-decoder
  // (whose output every decoder layer's cross-attention reads).
  std::vector<SideStack> towers;
  std::optional<SideStack> encoder;
  bool cross_attention = false;  // the main stack's layers attend to the encoder
};

DiagramModel build_diagram_model(const ModelReport& r);

// Smallest p dividing cells.size() with cells[i] == cells[i % p] for all i; 0 when there is none below
// cells.size() / 2 (a pattern must repeat at least twice to be called one) unless all cells are equal (1).
size_t repeat_period(const std::vector<LayerCell>& cells);

// Display forms; "—" for unknown (0 / empty) values.
std::string dash_count(uint64_t v);                   // 1,234,567
std::string dash_params(uint64_t v);                  // 6.74B
std::string dash_bytes(uint64_t v);                   // 12.55 GiB
std::string attention_name(const LayerSpec& l);       // a GQA layer -> "Grouped-query attention"
std::string norm_name(const std::string& norm_type);  // "rmsnorm" -> "RMSNorm"

}  // namespace ma::diagram
