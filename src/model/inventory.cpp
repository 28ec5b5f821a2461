#include "model/inventory.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <filesystem>
#include <future>
#include <limits>
#include <map>
#include <set>

#include "core/error.h"
#include "core/heap_pages.h"
#include "core/parallel.h"
#include "core/radix_order.h"
#include "core/units.h"
#include "formats/gguf_tokenizer.h"
#include "io/file_source.h"
#include "model/config.h"
#include "model/declared_quantization.h"
#include "model/family_registry.h"
#include "model/gguf_record.h"
#include "model/inferred_record.h"
#include "model/natural_order.h"
#include "model/onnx_record.h"
#include "model/record_config.h"
#include "model/record_facts.h"
#include "model/stored_dtype.h"
#include "model/template_matcher.h"

namespace ma {
namespace {

constexpr uint64_t kMaxConfigBytes = 16ull << 20;
constexpr size_t kWarningsListed = 12;  // individual differences listed before summarising the rest

DType config_dtype(const ModelTemplate& t) {
  if (!t.arch.torch_dtype.empty())
    if (auto d = dtype_from_any_name(t.arch.torch_dtype)) return *d;
  return DType::F32;  // transformers' default when a config declares none
}

TensorKind kind_without_template_match(const TensorPlacement& p, bool have_template) {
  if (p.block == Block::Quantization) return TensorKind::QuantizationScale;
  if (p.block == Block::Buffer) return TensorKind::Buffer;
  return have_template ? TensorKind::Extra : TensorKind::Parameter;
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

// An index whose total_size differs from the bytes the headers hold (or the template predicts). Llama-2's
// index counts 32 rotary inv_freq buffers (128 bytes each) the template has no shape for: when stored tensors
// of unknown shape explain the whole excess, at most 1 MiB each, there is nothing to act on, and it is a
// note.
void report_total_size(const CheckpointTotals& totals, const Checkpoint& ck,
                       const std::vector<InventoryTensor>& rows, Inventory& inv) {
  const size_t unknown =
      std::count_if(rows.begin(), rows.end(), [](const InventoryTensor& t) { return !t.shape_known; });
  const uint64_t excess =
      *totals.index_total_size > totals.bytes ? *totals.index_total_size - totals.bytes : 0;
  const bool width_known = ck.headers_read || inv.model->arch.stored_dtype.has_value();
  if (unknown && excess && width_known && excess <= unknown * (uint64_t{1} << 20)) {
    inv.notes.push_back(ck.index_name + " metadata.total_size is " + with_thousands(excess) +
                        " bytes above the template's prediction: the " + std::to_string(unknown) +
                        " stored tensors of unknown shape (e.g. rotary inv_freq buffers)");
    return;
  }
  std::string why;
  if (!ck.headers_read && !inv.model->arch.stored_dtype)
    why += "; the config declares no torch_dtype, float32 assumed";
  if (unknown) {
    // Name what is not a rotary buffer: LLaVA-1.5's index stores an lm_head its template (LlavaModel) lacks,
    // and that, not the 32 inv_freq buffers, is the 262 MB.
    std::string others;
    size_t named = 0;
    for (const InventoryTensor& t : rows)
      if (!t.shape_known && !t.name.ends_with("inv_freq") && named++ < 3)
        others += (others.empty() ? "e.g. " : ", ") + t.name;
    why += "; " + std::to_string(unknown) + " stored tensors of unknown shape (" +
           (others.empty() ? std::string("rotary inv_freq buffers") : others) + ") not counted";
  }
  inv.warnings.push_back(
      ck.index_name + " metadata.total_size is " + with_thousands(*totals.index_total_size) + " bytes; the " +
      (ck.headers_read ? "headers hold " : "template predicts ") + with_thousands(totals.bytes) + why);
}

std::string_view top_module(std::string_view name) {
  return name.substr(0, name.find('.'));
}

// Template tensors the checkpoint lacks. A top-level module missing whole (LLaVA-1.5's vision_tower, which
// its code loads from the CLIP repo mm_vision_tower names) is one line with its size; the rest one by one.
void report_missing(const TemplateMatcher& matcher, const std::set<std::string_view>& stored,
                    const ModelTemplate& model, const ModelConfig* config, DifferenceLog& missing,
                    std::vector<std::string>& warnings) {
  struct Absent {
    size_t tensors = 0;
    uint64_t elements = 0;
  };
  std::map<std::string, Absent> whole;
  std::vector<std::pair<std::string, std::string>> lines;  // (top module, line)
  matcher.for_each_unmatched([&](const std::string& name, const Shape& shape) {
    std::string top(top_module(name));
    Absent& a = whole[top];
    ++a.tensors;
    a.elements += numel(shape);
    lines.emplace_back(
        top, "template tensor '" + name + "' " + shape_to_string(shape) + " is not in the checkpoint");
  });
  std::set<std::string> summarized;
  for (const auto& [top, a] : whole) {
    if (stored.count(top) || a.tensors < 2) continue;
    summarized.insert(top);
    std::string line = "the checkpoint holds no '" + top + "' module: its " + with_thousands(a.tensors) +
                       " template tensors (" + with_thousands(a.elements) + " parameters) are not stored";
    const std::string& key = model.arch.vision_key;
    if (config && !key.empty() && top.find("vision") != std::string::npos)
      if (const json::Value* v = config->raw(key); v && v->is_string())
        line += "; config.json's " + key + " names it ('" + printable(v->as_string()) + "'), loaded apart";
    warnings.push_back(line);
  }
  for (auto& [top, line] : lines)
    if (!summarized.count(top)) missing.add(std::move(line));
}

// The inventory row a template entry implies (dry runs, tied copies).
// `placed`: the placement when the caller knows it already (another expert's piece of the same part).
InventoryTensor template_row(const TemplateTensor& tt, std::string name, const Shape& shape, DType dtype,
                             bool dtype_fixed, TensorKind kind, const TensorPlacement* placed = nullptr) {
  InventoryTensor t;
  t.name = std::move(name);
  t.shape = shape;
  t.dtype = dtype;
  t.template_dtype = dtype_fixed;
  t.kind = kind;
  t.tied_to = tt.tied_to;
  t.routed_expert = tt.routed_expert;
  t.embedding = tt.embedding;
  t.stored = tt.stored;
  t.parameters = t.stored ? numel(t.shape) : 0;
  t.bytes = t.stored ? dtype_bytes(t.parameters, dtype) : 0;
  t.placement = placed ? *placed : place_tensor(t.name);
  return t;
}

// A dry run: every tensor the template implies, in template order, per-expert pieces spelled out.
std::vector<InventoryTensor> template_rows(const ModelTemplate& m, DType dtype) {
  std::vector<InventoryTensor> rows;
  for (const TemplateTensor& tt : m.tensors) {
    if (tt.stored && tt.fused_on_disk) continue;  // in another tensor's piece
    if (tt.stored && tt.per_expert) {
      // A part's placement never depends on the expert's index (see ExpertPlacements): placed once per part,
      // which took `tensors --json` on DeepSeek-V3's config alone from 39 to 25 ms on the 2-core VM.
      const PerExpertPieces& pe = *tt.per_expert;
      const size_t first_row = rows.size();
      for (uint32_t e = 0; e < pe.experts; ++e)
        for (size_t p = 0; p < pe.parts.size(); ++p) {
          const PerExpertPieces::Part& part = pe.parts[p];
          rows.push_back(template_row(tt, pe.name(e, p), part.shape, part.dtype.value_or(dtype),
                                      part.dtype.has_value(), part.kind.value_or(tt.kind),
                                      e ? &rows[first_row + p].placement : nullptr));
        }
    } else if (!tt.stored || tt.disk.empty()) {
      rows.push_back(template_row(tt, tt.name, tt.shape, dtype, false, tt.kind, &tt.placement));
    } else {
      for (const DiskPiece& d : tt.disk)
        rows.push_back(template_row(tt, d.name, d.shape, d.dtype.value_or(dtype), d.dtype.has_value(),
                                    d.kind.value_or(tt.kind)));
    }
  }
  return rows;
}

// Sort key: template order for tensors the template predicts, then the rest in natural name order.
constexpr uint64_t kUnknownOrder = std::numeric_limits<uint64_t>::max();

// Sorts rows by key in place: orders an index (by radix: the keys are integers), then applies the
// permutation by following its cycles, so the 45,000 rows of a large checkpoint are never copied into a
// second vector.
void sort_rows(std::vector<InventoryTensor>& rows, const std::vector<uint64_t>& keys) {
  std::vector<uint32_t> idx = stable_radix_order(keys);
  // The tensors the template does not know come last (their key is the largest), by name.
  auto unknown = std::find_if(idx.begin(), idx.end(), [&](uint32_t i) { return keys[i] == kUnknownOrder; });
  std::sort(unknown, idx.end(), [&](uint32_t a, uint32_t b) {
    if (natural_less(rows[a].name, rows[b].name)) return true;
    return !natural_less(rows[b].name, rows[a].name) && a < b;
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

// Everything the stored tensors add up to.
void tally(const InventoryTensor& t, CheckpointTotals& totals) {
  switch (t.kind) {
    case TensorKind::Parameter:
      totals.parameters += t.parameters;
      break;
    case TensorKind::Buffer:
      ++totals.buffers;
      totals.buffer_elements += t.parameters;
      break;
    case TensorKind::Extra:
      ++totals.extras;
      totals.extra_elements += t.parameters;
      break;
    case TensorKind::QuantizationScale:
      ++totals.quantization_scales;
      totals.quantization_scale_elements += t.parameters;
      break;
  }
  ++totals.tensors;
  totals.bytes += t.bytes;
}

// The sums of two parts of the stored tensors.
void add_tally(const CheckpointTotals& part, CheckpointTotals& totals) {
  totals.parameters += part.parameters;
  totals.buffers += part.buffers;
  totals.buffer_elements += part.buffer_elements;
  totals.extras += part.extras;
  totals.extra_elements += part.extra_elements;
  totals.quantization_scales += part.quantization_scales;
  totals.quantization_scale_elements += part.quantization_scale_elements;
  totals.tensors += part.tensors;
  totals.bytes += part.bytes;
}

// What one chunk of rows adds up to, found while the chunk is built: its tally, its stored parameter elements
// per dtype, and the top-level modules its stored tensors belong to (rows come in runs of one module, so a
// row of the previous row's module is not looked up again).
struct ChunkSums {
  CheckpointTotals totals;
  ElementsByDtype elements{};  // for the dtype the headers store the weights in
  std::vector<std::string_view> modules;
  void add(const InventoryTensor& t) {
    tally(t, totals);
    count_elements(t, elements);
    if (!t.stored) return;
    const std::string_view top = top_module(t.name);
    if (modules.empty() || modules.back() != top) modules.push_back(top);
  }
};

// num_parameters of the model the config describes: every parameter the template builds, tied ones once.
uint64_t count_configured(const ModelTemplate& t) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.tied_to.empty()) n += numel(x.shape);
  return n;
}

// Stored shapes that contradict the config: one warning for all of them, naming the first.
struct Contradictions {
  size_t count = 0;
  std::string first;
};

struct Differences {
  Contradictions mismatched;
  DifferenceLog missing{"template tensors missing from the checkpoint"};
  DifferenceLog extra{"tensors the template does not predict"};
};

// What building a row found that must be reported; rows are built in parallel, reports made in order.
struct RowNote {
  // QuantizerBias: a bias stored beside a GPTQ / AWQ packed weight for a layer the model builds without one.
  enum class What : uint8_t { None, Unpredicted, ShapeMismatch, QuantizerBias };
  const Shape* expected = nullptr;
  What what = What::None;
  bool model_dtype = false;  // from an index: its dtype is the model's, assumed (not a quantized piece's)
};

// An index without headers and a config without torch_dtype: the rows were predicted at float32, which
// the index's total_size may prove wrong (BLOOM, gpt-oss, granite store 16-bit weights). Re-width the rows
// whose dtype is the model's and record what the index proved.
void settle_width_from_index(std::vector<InventoryTensor>& rows, const std::vector<RowNote>& notes,
                             uint64_t total_size, ArchitectureRecord& arch) {
  uint64_t fixed = 0, float_elements = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (notes[i].model_dtype)
      float_elements += rows[i].parameters;
    else
      fixed += rows[i].bytes;
  const std::optional<DType> d = dtype_from_total_size(total_size, fixed, float_elements);
  if (!d) return;
  arch.stored_dtype = d;
  arch.stored_dtype_source = "index total_size";
  for (size_t i = 0; i < rows.size(); ++i)
    if (notes[i].model_dtype) {
      rows[i].dtype = *d;
      rows[i].bytes = dtype_bytes(rows[i].parameters, *d);
    }
}

// Where a routed expert's piece sits depends on its name only, never on the expert's index (place_tensor
// skips the number after "experts"; ExpertPlacement.NeverDependsOnTheExpertIndex checks every template): the
// 256 experts of a DeepSeek-V3 layer share one placement, computed once. Keyed by the template piece's shape
// (one per tensor and part) and the name's stack prefix (a checkpoint may store some names without the
// base-model prefix); a thread's rows come in name order, so a few entries hold every piece in use.
class ExpertPlacements {
 public:
  const TensorPlacement& of(const Shape* piece, std::string_view name) {
    for (const Entry& e : entries_)
      if (e.piece == piece && name.substr(0, e.stack.size()) == e.stack) return e.placement;
    Entry& e = entries_[next_++ % entries_.size()];
    e.piece = piece;
    e.placement = place_tensor(name);
    e.stack.assign(name.substr(0, e.placement.stack_length));
    return e.placement;
  }

 private:
  struct Entry {
    const Shape* piece = nullptr;
    std::string stack;  // "model.layers"
    TensorPlacement placement;
  };
  std::array<Entry, 8> entries_;
  size_t next_ = 0;
};

// What config.json describes: the config, its template and the quantization it declares; nothing without one.
struct ConfiguredModel {
  std::optional<ModelConfig> config;
  std::optional<ModelTemplate> model;
};

ConfiguredModel configure(const LocalModelFiles& files) {
  ConfiguredModel c;
  if (!files.config) return c;
  c.config = ModelConfig::parse(read_small_file(*files.config, kMaxConfigBytes), files.config->string());
  c.model = build_template(*c.config);
  c.model->arch.quantization = read_declared_quantization(*c.config, files.root);
  return c;
}

// An index-only GPTQ/AWQ tensor stored beside a linear's packed weight (X.qzeros, X.scales, X.g_idx, a bias
// the model lacks), sized as the declared method stores it from the template's X.weight.
std::optional<PackedLinearTensor> packed_companion(std::string_view name, const DeclaredQuantization* q,
                                                   const TemplateMatcher* matcher) {
  const size_t dot = name.rfind('.');
  if (!q || !matcher || dot == std::string_view::npos) return std::nullopt;
  const std::string_view suffix = name.substr(dot + 1);
  if (suffix != "qzeros" && suffix != "scales" && suffix != "g_idx" && suffix != "bias") return std::nullopt;
  const Shape* logical = matcher->predicted_shape(std::string(name.substr(0, dot)) + ".weight");
  return logical ? packed_linear_tensor(*q, *logical, suffix) : std::nullopt;
}

// One stored tensor as an inventory row: its own facts from the header (or, from an index alone, the
// template's prediction), its meaning from the template match.
InventoryTensor stored_row(StoredTensor& st, bool headers_read, const TemplateMatch& m,
                           const TemplateMatcher* matcher, const ModelTemplate* model, RowNote& note,
                           ExpertPlacements& placements) {
  InventoryTensor t;
  t.name = std::move(st.name);
  t.file_index = st.file_index;
  // A stored name that is its template tensor's own has the placement build_template gave it (placing a
  // name takes ~11,000 instructions: DeepSeek-V3's 1,083 non-expert rows were 4% of the command's).
  if (m.how == TemplateMatch::How::ExpertPiece)
    t.placement = placements.of(m.shape, t.name);
  else if (m && t.name == m.tensor->name)
    t.placement = m.tensor->placement;
  else
    t.placement = place_tensor(t.name);
  const DeclaredQuantization* q = model && model->arch.quantization ? &*model->arch.quantization : nullptr;
  // What GPTQ / AWQ store beside a packed weight: explained by the declared method, though no template
  // tensor names it (the bias some AutoGPTQ versions keep for a layer the model builds without one).
  const std::optional<PackedLinearTensor> companion = m ? std::nullopt : packed_companion(t.name, q, matcher);
  if (m) {
    // A name the template calls a tied copy (lm_head.weight tied to the embedding: transformers builds one
    // parameter for both), stored anyway. As a second name of the tensor it repeats (a PyTorch tie: the same
    // storage and view) it is the template's tied tensor, listed as a file that leaves it out lists it: a
    // parameter counted at the tensor it shares (0 parameters and bytes, below). With bytes of its own
    // (Falcon-180B's lm_head, saved beside the embedding it is tied to) it is an extra, whose elements are
    // the file's, not the model's: transformers ties the head to the embedding and does not load them.
    const bool tied_copy = m.how == TemplateMatch::How::TiedCopy;
    const bool repeated = tied_copy && headers_read && st.tied;
    t.kind = tied_copy && !repeated ? TensorKind::Extra : m.kind;
    if (tied_copy) t.tied_to = m.tensor->tied_to;
    t.routed_expert = m.tensor->routed_expert;
    t.embedding = m.tensor->embedding && (!tied_copy || repeated);
  } else {
    t.kind = kind_without_template_match(t.placement, model != nullptr);
    if (!model) {  // bare weights (GGUF, safetensors without config): what the placement says
      t.routed_expert = t.placement.block == Block::MoeExpert;
      t.embedding = t.placement.block == Block::Embedding;
    }
    bool known = model && std::any_of(model->known_extras.begin(), model->known_extras.end(),
                                      [&](const auto& k) { return t.name.rfind(k.prefix, 0) == 0; });
    if (model && t.kind == TensorKind::Extra && !known)
      note.what = companion ? RowNote::What::QuantizerBias : RowNote::What::Unpredicted;
  }
  if (headers_read) {
    t.shape = std::move(st.shape);
    t.dtype = st.dtype;
    // A PyTorch tensor whose storage an earlier one holds takes no bytes of its own; the same tensor under a
    // second name (a tie) no parameters either: they are counted once, at its first name.
    t.parameters = st.tied ? 0 : st.numel;
    t.bytes = st.held_bytes();
    if (m && !m.packed && t.shape != *m.shape && !is_packed_integer(st.dtype))
      note = {m.shape, RowNote::What::ShapeMismatch};
    if (m && m.how == TemplateMatch::How::Exact &&
        (m.packed || (t.shape != *m.shape && is_packed_integer(st.dtype))))
      t.logical_shape = m.shape;
  } else if (m && !m.packed) {
    note.model_dtype = m.model_dtype;
    t.shape = *m.shape;
    t.dtype = m.dtype;
    t.template_dtype = !m.model_dtype;
    t.parameters = numel(t.shape);
    t.bytes = dtype_bytes(t.parameters, m.dtype);
  } else {
    // A packed qweight and what is stored beside it, from an index alone: in the declared method's layout,
    // its elements the stored ones (as its header would give them); not predicted when the method, its bits
    // or its group size are not declared.
    const std::optional<PackedLinearTensor> packed =
        m ? (q ? packed_linear_tensor(*q, *m.shape, "qweight") : std::nullopt) : companion;
    if (packed) {
      if (m) t.logical_shape = m.shape;
      t.shape = packed->shape;
      t.dtype = packed->dtype;
      t.parameters = numel(t.shape);
      t.bytes = dtype_bytes(t.parameters, packed->dtype);
    } else {
      t.shape_known = false;
    }
  }
  return t;
}

}  // namespace

std::string_view origin_name(InventoryOrigin o) {
  switch (o) {
    case InventoryOrigin::Headers:
      return "headers";
    case InventoryOrigin::Template:
      return "template";
    case InventoryOrigin::IndexAndTemplate:
      return "index+template";
  }
  return "template";
}

namespace {

// The inventory of a model's files, before the config's warnings join it.
Inventory read_inventory(const LocalModelFiles& files) {
  Inventory inv;
  inv.source = files.display_name;
  // The template, and the matcher the stored names are looked up in, are built on a thread of their own
  // while this one reads the checkpoint: DeepSeek-V3's take ~2 and ~0.5 ms, and reading its index on this
  // thread is what the whole read waits for. That thread fills inv.config, inv.model and `matcher`, which
  // this one reads only once it is done (the matcher holds a reference to inv.model: it is built where it
  // stays). config.json's error still comes first, as when it was read first.
  std::optional<TemplateMatcher> matcher;
  std::future<void> configured =
      std::async(files.config ? std::launch::async : std::launch::deferred, [&files, &inv, &matcher] {
        prefer_huge_thread_heap_pages();
        ConfiguredModel c = configure(files);
        inv.config = std::move(c.config);
        inv.model = std::move(c.model);
        if (inv.model && files.format != CheckpointFormat::None)
          matcher.emplace(*inv.model, config_dtype(*inv.model));
      });
  std::optional<Checkpoint> read;
  std::exception_ptr read_failed;
  if (files.format != CheckpointFormat::None) {
    try {
      read = read_checkpoint(files);
    } catch (...) {
      read_failed = std::current_exception();
    }
  }
  configured.get();
  if (read_failed) std::rethrow_exception(read_failed);
  if (files.format == CheckpointFormat::None) {
    for (const auto& f : files.unread_weights)
      inv.warnings.push_back(f.filename().string() +
                             " is not read; the tensors listed are the ones the config implies");
    inv.origin = InventoryOrigin::Template;
    inv.tensors = template_rows(*inv.model, config_dtype(*inv.model));
    inv.arch = inv.model->arch;
    return inv;
  }

  Checkpoint& ck = *read;
  inv.origin = ck.headers_read ? InventoryOrigin::Headers : InventoryOrigin::IndexAndTemplate;
  inv.notes.insert(inv.notes.end(), ck.notes.begin(), ck.notes.end());
  for (const auto& f : files.unread_weights)  // another format's copy, or another checkpoint of the model
    inv.notes.push_back(f.filename().string() + " is not read (the weights analysed are the " + ck.format +
                        " files; name it to analyse it instead)");
  if (!ck.headers_read && !inv.model)
    throw Error(ErrorKind::NotFound, files.display_name, "config.json",
                "an index without shards needs config.json to know tensor shapes");
  if (!ck.headers_read && files.fetched_headers.empty() && !files.index_is_pytorch)
    inv.notes.push_back("none of the " + std::to_string(ck.index->shards.size()) + " shards named by " +
                        ck.index_name +
                        " is present: the tensors are the index's, with the template's shapes "
                        "(no weights read)");
  const ModelTemplate* model = inv.model ? &*inv.model : nullptr;

  CheckpointTotals totals;
  totals.files = ck.files.size();
  totals.headers_read = ck.headers_read;
  totals.format = ck.format;
  // A total_size of 0 means the writer did not fill it in (Cosmos-Reason2-8B): nothing to compare.
  if (ck.index && ck.index->total_size.value_or(0) != 0) totals.index_total_size = ck.index->total_size;
  for (const auto& f : ck.files) totals.file_bytes += f.size;

  // Rows are built in parallel (matching and placement are most of the work), then reported in order.
  std::vector<size_t> first_row(ck.files.size() + 1, 0);
  for (size_t f = 0; f < ck.files.size(); ++f) first_row[f + 1] = first_row[f] + ck.files[f].tensors.size();
  const size_t stored = first_row.back();
  const size_t tied = matcher ? matcher->tied_copies() : 0;
  std::vector<InventoryTensor> rows;
  std::vector<uint64_t> keys;  // template order; tensors it does not know go last
  rows.reserve(stored + tied);
  keys.reserve(stored + tied);
  rows.resize(stored);
  keys.resize(stored, kUnknownOrder);
  std::vector<RowNote> notes(stored);
  constexpr size_t kChunk = 2048;
  std::vector<ChunkSums> sums((stored + kChunk - 1) / kChunk);
  // A file's stored tensors are freed by the chunk that builds its last row (all but the names and shapes,
  // which the rows took): on every thread at once, not one after the other when the checkpoint goes.
  std::vector<std::atomic<size_t>> rows_left(ck.files.size());
  for (size_t f = 0; f < ck.files.size(); ++f) rows_left[f] = ck.files[f].tensors.size();
  parallel_for(sums.size(), [&](size_t chunk) {
    const size_t end = std::min(stored, (chunk + 1) * kChunk);
    size_t f = std::upper_bound(first_row.begin(), first_row.end(), chunk * kChunk) - first_row.begin() - 1;
    ExpertPlacements placements;
    ChunkSums found;  // on this thread's stack: neighbouring chunks' sums share cache lines
    for (size_t i = chunk * kChunk; i < end; ++f) {
      while (i >= first_row[f + 1]) ++f;
      const size_t file_end = std::min(end, first_row[f + 1]);
      for (; i < file_end; ++i) {
        StoredTensor& st = ck.files[f].tensors[i - first_row[f]];
        TemplateMatch m = matcher ? matcher->match(st.name) : TemplateMatch{};
        rows[i] =
            stored_row(st, ck.headers_read, m, matcher ? &*matcher : nullptr, model, notes[i], placements);
        if (m) keys[i] = m.order;
        found.add(rows[i]);
      }
      const size_t built = file_end - std::max(chunk * kChunk, first_row[f]);
      if (rows_left[f].fetch_sub(built) == built) std::vector<StoredTensor>().swap(ck.files[f].tensors);
    }
    sums[chunk] = std::move(found);
  });
  // A PyTorch tie names the tensor it repeats; the names live in the inventory, which the rows' views point
  // into (reserved whole: never moved).
  size_t ties = 0;
  for (const CheckpointFile& f : ck.files) ties += f.ties.size();
  inv.tie_targets.reserve(ties);
  // A tie stored the other way round: the template's tied copy first, holding the storage (lm_head.weight
  // before model.embed_tokens.weight), then the tensor it is tied to as its repeat. The copy is still the
  // template's tied tensor, a parameter of 0 parameters (with the storage's bytes, which count at the first
  // name), and the tensor it is tied to carries the parameters, as in the template's order.
  std::vector<size_t> held_copies;  // tied copies stored with bytes of their own: extras, unless so repeated
  if (ties)
    for (size_t i = 0; i < stored; ++i)
      if (rows[i].kind == TensorKind::Extra && !rows[i].tied_to.empty()) held_copies.push_back(i);
  bool recount = false;
  for (size_t f = 0; f < ck.files.size(); ++f)
    for (CheckpointFile::Tie& tie : ck.files[f].ties) {
      InventoryTensor& row = rows[first_row[f] + tie.tensor];
      if (!row.tied_to.empty()) continue;  // the template already calls it a tied copy, of its own tensor
      const auto copy = std::find_if(held_copies.begin(), held_copies.end(), [&](size_t c) {
        return c >= first_row[f] && c < first_row[f + 1] && rows[c].name == tie.same_as &&
               rows[c].tied_to == row.name;
      });
      if (copy != held_copies.end()) {
        InventoryTensor& held = rows[*copy];
        held.kind = TensorKind::Parameter;
        held.parameters = 0;
        row.parameters = numel(row.shape);
        recount = true;
        continue;
      }
      row.tied_to = inv.tie_targets.emplace_back(std::move(tie.same_as));
    }
  if (recount)  // parameters moved between rows (and chunks): count the rows again
    for (size_t c = 0; c < sums.size(); ++c) {
      sums[c].totals = {};
      sums[c].elements = {};
      for (size_t i = c * kChunk; i < std::min(stored, (c + 1) * kChunk); ++i) {
        tally(rows[i], sums[c].totals);
        count_elements(rows[i], sums[c].elements);
      }
    }
  if (!ck.headers_read && model && !declared_float_dtype(model->arch.torch_dtype) &&
      totals.index_total_size) {
    settle_width_from_index(rows, notes, *totals.index_total_size, inv.model->arch);
    for (ChunkSums& part : sums) part.totals = {};  // the widths changed: count the rows again
    for (size_t i = 0; i < stored; ++i) tally(rows[i], sums[i / kChunk].totals);
  }
  std::set<std::string_view> stored_modules;
  ElementsByDtype elements{};
  for (const ChunkSums& part : sums) {
    add_tally(part.totals, totals);
    for (size_t d = 0; d < elements.size(); ++d) elements[d] += part.elements[d];
    stored_modules.insert(part.modules.begin(), part.modules.end());
  }
  Differences diff;
  size_t quantizer_biases = 0, first_quantizer_bias = 0;
  for (size_t i = 0; i < stored; ++i) {
    if (notes[i].what == RowNote::What::QuantizerBias && quantizer_biases++ == 0) first_quantizer_bias = i;
    if (notes[i].what == RowNote::What::Unpredicted)
      diff.extra.add("checkpoint tensor '" + rows[i].name + "' is not in the " + model->arch.architecture +
                     " template");
    else if (notes[i].what == RowNote::What::ShapeMismatch)
      if (diff.mismatched.count++ == 0)
        diff.mismatched.first = "'" + rows[i].name + "' is " + shape_to_string(rows[i].shape) +
                                " where the config implies " + shape_to_string(*notes[i].expected);
  }
  if (quantizer_biases)
    inv.notes.push_back(
        std::to_string(quantizer_biases) + " biases stored beside " + model->arch.quantization->key +
        " packed weights (e.g. '" + rows[first_quantizer_bias].name +
        "') belong to layers the model builds without one (the quantizer kept a bias for every layer): "
        "extras, not loaded");
  if (matcher) {
    // Tied copies are listed (not stored) at their template position.
    matcher->for_each_tied_copy([&](const TemplateMatch& m, const std::string& name) {
      rows.push_back(template_row(*m.tensor, name, *m.shape, m.dtype, !m.model_dtype, m.kind));
      keys.push_back(m.order);
    });
    report_missing(*matcher, stored_modules, *inv.model, inv.config ? &*inv.config : nullptr, diff.missing,
                   inv.warnings);
  }
  if (diff.mismatched.count) {
    // transformers refuses such a checkpoint (size mismatch) unless told to ignore it: the template's count
    // is the model as configured, not the weights at hand, so both are reported.
    inv.shape_contradictions = diff.mismatched.count;
    inv.warnings.push_back(
        "the checkpoint contradicts config.json in " + std::to_string(diff.mismatched.count) +
        " tensor shape" + (diff.mismatched.count == 1 ? "" : "s") + " (" + diff.mismatched.first +
        (diff.mismatched.count > 1 ? ", and " + std::to_string(diff.mismatched.count - 1) + " more" : "") +
        "): the model will not load as configured; parameters " +
        with_thousands(count_configured(*inv.model)) + " as configured, " +
        with_thousands(totals.parameters) + " as stored");
  }
  diff.missing.flush(inv.warnings);
  diff.extra.flush(inv.warnings);
  if (totals.index_total_size && *totals.index_total_size != totals.bytes)
    report_total_size(totals, ck, rows, inv);
  inv.checkpoint = totals;
  sort_rows(rows, keys);
  inv.tensors = std::move(rows);
  if (inv.model && ck.headers_read)
    if (std::optional<DType> d = dominant_float_dtype(elements)) {
      inv.model->arch.stored_dtype = d;
      inv.model->arch.stored_dtype_source = "safetensors headers";
    }
  if (inv.model) {
    inv.arch = inv.model->arch;
  } else {
    if (ck.onnx) relabel_folded_lookups(*ck.onnx, inv.tensors);
    if (ck.gguf) place_gguf_architecture_tensors(*ck.gguf, inv.tensors);
    inv.arch = infer_record(inv.tensors);
    std::vector<NamedPlacement> parameters;
    for (const InventoryTensor& t : inv.tensors)
      if (t.kind == TensorKind::Parameter) parameters.push_back({t.name, t.placement, &t.shape});
    derive_facts(parameters, inv.arch);
    if (ck.gguf) {  // a GGUF file states what config.json and the tokenizer files state elsewhere
      for (std::string& n : fill_record_from_gguf(*ck.gguf, inv.tensors, inv.arch, inv.source))
        inv.notes.push_back(std::move(n));
      // ggml keeps a tensor's name in 64 bytes with its terminator (GGML_MAX_NAME): llama.cpp refuses to load
      // a file with a longer one, which this reader reads.
      size_t long_names = 0;
      const InventoryTensor* first = nullptr;
      for (const InventoryTensor& t : inv.tensors)
        if (t.name.size() >= 64 && long_names++ == 0) first = &t;
      if (first)
        inv.warnings.push_back(std::to_string(long_names) +
                               " tensor name(s) of 64 bytes or more (the first: '" + printable(first->name) +
                               "', " + std::to_string(first->name.size()) +
                               " bytes): llama.cpp refuses to load this file (GGML_MAX_NAME is 64)");
      inv.embedded_tokenizer = tokenizer_from_gguf(*ck.gguf);
    }
    if (ck.onnx) {  // ONNX Runtime GenAI states the decoder's dimensions beside the model; else the graph
      std::optional<json::Document> genai;
      std::error_code ec;
      if (const std::filesystem::path p = files.root / "genai_config.json";
          std::filesystem::is_regular_file(p, ec))
        genai = json::Document::parse(read_small_file(p, kMaxConfigBytes), p.string());
      for (std::string& n :
           fill_record_from_onnx(*ck.onnx, genai ? &genai->root() : nullptr, inv.tensors, inv.arch))
        inv.notes.push_back(std::move(n));
      // An export computes (and keeps its cache) in the type of its float weights.
      if (std::optional<DType> d = dtype_in_headers(inv.tensors)) {
        inv.arch.stored_dtype = d;
        inv.arch.stored_dtype_source = "ONNX initializers";
      }
    }
    // Bare weights compute in the float type of their matrices (a bf16 safetensors file, an F16 GGUF); the
    // embedding table is looked up, not computed with. A GGUF whose matrices are all quantized runs in
    // llama.cpp's f16, whatever its f32 norms and embedding.
    if (!inv.arch.stored_dtype) {
      ElementsByDtype matrices{};
      for (const InventoryTensor& t : inv.tensors)
        if (t.shape.size() >= 2 && t.placement.block != Block::Embedding) count_elements(t, matrices);
      if (std::optional<DType> d = dominant_float_dtype(matrices)) {
        inv.arch.stored_dtype = d;
        inv.arch.stored_dtype_source = "the weight matrices' " + ck.format + " dtype";
      } else if (ck.gguf) {
        inv.arch.stored_dtype = DType::F16;
        inv.arch.stored_dtype_source = "llama.cpp's compute type (every matrix quantized)";
      }
    }
  }
  return inv;
}

// What the config reader left out or assumed (a null depth, an eps below 0) joins the inventory's warnings,
// so that every command shows it and every export holds it; once, should the inventory have made it too.
void take_config_warnings(Inventory& inv) {
  if (!inv.config) return;
  for (const std::string& w : inv.config->warnings())
    if (std::find(inv.warnings.begin(), inv.warnings.end(), w) == inv.warnings.end())
      inv.warnings.push_back(w);
}

}  // namespace

Inventory build_inventory(const LocalModelFiles& files) {
  Inventory inv = read_inventory(files);
  take_config_warnings(inv);
  return inv;
}

Inventory inventory_from_config_text(const std::string& config_json, const std::string& source) {
  Inventory inv;
  inv.source = source;
  inv.config = ModelConfig::parse(config_json, source);
  inv.model = build_template(*inv.config);
  inv.model->arch.quantization = read_declared_quantization(*inv.config, {});
  inv.origin = InventoryOrigin::Template;
  inv.tensors = template_rows(*inv.model, config_dtype(*inv.model));
  inv.arch = inv.model->arch;
  take_config_warnings(inv);
  return inv;
}

Inventory identity_only_inventory(ModelConfig cfg, std::string source, const std::string& why) {
  Inventory inv;
  inv.source = std::move(source);
  inv.arch = record_without_template(cfg);
  inv.config = std::move(cfg);
  inv.warnings.push_back(why + ": parameters, layers and memory are not computed");
  take_config_warnings(inv);
  return inv;
}

Inventory build_inventory_or_identity(const LocalModelFiles& files) {
  try {
    return build_inventory(files);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported || !files.config) throw;
    return identity_only_inventory(
        ModelConfig::parse(read_small_file(*files.config, kMaxConfigBytes), files.config->string()),
        files.display_name, e.rule());
  }
}

}  // namespace ma
