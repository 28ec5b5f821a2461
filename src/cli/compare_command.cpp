// `modelanalyzer compare A B`: per-tensor drift between two checkpoints of the same architecture (seed 001's
// "Comparing Checkpoints"), ranked and flagged; console, JSON, CSV, Markdown and a per-layer plot.
#include <cstdio>

#include "analysis/weight_compare.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/compare_args.h"
#include "cli/model_source.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "report/compare_report.h"
#include "report/diagram_png.h"
#include "report/drift_plot.h"
#include "report/markdown_writer.h"

namespace ma::cli {
int run_compare(const Args& args) {
  const CompareArgs a = parse_compare_args(args);
  const std::vector<std::string>& models = a.models;
  const size_t top = a.top;
  Output out = detect_output(a.common);
  std::vector<std::string> warnings;
  trace("locating " + models[0] + " and " + models[1]);
  const LocalModelFiles files_a = locate_local_model(models[0]), files_b = locate_local_model(models[1]);
  trace_files(files_a);
  trace_files(files_b);
  // A side with no weights (a config alone) would read as a checkpoint whose every tensor is missing.
  for (const LocalModelFiles* f : {&files_a, &files_b})
    if (f->format == CheckpointFormat::None)
      throw Error(
          ErrorKind::NotFound, f->display_name, "",
          "a comparison needs the weight files (*.safetensors, PyTorch .bin/.pt, GGUF, ONNX); there are "
          "none" +
              std::string(f->unread_weights.empty() ? "" : " in a format this command reads"));
  trace("streaming both checkpoints tensor by tensor");
  WeightComparison c = compare_weights(files_a, files_b, a.options, warnings);
  trace(std::to_string(c.tensors.size()) + " tensors compared");
  c.a = models[0];
  c.b = models[1];
  print_warnings(warnings, out);
  if (c.tensors.empty() && c.not_compared.empty() && c.missing_in_b.empty() && c.extra_in_b.empty() &&
      c.shape_mismatch.empty())
    throw Error(ErrorKind::NotFound, models[0], "", "no tensors to compare");

  std::string json_text;
  if (a.outputs.json || !a.outputs.json_file.empty())
    stream_compare_json(c, run_info(), [&](std::string_view s) { json_text.append(s); });
  std::string csv = a.outputs.csv_file.empty() ? std::string() : render_compare_csv(c);
  std::string markdown = a.outputs.markdown_file.empty() ? std::string() : render_compare_markdown(c, top);
  std::string plot = a.outputs.plot_file.empty() ? std::string() : render_drift_by_layer_svg(c);
  OutputBatch files = command_outputs();
  if (!a.outputs.plot_file.empty())
    files.add(a.outputs.plot_file, diagram_file_bytes(plot, a.outputs.plot_file));
  if (!a.outputs.json_file.empty()) files.add(a.outputs.json_file, json_text);
  if (!a.outputs.csv_file.empty()) files.add(a.outputs.csv_file, csv);
  if (!a.outputs.markdown_file.empty()) {
    markdown += markdown_figures({{a.outputs.plot_file, "Drift by layer (--plot)"}}, a.outputs.markdown_file);
    files.add(a.outputs.markdown_file, markdown);
  }
  files.commit();
  if (a.outputs.json)
    print_stdout(json_text);
  else if (!out.quiet && !a.outputs.file_on_stdout())
    print_stdout(render_compare_console(c, top, out.color));
  return 0;
}

}  // namespace ma::cli
