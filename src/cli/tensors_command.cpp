#include "analysis/layer_summary.h"
#include "analysis/parameter_counts.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/tensors_args.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/tensors_report.h"

namespace ma::cli {

int run_tensors(const Args& args) {
  const TensorsArgs a = parse_tensors_args(args);
  Output out = detect_output(a.common);
  OpenedModel opened = open_model(a.model, a.hub, true);
  print_warnings(opened.warnings, out);
  print_notes(opened.notes, out);
  trace("reading the configuration and the weight headers; building the inventory");
  Inventory& inv = keep_until_exit(build_inventory(opened.files));
  trace("inventory: " + std::to_string(inv.tensors.size()) + " tensors; counting parameters");
  TensorsReport report{inv, count_parameters(inv), summarize_layers(inv.arch.layers())};
  print_warnings(inv.warnings, out);
  print_notes(inv.notes, out);
  trace("writing the output");
  // Render everything before writing anything, so a failure leaves no partial output.
  // (Formatting cannot fail once the inventory exists, so JSON streams straight to stdout.)
  if (!a.csv_path.empty()) write_output_file(a.csv_path, render_tensors_csv(report));
  if (a.json)
    stream_tensors_json(report, run_info(), print_stdout);
  else if (!out.quiet && !names_stdout(a.csv_path))
    print_stdout(render_tensors_console(report, out.color));
  return 0;
}

}  // namespace ma::cli
