#include "report/gap_report_markdown.h"

#include <algorithm>

#include "core/units.h"
#include "report/markdown_writer.h"

namespace ma {
namespace {

// A tower holds hundreds of tensors: the tables show the first ones, the totals count them all.
constexpr size_t kShownTensors = 48;

std::string fact_text(const FactValue& v) {
  if (const auto* n = std::get_if<uint64_t>(&v)) return std::to_string(*n);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return "null";
}

std::string layers_text(const LayerTypeEntry& e) {
  if (e.layers.empty()) return "outside the layers";
  std::vector<uint32_t> sorted;
  for (uint64_t l : e.layers) sorted.push_back(static_cast<uint32_t>(l));
  std::sort(sorted.begin(), sorted.end());
  return "layers " + index_ranges(sorted);
}

void tensors_section(MarkdownWriter& md, const GapAnalysis& g) {
  md.heading(2, "Tensors of one instance");
  md.paragraph(
      "In-memory names as transformers builds them (the first instance); dtype as the model declares its "
      "weights" +
      (g.quantization.empty()
           ? std::string(".")
           : " (the checkpoint also declares " + g.quantization +
                 " quantization: its quantized linear weights are stored narrower, with scales)."));
  std::vector<std::vector<std::string>> rows;
  uint64_t rest = 0;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const GapTensor& t = g.tensors[i];
    if (i < kShownTensors)
      rows.push_back({"`" + t.name + "`", shape_to_string(t.shape), t.dtype, with_thousands(numel(t.shape))});
    else
      rest += numel(t.shape);
  }
  if (g.tensors.size() > kShownTensors)
    rows.push_back(
        {"... " + std::to_string(g.tensors.size() - kShownTensors) + " more", "", "", with_thousands(rest)});
  md.table({"tensor", "shape", "dtype", "parameters"}, rows);
}

void parallelism_section(MarkdownWriter& md, const GapAnalysis& g, const KindReference& ref) {
  md.heading(2, "Parallelism");
  md.paragraph(std::string(ref.parallelism));
  md.heading(3, "Tensor-parallel shards of this model");
  std::vector<std::string> header = {"tensor", "rule"};
  for (uint64_t tp : kGapTensorParallel) header.push_back("TP " + std::to_string(tp));
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < g.tensors.size() && i < kShownTensors; ++i) {
    const GapTensor& t = g.tensors[i];
    std::vector<std::string> row = {"`" + t.name + "`", std::string(shard_rule_name(t.rule))};
    for (const std::optional<Shape>& s : t.shards) row.push_back(s ? shape_to_string(*s) : "does not divide");
    rows.push_back(std::move(row));
  }
  std::vector<std::string> totals = {"parameters per device", ""};
  for (uint64_t n : g.parameters_per_device) totals.push_back(with_thousands(n));
  rows.push_back(std::move(totals));
  md.table(header, rows);
  md.paragraph(
      "Vectors (norms, biases, per-head parameters such as A_log and D) are listed as replicated; engines "
      "shard some per-head vectors with their heads. The per-device totals cover every tensor.");
  if (const auto& t = g.tp_traffic)
    md.formula("TP traffic per token: " + t->collective + ", " + with_thousands(t->elements_per_token) +
               " elements x 2 bytes (bf16) = " + with_thousands(t->bytes_per_token) +
               " bytes (each rank sends " + "(TP - 1) / TP of it in a ring)\nat a batch of " +
               std::to_string(kGapBatchTokens) +
               " tokens per step: " + with_thousands(t->bytes_per_token * kGapBatchTokens) + " bytes");
  if (!g.expert_parallel) return;
  const ExpertParallel& ep = *g.expert_parallel;
  md.heading(3, "Expert parallelism");
  std::vector<std::vector<std::string>> ep_rows;
  for (const auto& [size, per_device] : ep.experts_per_device)
    ep_rows.push_back({std::to_string(size), std::to_string(per_device)});
  md.table({"EP size", "experts per device"}, ep_rows);
  md.formula(
      "all-to-all bytes per token = 2 (dispatch + combine) x top_k x hidden x bytes\n"
      "                           = 2 x " +
      std::to_string(ep.top_k) + " x " + std::to_string(ep.hidden) + " x " +
      std::to_string(ep.bytes_per_element) +
      " (bf16 activations) = " + with_thousands(ep.all_to_all_bytes_per_token) + " bytes\n" +
      "at a batch of " + std::to_string(kGapBatchTokens) +
      " tokens per step: " + with_thousands(ep.all_to_all_bytes_per_token * kGapBatchTokens) + " bytes (" +
      human_bytes(ep.all_to_all_bytes_per_token * kGapBatchTokens) +
      ") per layer, before tokens routed to the same device are merged");
}

void test_section(MarkdownWriter& md, const GapAnalysis& g) {
  const LayerTypeEntry& e = *g.entry;
  md.heading(2, "Test specification");
  md.paragraph("A `" + e.class_name +
               "` for this model must be constructed from these arguments and reproduce these "
               "figures (computed by modelanalyzer from the tensors above):");
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& [key, value] : e.specs) inputs.emplace_back(key, fact_text(value));
  md.fields(inputs);
  // An entry whose tensors nothing here builds (an MTP layer known by its count) has no figures to test.
  if (!e.parameters_known) {
    md.formula("test_parameter_count: unknown (the layer's tensors are not known here)");
    return;
  }
  std::string checks = "test_parameter_count: " + with_thousands(e.parameter_count) + " per instance, " +
                       with_thousands(e.parameter_count * e.count) + " for all " + std::to_string(e.count) +
                       "\ntest_linear_flops_per_token: " + with_thousands(g.linear_flops_per_token) +
                       " (2 x the weight elements one token multiplies";
  checks += g.expert_parallel ? ", routed experts at top_k / num_experts)" : ")";
  if (g.core_flops_per_token)
    checks +=
        "\ntest_core_flops_per_token: " + with_thousands(*g.core_flops_per_token) + " = " + g.core_formula;
  checks += "\ntest_tensor_parallel_weights: parameters per device at TP 2/4/8 as in the shard table";
  if (g.expert_parallel)
    checks += "\ntest_expert_parallel: experts per device and all-to-all bytes as in the expert table";
  md.formula(checks);
}

}  // namespace

std::string render_gap_report_markdown(const GapAnalysis& g) {
  const LayerTypeEntry& e = *g.entry;
  const KindReference& ref = kind_reference(e.kind);
  MarkdownWriter md;
  md.heading(1, "Gap report: " + e.name + " (" + e.class_name + ") in " + g.hf_model_id);
  md.fields({{"model", g.hf_model_id},
             {"entry", e.name},
             {"proposed class", e.class_name},
             {"kind", std::string(ref.title)},
             {"instances", std::to_string(e.count) + " (" + layers_text(e) + ")"},
             {"parameters per instance", e.parameters_known ? with_thousands(e.parameter_count) : "unknown"},
             {"why a gap", e.gap_reason.empty()
                               ? "the simulator's layer catalogue has no class `" + e.class_name + "`"
                               : e.gap_reason}});
  tensors_section(md, g);
  md.heading(2, "What it computes");
  md.paragraph(std::string(ref.math));
  md.heading(2, "References");
  md.fields({{"PyTorch", std::string(ref.pytorch)},
             {"vLLM", std::string(ref.vllm)},
             {"SGLang", std::string(ref.sglang)}});
  parallelism_section(md, g, ref);
  test_section(md, g);
  return md.take();
}

}  // namespace ma
