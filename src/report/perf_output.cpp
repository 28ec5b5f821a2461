#include "report/perf_output.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/units.h"
#include "report/console_writer.h"
#include "report/roofline_plot.h"
#include "report/run_info.h"

namespace ma {
namespace {

// The cost fields every entry shares, the whole step included (same names at every level).
void cost_fields(JsonWriter& w, const OpCost& op) {
  w.key("flops_theory").value(op.flops_theory);
  w.key("flops_tensorcore").value(op.flops_tensorcore);
  w.key("flops_realizable").value(op.flops_realizable);
  w.key("bytes_weights").value(op.bytes_weights);
  w.key("bytes_activations").value(op.bytes_activations);
  w.key("bytes_kv").value(op.bytes_kv);
  w.key("bytes_temporary").value(op.bytes_temporary);
  w.key("bytes_hbm").value(op.bytes_hbm());
  w.key("bytes_net").value(op.bytes_net);
  w.key("ai_weights_only").value(op.ai_weights_only());
  w.key("ai_hbm").value(op.ai_hbm());
  w.key("ai_total").value(op.ai_total());
  w.key("t_comp_s").value(op.t_comp);
  w.key("t_hbm_s").value(op.t_hbm);
  w.key("t_net_s").value(op.t_net);
  w.key("t_est_s").value(op.t_est);
  w.key("regime").value(op.regime);
  w.key("kernels").value(op.kernels);
}

// An operation adds the GEMM shape the tensor cores see.
void op_fields(JsonWriter& w, const OpCost& op) {
  w.key("m_eff").value(op.m_eff);
  w.key("eta_tc").value(op.eta_tc);
  cost_fields(w, op);
}

// The step's totals and the figures derived from them (the same names for the step and every study entry).
void step_fields(JsonWriter& w, const PerfResult& r) {
  cost_fields(w, r.total);
  w.key("t_overhead_s").value(r.overhead_s);
  w.key("tf_est").value(r.tf_est);
  w.key("tf_roofline_hbm").value(r.tf_roofline_hbm);
  w.key("p_effective").value(r.p_effective);
  w.key("mfu_est").value(r.mfu_est);
  w.key("tokens").value(r.tokens);
  w.key("tokens_per_s").value(r.tokens_per_s);
}

// The console's capacity line: "fits: 17.2 GiB of 141.0 GiB per device", or what would.
std::string capacity_text(const CapacityCheck& c) {
  if (!c.capacity_known)
    return "unknown: " + human_bytes(c.bytes_per_device) + " per device needed; " + c.advice;
  const std::string bytes =
      human_bytes(c.bytes_per_device) + " of " + human_bytes(c.capacity_bytes) + " per device";
  return c.fits ? "fits: " + bytes : "DOES NOT FIT: " + bytes + "; " + c.advice;
}

void capacity_object(JsonWriter& w, const std::optional<CapacityCheck>& c) {
  w.key("capacity");
  if (!c) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("fits");
  if (c->capacity_known)
    w.value(c->fits);
  else
    w.null();  // the profile gives no memory size
  w.key("bytes_per_device").value(c->bytes_per_device);
  w.key("capacity_bytes");
  if (c->capacity_known)
    w.value(c->capacity_bytes);
  else
    w.null();
  w.key("advice").value(c->advice);
  w.end_object();
}

void inputs_object(JsonWriter& w, const PerfInputs& in) {
  w.key("inputs").begin_object();
  w.key("mode").value(perf_mode_name(in.mode));
  w.key("batch").value(in.batch);
  w.key("seq").value(in.seq);
  w.key("kv_len").value(in.kv_len);
  w.key("weight_dtype").value(compute_dtype_name(in.weight_dtype));
  w.key("act_dtype").value(compute_dtype_name(in.act_dtype));
  w.key("kv_dtype").value(compute_dtype_name(in.kv_dtype));
  w.key("weights_as_stored");
  if (in.stored_label.empty())
    w.null();
  else
    w.value(in.stored_label);
  w.key("tp").value(in.parallel.tp);
  w.key("pp").value(in.parallel.pp);
  w.key("ep").value(in.parallel.ep);
  w.end_object();
}

void knobs_object(JsonWriter& w, std::string_view key, const ExecutionKnobs& k) {
  w.key(key).begin_object();
  w.key("profile").value(k.profile);
  w.key("wrf_attention").value(k.wrf_attention);
  w.key("wrf_dense").value(k.wrf_dense);
  w.key("wrf_moe").value(k.wrf_moe);
  w.key("act_fusion").value(k.act_fusion);
  w.key("elementwise").value(k.elementwise);
  w.key("attention_bytes").value(k.flash_attention ? "flash" : "naive");
  w.end_object();
}

// Every field a --hw profile file can set, under the same names (hardware_*_fields()).
void hardware_object(JsonWriter& w, const Hardware& hw) {
  w.key("hardware").begin_object();
  for (const HardwareTextField& f : hardware_text_fields()) w.key(f.name).value(hw.*f.member);
  w.key("peak_tflops").begin_object();
  for (int d = 0; d < kComputeDTypeCount; ++d)
    w.key(compute_dtype_name(static_cast<ComputeDType>(d))).value(hw.peak_tflops[d]);
  w.end_object();
  for (const HardwareNumberField& f : hardware_number_fields()) w.key(f.name).value(hw.*f.member);
  w.end_object();
}

// What the step models on this GPU: its layers, and its operations by kind.
void operation_counts(JsonWriter& w, const PerfResult& r) {
  std::set<uint32_t> layers;
  std::map<std::string, uint64_t> kinds;
  for (const OpCost& o : r.ops) {
    if (o.layer) layers.insert(*o.layer);
    ++kinds[o.kind];
  }
  w.key("layers_modelled").value(static_cast<uint64_t>(layers.size()));
  w.key("operations_modelled").begin_object();
  w.key("total").value(static_cast<uint64_t>(r.ops.size()));
  for (const auto& [kind, n] : kinds) w.key(kind).value(n);
  w.end_object();
}

// One step of the study: what varied (inputs, knobs) and its figures.
void study_entry(JsonWriter& w, const PerfResult& r) {
  w.begin_object();
  inputs_object(w, r.inputs);
  knobs_object(w, "knobs", r.inputs.knobs);
  step_fields(w, r);
  w.end_object();
}

void study_entries(JsonWriter& w, std::string_view key, const std::vector<PerfResult>& results) {
  w.key(key).begin_array();
  for (const PerfResult& r : results) study_entry(w.newline(), r);
  w.end_array();
}

// The efficiency study `--report` renders: the decode batch sweep under both profiles, the sensitivity grid,
// the limits of training, prefill and decode, the worked example, and the two profiles' knobs.
void study_object(JsonWriter& w, const PerfSweeps& s) {
  w.key("study").begin_object();
  w.key("execution_profiles").begin_object();
  knobs_object(w, "naive", ExecutionKnobs::naive());
  knobs_object(w, "efficient", ExecutionKnobs::efficient());
  w.end_object();
  study_entries(w, "decode_batch_sweep", s.decode_batch_sweep);
  study_entries(w, "sensitivity", s.sensitivity);
  study_entries(w, "limits", s.limits);
  w.key("worked_example");
  if (s.worked_example)
    study_entry(w, *s.worked_example);
  else
    w.null();
  w.end_object();
}

}  // namespace

std::vector<OpCost> ops_by_kind(const PerfResult& r) {
  std::map<std::string, OpCost> groups;
  std::vector<std::string> order;
  for (const OpCost& op : r.ops) {
    auto [it, fresh] = groups.try_emplace(op.kind);
    OpCost& g = it->second;
    if (fresh) {
      order.push_back(op.kind);
      g.name = op.kind;
      g.kind = op.kind;
    }
    g.flops_theory += op.flops_theory;
    g.flops_tensorcore += op.flops_tensorcore;
    g.flops_realizable += op.flops_realizable;
    g.bytes_weights += op.bytes_weights;
    g.bytes_activations += op.bytes_activations;
    g.bytes_kv += op.bytes_kv;
    g.bytes_temporary += op.bytes_temporary;
    g.bytes_net += op.bytes_net;
    g.kernels += op.kernels;
    g.t_comp += op.t_comp;
    g.t_hbm += op.t_hbm;
    g.t_net += op.t_net;
    g.t_est += op.t_est;
  }
  std::vector<OpCost> out;
  for (const std::string& k : order) {
    OpCost g = groups[k];
    g.regime = g.t_comp >= g.t_hbm && g.t_comp >= g.t_net ? "compute"
               : g.t_hbm >= g.t_net                       ? "memory"
                                                          : "network";
    out.push_back(g);
  }
  return out;
}

std::string render_perf_console(const PerfResult& r, const std::string& model_id, bool color) {
  ConsoleWriter w(color);
  const PerfInputs& in = r.inputs;
  w.heading("PERFORMANCE MODEL");
  w.field("model", model_id);
  w.field("hardware", r.hardware.description + " (" + r.hardware.name + ")");
  w.field("mode", std::string(perf_mode_name(in.mode)) + ", batch " + std::to_string(in.batch) +
                      (in.mode == PerfMode::Decode ? ", KV length " + std::to_string(in.kv_len)
                                                   : ", sequence " + std::to_string(in.seq)));
  w.field("dtypes", "weights " + std::string(compute_dtype_name(in.weight_dtype)) + ", activations " +
                        std::string(compute_dtype_name(in.act_dtype)) + ", KV " +
                        std::string(compute_dtype_name(in.kv_dtype)));
  if (!in.stored_label.empty()) w.field("weights", in.stored_label);
  w.field("profile",
          in.knobs.profile + (in.knobs.flash_attention ? " (flash attention)" : " (eager attention)"));
  if (in.parallel.tp * in.parallel.pp * in.parallel.ep > 1)
    w.field("parallelism", "TP " + std::to_string(in.parallel.tp) + ", PP " + std::to_string(in.parallel.pp) +
                               ", EP " + std::to_string(in.parallel.ep) + " (figures per GPU)");
  const OpCost& t = r.total;
  w.heading("STEP");
  w.field("T_est", duration_text(t.t_est) + " (" + t.regime + "-bound)");
  w.field("T_comp / T_hbm / T_net",
          duration_text(t.t_comp) + " / " + duration_text(t.t_hbm) + " / " + duration_text(t.t_net));
  if (r.overhead_s > 0)
    w.field("kernel overhead", duration_text(r.overhead_s) + " (" + brief_number(t.kernels) + " kernels" +
                                   (in.parallel.pp > 1 ? " in the average stage)" : ")"));
  w.field("F_theory / F_realizable",
          si_quantity(t.flops_theory, "FLOP") + " / " + si_quantity(t.flops_realizable, "FLOP"));
  w.field("bytes HBM", si_quantity(t.bytes_hbm(), "B") + " (weights " + si_quantity(t.bytes_weights, "B") +
                           ", activations " + si_quantity(t.bytes_activations, "B") + ", KV " +
                           si_quantity(t.bytes_kv, "B") + ", temporary " +
                           si_quantity(t.bytes_temporary, "B") + ")");
  if (t.bytes_net > 0) w.field("bytes network", si_quantity(t.bytes_net, "B"));
  w.field("AI_hbm",
          brief_number(t.ai_hbm()) + " FLOP/B (ridge " + brief_number(r.hardware.ridge(in.act_dtype)) + ")");
  w.field("TF_est / TF_roofline_hbm",
          brief_number(r.tf_est) + " / " + brief_number(r.tf_roofline_hbm) + " TFLOP/s");
  const ComputeDType peak_dtype = perf_peak_dtype(r);
  w.field("MFU_est", percent_text(r.mfu_est) + " of P_peak " + brief_number(r.hardware.peak(peak_dtype)) +
                         " TFLOP/s (" + std::string(compute_dtype_name(peak_dtype)) + ", " + r.hardware.name +
                         ")");
  w.field("tokens/s", brief_number(r.tokens_per_s));
  if (r.capacity) w.field("capacity", capacity_text(*r.capacity));
  w.heading("BY OPERATION KIND");
  std::vector<std::vector<std::string>> rows;
  for (const OpCost& g : ops_by_kind(r))
    rows.push_back({g.kind, si_quantity(g.flops_theory, "FLOP"), si_quantity(g.bytes_hbm(), "B"),
                    brief_number(g.ai_hbm()), duration_text(g.t_comp), duration_text(g.t_hbm),
                    duration_text(g.t_est), g.regime});
  w.table({"Kind", "F_theory", "Bytes HBM", "AI_hbm", "T_comp", "T_hbm", "T_est", "Regime"}, rows);
  w.footnote("T_est per operation = max(T_comp, T_hbm, T_net); the step sums its operations" +
             std::string(r.overhead_s > 0 ? " plus the kernel overhead" : "") +
             ". --json lists every operation.");
  return w.take();
}

void stream_perf_json(const PerfResult& r, const PerfSweeps& study, const std::string& model_id,
                      const RunInfo& run, const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  const ComputeDType peak_dtype = perf_peak_dtype(r);
  w.begin_object();
  w.key("model_id").value(model_id);
  step_fields(w, r);
  capacity_object(w, r.capacity);
  w.key("compute_dtype").value(compute_dtype_name(peak_dtype));
  w.key("p_peak_tflops").value(r.hardware.peak(peak_dtype));
  w.key("ridge_flop_per_byte").value(r.hardware.ridge(peak_dtype));
  inputs_object(w, r.inputs);
  knobs_object(w, "knobs", r.inputs.knobs);
  hardware_object(w, r.hardware);
  operation_counts(w, r);
  w.key("roofline_groups").begin_array();
  for (const RooflinePoint& p : roofline_points(r)) {
    w.newline().begin_object();
    w.key("group").value(p.label);
    w.key("flops_theory").value(p.flops);
    w.key("ai_hbm").value(p.ai);
    w.key("tf_est").value(p.tflops);
    w.key("regime").value(p.regime);
    w.end_object();
  }
  w.end_array();
  w.key("by_kind").begin_array();
  for (const OpCost& g : ops_by_kind(r)) {
    w.newline().begin_object();
    w.key("kind").value(g.kind);
    op_fields(w, g);
    w.end_object();
  }
  w.end_array();
  w.key("ops").begin_array();
  for (const OpCost& op : r.ops) {
    w.newline().begin_object();
    w.key("name").value(op.name);
    w.key("kind").value(op.kind);
    w.key("layer").value_or_null(op.layer);
    op_fields(w, op);
    w.end_object();
  }
  w.end_array();
  w.key("assumptions").begin_array();
  for (const std::string& a : r.assumptions) w.value(a);
  w.end_array();
  study_object(w, study);
  write_run_info(w, run);
  w.end_object();
  w.flush();
  sink("\n");
}

}  // namespace ma
