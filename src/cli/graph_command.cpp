#include <filesystem>
#include <optional>
#include <vector>

#include "analysis/identity.h"
#include "analysis/onnx_graph.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/graph_args.h"
#include "cli/model_source.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "hub/onnx_choice.h"
#include "report/onnx_graph_report.h"

namespace ma::cli {

int run_graph(const Args& args) {
  const GraphArgs a = parse_graph_args(args);
  Output out = detect_output(a.common);
  const OpenedModel opened = open_model(a.model, a.hub, /*skip_tokenizer=*/true);
  print_warnings(opened.warnings, out);
  const LocalModelFiles& files = opened.files;
  if (files.format != CheckpointFormat::Onnx) {
    // ONNX models offered for --file (a directory's beside its config.json, a repository's in folders): the
    // graph is one of them, which only the user can say; the note offering them would say it a second time.
    std::vector<ListedOnnxModel> offered =
        opened.metadata ? opened.metadata->onnx_models : std::vector<ListedOnnxModel>{};
    for (const std::filesystem::path& p : files.onnx_models)
      offered.push_back({p.lexically_relative(files.root).generic_string(), "", std::nullopt});
    if (!offered.empty())
      throw Error(ErrorKind::Usage, a.model, "",
                  "holds " + std::to_string(offered.size()) + " ONNX models (" + onnx_model_paths(offered) +
                      "): name the one to read with --file PATH");
    print_notes(opened.notes, out);
    throw Error(ErrorKind::Usage, a.model, "",
                "not an ONNX model: `graph` reads the graph of a .onnx file (other formats: `tensors`)");
  }
  print_notes(opened.notes, out);
  // Titled as every report names the model: a local file by its directory and name (never its full path),
  // a Hub model by its id and the file read (as --file named it).
  const std::string title =
      opened.metadata
          ? files.display_name + " " + a.hub.file.value_or(files.weight_files.front().filename().string())
          : display_name_of(a.model);
  trace("reading " + files.weight_files.front().filename().string() + " (the ONNX module)");
  const Checkpoint ck = read_checkpoint(files);
  trace("summarising the graph and inferring shapes");
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  print_notes(ck.notes, out);
  if (a.json)
    stream_onnx_graph_json(g, files.display_name, a.edges, run_info(), print_stdout);
  else if (!out.quiet)
    print_stdout(render_onnx_graph_console(g, title, a.edges, out.color));
  return 0;
}

}  // namespace ma::cli
