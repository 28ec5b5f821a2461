// Sections 1 and 2 of the efficiency study's Markdown (perf_report_parts.h): the architecture overview and
// hardware table, then the analytical model: the per-op table (one layer of each distinct kind), the totals
// per operation kind and for the step, and the modelling assumptions.
#include <cstdio>
#include <map>
#include <set>

#include "core/units.h"
#include "report/perf_report_parts.h"

namespace ma::perf_md {
namespace {

// The regime of summed times, the way the model decides it for the step.
std::string argmax_regime(double tc, double th, double tn) {
  return tc >= th && tc >= tn ? "compute" : th >= tn ? "memory" : "network";
}

const std::vector<std::string> kOpHeader = {
    "op",       "kind",      "M_eff",    "eta_tc",    "F_theory",  "F_tensorcore",    "F_realizable",
    "bytes W",  "bytes act", "bytes KV", "bytes tmp", "bytes net", "AI_weights_only", "AI_hbm",
    "AI_total", "T_comp",    "T_hbm",    "T_net",     "T_est",     "regime"};

std::vector<std::string> op_row(const OpCost& o, const std::string& label, bool shape) {
  return {label,
          o.kind,
          shape ? brief_number(o.m_eff) : "-",
          shape ? brief_number(o.eta_tc) : "-",
          brief_number(o.flops_theory),
          brief_number(o.flops_tensorcore),
          brief_number(o.flops_realizable),
          brief_number(o.bytes_weights),
          brief_number(o.bytes_activations),
          brief_number(o.bytes_kv),
          brief_number(o.bytes_temporary),
          brief_number(o.bytes_net),
          brief_number(o.ai_weights_only()),
          brief_number(o.ai_hbm()),
          brief_number(o.ai_total()),
          duration_text(o.t_comp),
          duration_text(o.t_hbm),
          duration_text(o.t_net),
          duration_text(o.t_est),
          o.regime};
}

// The op's name with its layer number as "*", so that the same op in two layers compares equal.
std::string layer_free_name(const OpCost& o) {
  if (!o.layer) return o.name;
  const std::string n = std::to_string(*o.layer);
  std::string s = o.name;
  size_t at = s.find("." + n + ".");
  if (at != std::string::npos) return s.replace(at + 1, n.size(), "*");
  if (s.rfind(n + ".", 0) == 0) return s.replace(0, n.size(), "*");
  return s;
}

// What makes two layers the same for the table: the same ops with the same costs.
std::string layer_signature(const std::vector<const OpCost*>& ops) {
  std::string sig;
  char buf[160];
  for (const OpCost* o : ops) {
    std::snprintf(buf, sizeof buf, "|%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", o->flops_theory, o->bytes_weights,
                  o->bytes_activations, o->bytes_kv, o->bytes_temporary, o->bytes_net);
    sig += layer_free_name(*o) + ":" + o->kind + buf + ";";
  }
  return sig;
}

}  // namespace

// 1. Architecture overview.
void overview(DocumentWriter& md, const PerfResult& r, const std::string& model) {
  md.heading(2, "1. Architecture Overview");
  const PerfInputs& in = r.inputs;
  std::set<uint32_t> layers;
  std::map<std::string, size_t> kinds;
  for (const OpCost& o : r.ops) {
    if (o.layer) layers.insert(*o.layer);
    ++kinds[o.kind];
  }
  std::string kind_list;
  for (const auto& [k, n] : kinds) kind_list += (kind_list.empty() ? "" : ", ") + k + " " + std::to_string(n);
  const ExecutionKnobs& k = in.knobs;
  md.fields({
      {"Model", model},
      {"Step", mode_name(r) + " (" + shape_text(r) + ")"},
      {"Batch B", std::to_string(in.batch)},
      {"Sequence S (prompt / training)", std::to_string(in.seq)},
      {"KV length L (decode)", std::to_string(in.kv_len)},
      {"Tokens per step", brief_number(r.tokens)},
      {"Weights / activations / KV cache dtype", upper(compute_dtype_name(in.weight_dtype)) + " / " +
                                                     upper(compute_dtype_name(in.act_dtype)) + " / " +
                                                     upper(compute_dtype_name(in.kv_dtype))},
      {"Weights as stored", in.stored_label.empty() ? std::string("no (--dtype / --weight-dtype, or an "
                                                                  "unquantized checkpoint)")
                                                    : in.stored_label},
      {"Compute dtype (P_peak)", upper(compute_dtype_name(perf_peak_dtype(r)))},
      {"Capacity (per device)",
       !r.capacity ? std::string("not checked (training: see the report's training figures)")
       : !r.capacity->capacity_known
           ? "unknown: " + human_bytes(r.capacity->bytes_per_device) + " needed; " + r.capacity->advice
       : r.capacity->fits ? "fits: " + human_bytes(r.capacity->bytes_per_device) + " of " +
                                human_bytes(r.capacity->capacity_bytes)
                          : "does not fit: " + human_bytes(r.capacity->bytes_per_device) + " of " +
                                human_bytes(r.capacity->capacity_bytes) + "; " + r.capacity->advice},
      {"Parallelism (per GPU figures)", "TP " + std::to_string(in.parallel.tp) + " x PP " +
                                            std::to_string(in.parallel.pp) + " x EP " +
                                            std::to_string(in.parallel.ep)},
      {"Execution profile", k.profile},
      {"Knobs", "WRF attn/dense/moe " + brief_number(k.wrf_attention) + "/" + brief_number(k.wrf_dense) +
                    "/" + brief_number(k.wrf_moe) + ", act fusion " + brief_number(k.act_fusion) +
                    ", elementwise " + brief_number(k.elementwise) + ", attention bytes " +
                    (k.flash_attention ? "flash" : "naive")},
      {"Layers modelled (this GPU)", std::to_string(layers.size())},
      {"Operations modelled",
       std::to_string(r.ops.size()) + (kind_list.empty() ? "" : " (" + kind_list + ")")},
  });
  const Hardware& hw = r.hardware;
  md.heading(3, "Hardware");
  std::string peaks;
  for (int d = 0; d < kComputeDTypeCount; ++d) {
    const auto dt = static_cast<ComputeDType>(d);
    if (hw.peak(dt) > 0)
      peaks += (peaks.empty() ? "" : ", ") + upper(compute_dtype_name(dt)) + " " + brief_number(hw.peak(dt));
  }
  const ComputeDType pd = perf_peak_dtype(r);
  md.fields({
      {"Accelerator", hw.name + (hw.description.empty() ? "" : " (" + hw.description + ")")},
      {"Dense peak TFLOP/s", peaks.empty() ? "none" : peaks},
      {"P_peak (" + upper(compute_dtype_name(pd)) + ")", brief_number(hw.peak(pd)) + " TFLOP/s"},
      {"HBM bandwidth BW_hbm", brief_number(hw.hbm_gbps) + " GB/s"},
      {"HBM capacity", brief_number(hw.hbm_gb) + " GB"},
      {"Interconnect BW_net", brief_number(hw.interconnect_gbps) + " GB/s per direction"},
      {"Ridge OI_knee = P_peak / BW_hbm", brief_number(hw.ridge(pd)) + " FLOP/byte"},
      {"Tensor-core saturation B_sat", brief_number(hw.b_sat)},
      {"Kernel overhead", duration_text(hw.graph_kernel_overhead_s) +
                              " per kernel in a CUDA graph (the step model); " +
                              duration_text(hw.kernel_overhead_s) + " per eagerly launched GEMM"},
      {"Scalar (CUDA core) TFLOP/s", hw.scalar_tflops > 0 ? brief_number(hw.scalar_tflops) : "FP32 peak"},
      {"Source", hw.source.empty() ? "not given" : hw.source},
  });
}

// 2. The per-op table (representative layers), per-kind totals, the step.
void analytical(DocumentWriter& md, const PerfResult& r) {
  md.heading(2, "2. Analytical Model (FLOPs, Bytes, Time)");
  md.formula(
      "eta_tc(M_eff) = min(1, M_eff / B_sat)\n"
      "F_realizable = F_tensorcore / eta_tc + (F_theory - F_tensorcore) / eta_scalar\n"
      "AI_weights_only = F_theory / bytes_weights;  AI_hbm = F_theory / bytes_hbm;  "
      "AI_total = F_theory / (bytes_hbm + bytes_net)\n"
      "bytes_hbm = bytes_weights + bytes_activations + bytes_kv + bytes_temporary\n"
      "T_comp = F_realizable / P_peak;  T_hbm = bytes_hbm / BW_hbm;  T_net = bytes_net / BW_net\n"
      "T_est(op) = max(T_comp, T_hbm, T_net);  regime = argmax\n"
      "T_est(step) = sum over ops of T_est(op) + kernels x kernel overhead");

  // Layers grouped by what they contain; the first of each group stands for it.
  std::map<uint32_t, std::vector<const OpCost*>> by_layer;
  for (const OpCost& o : r.ops)
    if (o.layer) by_layer[*o.layer].push_back(&o);
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> groups;  // representative -> members
  std::map<std::string, size_t> group_of;
  for (const auto& [layer, ops] : by_layer) {
    const std::string sig = layer_signature(ops);
    auto [it, fresh] = group_of.try_emplace(sig, groups.size());
    if (fresh) groups.push_back({layer, {}});
    groups[it->second].second.push_back(layer);
  }
  constexpr size_t kMaxShown = 4;
  std::set<uint32_t> shown;
  for (size_t g = 0; g < groups.size() && g < kMaxShown; ++g) shown.insert(groups[g].first);

  md.heading(3, "2.1 Per-operation costs");
  std::string note =
      "FLOPs in FLOP, bytes in bytes, AI in FLOP/byte, per GPU. Operations outside the layer stack are "
      "listed "
      "individually; of the layer stack, one layer of each distinct kind is shown";
  std::string members;
  for (size_t g = 0; g < groups.size() && g < kMaxShown; ++g)
    if (groups[g].second.size() > 1)
      members += (members.empty() ? "" : "; ") + std::string("layer ") + std::to_string(groups[g].first) +
                 " stands for layers " + index_ranges(groups[g].second);
  if (!members.empty()) note += " (" + members + ": the same operations at the same cost)";
  if (groups.size() > kMaxShown)
    note +=
        "; " + std::to_string(groups.size() - kMaxShown) + " further kinds of layer are in the totals only";
  md.paragraph(note + ". The per-kind totals below sum every operation of every layer.");
  // In model order: what comes before the layer stack (embeddings), each shown layer's ops, then the rest
  // (final norm, LM head, optimizer).
  std::vector<std::vector<std::string>> rows;
  const auto is_head = [](const OpCost& o) { return !o.layer && o.kind == "embedding"; };
  for (const OpCost& o : r.ops)
    if (is_head(o)) rows.push_back(op_row(o, o.name, true));
  for (uint32_t layer : shown)
    for (const OpCost* o : by_layer[layer]) rows.push_back(op_row(*o, o->name, true));
  for (const OpCost& o : r.ops)
    if (!o.layer && !is_head(o)) rows.push_back(op_row(o, o.name, true));
  md.table(kOpHeader, rows);

  md.heading(3, "2.2 Totals per operation kind and for the step");
  std::vector<std::string> kind_order;
  std::map<std::string, std::pair<OpCost, size_t>> sums;
  for (const OpCost& o : r.ops) {
    auto [it, fresh] = sums.try_emplace(o.kind);
    if (fresh) kind_order.push_back(o.kind);
    OpCost& s = it->second.first;
    s.kind = o.kind;
    s.flops_theory += o.flops_theory;
    s.flops_tensorcore += o.flops_tensorcore;
    s.flops_realizable += o.flops_realizable;
    s.bytes_weights += o.bytes_weights;
    s.bytes_activations += o.bytes_activations;
    s.bytes_kv += o.bytes_kv;
    s.bytes_temporary += o.bytes_temporary;
    s.bytes_net += o.bytes_net;
    s.t_comp += o.t_comp;
    s.t_hbm += o.t_hbm;
    s.t_net += o.t_net;
    s.t_est += o.t_est;
    ++it->second.second;
  }
  rows.clear();
  for (const std::string& k : kind_order) {
    OpCost s = sums[k].first;
    s.regime = argmax_regime(s.t_comp, s.t_hbm, s.t_net);
    const size_t n = sums[k].second;
    rows.push_back(op_row(s, "all " + k + " (" + std::to_string(n) + (n == 1 ? " op)" : " ops)"), false));
  }
  rows.push_back(op_row(r.total, "step total", false));
  md.table(kOpHeader, rows);
  md.paragraph(
      "A kind's regime is that of its summed times. The step's T_est adds the kernel overhead ("
      "kernels x per-kernel overhead) to the sum of the operations' T_est.");

  const OpCost& t = r.total;
  const ComputeDType pd = perf_peak_dtype(r);
  md.fields({
      {"F_theory", brief_number(t.flops_theory) + " FLOP"},
      {"F_tensorcore", brief_number(t.flops_tensorcore) + " FLOP"},
      {"F_realizable", brief_number(t.flops_realizable) + " FLOP"},
      {"bytes_hbm (W + act + KV + tmp)",
       brief_number(t.bytes_hbm()) + " B = " + brief_number(t.bytes_weights) + " + " +
           brief_number(t.bytes_activations) + " + " + brief_number(t.bytes_kv) + " + " +
           brief_number(t.bytes_temporary)},
      {"bytes_net", brief_number(t.bytes_net) + " B"},
      {"AI_weights_only / AI_hbm / AI_total", brief_number(t.ai_weights_only()) + " / " +
                                                  brief_number(t.ai_hbm()) + " / " +
                                                  brief_number(t.ai_total()) + " FLOP/byte"},
      {"T_comp / T_hbm / T_net",
       duration_text(t.t_comp) + " / " + duration_text(t.t_hbm) + " / " + duration_text(t.t_net)},
      {"Kernels, overhead", brief_number(t.kernels) + ", " + duration_text(r.overhead_s)},
      {"T_est", duration_text(t.t_est)},
      {"Regime", t.regime},
      {"TF_est = F_theory / T_est", brief_number(r.tf_est) + " TFLOP/s"},
      {"TF_roofline_hbm = min(P_peak, BW_hbm x AI_hbm)", brief_number(r.tf_roofline_hbm) + " TFLOP/s"},
      {"P_effective = P_peak x F_theory / F_realizable",
       brief_number(r.p_effective) + " TFLOP/s (P_peak " + brief_number(r.hardware.peak(pd)) + ")"},
      {"MFU_est = F_theory / (P_peak x T_est)", percent_text(r.mfu_est)},
      {"Tokens per step", brief_number(r.tokens)},
      {"Tokens/s", brief_number(r.tokens_per_s)},
  });
  if (!r.assumptions.empty()) {
    md.heading(3, "2.3 Modelling assumptions");
    std::string list;
    for (const std::string& a : r.assumptions) list += "- " + a + "\n";
    md.paragraph(list.substr(0, list.size() - 1));
  }
}

}  // namespace ma::perf_md
