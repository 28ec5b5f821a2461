// `modelanalyzer perf MODEL`: seed 001's efficiency study — FLOPs, bytes, roofline, MFU — of one prefill,
// decode or training step on an accelerator from the hardware table (or a JSON profile), with seed 001's
// execution knobs and profiles, tensor / pipeline / expert parallelism, and its report and roofline plot.
#include <cmath>
#include <cstdio>

#include "analysis/model_report.h"
#include "analysis/perf/perf_model.h"
#include "analysis/perf/stored_precision.h"
#include "analysis/plan/perf_capacity.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/perf_args.h"
#include "cli/perf_study.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "core/units.h"
#include "model/inventory.h"
#include "report/perf_output.h"

namespace ma::cli {

int run_perf(const Args& args) {
  PerfArgs a = parse_perf_args(args);
  Output out = detect_output(a.common);
  const OpenedInventory opened = open_model_or_config(a.model, a.config_file, a.hub, out);
  if (a.model.empty()) a.model = a.config_file;
  Inventory& inv = *opened.inventory;
  trace("building the report; modelling the step on " + a.hardware);
  ReportOptions options;
  options.model_id = a.model;
  options.skip_tokenizer = true;
  options.kv_dtype = DType::BF16;  // the model scales the 16-bit cache sizes to --kv-dtype
  ModelReport report = build_model_report(inv, opened.opened.files, options);
  Hardware hw = resolve_hardware(a.hardware);
  if (a.b_sat) hw.b_sat = *a.b_sat;
  // An encoder-only model has no decode step: its default step is the one forward pass it has.
  if (!a.mode_given && !has_decode_step(report)) a.inputs.mode = PerfMode::Prefill;
  if (!a.weight_dtype_given)
    use_stored_weights(a.inputs, report.quantization,
                       inv.arch.quantization ? inv.arch.quantization->kv_cache_dtype : std::nullopt,
                       a.kv_dtype_given, hw);
  // The step's context: the cache and the new token in decode, the sequence in prefill and training.
  const bool decode = a.inputs.mode == PerfMode::Decode;
  const uint64_t context = decode ? a.inputs.kv_len + 1 : a.inputs.seq;
  if (auto w =
          context_beyond_maximum(decode ? "--kv-len " + with_thousands(a.inputs.kv_len) + " + the new token"
                                        : "--seq " + with_thousands(context),
                                 context, report))
    print_warnings({*w}, out);
  PerfResult result = model_performance(inv, report, a.inputs, hw);
  result.capacity = check_capacity(inv, report, a.inputs, hw);

  // Everything rendered first, then written.
  trace("step modelled; sweeps and outputs");
  PerfSweeps study;
  if (a.json || !a.report_file.empty() || !a.html_file.empty())
    study = perf_sweeps(inv, report, result, a.sensitivity);
  std::string json;
  if (a.json)
    stream_perf_json(result, study, a.model, run_info(), [&](std::string_view s) { json.append(s); });
  PerfStudyFiles files = render_perf_study(inv, report, result, std::move(study), a);
  write_perf_study(files, a);
  if (a.json)
    print_stdout(json);
  else if (!out.quiet && !a.stdout_taken())
    print_stdout(render_perf_console(result, a.model, out.color));
  return 0;
}

}  // namespace ma::cli
