#include "model/inventory.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "core/name_index.h"
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

// One on-disk tensor the template predicts: a view into the template, not a copy (a DeepSeek-V3 template
// has 45,000 of them, and fresh memory is the dominant cost on this path).
struct Expected {
  const TemplateTensor* tensor;
  const std::string* name;
  const Shape* shape;
  DType dtype;
  TensorKind kind;
  uint32_t tensor_index;
  uint32_t piece;
};

std::vector<Expected> expected_tensors(const ModelTemplate& m, DType dtype) {
  std::vector<Expected> out;
  out.reserve(m.tensors.size());
  for (uint32_t i = 0; i < m.tensors.size(); ++i) {
    const TemplateTensor& tt = m.tensors[i];
    if (!tt.stored || tt.disk.empty()) {
      out.push_back({&tt, &tt.name, &tt.shape, dtype, tt.kind, i, 0});
      continue;
    }
    for (uint32_t p = 0; p < tt.disk.size(); ++p) {
      const DiskPiece& d = tt.disk[p];
      out.push_back({&tt, &d.name, &d.shape, d.dtype.value_or(dtype), d.kind.value_or(tt.kind), i, p});
    }
  }
  return out;
}

// The inventory row a template entry implies (dry runs, tied copies).
InventoryTensor row_from_template(const Expected& e) {
  InventoryTensor t;
  t.name = *e.name;
  t.shape = *e.shape;
  t.dtype = e.dtype;
  t.kind = e.kind;
  t.tied_to = e.tensor->tied_to;
  t.routed_expert = e.tensor->routed_expert;
  t.embedding = e.tensor->embedding;
  t.stored = e.tensor->stored;
  t.parameters = t.stored ? numel(t.shape) : 0;
  t.bytes = t.stored ? bytes_of(t.parameters, e.dtype) : 0;
  t.placement = place_tensor(t.name);
  return t;
}

// Sort key: template order for tensors the template predicts, then the rest in natural name order.
constexpr uint64_t kUnknownOrder = std::numeric_limits<uint64_t>::max();
uint64_t order_of(const Expected& e) { return (static_cast<uint64_t>(e.tensor_index) << 32) | e.piece; }

// Sorts rows by key in place: sorts an index, then applies the permutation by following its cycles, so
// the 45,000 rows of a large checkpoint are never copied into a second vector.
void sort_rows(std::vector<InventoryTensor>& rows, const std::vector<uint64_t>& keys) {
  std::vector<uint32_t> idx(rows.size());
  for (uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    if (keys[a] == kUnknownOrder) return natural_less(rows[a].name, rows[b].name);
    return a < b;
  });
  // Position i must receive rows[idx[i]].
  for (uint32_t start = 0; start < idx.size(); ++start) {
    if (idx[start] == start) continue;
    InventoryTensor held = std::move(rows[start]);
    uint32_t i = start;
    while (idx[i] != start) {
      uint32_t from = idx[i];
      rows[i] = std::move(rows[from]);
      idx[i] = i;
      i = from;
    }
    rows[i] = std::move(held);
    idx[i] = i;
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
    std::string_view b = t.placement.block;
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
  std::vector<Expected> expected;
  if (inv.model) expected = expected_tensors(*inv.model, config_dtype(*inv.model));

  if (!have_weights) {
    inv.origin = InventoryOrigin::Template;
    inv.tensors.reserve(expected.size());
    for (const Expected& e : expected) inv.tensors.push_back(row_from_template(e));
    inv.layers = inv.model->layers;
    return inv;
  }

  Checkpoint ck = read_checkpoint(files);
  inv.origin = ck.headers_read ? InventoryOrigin::Headers : InventoryOrigin::IndexAndTemplate;
  if (!ck.headers_read && !inv.model)
    throw Error(ErrorKind::NotFound, files.display_name, "config.json",
                "an index without shards needs config.json to know tensor shapes");

  // The template's on-disk names, for matching; tied copies separately (transformers does not save them,
  // some checkpoints do).
  std::unordered_map<std::string_view, uint32_t> tied_copies;
  std::vector<std::string> base_prefixes;
  for (uint32_t i = 0; i < expected.size(); ++i) {
    const std::string& n = *expected[i].name;
    if (!expected[i].tensor->stored) {
      tied_copies.emplace(n, i);
      continue;
    }
    std::string first = n.substr(0, n.find('.') + 1);
    if (std::find(base_prefixes.begin(), base_prefixes.end(), first) == base_prefixes.end()) base_prefixes.push_back(first);
  }
  // Tied copies share their name with nothing stored, so indexing them too is harmless; lookups skip them.
  NameIndex by_name(
      static_cast<uint32_t>(expected.size()),
      [](const void* c, uint32_t i) { return std::string_view(*static_cast<const Expected*>(c)[i].name); },
      expected.data());
  auto find_stored = [&](std::string_view name) -> std::optional<uint32_t> {
    auto i = by_name.find(name);
    if (i && !expected[*i].tensor->stored) return std::nullopt;
    return i;
  };
  auto lookup = [&](const std::string& name) -> std::optional<uint32_t> {
    if (auto i = find_stored(name)) return i;
    // Checkpoints saved from the base model omit its prefix (GPT-2's "h.0.attn..." for "transformer.h.0...").
    for (const std::string& p : base_prefixes)
      if (auto i = find_stored(p + name)) return i;
    return std::nullopt;
  };

  std::vector<bool> seen(expected.size(), false);
  DifferenceLog mismatched("shape differences"), extra("tensors the template does not predict"),
      missing("template tensors missing from the checkpoint");
  CheckpointTotals totals;
  totals.files = ck.files.size();
  totals.headers_read = ck.headers_read;
  if (ck.index) totals.index_total_size = ck.index->total_size;
  for (const auto& f : ck.files) totals.file_bytes += f.size;

  std::vector<InventoryTensor> rows;
  std::vector<uint64_t> keys;
  rows.reserve(ck.tensor_count() + tied_copies.size());
  keys.reserve(ck.tensor_count() + tied_copies.size());
  for (CheckpointFile& file : ck.files)
  for (StoredTensor& st : file.tensors) {
    InventoryTensor& t = rows.emplace_back();
    uint64_t& key = keys.emplace_back(kUnknownOrder);
    t.name = std::move(st.name);
    t.file_index = st.file_index;
    t.placement = place_tensor(t.name);
    std::optional<uint32_t> match = lookup(t.name);
    bool packed = false;
    if (!match) {
      if (std::string u = unpacked_name(t.name); !u.empty()) {
        match = lookup(u);
        packed = match.has_value();
      }
    }
    std::optional<uint32_t> tied_copy;
    if (!match)
      if (auto it = tied_copies.find(t.name); it != tied_copies.end()) tied_copy = it->second;
    if (tied_copy) {
      // e.g. Falcon-180B's index stores lm_head.weight although it is tied to the embedding.
      t.kind = TensorKind::Extra;
      t.tied_to = expected[*tied_copy].tensor->tied_to;
    } else if (match) {
      const Expected& e = expected[*match];
      seen[*match] = true;
      key = order_of(e);
      t.kind = e.kind;
      t.routed_expert = e.tensor->routed_expert;
      t.embedding = e.tensor->embedding;
    } else {
      t.kind = kind_without_template_match(t.placement, inv.model.has_value());
      bool known = inv.model && std::any_of(inv.model->known_extras.begin(), inv.model->known_extras.end(),
                                            [&](const auto& k) { return t.name.rfind(k.prefix, 0) == 0; });
      if (inv.model && t.kind == TensorKind::Extra && !known)
        extra.add("checkpoint tensor '" + t.name + "' is not in the " + inv.model->arch.architecture + " template");
    }
    if (ck.headers_read) {
      t.shape = std::move(st.shape);
      t.dtype = st.dtype;
      t.parameters = st.numel;
      t.bytes = st.bytes();
      if (match && !packed && t.shape != *expected[*match].shape && !is_packed_integer(st.dtype))
        mismatched.add("tensor '" + t.name + "' has shape " + shape_to_string(t.shape) + ", template expects " +
                       shape_to_string(*expected[*match].shape));
    } else if (match || tied_copy) {
      const Expected& e = expected[match ? *match : *tied_copy];
      t.shape = *e.shape;
      t.dtype = e.dtype;
      t.parameters = numel(t.shape);
      t.bytes = bytes_of(t.parameters, e.dtype);
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
  }
  for (uint32_t i = 0; i < expected.size(); ++i) {
    const Expected& e = expected[i];
    if (!e.tensor->stored) {
      rows.push_back(row_from_template(e));  // tied copies: listed, not stored
      keys.push_back(order_of(e));
    } else if (!seen[i] && e.kind == TensorKind::Parameter) {
      missing.add("template tensor '" + *e.name + "' " + shape_to_string(*e.shape) + " is not in the checkpoint");
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
  sort_rows(rows, keys);
  inv.tensors = std::move(rows);
  inv.layers = inv.model ? inv.model->layers : infer_layers(inv.tensors);
  return inv;
}

}  // namespace ma
