// Shared by the architecture, attention and MoE section tests: a model directory analysed up to the
// report inputs (inventory, parameter counts), the way build_model_report does it.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "analysis/report_inputs.h"
#include "test_support.h"

namespace ma::test {

struct AnalyzedModel {
  explicit AnalyzedModel(const std::filesystem::path& dir)
      : files(locate_local_model(dir.string())),
        inventory(build_inventory(files)),
        params(count_parameters(inventory)) {
    options.skip_tokenizer = true;
  }
  ReportInputs inputs() const {
    return {inventory, inventory.config ? &*inventory.config : nullptr, files, params, tokenizer, options};
  }
  LocalModelFiles files;
  Inventory inventory;
  ParameterCounts params;
  std::optional<TokenizerInfo> tokenizer;
  ReportOptions options;
};

// `relative` under ../shared/data (e.g. "hf-configs/openai-community__gpt2"); null without the data.
inline std::unique_ptr<AnalyzedModel> analyze_shared(const std::string& relative) {
  auto data = shared_data();
  if (!data) return nullptr;
  return std::make_unique<AnalyzedModel>(*data / relative);
}

}  // namespace ma::test
