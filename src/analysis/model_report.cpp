#include "analysis/model_report.h"

namespace ma {

ModelReport build_model_report(const Inventory& inventory, const LocalModelFiles& files, const ReportOptions& options) {
  ModelReport r;
  r.parameters = count_parameters(inventory);
  r.arch = inventory.arch;
  r.layer_summary = summarize_layers(inventory.arch.layers());
  if (!options.skip_tokenizer) r.tokenizer = read_tokenizer(files.root);
  ReportInputs in{inventory, files, r.parameters, r.tokenizer, options};
  r.identity = identify(in);
  r.architecture = describe_architecture(inventory.arch);
  r.attention = summarize_attention(inventory.arch);
  r.moe = summarize_moe(inventory.arch, r.parameters);
  r.quantization = analyze_quantization(in);
  r.architecture_known = inventory.model.has_value() || !inventory.tensors.empty();
  if (r.architecture_known) r.memory = estimate_memory(in);
  r.capabilities = assess_capabilities(in);
  r.metadata = options.metadata;
  r.warnings = inventory.warnings;
  return r;
}

}  // namespace ma
