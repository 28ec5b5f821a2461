#include "analysis/identity.h"
#include "analysis/onnx_graph.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/graph_args.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "report/onnx_graph_report.h"

namespace ma::cli {

int run_graph(const Args& args) {
  const GraphArgs a = parse_graph_args(args);
  Output out = detect_output(a.common);
  const LocalModelFiles files = locate_local_model(a.model);
  if (files.format != CheckpointFormat::Onnx)
    throw Error(ErrorKind::Usage, a.model, "",
                "not an ONNX model: `graph` reads the graph of a .onnx file (other formats: `tensors`)");
  trace("reading " + files.weight_files.front().filename().string() + " (the ONNX module)");
  const Checkpoint ck = read_checkpoint(files);
  trace("summarising the graph and inferring shapes");
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  print_notes(ck.notes, out);
  if (a.json)
    stream_onnx_graph_json(g, files.display_name, a.edges, run_info(), print_stdout);
  else if (!out.quiet)
    print_stdout(render_onnx_graph_console(g, display_name_of(a.model), a.edges, out.color));  // no full path
  return 0;
}

}  // namespace ma::cli
