// What every section of the model report is computed from.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/metadata.h"
#include "analysis/parameter_counts.h"
#include "core/dtype.h"
#include "formats/model_files.h"
#include "formats/tokenizer.h"
#include "model/config.h"
#include "model/inventory.h"

namespace ma {

// User choices (command-line flags) that estimates depend on.
struct ReportOptions {
  std::string model_id;                   // as the user named the model
  uint64_t batch = 1;                     // --batch
  std::optional<uint64_t> context;        // --context; default: the model's maximum context
  std::optional<DType> kv_dtype;          // --kv-dtype; default: the model's dtype (16-bit when unknown)
  bool skip_tokenizer = false;            // --skip-tokenizer
  std::optional<ModelMetadata> metadata;  // a Hub model's info
};

struct ReportInputs {
  const Inventory& inventory;
  const LocalModelFiles& files;
  const ParameterCounts& params;
  const std::optional<TokenizerInfo>& tokenizer;
  const ReportOptions& options;
};

}  // namespace ma
