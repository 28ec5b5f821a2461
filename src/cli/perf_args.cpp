#include "cli/perf_args.h"

#include <charconv>
#include <cmath>

#include "core/error.h"

namespace ma::cli {
namespace {

uint64_t positive(const std::string& flag, const std::string& text) {
  uint64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v == 0 || v > (1ull << 40))
    throw Error(ErrorKind::Usage, "", flag, "expects a positive integer, got '" + printable(text) + "'");
  return v;
}

double factor(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v))
    throw Error(ErrorKind::Usage, "", flag, "expects a positive number, got '" + printable(text) + "'");
  return v;
}

ComputeDType dtype(const std::string& flag, const std::string& text) {
  auto d = compute_dtype_from_name(text);
  if (!d) throw Error(ErrorKind::Usage, "", flag, "unknown dtype '" + printable(text) + "' (fp32, tf32, bf16, fp16, fp8, fp4, int8)");
  return *d;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1) out.push_back(s.substr(start, comma - start));
  out.push_back(s.substr(start));
  return out;
}

}  // namespace

PerfArgs parse_perf_args(const Args& args) {
  PerfArgs a;
  PerfInputs& in = a.inputs;
  bool kv_len_given = false;
  std::vector<std::pair<std::string, std::string>> knob_overrides;  // applied after --profile
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error(ErrorKind::Usage, "", arg, "needs a value");
      return args[++i];
    };
    if (take_hub_arg(args, i, a.hub)) continue;
    if (arg == "--hw") a.hardware = value();
    else if (arg == "--mode") {
      const std::string& m = value();
      if (m == "prefill") in.mode = PerfMode::Prefill;
      else if (m == "decode") in.mode = PerfMode::Decode;
      else if (m == "train") in.mode = PerfMode::Train;
      else throw Error(ErrorKind::Usage, "", "--mode", "must be prefill, decode or train");
    } else if (arg == "--batch") in.batch = positive(arg, value());
    else if (arg == "--seq") in.seq = positive(arg, value());
    else if (arg == "--kv-len") {
      in.kv_len = positive(arg, value());
      kv_len_given = true;
    } else if (arg == "--dtype") in.weight_dtype = in.act_dtype = dtype(arg, value());
    else if (arg == "--weight-dtype") in.weight_dtype = dtype(arg, value());
    else if (arg == "--act-dtype") in.act_dtype = dtype(arg, value());
    else if (arg == "--kv-dtype") in.kv_dtype = dtype(arg, value());
    else if (arg == "--profile") {
      const std::string& p = value();
      if (p == "naive") in.knobs = ExecutionKnobs::naive();
      else if (p == "efficient") in.knobs = ExecutionKnobs::efficient();
      else throw Error(ErrorKind::Usage, "", "--profile", "must be naive or efficient");
    } else if (arg == "--wrf" || arg == "--wrf-attn" || arg == "--wrf-dense" || arg == "--wrf-moe" ||
               arg == "--act-fusion" || arg == "--elementwise" || arg == "--attention")
      knob_overrides.emplace_back(arg, value());
    else if (arg == "--tp") in.parallel.tp = static_cast<uint32_t>(positive(arg, value()));
    else if (arg == "--pp") in.parallel.pp = static_cast<uint32_t>(positive(arg, value()));
    else if (arg == "--ep") in.parallel.ep = static_cast<uint32_t>(positive(arg, value()));
    else if (arg == "--json") a.json = true;
    else if (arg == "--quiet" || arg == "-q") a.quiet = true;
    else if (arg == "--report") a.report_file = value();
    else if (arg == "--plot") a.plot_file = value();
    else if (arg == "--plot-hw") a.plot_chips = split(value());
    else if (arg == "--plot-dtype") a.plot_dtype = value();
    else if (!arg.empty() && arg[0] == '-') throw Error(ErrorKind::Usage, "", arg, "unknown option for 'perf'; see modelanalyzer --help");
    else if (a.model.empty()) a.model = arg;
    else throw Error(ErrorKind::Usage, "", arg, "'perf' takes one MODEL");
  }
  if (a.model.empty()) throw Error(ErrorKind::Usage, "", "MODEL", "missing; usage: modelanalyzer perf MODEL [--hw h200]");
  for (const auto& [flag, text] : knob_overrides) {
    ExecutionKnobs& k = in.knobs;
    if (flag == "--attention") {
      if (text != "naive" && text != "flash") throw Error(ErrorKind::Usage, "", flag, "must be naive or flash");
      k.flash_attention = text == "flash";
    } else {
      const double v = factor(flag, text);
      if (flag == "--wrf") k.wrf_attention = k.wrf_dense = k.wrf_moe = v;
      else if (flag == "--wrf-attn") k.wrf_attention = v;
      else if (flag == "--wrf-dense") k.wrf_dense = v;
      else if (flag == "--wrf-moe") k.wrf_moe = v;
      else if (flag == "--act-fusion") k.act_fusion = v;
      else k.elementwise = v;
    }
  }
  if (!knob_overrides.empty()) in.knobs.profile += " (modified)";
  // Seed 001: the decode KV length is the report's sequence length (255 by default).
  if (!kv_len_given) in.kv_len = in.seq;
  if (!compute_dtype_from_name(a.plot_dtype)) throw Error(ErrorKind::Usage, "", "--plot-dtype", "unknown dtype");
  return a;
}

}  // namespace ma::cli
