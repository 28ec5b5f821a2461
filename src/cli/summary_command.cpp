// `modelanalyzer MODEL`: the architecture at a glance — family, exact parameters, layer map, checkpoint.
// (The full seed-002 report builds on this.)
#include "analysis/layer_summary.h"
#include "analysis/parameter_counts.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/summary_report.h"
#include "report/tensors_report.h"

namespace ma::cli {

int run_summary(const Args& args) {
  std::string model;
  bool json = false, quiet = false;
  for (const std::string& a : args) {
    if (a == "--json")
      json = true;
    else if (a == "--quiet" || a == "-q")
      quiet = true;
    else if (!a.empty() && a[0] == '-')
      throw Error(ErrorKind::Usage, "", a, "unknown option; see modelanalyzer --help");
    else if (model.empty())
      model = a;
    else
      throw Error(ErrorKind::Usage, "", a, "one MODEL at a time");
  }
  Output out = detect_output(quiet);
  Inventory& inv = keep_until_exit(build_inventory(locate_local_model(model)));
  TensorsReport report{inv, count_parameters(inv), summarize_layers(inv.layers)};
  print_warnings(inv.warnings, out);
  if (json)
    stream_tensors_json(report, print_stdout);
  else
    print_stdout(render_summary_console(report, out.color));
  return 0;
}

}  // namespace ma::cli
