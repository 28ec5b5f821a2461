#include "cli/perf_study.h"

#include "cli/cli_common.h"
#include "report/diagram_png.h"
#include "report/perf_report.h"
#include "report/roofline_plot.h"

namespace ma::cli {
namespace {

constexpr uint64_t kSweepBatches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

PerfResult run(const Inventory& inv, const ModelReport& report, const PerfInputs& in, const Hardware& hw) {
  return model_performance(inv, report, in, hw);
}

}  // namespace

PerfSweeps perf_sweeps(const Inventory& inv, const ModelReport& report, const PerfResult& base) {
  PerfSweeps s;
  const Hardware& hw = base.hardware;
  for (const ExecutionKnobs& knobs : {ExecutionKnobs::naive(), ExecutionKnobs::efficient()})
    for (uint64_t b : kSweepBatches) {
      PerfInputs in = base.inputs;
      in.mode = PerfMode::Decode;
      in.batch = b;
      in.knobs = knobs;
      s.decode_batch_sweep.push_back(run(inv, report, in, hw));
    }
  // The medium grid: every combination of the knobs seed 001 varies.
  for (double wrf : {1.0, 2.0, 4.0})
    for (double fusion : {1.0, 0.5})
      for (double elementwise : {1.0, 0.7})
        for (bool flash : {false, true}) {
          PerfInputs in = base.inputs;
          in.knobs.profile = "grid";
          in.knobs.wrf_attention = in.knobs.wrf_dense = in.knobs.wrf_moe = wrf;
          in.knobs.act_fusion = fusion;
          in.knobs.elementwise = elementwise;
          in.knobs.flash_attention = flash;
          s.sensitivity.push_back(run(inv, report, in, hw));
        }
  for (PerfMode mode : {PerfMode::Train, PerfMode::Prefill, PerfMode::Decode}) {
    PerfInputs in = base.inputs;
    in.mode = mode;
    s.limits.push_back(run(inv, report, in, hw));
  }
  PerfInputs worked = base.inputs;
  worked.mode = PerfMode::Decode;
  worked.batch = 128;
  s.worked_example = run(inv, report, worked, hw);
  return s;
}

PerfStudyFiles render_perf_study(const Inventory& inv, const ModelReport& report, const PerfResult& base,
                                 PerfSweeps study, const PerfArgs& args) {
  PerfStudyFiles f;
  if (!args.report_file.empty()) {
    PerfSweeps& s = study;
    s.roofline_plot = args.plot_file;
    s.model_id = args.model;
    f.markdown = render_perf_markdown(base, s);
  }
  if (!args.plot_file.empty()) {
    std::vector<RooflineSeries> chips;
    const ComputeDType dt = *compute_dtype_from_name(args.plot_dtype);
    for (const std::string& name : args.plot_chips) {
      PerfInputs in = base.inputs;
      in.weight_dtype = in.act_dtype = dt;
      const Hardware hw = resolve_hardware(name);
      chips.push_back({hw, dt, roofline_points(run(inv, report, in, hw))});
    }
    f.svg = render_roofline_svg(chips, args.model + ": " + std::string(perf_mode_name(base.inputs.mode)) +
                                           ", batch " + std::to_string(base.inputs.batch));
  }
  return f;
}

void write_perf_study(const PerfStudyFiles& files, const PerfArgs& args) {
  if (!args.plot_file.empty()) write_diagram_file(files.svg, args.plot_file);
  if (!args.report_file.empty()) write_output_file(args.report_file, files.markdown);
}

}  // namespace ma::cli
