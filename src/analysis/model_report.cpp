#include "analysis/model_report.h"

#include "core/units.h"

namespace ma {
namespace {

// The multi-token-prediction module: the layers of the MTP stack's range and any tensor placed in the mtp
// block. DeepSeek's safetensors store it beside the model as extras transformers does not build (their
// parameters are counted here, outside the total); a GGUF's nextn layers, and MiMo's, are parameters of
// the model, in the total, and only their bytes are counted here. The bytes are those the quantization
// gives each tensor (a block-FP8 checkpoint stores the module in FP8 with its scales, as the rest), which a
// config's template rows, at the model's dtype, do not.
StoredModule stored_mtp(const Inventory& inv, const QuantizationInfo& q) {
  const StackSpec* mtp = inv.arch.stack(StackRole::Mtp);
  const bool sized = q.tensor_bytes.size() == inv.tensors.size();
  StoredModule n;
  for (size_t i = 0; i < inv.tensors.size(); ++i) {
    const InventoryTensor& t = inv.tensors[i];
    const bool in_stack = mtp && t.placement.layer && t.stack() == mtp->path &&
                          *t.placement.layer >= mtp->first_index &&
                          *t.placement.layer < mtp->first_index + mtp->layers.size();
    if (in_stack || t.placement.block == Block::Mtp) {
      if (t.kind == TensorKind::Extra) n.parameters += t.parameters;
      n.bytes += sized ? q.tensor_bytes[i] : t.bytes;
    }
  }
  return n;
}

}  // namespace

ModelReport build_model_report(const Inventory& inventory, const LocalModelFiles& files,
                               const ReportOptions& options) {
  ModelReport r;
  r.parameters = count_parameters(inventory);
  r.arch = inventory.arch;
  if (inventory.checkpoint && inventory.checkpoint->headers_read)
    r.weights_format = inventory.checkpoint->format;
  r.layer_summary = summarize_layers(inventory.arch.layers());
  if (!options.skip_tokenizer)
    r.tokenizer = inventory.embedded_tokenizer ? inventory.embedded_tokenizer : read_tokenizer(files.root);
  ReportInputs in{inventory, files, r.parameters, r.tokenizer, options};
  r.identity = identify(in);
  r.quantization = analyze_quantization(in);
  r.architecture = describe_architecture(inventory.arch, r.parameters, stored_mtp(inventory, r.quantization));
  r.attention = summarize_attention(inventory.arch);
  r.moe = summarize_moe(inventory.arch, r.parameters);
  r.ssm = summarize_ssm(inventory.arch);
  r.architecture_known = inventory.model.has_value() || !inventory.tensors.empty();
  r.capabilities = assess_capabilities(in);
  if (r.architecture_known) r.memory = estimate_memory(in, r.quantization, r.capabilities);
  r.metadata = options.metadata;
  r.warnings = inventory.warnings;
  // The tokenizer's (empty special tokens, config ids naming another token) are the model's to report too.
  if (r.tokenizer)
    r.warnings.insert(r.warnings.end(), r.tokenizer->warnings.begin(), r.tokenizer->warnings.end());
  if (options.context)
    if (auto w = context_beyond_maximum("--context " + with_thousands(*options.context), *options.context, r))
      r.warnings.push_back(*w);
  return r;
}

std::optional<std::string> context_beyond_maximum(const std::string& what, uint64_t context,
                                                  const ModelReport& report) {
  const std::optional<uint64_t>& most = report.capabilities.max_context_length;
  if (!most || context <= *most) return std::nullopt;
  return what + " is beyond the model's maximum context of " + with_thousands(*most) +
         ": the KV cache is sized for it, the model may not work at that length";
}

void relate_to_first(std::vector<ModelReport>& reports) {
  if (reports.size() < 2 || !reports.front().architecture_known || reports.front().parameters.total == 0)
    return;
  const double first = static_cast<double>(reports.front().parameters.total);
  for (ModelReport& r : reports)
    if (r.architecture_known) r.parameters_vs_first = static_cast<double>(r.parameters.total) / first;
}

}  // namespace ma
