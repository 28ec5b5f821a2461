#include "model/inventory.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "io/file_source.h"
#include "model/config.h"
#include "model/family_registry.h"
#include "model/natural_order.h"

namespace ma {
namespace {

constexpr uint64_t kMaxConfigBytes = 16ull << 20;
constexpr size_t kWarningsListed = 12;  // individual differences listed before summarising the rest

DType config_dtype(const ModelTemplate& t) {
  if (!t.arch.torch_dtype.empty())
    if (auto d = dtype_from_any_name(t.arch.torch_dtype)) return *d;
  return DType::F32;  // transformers' default when a config declares none
}

uint64_t bytes_of(uint64_t elements, DType d) { return elements * dtype_bits(d) / 8; }

TensorKind kind_without_template_match(const TensorPlacement& p, bool have_template) {
  if (p.block == "quantization") return TensorKind::QuantizationScale;
  if (p.block == "buffer") return TensorKind::Buffer;
  return have_template ? TensorKind::Extra : TensorKind::Parameter;
}

// A quantized checkpoint stores `X.qweight` (packed integers) where the model has `X.weight`.
std::string unpacked_name(std::string_view name) {
  constexpr std::string_view kPacked = ".qweight";
  if (name.size() > kPacked.size() && name.substr(name.size() - kPacked.size()) == kPacked)
    return std::string(name.substr(0, name.size() - kPacked.size())) + ".weight";
  return {};
}

bool is_packed_integer(DType stored) {
  return stored == DType::I32 || stored == DType::U8 || stored == DType::I8 || stored == DType::U32 ||
         stored == DType::I16 || stored == DType::U16;
}

class DifferenceLog {
 public:
  explicit DifferenceLog(std::string what) : what_(std::move(what)) {}
  void add(std::string line) {
    if (lines_.size() < kWarningsListed) lines_.push_back(std::move(line));
    ++count_;
  }
  void flush(std::vector<std::string>& out) const {
    for (const auto& l : lines_) out.push_back(l);
    if (count_ > lines_.size())
      out.push_back("... and " + std::to_string(count_ - lines_.size()) + " more " + what_);
  }

 private:
  std::string what_;
  std::vector<std::string> lines_;
  size_t count_ = 0;
};

struct Row {
  InventoryTensor t;
  size_t order_major;  // template index, or max for tensors the template does not know
  size_t order_minor;  // piece index inside that template tensor
};

void add_template_rows(const ModelTemplate& m, std::vector<Row>& rows, DType dtype) {
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const TemplateTensor& tt = m.tensors[i];
    auto make = [&](const std::string& name, const Shape& shape, size_t piece, std::optional<DType> piece_dtype,
                    std::optional<TensorKind> piece_kind) {
      Row r{{}, i, piece};
      r.t.name = name;
      r.t.shape = shape;
      r.t.dtype = piece_dtype.value_or(dtype);
      r.t.kind = piece_kind.value_or(tt.kind);
      r.t.tied_to = tt.tied_to;
      r.t.routed_expert = tt.routed_expert;
      r.t.embedding = tt.embedding;
      r.t.stored = tt.stored;
      r.t.parameters = tt.stored ? numel(shape) : 0;
      r.t.bytes = tt.stored ? bytes_of(r.t.parameters, *r.t.dtype) : 0;
      r.t.placement = place_tensor(name);
      rows.push_back(std::move(r));
    };
    if (!tt.stored || tt.disk.empty()) {
      make(tt.name, tt.shape, 0, std::nullopt, std::nullopt);
    } else {
      for (size_t p = 0; p < tt.disk.size(); ++p)
        make(tt.disk[p].name, tt.disk[p].shape, p, tt.disk[p].dtype, tt.disk[p].kind);
    }
  }
}

std::vector<LayerSpec> infer_layers(const std::vector<InventoryTensor>& tensors) {
  // The main stack is the one holding the most tensors with a layer index.
  std::map<std::string, size_t> per_stack;
  for (const auto& t : tensors)
    if (t.placement.layer) ++per_stack[t.placement.stack];
  if (per_stack.empty()) return {};
  std::string stack =
      std::max_element(per_stack.begin(), per_stack.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  std::map<uint32_t, LayerSpec> layers;
  for (const auto& t : tensors) {
    if (!t.placement.layer || t.placement.stack != stack) continue;
    LayerSpec& l = layers.try_emplace(*t.placement.layer, LayerSpec{"none", "none", "", 0}).first->second;
    const std::string& b = t.placement.block;
    if (b == "attention") l.mixer = "attention";
    else if ((b == "mamba" || b == "linear-attention") && l.mixer == "none") l.mixer = b == "mamba" ? "mamba" : "linear-attention";
    else if (b == "moe-expert" || b == "moe-router") l.ffn = "moe";
    else if (b == "mlp" && l.ffn == "none") l.ffn = "dense";
  }
  std::vector<LayerSpec> out;
  if (layers.empty() || layers.rbegin()->first > 100000) return out;
  out.resize(layers.rbegin()->first + 1, LayerSpec{"none", "none", "", 0});
  for (auto& [i, l] : layers) out[i] = l;
  return out;
}

}  // namespace

std::string_view origin_name(InventoryOrigin o) {
  switch (o) {
    case InventoryOrigin::Headers: return "headers";
    case InventoryOrigin::Template: return "template";
    case InventoryOrigin::IndexAndTemplate: return "index+template";
  }
  return "template";
}

Inventory build_inventory(const LocalModelFiles& files) {
  Inventory inv;
  inv.source = files.display_name;
  if (files.config) {
    ModelConfig cfg = ModelConfig::parse(read_small_file(*files.config, kMaxConfigBytes), files.config->string());
    inv.model = build_template(cfg);
  }
  const bool have_weights = files.index.has_value() || !files.safetensors.empty();
  std::vector<Row> rows;

  if (!have_weights) {
    inv.origin = InventoryOrigin::Template;
    add_template_rows(*inv.model, rows, config_dtype(*inv.model));
  } else {
    Checkpoint ck = read_checkpoint(files);
    inv.origin = ck.headers_read ? InventoryOrigin::Headers : InventoryOrigin::IndexAndTemplate;
    if (!ck.headers_read && !inv.model)
      throw Error(ErrorKind::NotFound, files.display_name, "config.json",
                  "an index without shards needs config.json to know tensor shapes");

    // The template's on-disk names, for matching.
    std::vector<Row> expected;
    std::unordered_map<std::string_view, size_t> by_name;
    std::unordered_map<std::string_view, size_t> tied_copies;  // not stored by transformers' save, but some checkpoints do
    std::vector<std::string> base_prefixes;
    if (inv.model) {
      add_template_rows(*inv.model, expected, config_dtype(*inv.model));
      by_name.reserve(expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        if (!expected[i].t.stored) {
          tied_copies.emplace(expected[i].t.name, i);
          continue;
        }
        by_name.emplace(expected[i].t.name, i);
        std::string first = expected[i].t.name.substr(0, expected[i].t.name.find('.') + 1);
        if (std::find(base_prefixes.begin(), base_prefixes.end(), first) == base_prefixes.end())
          base_prefixes.push_back(first);
      }
    }
    std::vector<bool> seen(expected.size(), false);
    DifferenceLog mismatched("shape differences"), extra("tensors the template does not predict"),
        missing("template tensors missing from the checkpoint");

    auto lookup = [&](const std::string& name) -> std::optional<size_t> {
      if (auto it = by_name.find(name); it != by_name.end()) return it->second;
      // Checkpoints saved from the base model omit its prefix (GPT-2's "h.0.attn..." for "transformer.h.0...").
      for (const std::string& p : base_prefixes)
        if (auto it = by_name.find(p + name); it != by_name.end()) return it->second;
      return std::nullopt;
    };

    CheckpointTotals totals;
    totals.files = ck.files.size();
    totals.headers_read = ck.headers_read;
    if (ck.index) totals.index_total_size = ck.index->total_size;
    for (const auto& f : ck.files) totals.file_bytes += f.size;

    rows.reserve(ck.tensors.size() + 8);
    for (StoredTensor& st : ck.tensors) {
      Row r{{}, std::numeric_limits<size_t>::max(), 0};
      InventoryTensor& t = r.t;
      t.name = std::move(st.name);
      t.file_index = st.file_index;
      t.placement = place_tensor(t.name);
      std::optional<size_t> match = lookup(t.name);
      bool packed = false;
      if (!match) {
        if (std::string u = unpacked_name(t.name); !u.empty()) {
          match = lookup(u);
          packed = match.has_value();
        }
      }
      std::optional<size_t> tied_copy;
      if (!match)
        if (auto it = tied_copies.find(t.name); it != tied_copies.end()) tied_copy = it->second;
      if (tied_copy) {
        // e.g. Falcon-180B's index stores lm_head.weight although it is tied to the embedding.
        t.kind = TensorKind::Extra;
        t.tied_to = expected[*tied_copy].t.tied_to;
      } else if (match) {
        const InventoryTensor& e = expected[*match].t;
        seen[*match] = true;
        r.order_major = expected[*match].order_major;
        r.order_minor = expected[*match].order_minor;
        t.kind = e.kind;
        t.routed_expert = e.routed_expert;
        t.embedding = e.embedding;
      } else {
        t.kind = kind_without_template_match(t.placement, inv.model.has_value());
        bool known = inv.model && std::any_of(inv.model->known_extras.begin(), inv.model->known_extras.end(),
                                              [&](const auto& k) { return t.name.rfind(k.prefix, 0) == 0; });
        if (inv.model && t.kind == TensorKind::Extra && !known) extra.add("checkpoint tensor '" + t.name + "' is not in the " +
                                                                inv.model->arch.architecture + " template");
      }
      if (ck.headers_read) {
        t.shape = std::move(st.shape);
        t.dtype = st.dtype;
        t.parameters = st.numel;
        t.bytes = st.bytes();
        if (match && !packed && t.shape != expected[*match].t.shape && !is_packed_integer(st.dtype))
          mismatched.add("tensor '" + t.name + "' has shape " + shape_to_string(t.shape) + ", template expects " +
                         shape_to_string(expected[*match].t.shape));
      } else if (match || tied_copy) {
        const InventoryTensor& e = expected[match ? *match : *tied_copy].t;
        t.shape = e.shape;
        t.dtype = e.dtype;
        t.parameters = numel(t.shape);
        t.bytes = bytes_of(t.parameters, *e.dtype);
      } else {
        t.shape_known = false;
      }
      switch (t.kind) {
        case TensorKind::Parameter: totals.parameters += t.parameters; break;
        case TensorKind::Buffer: ++totals.buffers; totals.buffer_elements += t.parameters; break;
        case TensorKind::Extra: ++totals.extras; totals.extra_elements += t.parameters; break;
        case TensorKind::QuantizationScale:
          ++totals.quantization_scales;
          totals.quantization_scale_elements += t.parameters;
          break;
      }
      ++totals.tensors;
      totals.bytes += t.bytes;
      rows.push_back(std::move(r));
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!expected[i].t.stored) {
        rows.push_back(expected[i]);  // tied copies: listed, not stored
      } else if (!seen[i] && expected[i].t.kind == TensorKind::Parameter) {
        missing.add("template tensor '" + expected[i].t.name + "' " + shape_to_string(expected[i].t.shape) +
                    " is not in the checkpoint");
      }
    }
    mismatched.flush(inv.warnings);
    missing.flush(inv.warnings);
    extra.flush(inv.warnings);
    if (totals.index_total_size && *totals.index_total_size != totals.bytes)
      inv.warnings.push_back(
          ck.index_name + " metadata.total_size is " + std::to_string(*totals.index_total_size) + " bytes; the " +
          (ck.headers_read ? "headers hold " : "template predicts ") + std::to_string(totals.bytes) +
          (!ck.headers_read && inv.model->arch.torch_dtype.empty() ? " (the config declares no torch_dtype; float32 assumed)" : ""));
    inv.checkpoint = totals;
  }

  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.order_major != b.order_major) return a.order_major < b.order_major;
    if (a.order_major != std::numeric_limits<size_t>::max()) return a.order_minor < b.order_minor;
    return natural_less(a.t.name, b.t.name);
  });
  inv.tensors.reserve(rows.size());
  for (Row& r : rows) inv.tensors.push_back(std::move(r.t));
  inv.layers = inv.model ? inv.model->layers : infer_layers(inv.tensors);
  return inv;
}

}  // namespace ma
