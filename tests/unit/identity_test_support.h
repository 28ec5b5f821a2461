// Loads a model directory into everything ReportInputs points to, for the identity and capabilities tests.
// A config whose architecture we do not build (ChatGLM, Baichuan, ...) gets a config-only inventory: naming
// a model and reading its context need no template.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

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

  ReportInputs inputs() const {
    return {inventory, inventory.config ? &*inventory.config : nullptr, files, params, tokenizer, options};
  }
};

inline std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& dir) {
  auto m = std::make_unique<LoadedModel>();
  m->files = locate_local_model(dir.string());
  m->options.model_id = dir.string();
  try {
    m->inventory = build_inventory(m->files);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported || !m->files.config) throw;
    m->template_built = false;
    m->inventory = Inventory{};
    m->inventory.config =
        ModelConfig::parse(read_small_file(*m->files.config, 1 << 24), m->files.config->string());
  }
  m->params = count_parameters(m->inventory);
  m->tokenizer = read_tokenizer(m->files.root);
  return m;
}

// A config-only model from JSON text (no files on disk beyond nothing): for synthetic edge cases.
inline std::unique_ptr<LoadedModel> config_only(const std::string& json, const std::string& model_id) {
  auto m = std::make_unique<LoadedModel>();
  m->options.model_id = model_id;
  m->template_built = false;
  m->inventory.config = ModelConfig::parse(json, "config.json");
  return m;
}

}  // namespace ma::test
