// Family templates built from config.json text a test writes, their tensors by in-memory name and on disk,
// and the parameter count a config gives as a user sees it.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "analysis/parameter_counts.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "test_support.h"

namespace ma::test {

inline ModelTemplate template_of(const std::string& config_json) {
  return build_template(ModelConfig::parse(config_json, "config.json"));
}

// The tensor named `name` in memory; null when the template has none.
inline const TemplateTensor* find_tensor(const ModelTemplate& t, const std::string& name) {
  for (const TemplateTensor& x : t.tensors)
    if (x.name == name) return &x;
  return nullptr;
}

// The position of the tensor named `name` in the template's order (its size, and a test failure, if absent).
inline size_t tensor_index(const ModelTemplate& t, const std::string& name) {
  for (size_t i = 0; i < t.tensors.size(); ++i)
    if (t.tensors[i].name == name) return i;
  ADD_FAILURE() << "no tensor " << name;
  return t.tensors.size();
}

// The on-disk name of a tensor checkpoints store under another name (its first piece), else its own.
inline std::string stored_name(const TemplateTensor& x) {
  return x.disk.empty() ? x.name : x.disk.front().name;
}

// How many tensors a checkpoint of the template stores and how many values they hold (disk_form).
struct DiskTotals {
  uint64_t tensors = 0, elements = 0;
};
inline DiskTotals disk_totals(const ModelTemplate& t) {
  DiskTotals d;
  for (const DiskTensor& x : disk_form(t)) {
    ++d.tensors;
    d.elements += numel(x.shape);
  }
  return d;
}

// The parameter counts of the model `config_json` describes, through the path a config.json the user names
// takes; and their total, num_parameters.
inline ParameterCounts counts_of(const std::string& config_json) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << config_json;
  return count_parameters(build_inventory(locate_local_model((dir.path() / "config.json").string())));
}
inline uint64_t parameters_of(const std::string& config_json) {
  return counts_of(config_json).total;
}

// `text` with its first `from` replaced by `to` (a test's variant of a config it writes; `from` must be
// there).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Every tensor of the template lands in a block of its own (tensor_placement.h): none is left in "other".
inline void expect_every_tensor_placed(const ModelTemplate& t) {
  for (const TemplateTensor& x : t.tensors) EXPECT_NE(place_tensor(x.name).block, Block::Other) << x.name;
}

// num_parameters of a template: its parameters' elements, a tied head once (its copy names the storage).
inline uint64_t total_of(const ModelTemplate& t) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.tied_to.empty()) n += numel(x.shape);
  return n;
}

// The parameters' elements under a module prefix ("text_encoder."), ties included: a part's own size.
inline uint64_t parameters_under(const ModelTemplate& t, const std::string& prefix) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.name.starts_with(prefix)) n += numel(x.shape);
  return n;
}

// `n` labels as a config.json's id2label spells them ("0": "l0", ...): a detector's or a classifier's head
// has one output per label.
inline std::string id2label_of(int n) {
  std::string s = R"("id2label":{)";
  for (int i = 0; i < n; ++i)
    s += (i ? "," : "") + ("\"" + std::to_string(i) + "\":\"l" + std::to_string(i) + "\"");
  return s + "}";
}

// The inventory of a checkpoint of `config_json` written in the names and shapes its template says Hub
// checkpoints store (disk_form), plus `extra` tensors: what reading such a checkpoint gives.
struct StoredCheckpoint {
  Inventory inventory;
  size_t written = 0;  // tensors in the file
};
inline StoredCheckpoint stored_checkpoint(const std::string& config_json,
                                          std::vector<TensorToWrite> extra = {}, DType dtype = DType::BF16) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << config_json;
  std::vector<TensorToWrite> s;
  for (const DiskTensor& x : disk_form(template_of(config_json))) s.push_back({x.name, dtype, x.shape, {}});
  for (TensorToWrite& x : extra) s.push_back(std::move(x));
  write_safetensors(dir.path() / "model.safetensors", s);
  return {build_inventory(locate_local_model(dir.path().string())), s.size()};
}

// How many of an inventory's tensors are extras: stored, known, not built by transformers.
inline size_t extras_in(const Inventory& inv) {
  size_t n = 0;
  for (const InventoryTensor& x : inv.tensors) n += x.kind == TensorKind::Extra;
  return n;
}

// A small checkpoint of `config_json` (in float16, plus `extra`) reads with no warning and nothing left over
// as an extra: every stored tensor is one the template predicts.
inline void expect_reads_cleanly(const std::string& config_json, std::vector<TensorToWrite> extra = {}) {
  const Inventory inv = stored_checkpoint(config_json, std::move(extra), DType::F16).inventory;
  EXPECT_TRUE(inv.warnings.empty()) << config_json << ": "
                                    << (inv.warnings.empty() ? "" : inv.warnings.front());
  EXPECT_EQ(extras_in(inv), 0u) << config_json;
}

// Why building a config fails: the error's kind and field; kind Internal and field "accepted" when it builds.
struct Refusal {
  ErrorKind kind = ErrorKind::Internal;
  std::string field = "accepted";
};
inline Refusal refusal_of(const std::string& config_json) {
  try {
    template_of(config_json);
  } catch (const Error& e) {
    return {e.kind(), e.field()};
  }
  return {};
}

}  // namespace ma::test
