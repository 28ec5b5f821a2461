// The efficiency study's Markdown (perf_report.h). Numbers are PerfResult fields, formatted here; the only
// arithmetic is summing per-op fields into per-kind totals and comparing fields (which regime, which row is
// fastest). The worked example substitutes the same fields into each formula and shows the form that holds
// for them (the step time of a sequential model is a sum over operations, not a max over totals).
#include "report/perf_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "report/markdown_writer.h"
#include "report/roofline_plot.h"

namespace ma {
namespace {

void strip_zeros(std::string& s) {
  if (s.find('.') == std::string::npos) return;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
}

// A number for tables and formulas: 4 significant digits between 1e-3 and 1e5 ("269.7", "0.05"), else
// e-notation with 3 ("1.23e12", "4.5e-5"); trailing zeros dropped.
std::string num(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char buf[48];
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2e", v);
    std::string s = buf;
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e);
    strip_zeros(mant);
    return mant + "e" + std::to_string(std::atoi(s.c_str() + e + 1));
  }
  const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  strip_zeros(s);
  return s;
}

// A duration in the unit that keeps it between 1 and 1000: "12.34 ms", "456 us".
std::string dur(double s) {
  if (!std::isfinite(s)) return num(s);
  if (s == 0) return "0 s";
  const double a = std::fabs(s);
  if (a >= 1) return num(s) + " s";
  if (a >= 1e-3) return num(s * 1e3) + " ms";
  if (a >= 1e-6) return num(s * 1e6) + " us";
  return num(s * 1e9) + " ns";
}

std::string pct(double f) {
  return std::isfinite(f) ? num(f * 100) + "%" : num(f);
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string mode_name(const PerfResult& r) {
  return std::string(perf_mode_name(r.inputs.mode));
}

// "B=128, L=255" (decode) or "B=8, S=4096" (prefill, training).
std::string shape_text(const PerfResult& r) {
  const std::string b = "B=" + std::to_string(r.inputs.batch);
  return r.inputs.mode == PerfMode::Decode ? b + ", L=" + std::to_string(r.inputs.kv_len)
                                           : b + ", S=" + std::to_string(r.inputs.seq);
}

// Consecutive numbers as ranges: "0-2, 5, 7-9".
std::string ranges(const std::vector<uint32_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(v[i]);
    if (j > i) out += (j == i + 1 ? ", " : "-") + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

std::string binding_resource(const std::string& regime) {
  if (regime == "compute") return "tensor-core throughput (P_peak x eta_tc)";
  if (regime == "memory") return "HBM bandwidth";
  if (regime == "network") return "interconnect bandwidth";
  return regime.empty() ? "unknown" : regime;
}

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
          shape ? num(o.m_eff) : "-",
          shape ? num(o.eta_tc) : "-",
          num(o.flops_theory),
          num(o.flops_tensorcore),
          num(o.flops_realizable),
          num(o.bytes_weights),
          num(o.bytes_activations),
          num(o.bytes_kv),
          num(o.bytes_temporary),
          num(o.bytes_net),
          num(o.ai_weights_only()),
          num(o.ai_hbm()),
          num(o.ai_total()),
          dur(o.t_comp),
          dur(o.t_hbm),
          dur(o.t_net),
          dur(o.t_est),
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

// 1. Architecture overview.
void overview(MarkdownWriter& md, const PerfResult& r, const std::string& model) {
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
      {"Tokens per step", num(r.tokens)},
      {"Weights / activations / KV cache dtype", upper(compute_dtype_name(in.weight_dtype)) + " / " +
                                                     upper(compute_dtype_name(in.act_dtype)) + " / " +
                                                     upper(compute_dtype_name(in.kv_dtype))},
      {"Compute dtype (P_peak)", upper(compute_dtype_name(perf_peak_dtype(r)))},
      {"Parallelism (per GPU figures)", "TP " + std::to_string(in.parallel.tp) + " x PP " +
                                            std::to_string(in.parallel.pp) + " x EP " +
                                            std::to_string(in.parallel.ep)},
      {"Execution profile", k.profile},
      {"Knobs", "WRF attn/dense/moe " + num(k.wrf_attention) + "/" + num(k.wrf_dense) + "/" + num(k.wrf_moe) +
                    ", act fusion " + num(k.act_fusion) + ", elementwise " + num(k.elementwise) +
                    ", attention bytes " + (k.flash_attention ? "flash" : "naive")},
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
      peaks += (peaks.empty() ? "" : ", ") + upper(compute_dtype_name(dt)) + " " + num(hw.peak(dt));
  }
  const ComputeDType pd = perf_peak_dtype(r);
  md.fields({
      {"Accelerator", hw.name + (hw.description.empty() ? "" : " (" + hw.description + ")")},
      {"Dense peak TFLOP/s", peaks.empty() ? "none" : peaks},
      {"P_peak (" + upper(compute_dtype_name(pd)) + ")", num(hw.peak(pd)) + " TFLOP/s"},
      {"HBM bandwidth BW_hbm", num(hw.hbm_gbps) + " GB/s"},
      {"HBM capacity", num(hw.hbm_gb) + " GB"},
      {"Interconnect BW_net", num(hw.interconnect_gbps) + " GB/s per direction"},
      {"Ridge OI_knee = P_peak / BW_hbm", num(hw.ridge(pd)) + " FLOP/byte"},
      {"Tensor-core saturation B_sat", num(hw.b_sat)},
      {"Kernel overhead", dur(hw.kernel_overhead_s) + " per kernel"},
      {"Scalar (CUDA core) TFLOP/s", hw.scalar_tflops > 0 ? num(hw.scalar_tflops) : "FP32 peak"},
      {"Source", hw.source.empty() ? "not given" : hw.source},
  });
}

// 2. The per-op table (representative layers), per-kind totals, the step.
void analytical(MarkdownWriter& md, const PerfResult& r) {
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
                 " stands for layers " + ranges(groups[g].second);
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
      {"F_theory", num(t.flops_theory) + " FLOP"},
      {"F_tensorcore", num(t.flops_tensorcore) + " FLOP"},
      {"F_realizable", num(t.flops_realizable) + " FLOP"},
      {"bytes_hbm (W + act + KV + tmp)", num(t.bytes_hbm()) + " B = " + num(t.bytes_weights) + " + " +
                                             num(t.bytes_activations) + " + " + num(t.bytes_kv) + " + " +
                                             num(t.bytes_temporary)},
      {"bytes_net", num(t.bytes_net) + " B"},
      {"AI_weights_only / AI_hbm / AI_total",
       num(t.ai_weights_only()) + " / " + num(t.ai_hbm()) + " / " + num(t.ai_total()) + " FLOP/byte"},
      {"T_comp / T_hbm / T_net", dur(t.t_comp) + " / " + dur(t.t_hbm) + " / " + dur(t.t_net)},
      {"Kernels, overhead", num(t.kernels) + ", " + dur(r.overhead_s)},
      {"T_est", dur(t.t_est)},
      {"Regime", t.regime},
      {"TF_est = F_theory / T_est", num(r.tf_est) + " TFLOP/s"},
      {"TF_roofline_hbm = min(P_peak, BW_hbm x AI_hbm)", num(r.tf_roofline_hbm) + " TFLOP/s"},
      {"P_effective = P_peak x F_theory / F_realizable",
       num(r.p_effective) + " TFLOP/s (P_peak " + num(r.hardware.peak(pd)) + ")"},
      {"MFU_est = F_theory / (P_peak x T_est)", pct(r.mfu_est)},
      {"Tokens per step", num(r.tokens)},
      {"Tokens/s", num(r.tokens_per_s)},
  });
  if (!r.assumptions.empty()) {
    md.heading(3, "2.3 Modelling assumptions");
    std::string list;
    for (const std::string& a : r.assumptions) list += "- " + a + "\n";
    md.paragraph(list.substr(0, list.size() - 1));
  }
}

// The decode batch sweep, grouped by profile in the order first met, B ascending.
void batch_sweep(MarkdownWriter& md, const std::vector<PerfResult>& sweep) {
  md.heading(3, "3.1 Decode batch sweep");
  if (sweep.empty()) {
    md.paragraph("No decode batch sweep was computed.");
    return;
  }
  md.paragraph(
      "Only the microbatch B varies; the KV length L stays at the report's value. Per execution "
      "profile (naive, efficient):");
  md.formula(
      "F_theory(B,L,m) = sum_i F_i(B,L,m)\n"
      "bytes_hbm(B,L,m) = sum_i (bytes_weights_i + bytes_activations_i + bytes_kv_i + bytes_temporary_i)\n"
      "AI_hbm = F_theory / bytes_hbm\n"
      "TF_est = F_theory / T_est / 1e12\n"
      "TF_roofline_hbm = min(P_peak, BW_hbm * AI_hbm / 1e12)   (an upper bound, not a claim)\n"
      "regime = argmax{T_comp, T_hbm, T_net}");
  std::vector<std::string> profiles;
  for (const PerfResult& r : sweep)
    if (std::find(profiles.begin(), profiles.end(), r.inputs.knobs.profile) == profiles.end())
      profiles.push_back(r.inputs.knobs.profile);
  std::vector<const PerfResult*> order;
  for (const PerfResult& r : sweep) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [&](const PerfResult* a, const PerfResult* b) {
    const auto pa = std::find(profiles.begin(), profiles.end(), a->inputs.knobs.profile);
    const auto pb = std::find(profiles.begin(), profiles.end(), b->inputs.knobs.profile);
    return pa != pb ? pa < pb : a->inputs.batch < b->inputs.batch;
  });
  std::vector<std::vector<std::string>> rows;
  for (const PerfResult* r : order)
    rows.push_back({r->inputs.knobs.profile, std::to_string(r->inputs.batch),
                    std::to_string(r->inputs.kv_len), num(r->total.flops_theory), num(r->total.bytes_hbm()),
                    num(r->total.ai_hbm()), num(r->tf_est), num(r->tf_roofline_hbm), dur(r->total.t_est),
                    r->total.regime, num(r->tokens_per_s)});
  md.table({"profile", "B", "L", "F_theory", "bytes_hbm", "AI_hbm", "TF_est", "TF_roofline_hbm", "T_est",
            "regime", "tokens/s"},
           rows);
  // Where each profile changes regime.
  std::string summary;
  for (const std::string& p : profiles) {
    std::string runs;
    std::string regime;
    uint64_t first = 0, last = 0;
    const auto flush = [&] {
      if (regime.empty()) return;
      runs += (runs.empty() ? "" : ", ") + regime + " for B=" + std::to_string(first) +
              (last != first ? "-" + std::to_string(last) : "");
    };
    for (const PerfResult* r : order) {
      if (r->inputs.knobs.profile != p) continue;
      if (r->total.regime != regime) {
        flush();
        regime = r->total.regime;
        first = r->inputs.batch;
      }
      last = r->inputs.batch;
    }
    flush();
    summary += "- " + p + ": " + runs + "\n";
  }
  const PerfResult& any = sweep.front();
  md.paragraph("Regimes along the sweep (ridge OI_knee = " + num(any.hardware.ridge(perf_peak_dtype(any))) +
               " FLOP/byte; AI_hbm above it is on the compute side of the roofline, and a step can be "
               "compute-bound below it where eta_tc < 1 inflates F_realizable):\n" +
               summary.substr(0, summary.size() - 1));
}

bool close(double formula, double field) {
  if (!std::isfinite(formula) || !std::isfinite(field)) return formula == field;
  return std::fabs(formula - field) <= 1e-6 * std::max({std::fabs(formula), std::fabs(field), 1e-30});
}

// Every step of the worked example as a formula, its values and its result.
void worked_example(MarkdownWriter& md, const PerfResult& w) {
  md.heading(
      3, "3.2 Worked example (" + mode_name(w) + ", " + shape_text(w) + ", " + w.inputs.knobs.profile + ")");
  const OpCost& t = w.total;
  const Hardware& hw = w.hardware;
  const ComputeDType pd = perf_peak_dtype(w);
  const double P = hw.peak(pd), BW = hw.hbm_gbps, BWn = hw.interconnect_gbps;
  md.paragraph("On " + hw.name + ": P_peak = " + num(P) + " TFLOP/s (" + upper(compute_dtype_name(pd)) +
               "), BW_hbm = " + num(BW) + " GB/s, BW_net = " + num(BWn) + " GB/s, B_sat = " + num(hw.b_sat) +
               ". Every value below is the model's own; the formulas show how they relate.");
  std::vector<std::string> l;
  l.push_back("F_theory = sum_i F_i = " + num(t.flops_theory) + " FLOP");
  l.push_back("F_realizable = sum_i (F_tc,i / eta_tc,i + (F_i - F_tc,i) / eta_scalar) = " +
              num(t.flops_realizable) + " FLOP   (F_tensorcore = " + num(t.flops_tensorcore) + ")");
  l.push_back("bytes_hbm = bytes_weights + bytes_activations + bytes_kv + bytes_temporary = " +
              num(t.bytes_weights) + " + " + num(t.bytes_activations) + " + " + num(t.bytes_kv) + " + " +
              num(t.bytes_temporary) + " = " + num(t.bytes_hbm()) + " B");
  l.push_back("bytes_net = " + num(t.bytes_net) + " B");
  l.push_back("AI_weights_only = F_theory / bytes_weights = " + num(t.flops_theory) + " / " +
              num(t.bytes_weights) + " = " + num(t.ai_weights_only()) + " FLOP/B");
  l.push_back("AI_hbm = F_theory / bytes_hbm = " + num(t.flops_theory) + " / " + num(t.bytes_hbm()) + " = " +
              num(t.ai_hbm()) + " FLOP/B");
  l.push_back("AI_total = F_theory / (bytes_hbm + bytes_net) = " + num(t.flops_theory) + " / (" +
              num(t.bytes_hbm()) + " + " + num(t.bytes_net) + ") = " + num(t.ai_total()) + " FLOP/B");
  const double ridge = hw.ridge(pd);
  l.push_back("OI_knee = P_peak * 1e12 / (BW_hbm * 1e9) = " + num(P) + "e12 / " + num(BW) +
              "e9 = " + num(ridge) + " FLOP/B  ->  AI_hbm " + (t.ai_hbm() >= ridge ? ">=" : "<") +
              " OI_knee: " + (t.ai_hbm() >= ridge ? "compute" : "memory") + " side of the roofline");
  const auto timed = [&](const std::string& name, const std::string& formula, double num_v, double bw,
                         double scale, double field, const char* sum_name) {
    if (bw > 0 && close(num_v / (bw * scale), field))
      return name + " = " + formula + " = " + num(num_v) + " / (" + num(bw) + " * " + num(scale) +
             ") = " + num(field) + " s";
    return name + " = sum_i " + sum_name + ",i = " + num(field) + " s";
  };
  l.push_back(
      timed("T_comp", "F_realizable / (P_peak * 1e12)", t.flops_realizable, P, 1e12, t.t_comp, "T_comp"));
  l.push_back(timed("T_hbm", "bytes_hbm / (BW_hbm * 1e9)", t.bytes_hbm(), BW, 1e9, t.t_hbm, "T_hbm"));
  l.push_back(timed("T_net", "bytes_net / (BW_net * 1e9)", t.bytes_net, BWn, 1e9, t.t_net, "T_net"));
  l.push_back("T_overhead = kernels * t_kernel = " + num(t.kernels) + " * " + num(hw.kernel_overhead_s) +
              " = " + num(w.overhead_s) + " s");
  // The step time in the form that holds for these fields.
  double ops_sum = 0;
  for (const OpCost& o : w.ops) ops_sum += o.t_est;
  const double mx = std::max({t.t_comp, t.t_hbm, t.t_net});
  const std::string maxed = "max(" + num(t.t_comp) + ", " + num(t.t_hbm) + ", " + num(t.t_net) + ")";
  if (close(ops_sum + w.overhead_s, t.t_est) && !w.ops.empty())
    l.push_back("T_est = sum_i max(T_comp,i, T_hbm,i, T_net,i) + T_overhead = " + num(ops_sum) + " + " +
                num(w.overhead_s) + " = " + num(t.t_est) + " s   (>= " + maxed + " = " + num(mx) +
                " s, the fully overlapped bound)");
  else if (close(mx + w.overhead_s, t.t_est))
    l.push_back("T_est = max(T_comp, T_hbm, T_net) + T_overhead = " + maxed + " + " + num(w.overhead_s) +
                " = " + num(t.t_est) + " s");
  else
    l.push_back("T_est = " + num(t.t_est) + " s   (the model's step time; " + maxed + " = " + num(mx) +
                " s)");
  l.push_back("regime = argmax{T_comp, T_hbm, T_net} = argmax{" + num(t.t_comp) + ", " + num(t.t_hbm) + ", " +
              num(t.t_net) + "} = " + t.regime);
  l.push_back("TF_est = F_theory / T_est / 1e12 = " + num(t.flops_theory) + " / " + num(t.t_est) +
              " / 1e12 = " + num(w.tf_est) + " TFLOP/s");
  l.push_back("TF_roofline_hbm = min(P_peak, BW_hbm * 1e9 * AI_hbm / 1e12) = min(" + num(P) + ", " + num(BW) +
              " * 1e9 * " + num(t.ai_hbm()) + " / 1e12) = " + num(w.tf_roofline_hbm) + " TFLOP/s");
  l.push_back("P_effective = P_peak * F_theory / F_realizable = " + num(P) + " * " + num(t.flops_theory) +
              " / " + num(t.flops_realizable) + " = " + num(w.p_effective) + " TFLOP/s");
  l.push_back("MFU_est = F_theory / (P_peak * 1e12 * T_est) = " + num(t.flops_theory) + " / (" + num(P) +
              " * 1e12 * " + num(t.t_est) + ") = " + pct(w.mfu_est));
  l.push_back("tokens/s = tokens / T_est = " + num(w.tokens) + " / " + num(t.t_est) + " = " +
              num(w.tokens_per_s));
  std::string text;
  for (const std::string& s : l) text += s + "\n";
  md.formula(text.substr(0, text.size() - 1));
}

// 3. Roofline: the figure, the op groups, the sweep, the worked example.
void roofline(MarkdownWriter& md, const PerfResult& r, const PerfSweeps& s) {
  md.heading(2, "3. Roofline Analysis");
  if (!s.roofline_plot.empty())
    md.paragraph(
        "![Roofline: attained TFLOP/s against arithmetic intensity](" + s.roofline_plot + ")\n\nFigure: `" +
        s.roofline_plot +
        "` (one panel per accelerator; roof = min(P_peak, BW_hbm x AI), ridge marked, regions shaded).");
  const ComputeDType pd = perf_peak_dtype(r);
  md.paragraph("Ridge on " + r.hardware.name + ": OI_knee = P_peak / BW_hbm = " + num(r.hardware.ridge(pd)) +
               " FLOP/byte. Points (per group of operations, this step):");
  std::vector<std::vector<std::string>> rows;
  for (const RooflinePoint& p : roofline_points(r))
    rows.push_back({p.label, num(p.flops), num(p.ai), num(p.tflops), p.regime});
  md.table({"group", "F_theory", "AI_hbm (FLOP/byte)", "TF_est (TFLOP/s)", "regime"}, rows);
  batch_sweep(md, s.decode_batch_sweep);
  if (s.worked_example)
    worked_example(md, *s.worked_example);
  else
    md.paragraph("No worked example was computed (it needs a decode sweep point, B=128 preferred).");
}

// 4. The sensitivity grid, as passed.
void sensitivity(MarkdownWriter& md, const std::vector<PerfResult>& grid) {
  md.heading(2, "4. Sensitivity Analysis");
  if (grid.empty()) {
    md.paragraph("No sensitivity grid was computed.");
    return;
  }
  md.paragraph(
      "Every combination of the execution knobs (section 6) on the same step; all other inputs held.");
  std::vector<std::vector<std::string>> rows;
  size_t fast = 0, slow = 0;
  for (size_t i = 0; i < grid.size(); ++i) {
    const PerfResult& r = grid[i];
    const ExecutionKnobs& k = r.inputs.knobs;
    rows.push_back({std::to_string(i + 1), mode_name(r) + " " + shape_text(r), num(k.wrf_attention),
                    num(k.wrf_dense), num(k.wrf_moe), num(k.act_fusion), num(k.elementwise),
                    k.flash_attention ? "flash" : "naive", dur(r.total.t_est), r.total.regime, num(r.tf_est),
                    pct(r.mfu_est), num(r.tokens_per_s)});
    if (r.total.t_est < grid[fast].total.t_est) fast = i;
    if (r.total.t_est > grid[slow].total.t_est) slow = i;
  }
  md.table({"#", "step", "WRF attn", "WRF dense", "WRF moe", "act fusion", "elementwise", "attention",
            "T_est", "regime", "TF_est", "MFU_est", "tokens/s"},
           rows);
  md.paragraph("Fastest: row " + std::to_string(fast + 1) + " (T_est " + dur(grid[fast].total.t_est) + ", " +
               grid[fast].total.regime + "-bound); slowest: row " + std::to_string(slow + 1) + " (T_est " +
               dur(grid[slow].total.t_est) + ", " + grid[slow].total.regime + "-bound).");
}

// 5. Training, prefill and decode: what binds each.
void limits(MarkdownWriter& md, const std::vector<PerfResult>& lim) {
  md.heading(2, "5. Architectural Limits");
  if (lim.empty()) {
    md.paragraph("No training / prefill / decode limits were computed.");
    return;
  }
  std::vector<std::vector<std::string>> rows;
  std::string notes;
  for (const PerfResult& r : lim) {
    const OpCost& t = r.total;
    const ComputeDType pd = perf_peak_dtype(r);
    rows.push_back({mode_name(r), shape_text(r), num(t.ai_hbm()), num(r.hardware.ridge(pd)), dur(t.t_comp),
                    dur(t.t_hbm), dur(t.t_net), dur(t.t_est), t.regime, binding_resource(t.regime),
                    pct(r.mfu_est), num(r.tokens_per_s)});
    // The runner-up resource and how far behind it is.
    std::vector<std::pair<double, std::string>> times = {
        {t.t_comp, "T_comp"}, {t.t_hbm, "T_hbm"}, {t.t_net, "T_net"}};
    std::sort(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string line =
        "- " + mode_name(r) + ": " + t.regime + "-bound, limited by " + binding_resource(t.regime);
    if (times[1].first > 0 && std::isfinite(times[0].first))
      line += "; " + times[0].second + " = " + dur(times[0].first) + " is " +
              num(times[0].first / times[1].first) + "x the next, " + times[1].second + " = " +
              dur(times[1].first);
    notes += line + "\n";
  }
  md.table({"step", "shape", "AI_hbm", "OI_knee", "T_comp", "T_hbm", "T_net", "T_est", "regime",
            "binding resource", "MFU_est", "tokens/s"},
           rows);
  md.paragraph(notes.substr(0, notes.size() - 1));
}

// 6. Seed 001's execution / kernel assumptions table with the values in effect.
void knobs_table(MarkdownWriter& md, const ExecutionKnobs& k) {
  md.heading(2, "6. Execution / Kernel Assumptions");
  const ExecutionKnobs nv = ExecutionKnobs::naive(), ef = ExecutionKnobs::efficient();
  const auto wrf = [](const ExecutionKnobs& x) {
    return num(x.wrf_attention) + "/" + num(x.wrf_dense) + "/" + num(x.wrf_moe);
  };
  const auto attn = [](const ExecutionKnobs& x) {
    return std::string(x.flash_attention ? "flash" : "naive");
  };
  md.table(
      {"Knob", "Value (" + k.profile + ")", "naive", "efficient", "Meaning", "Why it exists"},
      {{"WRF", wrf(k), wrf(nv), wrf(ef),
        "Weight Residency Factor. Effective streamed weight bytes are modeled as W_eff = W / WRF.",
        "Static analysis cannot directly measure cache residency; this approximates reuse."},
       {"WRF attn/dense/moe", wrf(k), wrf(nv), wrf(ef),
        "Separate residency factors for attention, dense linear, and MoE expert weights.",
        "Reuse patterns differ by module type."},
       {"act fusion", num(k.act_fusion), num(nv.act_fusion), num(ef.act_fusion),
        "Multiplier on activation/intermediate bytes. Lower means fewer HBM reads/writes from fused kernels.",
        "Captures fusion impact without runtime profiling."},
       {"elementwise", num(k.elementwise), num(nv.elementwise), num(ef.elementwise),
        "Multiplier on elementwise-heavy bytes (softmax/norm/masking temporaries).",
        "Captures reduced temporary traffic in optimized kernels."},
       {"attention bytes", attn(k), attn(nv), attn(ef),
        "naive includes score/prob materialization; flash removes most SxS temporary HBM traffic while "
        "preserving KV read/write.",
        "Distinguishes attention kernel families."}});
  md.paragraph(
      "`naive` is a pessimistic baseline; `efficient` is a conservative, sensitivity-oriented approximation "
      "of "
      "common kernel and system improvements. These are not claims of measured behaviour: with profiling "
      "counters, tune the knobs to match observed bytes and regenerate the report.");
}

void appendix(MarkdownWriter& md) {
  md.heading(2, "Appendix A: Detailed Derivations");
  md.paragraph(
      "Symbols: B batch, S tokens per sequence in this step (decode: 1), L cached tokens, H hidden size, "
      "h query heads, h_kv KV heads, d head dim, b_w / b_a / b_kv bytes per weight / activation / KV "
      "element, T = B*S tokens. The assumptions list of section 2.3 says which choices this run made.");
  md.heading(3, "Dense linear layer");
  md.formula(
      "Input [B,S,In], weight [In,Out]\n"
      "F_linear = 2 * B * S * In * Out            (all on tensor cores; M_eff = B*S, decode: B)\n"
      "bytes_weights = In * Out * b_w / WRF_dense\n"
      "bytes_activations = B * S * (In + Out) * b_a * act_fusion");
  md.heading(3, "Attention (scores and values)");
  md.formula(
      "F_QK = 2 * B * h * S * L_eff * d;   F_PV = 2 * B * h * S * L_eff * d_v\n"
      "decode (S = 1):  L_eff = L + 1 (the new token attends to the cache and itself)\n"
      "causal prefill:  sum_{i=1..S} i = S(S+1)/2 keys per head, so F_attn = 2 * B * h * S(S+1)/2 * (d + "
      "d_v)\n"
      "                 ~ half of the full 2 * B * h * S^2 * (d + d_v)\n"
      "sliding window W: L_eff = min(L_eff, W)\n"
      "softmax: ~5 FLOP per score on CUDA cores (max, subtract, exp, sum, divide)\n"
      "bytes_kv (decode, per layer) = 2 * B * L * h_kv * d * b_kv read + 2 * B * h_kv * d * b_kv written\n"
      "naive attention temporaries: scores and probabilities B * h * S * L_eff * b_a each, written and read\n"
      "                             (times the elementwise knob); flash attention keeps them on chip");
  md.heading(3, "MLA attention (DeepSeek)");
  md.formula(
      "F_Q = 2 * B * S * H * r_q   (+ 2 * B * S * r_q * h * (d_nope + d_rope) up-projection)\n"
      "F_K = 2 * B * S * H * r_kv  (+ 2 * B * S * H * d_rope decoupled rope key)\n"
      "F_KV_up = 2 * B * S * r_kv * h * (d_nope + d_v)\n"
      "F_attn_score = 2 * B * h * S * L_eff * d_eff,  d_eff = d_nope + d_rope   (prefill: 2 * B * h * S^2 * "
      "d_eff, "
      "causal half)\n"
      "F_attn_value = 2 * B * h * S * L_eff * d_v\n"
      "KV cache per token and layer = (r_kv + d_rope) * b_kv  (the compressed latent, shared by all heads)");
  md.heading(3, "MoE FLOPs per token");
  md.formula(
      "F_expert = 6 * H * d_moe            (gate, up, down: three [H x d_moe] GEMMs, 2 FLOP per MAC)\n"
      "F_MoE = B * S * top_k * 6 * H * d_moe  (+ B * S * n_shared * 6 * H * d_shared for shared experts)\n"
      "F_router = 2 * B * S * H * E\n"
      "M_eff per expert = B * S * top_k / experts touched (tokens per active expert)\n"
      "bytes_weights = experts touched * 3 * H * d_moe * b_w / WRF_moe   (at most min(E, B * S * top_k))");
  md.heading(3, "Mamba / state-space mixers");
  md.formula(
      "in_proj 2 * T * H * 2 * d_inner;  out_proj 2 * T * d_inner * H   (tensor cores)\n"
      "conv1d 2 * T * d_inner * K;  x_proj 2 * T * d_inner * (R + 2N);  dt_proj 2 * T * R * d_inner\n"
      "selective scan ~ c * T * d_inner * N elementwise FLOPs (CUDA cores)\n"
      "state bytes per step = B * d_inner * (N + K - 1) * b_a read and written (independent of L)");
  md.heading(3, "Network bytes (per GPU)");
  md.formula(
      "TP all-reduce (ring) of an activation of T * H elements: 2 * (tp - 1) / tp * T * H * b_a\n"
      "  two per transformer layer in the forward pass (after attention, after the MLP); training doubles "
      "it\n"
      "EP all-to-all: dispatch + combine, 2 * T * top_k * H * b_a * (ep - 1) / ep\n"
      "PP point-to-point: T * H * b_a per stage boundary per microbatch (training: forward + backward)\n"
      "T_net = bytes_net / (BW_net * 1e9)");
  md.heading(3, "Training and time model");
  md.formula(
      "F_train = 3 * F_forward   (backward = 2 x forward)\n"
      "T_comp = F_realizable / P_peak;  T_hbm = bytes_hbm / BW_hbm;  T_net = bytes_net / BW_net\n"
      "MFU_est = F_theory / (P_peak * T_est)");
  md.heading(2, "Appendix B: Debugging Checklist");
  md.paragraph(
      "- Verify `T_comp` uses `F_realizable` as a peak-equivalent compute cost (`T_comp = F_realizable / "
      "P_peak`).\n"
      "- Verify WRF is applied consistently in prefill and decode paths.\n"
      "- Verify KV bytes are counted per layer and multiplied by layer count.\n"
      "- Verify temporary buffer bytes are not double-counted as activations.\n"
      "- Verify dtype byte assumptions are consistent across weights/acts/KV.");
}

}  // namespace

ComputeDType perf_peak_dtype(const PerfResult& r) {
  const Hardware& hw = r.hardware;
  const ComputeDType w = r.inputs.weight_dtype, a = r.inputs.act_dtype;
  const OpCost& t = r.total;
  if (t.flops_theory > 0 && t.flops_realizable > 0 && r.p_effective > 0) {
    const double implied = r.p_effective * t.flops_realizable / t.flops_theory;
    const auto matches = [&](ComputeDType d) {
      return hw.peak(d) > 0 && std::fabs(hw.peak(d) - implied) <= 1e-6 * implied;
    };
    if (matches(a)) return a;
    if (matches(w)) return w;
    for (int i = 0; i < kComputeDTypeCount; ++i)
      if (matches(static_cast<ComputeDType>(i))) return static_cast<ComputeDType>(i);
  }
  return bytes_per_element(w) > bytes_per_element(a) ? w : a;
}

std::string render_perf_markdown(const PerfResult& base, const PerfSweeps& s) {
  MarkdownWriter md;
  const std::string model = s.model_id.empty() ? "model" : s.model_id;
  md.heading(1, "Performance analysis: " + model);
  md.paragraph("Seed 001's efficiency study for one " + mode_name(base) + " step (" + shape_text(base) +
               ") on " + base.hardware.name +
               ": FLOPs, bytes, arithmetic intensity and time per operation, the roofline, "
               "the decode batch sweep, the sensitivity to the execution knobs and the limits of training, "
               "prefill and decode. Figures are analytical estimates per GPU, not measurements.");
  overview(md, base, model);
  analytical(md, base);
  roofline(md, base, s);
  sensitivity(md, s.sensitivity);
  limits(md, s.limits);
  knobs_table(md, base.inputs.knobs);
  appendix(md);
  return md.take();
}

}  // namespace ma
