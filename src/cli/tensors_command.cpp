#include "analysis/layer_summary.h"
#include "analysis/parameter_counts.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/tensors_report.h"

namespace ma::cli {

int run_tensors(const Args& args) {
  std::string model, csv_path;
  bool json = false, quiet = false;
  HubArgs hub;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (take_hub_arg(args, i, hub))
      continue;
    else if (a == "--json")
      json = true;
    else if (a == "--quiet" || a == "-q")
      quiet = true;
    else if (a == "--csv") {
      if (i + 1 >= args.size())
        throw Error(ErrorKind::Usage, "", "--csv", "needs a file name (or - for stdout)");
      csv_path = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      throw Error(ErrorKind::Usage, "", a, "unknown option for 'tensors'; see modelanalyzer --help");
    } else if (model.empty()) {
      model = a;
    } else {
      throw Error(ErrorKind::Usage, "", a, "'tensors' takes one MODEL");
    }
  }
  if (model.empty())
    throw Error(ErrorKind::Usage, "", "MODEL",
                "missing; usage: modelanalyzer tensors MODEL [--json] [--csv FILE]");

  Output out = detect_output(quiet);
  OpenedModel opened = open_model(model, hub, true);
  print_warnings(opened.warnings, out);
  Inventory& inv = keep_until_exit(build_inventory(opened.files));
  TensorsReport report{inv, count_parameters(inv), summarize_layers(inv.layers)};
  print_warnings(inv.warnings, out);
  // Render everything before writing anything, so a failure leaves no partial output.
  // (Formatting cannot fail once the inventory exists, so JSON streams straight to stdout.)
  if (!csv_path.empty()) write_output_file(csv_path, render_tensors_csv(report));
  if (json)
    stream_tensors_json(report, print_stdout);
  else if (csv_path != "-")
    print_stdout(render_tensors_console(report, out.color));
  return 0;
}

}  // namespace ma::cli
