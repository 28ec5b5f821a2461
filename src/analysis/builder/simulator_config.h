// Seed 003's deliverable as data: a simulator config in Mantile's schema (reference/mantile.md). Every
// component instance of the model (layer_components.h) is grouped with the instances of the same class,
// facts and parameter count into one `layer_types` entry; an entry is supported when its class is in the
// catalogue. The entries' count x parameter_count sums to the model's exact total, checked on every build,
// except the multi-token-prediction entries transformers does not build (mantile.md: "MTP modules ... have
// no class, so a generated config marks them supported: false with a gap report"), which are listed with
// `counted_in_total_params: false` in their specs.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/builder/layer_catalogue.h"
#include "analysis/builder/layer_components.h"
#include "analysis/parameter_counts.h"
#include "model/inventory.h"

namespace ma {

struct LayerTypeEntry {
  std::string name;        // "attention", "attention_sliding", "moe", "norm", "lm_head", ...
  std::string class_name;  // the simulator class it maps to (a proposed name when the catalogue lacks it)
  ComponentKind kind = ComponentKind::Other;
  uint64_t count = 0;
  bool supported = false;
  // layer_idx: the first layer holding one, as an index in its stack (the model's layer index for the
  // language model); unset for what sits outside the layers (embedding, head, towers). Mantile's own configs
  // give the first.
  std::optional<uint64_t> layer_idx;
  std::vector<uint64_t> layers;  // every layer holding one (outside-layer instances not listed)
  uint64_t parameter_count = 0;  // per instance
  // Supported: exactly the class's constructor arguments (layer_idx aside), in the catalogue's order; an
  // argument the model does not determine is null. Unsupported: every fact the instance has.
  Facts specs;
  Facts facts;                                   // every fact of the first instance, whatever the class takes
  std::vector<std::string> missing_arguments;    // catalogue arguments no fact answers (left null)
  std::vector<ComponentTensor> example_tensors;  // of the first instance
  std::string gap_report;                        // set by the caller for unsupported entries (a path)
  // Why an unsupported entry is a gap when the catalogue has its class: the class cannot rebuild the layer
  // from the arguments it takes; or what is unknown about it (an MTP layer the template does not build).
  // Empty: the catalogue has no such class.
  std::string gap_reason;
  bool in_total_params = true;   // false: outside total_params and the entries' sum (an MTP layer)
  bool parameters_known = true;  // false: parameter_count is 0 for want of the layer's tensors
};

struct SimulatorConfig {
  std::string model_id;     // file-name-safe: "meta-llama__llama-3.3-70b-instruct"
  std::string hf_model_id;  // "meta-llama/Llama-3.3-70B-Instruct"
  std::string name;         // "Llama-3.3-70B-Instruct"
  uint64_t hidden_size = 0;
  uint64_t num_layers = 0;
  uint64_t vocab_size = 0;
  ParameterCounts parameters;         // total is `total_params`
  std::optional<DType> stored_dtype;  // for the gap reports' tensor dtypes
  std::string quantization;  // the declared method ("fp8"), "" when none: weights are stored narrower
  std::vector<LayerTypeEntry> layer_types;
  std::string catalogue_source;
  std::vector<std::string> notes;  // what the config leaves out and why (an MTP module transformers omits)
};

// `model`: what the user named (a directory, a Hub id). Throws Error(Internal) when the entries do not sum
// to the total (a bug), Error(Unsupported) for a model without a template.
SimulatorConfig build_simulator_config(const Inventory& inv, const std::string& model,
                                       const LayerCatalogue& catalogue);

// The directory of a local MODEL however it is spelt (".", "DIR/.", "DIR/", "DIR/config.json",
// "DIR/pytorch_model.bin", a link): the canonical directory holding the config and weights, whose name
// names the model and finds its published counts. None for what is not a local path (a Hub id).
std::optional<std::filesystem::path> local_model_directory(const std::string& model);

// "70.6B", "579.1M": Mantile's total_params_formatted (one decimal).
std::string format_parameter_count(uint64_t n);

}  // namespace ma
