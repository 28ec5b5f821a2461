#include "analysis/model_weight_stats.h"

#include <chrono>
#include <memory>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "analysis/block_scale.h"
#include "analysis/element_decoder.h"
#include "analysis/module_class.h"
#include "analysis/peft_adapter.h"
#include "analysis/readable_values.h"
#include "core/error.h"
#include "core/glob.h"
#include "core/json.h"
#include "formats/checkpoint.h"
#include "io/file_source.h"
#include "model/tensor_placement.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// A base model in the Hugging Face cache: models--org--name/refs/main -> snapshots/<commit>, with its weights
// there (a snapshot holding only configs, as our own analyses leave, is not a base model).
std::optional<fs::path> cached_snapshot(const fs::path& hub_cache, const std::string& repo_id) {
  std::string folder = "models--";
  for (char c : repo_id) folder += c == '/' ? std::string("--") : std::string(1, c);
  fs::path repo = hub_cache / folder;
  std::error_code ec;
  fs::path ref = repo / "refs" / "main";
  if (!fs::is_regular_file(ref, ec)) return std::nullopt;
  std::string commit = read_small_file(ref, 64);
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == ' ')) commit.pop_back();
  fs::path snap = repo / "snapshots" / commit;
  if (commit.find('/') != std::string::npos || !fs::is_directory(snap, ec)) return std::nullopt;
  return snap;
}

bool has_weights(const LocalModelFiles& m) {
  return m.format != CheckpointFormat::None;
}

bool selected(const StatsSelection& sel, const std::string& name, const TensorPlacement& p) {
  bool in = sel.include.empty();
  for (const std::string& g : sel.include) in = in || glob_match(g, name);
  for (const std::string& g : sel.exclude) in = in && !glob_match(g, name);
  if (in && sel.layers) in = p.layer && *p.layer >= sel.layers->first && *p.layer <= sel.layers->second;
  return in;
}

bool is_float8(DType t) {
  return dtype_info(t).is_float && dtype_bits(t) == 8;
}

// The scales of a float8 weight stored beside it (analysis/block_scale.h), read now (a few KB); null when it
// has none, or (with a warning) when the scale's shape fits no block grid over the weight.
std::shared_ptr<const BlockScale> scale_of(
    const StoredTensor& w, const Checkpoint& ck,
    const std::unordered_map<std::string_view, const StoredTensor*>& scales, const fs::path& root,
    std::vector<std::string>& warnings) {
  if (!is_float8(w.dtype)) return nullptr;
  for (const std::string& name : scale_names_for(w.name)) {
    const auto found = scales.find(name);
    if (found == scales.end()) continue;
    const StoredTensor& s = *found->second;
    // A scale applies by (row, column): the scan reads a transposed view in its stored order, where block
    // positions are not the weight's, and reads the scale itself in the same stored order.
    if (w.permuted || s.permuted) {
      warnings.push_back(w.name + ": it or its scale " + name +
                         " is a view not in row-major order on disk (a transpose), so the scale's blocks "
                         "cannot be matched to the weight's; the statistics are of its float8 codes");
      return nullptr;
    }
    const std::optional<ScaleGrid> grid = scale_grid(w.shape, s.shape);
    // Read whole into memory: block FP8 has one scale per 16,384 weights, a per-row scale one per row; a
    // scale of more than 16 M entries is no such thing (and would be gigabytes to hold).
    constexpr uint64_t kMaxScaleEntries = uint64_t{1} << 24;
    if (!grid || s.numel > kMaxScaleEntries || !dtype_info(s.dtype).is_float || is_block_type(s.dtype) ||
        s.strided || s.encoded) {
      warnings.push_back(w.name + ": its scale " + name + " " + shape_to_string(s.shape) +
                         " fits no block grid over " + shape_to_string(w.shape) +
                         "; the statistics are of its float8 codes");
      return nullptr;
    }
    auto out = std::make_shared<BlockScale>();
    out->tensor = name;
    out->cols = w.shape.back();
    out->block_rows = grid->block_rows;
    out->block_cols = grid->block_cols;
    out->grid_cols = grid->grid_cols;
    const CheckpointFile& f = ck.files.at(s.file_index);
    std::string raw;
    FileSource(root / f.name).read_exact(f.data_start + s.data_begin, s.bytes(), raw);
    out->scales.resize(s.numel);
    ElementDecoder().decode(s.dtype, raw.data(), static_cast<size_t>(s.numel), out->scales.data());
    return out;
  }
  return nullptr;
}

void add_checkpoint(const LocalModelFiles& files, bool trainable, const StatsSelection& sel,
                    PlannedScan& plan, std::vector<std::string>& warnings) {
  if (!has_weights(files))
    throw Error(
        ErrorKind::NotFound, files.display_name, "",
        "statistics need the weight files (*.safetensors, PyTorch .bin/.pt, GGUF, ONNX); there are none" +
            std::string(files.unread_weights.empty() ? "" : " in a format this command reads"));
  Checkpoint ck = read_checkpoint(files);
  if (!ck.headers_read)
    throw Error(ErrorKind::NotFound, files.display_name, "",
                "statistics need the weight files, not only an index");
  check_value_read_budget(files, ck);
  // Scale tensors by name, for the float8 weights beside them (possibly in another shard).
  std::unordered_map<std::string_view, const StoredTensor*> scales;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors)
      if (t.name.ends_with("_scale_inv") || t.name.ends_with("_scale")) scales.emplace(t.name, &t);
  for (const CheckpointFile& f : ck.files) {
    const fs::path path = files.root / f.name;
    for (const StoredTensor& t : f.tensors) {
      if (!selected(sel, t.name, place_tensor(t.name))) continue;
      if (std::string why = why_values_unreadable(t.dtype, t.strided, t.encoded); !why.empty()) {
        warnings.push_back(t.name + ": " + why + "; left out of the statistics");
        ++plan.unreadable;
        continue;
      }
      plan.items.push_back({t.name, path, f.data_start + t.data_begin, t.bytes(), t.dtype, t.shape, t.numel,
                            scale_of(t, ck, scales, files.root, warnings), t.permuted});
      plan.trainable.push_back(trainable);
      plan.counted_parameters.push_back(t.tied ? 0 : t.numel);
      plan.counted_bytes.push_back(t.held_bytes());
    }
  }
}

}  // namespace

ModelWeightsInput weights_input(LocalModelFiles model, const fs::path& hub_cache,
                                std::vector<std::string>& warnings,
                                const std::optional<fs::path>& base_override) {
  ModelWeightsInput in;
  if (base_override) {
    in.model = std::move(model);
    in.frozen_base = locate_local_model(base_override->string());
    return in;
  }
  const fs::path adapter_config = model.root / "adapter_config.json";
  std::error_code ec;
  const bool adapter = is_peft_adapter(model);
  in.model = std::move(model);
  if (!adapter) return in;
  json::Document doc =
      json::Document::parse(read_small_file(adapter_config, 1 << 20), adapter_config.string());
  const json::Value* base = doc.root().find("base_model_name_or_path");
  if (!base || !base->is_string() || base->as_string().empty()) {
    warnings.push_back("adapter_config.json names no base model: only the adapter's tensors are listed");
    return in;
  }
  const std::string name(base->as_string());
  std::vector<fs::path> candidates;
  fs::path as_path(name);
  candidates.push_back(as_path.is_absolute() ? as_path : in.model.root / as_path);
  if (as_path.is_relative()) candidates.push_back(as_path);
  // A path from the machine that trained the adapter: the base often sits beside the adapter here too.
  if (!as_path.filename().empty()) candidates.push_back(in.model.root.parent_path() / as_path.filename());
  if (auto snap = cached_snapshot(hub_cache, name)) candidates.push_back(*snap);
  for (const fs::path& c : candidates) {
    if (!fs::is_directory(c, ec)) continue;
    LocalModelFiles m = locate_local_model(c.string());
    if (!has_weights(m)) continue;
    in.frozen_base = std::move(m);
    in.base_found_at = c;
    return in;
  }
  warnings.push_back("base model '" + name +
                     "' not found locally (as a directory or in the Hugging Face cache): "
                     "only the adapter's tensors are listed");
  return in;
}

PlannedScan plan_scan(const ModelWeightsInput& in, const StatsSelection& sel,
                      std::vector<std::string>& warnings) {
  PlannedScan plan;
  if (in.frozen_base) add_checkpoint(*in.frozen_base, false, sel, plan, warnings);
  add_checkpoint(in.model, true, sel, plan, warnings);
  return plan;
}

WeightStats compute_weight_stats(const PlannedScan& plan, const ScanOptions& options) {
  WeightStats ws;
  ws.eps = options.eps;
  ws.bins = options.bins;
  auto start = std::chrono::steady_clock::now();
  ws.tensors = scan_weights(plan.items, options);
  ws.summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (size_t i = 0; i < ws.tensors.size(); ++i) {
    TensorStats& s = ws.tensors[i];
    const TensorPlacement p = place_tensor(s.name);
    s.layer = p.layer;
    s.block = std::string(block_name(p.block));
    s.role = p.role;
    s.module_class = module_class(p.block, p.role);
    s.trainable = plan.trainable[i];
    if (s.shape.size() == 2) {
      s.rows = s.shape[0];
      s.cols = s.shape[1];
      s.design_rank = std::min(s.shape[0], s.shape[1]);
    }
    ws.summary.tensors += 1;
    const uint64_t parameters = plan.counted_parameters[i];
    ws.summary.total_parameters += parameters;
    (s.trainable ? ws.summary.trainable_parameters : ws.summary.non_trainable_parameters) += parameters;
    ws.summary.bytes += plan.counted_bytes[i];
  }
  return ws;
}

}  // namespace ma
