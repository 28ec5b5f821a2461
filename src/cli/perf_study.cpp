#include "cli/perf_study.h"

#include "analysis/identity.h"
#include "cli/cli_common.h"
#include "report/diagram_png.h"
#include "report/markdown_writer.h"
#include "report/perf_report.h"
#include "report/roofline_plot.h"

namespace ma::cli {
namespace {

constexpr uint64_t kSweepBatches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

PerfResult run(const Inventory& inv, const ModelReport& report, const PerfInputs& in, const Hardware& hw) {
  return model_performance(inv, report, in, hw);
}

}  // namespace

PerfSweeps perf_sweeps(const Inventory& inv, const ModelReport& report, const PerfResult& base,
                       const std::string& grid) {
  PerfSweeps s;
  const Hardware& hw = base.hardware;
  const bool decodes = has_decode_step(report);  // an encoder-only model: no decode sweep, limit or example
  for (const ExecutionKnobs& knobs : {ExecutionKnobs::naive(), ExecutionKnobs::efficient()})
    for (uint64_t b : kSweepBatches) {
      if (!decodes) break;
      PerfInputs in = base.inputs;
      in.mode = PerfMode::Decode;
      in.batch = b;
      in.knobs = knobs;
      s.decode_batch_sweep.push_back(run(inv, report, in, hw));
    }
  // Every combination of the knobs seed 001 varies, at the grid's resolution.
  std::vector<double> wrfs = {1, 2, 4}, fusions = {1, 0.5}, elementwises = {1, 0.7};
  if (grid == "small") {
    wrfs = {1, 4};
    fusions = {1};
    elementwises = {1};
  } else if (grid == "large") {
    wrfs = {1, 2, 4, 8};
    fusions = {1, 0.75, 0.5};
    elementwises = {1, 0.85, 0.7};
  }
  for (double wrf : wrfs)
    for (double fusion : fusions)
      for (double elementwise : elementwises)
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
    if (mode == PerfMode::Decode && !decodes) continue;
    PerfInputs in = base.inputs;
    in.mode = mode;
    s.limits.push_back(run(inv, report, in, hw));
  }
  if (!decodes) return s;
  PerfInputs worked = base.inputs;
  worked.mode = PerfMode::Decode;
  worked.batch = 128;
  s.worked_example = run(inv, report, worked, hw);
  return s;
}

PerfStudyFiles render_perf_study(const Inventory& inv, const ModelReport& report, const PerfResult& base,
                                 PerfSweeps study, const PerfArgs& args) {
  PerfStudyFiles f;
  if (!args.plot_file.empty() || !args.html_file.empty()) {
    // By default the step itself on its own chip (the tables' figures); --plot-hw / --plot-dtype redo it on
    // others.
    std::vector<RooflineSeries> chips;
    const std::vector<std::string> names =
        args.plot_chips.empty() ? std::vector<std::string>{args.hardware} : args.plot_chips;
    for (const std::string& name : names) {
      PerfInputs in = base.inputs;
      if (!args.plot_dtype.empty())
        in.weight_dtype = in.act_dtype = *compute_dtype_from_name(args.plot_dtype);
      Hardware hw = resolve_hardware(name, args.plot_chips.empty() ? "--hw" : "--plot-hw");
      if (args.b_sat) hw.b_sat = *args.b_sat;
      const PerfResult r = run(inv, report, in, hw);
      chips.push_back({hw, perf_peak_dtype(r), roofline_points(r)});
    }
    f.svg = render_roofline_svg(chips,
                                display_name_of(args.model) + ": " +
                                    std::string(perf_mode_name(base.inputs.mode)) + ", batch " +
                                    std::to_string(base.inputs.batch),
                                args.roofline);
  }
  study.model_id = display_name_of(args.model);  // a title names the model, not a local path
  study.run = run_info();
  if (!args.report_file.empty()) {
    study.roofline_plot = markdown_figure_path(args.plot_file, args.report_file);
    f.markdown = render_perf_markdown(base, study);
    study.roofline_plot.clear();
  }
  if (!args.html_file.empty()) {
    study.roofline_svg = f.svg;
    f.html = render_perf_html(base, study);
  }
  if (args.plot_file.empty()) f.svg.clear();
  return f;
}

void write_perf_study(const PerfStudyFiles& files, const PerfArgs& args) {
  OutputBatch out = command_outputs();
  if (!args.plot_file.empty()) out.add(args.plot_file, diagram_file_bytes(files.svg, args.plot_file));
  if (!args.report_file.empty()) out.add(args.report_file, files.markdown);
  if (!args.html_file.empty()) out.add(args.html_file, files.html);
  out.commit();
}

}  // namespace ma::cli
