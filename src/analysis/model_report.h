// The whole seed-002 report of one model, as data. Built once; rendered by report/ as console text, JSON,
// Markdown, a diagram, or a row of a comparison table.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/architecture_details.h"
#include "analysis/attention_summary.h"
#include "analysis/capabilities.h"
#include "analysis/identity.h"
#include "analysis/layer_summary.h"
#include "analysis/memory.h"
#include "analysis/moe_summary.h"
#include "analysis/parameter_counts.h"
#include "analysis/peft_adapter.h"
#include "analysis/quantization.h"
#include "analysis/ssm_summary.h"
#include "formats/tokenizer.h"
#include "model/inventory.h"

namespace ma {

struct ModelReport {
  // False for a config whose architecture has no template (ChatGLM, Baichuan, ...): identity, tokenizer and
  // capabilities are reported, parameters and memory are not (they would be guesses).
  bool architecture_known = true;
  Identity identity;
  ArchitectureDetails architecture;
  AttentionSummary attention;
  std::optional<MoeSummary> moe;
  std::optional<SsmSummary> ssm;  // Mamba, Mamba-2, gated-DeltaNet layers and the hybrids
  ArchitectureRecord arch;        // what the model is: stacks and layers (a copy of the inventory's record)
  LayerSummary layer_summary;
  ParameterCounts parameters;
  std::string weights_format;  // of the weight files read ("safetensors", "gguf", "pytorch zip"); "" for none
  QuantizationInfo quantization;
  MemoryReport memory;
  std::optional<TokenizerInfo> tokenizer;
  Capabilities capabilities;
  std::optional<ModelMetadata> metadata;
  std::vector<std::string> warnings;
  // Several models analysed together (seed 001's "Ratio: 3.1x larger"): total parameters over the first
  // model's. Unset for a single model, or when either count is unknown.
  std::optional<double> parameters_vs_first;
  // A PEFT adapter directory: the adapter itself; the rest of the report is its base model's when the base
  // was found (the merged model's figures), else the adapter's tensors alone.
  std::optional<AdapterSummary> adapter;
};

// A context past what the model was built for is sized as asked (rope scaling may carry it), and said to be
// beyond it: the warning naming `what` ("--context 200,000"), or none within the maximum or without one.
std::optional<std::string> context_beyond_maximum(const std::string& what, uint64_t context,
                                                  const ModelReport& report);

// Sets parameters_vs_first on every report after the first.
void relate_to_first(std::vector<ModelReport>& reports);

// The report copies what it shows; the inventory need not outlive it.
ModelReport build_model_report(const Inventory& inventory, const LocalModelFiles& files,
                               const ReportOptions& options);

}  // namespace ma
