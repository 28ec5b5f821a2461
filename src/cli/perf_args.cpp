#include "cli/perf_args.h"

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "cli/output_options.h"
#include "core/error.h"

namespace ma::cli {
namespace {

// The perf model works in doubles: these caps keep every product of them exact and finite.
constexpr uint64_t kMaxParallelWays = 1 << 16;  // GPUs in one parallel dimension
constexpr double kMaxFactor = 1e6;

ComputeDType dtype(const std::string& flag, const std::string& text) {
  auto d = compute_dtype_from_name(text);
  if (!d)
    throw Error(ErrorKind::Usage, "", flag,
                "unknown dtype '" + printable(text) + "'; accepted: fp32, tf32, bf16, fp16, fp8, fp4, int8");
  return *d;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(s.substr(start, comma - start));
  out.push_back(s.substr(start));
  return out;
}

void apply_knob(ExecutionKnobs& k, const std::string& flag, const std::string& text) {
  if (flag == "--attention") {
    k.flash_attention = choice_arg(flag, text, {"naive", "flash"}) == "flash";
    return;
  }
  const double v = positive_number_arg(flag, text, kMaxFactor);
  if (flag == "--wrf")
    k.wrf_attention = k.wrf_dense = k.wrf_moe = v;
  else if (flag == "--wrf-attn")
    k.wrf_attention = v;
  else if (flag == "--wrf-dense")
    k.wrf_dense = v;
  else if (flag == "--wrf-moe")
    k.wrf_moe = v;
  else if (flag == "--act-fusion")
    k.act_fusion = v;
  else
    k.elementwise = v;
}

// "LO,HI" with 0 < LO < HI (log axes).
std::pair<double, double> axis_limits(const char* flag, const std::string& v) {
  const size_t comma = v.find(',');
  if (comma == std::string::npos)
    throw Error(ErrorKind::Usage, flag, "", "LO,HI, got '" + printable(v) + "'");
  const double lo = positive_number_arg(flag, v.substr(0, comma)),
               hi = positive_number_arg(flag, v.substr(comma + 1));
  if (!(lo < hi)) throw Error(ErrorKind::Usage, flag, "", "LO must be below HI, got '" + printable(v) + "'");
  return {lo, hi};
}

size_t label_count(const std::string& v) {
  if (v == "none") return 0;
  if (v == "minimal") return 4;  // the whole step and the three largest ops
  if (v == "normal") return 12;
  if (v == "all") return SIZE_MAX;
  throw Error(ErrorKind::Usage, "--roofline-labels", "",
              "none, minimal, normal or all, got '" + printable(v) + "'");
}

}  // namespace

CommandSpec perf_spec(PerfArgs& a, std::vector<std::pair<std::string, std::string>>& knob_overrides) {
  PerfInputs& in = a.inputs;
  CommandSpec s;
  s.name = "perf";
  s.operands = "MODEL";
  s.summary =
      "The efficiency study of one step: FLOPs, bytes, arithmetic intensity, roofline, time, regime, MFU\n"
      "and tokens/s of a prefill, decode or training step on an accelerator.";
  s.operand = one_operand(a.model, s.name);
  auto knob = [&knob_overrides](std::string_view flag) {
    return [&knob_overrides, flag](const std::string& v) { knob_overrides.emplace_back(flag, v); };
  };
  auto ways = [](const char* flag, uint32_t& slot) {
    return [flag, &slot](const std::string& v) {
      slot = static_cast<uint32_t>(integer_arg(flag, v, 1, kMaxParallelWays));
    };
  };
  // clang-format off
  s.options = {
      {{"--hw"}, "NAME|FILE.json", "accelerator from the hardware table, or a JSON profile (default h200)",
       [&a](const std::string& v) { a.hardware = v; }},
      {{"--config"}, "FILE.json", "a simulator config (build-config's, perhaps edited) instead of MODEL",
       [&a](const std::string& v) { a.config_file = v; }},
      {{"--mode"}, "MODE", "prefill, decode (default; prefill for an encoder-only model) or train",
       [&in, &a](const std::string& v) {
         a.mode_given = true;
         const std::string m = choice_arg("--mode", v, {"prefill", "decode", "train"});
         in.mode = m == "prefill" ? PerfMode::Prefill : m == "train" ? PerfMode::Train : PerfMode::Decode;
       }},
      {{"--batch"}, "N", "sequences in the step",
       [&in](const std::string& v) { in.batch = integer_arg("--batch", v, 1, kMaxTokenCount); }},
      {{"--seq"}, "N", "tokens per sequence (prefill, train)",
       [&in](const std::string& v) { in.seq = integer_arg("--seq", v, 1, kMaxTokenCount); }},
      {{"--kv-len"}, "N", "cached tokens per sequence in decode (default: --seq)", [&in, &a](const std::string& v) {
         in.kv_len = integer_arg("--kv-len", v, 1, kMaxTokenCount);
         a.kv_len_given = true;
       }},
      {{"--dtype"}, "D", "weights and activations (default: a quantized checkpoint as stored, else bf16)",
       [&in, &a](const std::string& v) {
         in.weight_dtype = in.act_dtype = dtype("--dtype", v);
         a.weight_dtype_given = true;
       }},
      {{"--weight-dtype"}, "D", "weights only", [&in, &a](const std::string& v) {
         in.weight_dtype = dtype("--weight-dtype", v);
         a.weight_dtype_given = true;
       }},
      {{"--act-dtype"}, "D", "activations only", [&in](const std::string& v) { in.act_dtype = dtype("--act-dtype", v); }},
      {{"--kv-dtype"}, "D", "KV cache (default: the dtype the checkpoint declares, else bf16)",
       [&in, &a](const std::string& v) {
         in.kv_dtype = dtype("--kv-dtype", v);
         a.kv_dtype_given = true;
       }},
      {{"--profile"}, "P", "naive or efficient execution (the knobs below override it)", [&in](const std::string& v) {
         const bool naive = choice_arg("--profile", v, {"naive", "efficient"}) == "naive";
         in.knobs = naive ? ExecutionKnobs::naive() : ExecutionKnobs::efficient();
       }},
      {{"--wrf"}, "F", "weight reuse factor of every GEMM", knob("--wrf")},
      {{"--wrf-attn"}, "F", "weight reuse factor of attention GEMMs", knob("--wrf-attn")},
      {{"--wrf-dense"}, "F", "weight reuse factor of dense MLP GEMMs", knob("--wrf-dense")},
      {{"--wrf-moe"}, "F", "weight reuse factor of expert GEMMs", knob("--wrf-moe")},
      {{"--act-fusion"}, "F", "activation traffic factor", knob("--act-fusion")},
      {{"--elementwise"}, "F", "elementwise traffic factor", knob("--elementwise")},
      {{"--attention"}, "KIND", "naive or flash", knob("--attention")},
      {{"--tp"}, "N", "tensor-parallel GPUs", ways("--tp", in.parallel.tp)},
      {{"--pp"}, "N", "pipeline-parallel stages", ways("--pp", in.parallel.pp)},
      {{"--ep"}, "N", "expert-parallel GPUs", ways("--ep", in.parallel.ep)},
      {{"--json"}, "", "the result as JSON on stdout", [&a](const std::string&) { a.json = true; }},
      {{"--report"}, "FILE.md", "the Markdown efficiency study (- for stdout)",
       [&a](const std::string& v) { a.report_file = v; }},
      {{"--html"}, "FILE.html", "the efficiency study and its roofline as one self-contained page (- for stdout)",
       [&a](const std::string& v) { a.html_file = v; }},
      {{"--plot"}, "FILE", "roofline plot: .png or .svg (- for SVG on stdout)",
       [&a](const std::string& v) { a.plot_file = image_path_arg("--plot", v); }},
      {{"--plot-hw"}, "A,B", "chips of the roofline plot (default: --hw)",
       [&a](const std::string& v) { a.plot_chips = split(v); }},
      {{"--plot-dtype"}, "D", "dtype of the roofline plot (default: the step's)", [&a](const std::string& v) {
         dtype("--plot-dtype", v);
         a.plot_dtype = v;
       }},
      {{"--roofline-x"}, "LO,HI", "the roofline's FLOP/B axis (default: fitted, at least 0.1 to 1e5)",
       [&a](const std::string& v) { a.roofline.x_limits = axis_limits("--roofline-x", v); }},
      {{"--roofline-y"}, "LO,HI", "the roofline's TFLOP/s axis (default: fitted)",
       [&a](const std::string& v) { a.roofline.y_limits = axis_limits("--roofline-y", v); }},
      {{"--roofline-labels"}, "MODE", "labelled points per panel: none, minimal (4), normal (12, default), all",
       [&a](const std::string& v) { a.roofline.max_labels = label_count(v); }},
      {{"--b-sat"}, "M", "tensor-core saturation: eta_tc = min(1, M_eff / M) (default: the hardware's, 64)",
       [&a](const std::string& v) { a.b_sat = positive_number_arg("--b-sat", v, 1e9); }},
      {{"--sensitivity"}, "GRID", "the report's knob grid: small (4), medium (24, default) or large (72)",
       [&a](const std::string& v) {
         if (v != "small" && v != "medium" && v != "large")
           throw Error(ErrorKind::Usage, "--sensitivity", "", "small, medium or large, got '" + printable(v) + "'");
         a.sensitivity = v;
       }},
  };
  // clang-format on
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

PerfArgs parse_perf_args(const Args& args) {
  PerfArgs a;
  std::vector<std::pair<std::string, std::string>> knob_overrides;
  const CommandSpec spec = perf_spec(a, knob_overrides);
  parse_command_line(args, spec);
  require_model_or_config(a.model, a.config_file, spec);
  a.hub.flags.quiet = a.common.quiet;  // the Hub settings warnings obey --quiet too
  for (const auto& [flag, text] : knob_overrides) apply_knob(a.inputs.knobs, flag, text);
  if (!knob_overrides.empty()) a.inputs.knobs.profile += " (modified)";
  require_distinct_outputs({{a.json ? "-" : "", "--json"},
                            {a.report_file, "--report"},
                            {a.html_file, "--html"},
                            {a.plot_file, "--plot"}});
  // Seed 001: the decode KV length is the report's sequence length (255 by default).
  if (!a.kv_len_given) a.inputs.kv_len = a.inputs.seq;
  return a;
}

}  // namespace ma::cli
