// Loading a model the way build_model_report does, up to the report inputs, for the section tests (unit).
// A config whose architecture we do not build (ChatGLM, Baichuan, ...) gets a config-only inventory:
// naming a model and reading its context need no template.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "analysis/memory.h"
#include "analysis/parameter_counts.h"
#include "analysis/report_inputs.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "formats/tokenizer.h"
#include "io/file_source.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {

struct LoadedModel {
  LocalModelFiles files;
  Inventory inventory;
  ParameterCounts params;
  std::optional<TokenizerInfo> tokenizer;
  ReportOptions options;
  bool template_built = true;

  ReportInputs inputs() const { return {inventory, files, params, tokenizer, options}; }
  ReportInputs inputs(const ReportOptions& o) const { return {inventory, files, params, tokenizer, o}; }
};

inline std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& path,
                                               bool with_tokenizer = true) {
  auto m = std::make_unique<LoadedModel>();
  m->files = locate_local_model(path.string());
  m->options.model_id = path.string();
  m->options.skip_tokenizer = !with_tokenizer;
  try {
    m->inventory = build_inventory(m->files);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported || !m->files.config) throw;
    m->template_built = false;
    m->inventory = identity_only_inventory(
        ModelConfig::parse(read_small_file(*m->files.config, 1 << 24), m->files.config->string()),
        m->files.display_name, e.rule());
  }
  m->params = count_parameters(m->inventory);
  if (with_tokenizer) m->tokenizer = read_tokenizer(m->files.root);
  return m;
}

// `relative` under ../shared/data (e.g. "hf-configs/openai-community__gpt2"); null without the data.
inline std::unique_ptr<LoadedModel> load_shared(const std::string& relative, bool with_tokenizer = false) {
  auto data = shared_data();
  if (!data) return nullptr;
  return load_model(*data / relative, with_tokenizer);
}

// A config-only model from JSON text: for synthetic edge cases.
inline std::unique_ptr<LoadedModel> config_only(const std::string& json, const std::string& model_id) {
  auto m = std::make_unique<LoadedModel>();
  m->options.model_id = model_id;
  m->template_built = false;
  m->inventory = identity_only_inventory(ModelConfig::parse(json, "config.json"), model_id, "test");
  return m;
}

inline MemoryReport memory_of(const LoadedModel& l, const ReportOptions& o = {}) {
  const ReportInputs in = l.inputs(o);
  return estimate_memory(in, analyze_quantization(in), assess_capabilities(in));
}

}  // namespace ma::test

// Loads ../shared/data/<relative> into `var` (a std::unique_ptr<LoadedModel>), or skips the test, visibly,
// without the shared data.
#define ANALYZE_OR_SKIP(var, relative)          \
  auto var = ::ma::test::load_shared(relative); \
  if (!var) GTEST_SKIP() << "../shared/data is not available"
// The same with the path in two parts: LOAD_OR_SKIP(m, "hf-configs", "org__name").
#define LOAD_OR_SKIP(var, sub, name) ANALYZE_OR_SKIP(var, std::string(sub) + "/" + (name))
