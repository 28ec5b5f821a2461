#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
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
namespace {

// The ONNX models a directory or repository offers where the analysis read none (its weights are another
// format's, or several exports): `graph` reads one of them. By path in the repository or directory.
std::vector<std::string> offered_onnx_models(const OpenedModel& opened, const std::string& model) {
  const LocalModelFiles& files = opened.files;
  std::vector<std::string> out;
  if (opened.metadata)  // a Hub repository's models in folders, from its listing
    for (const ListedOnnxModel& m : opened.metadata->onnx_models) out.push_back(m.path);
  auto add = [&](const std::filesystem::path& p) {
    out.push_back(p.lexically_relative(files.root).generic_string());
  };
  for (const std::filesystem::path& p : files.onnx_models) add(p);
  for (const std::filesystem::path& p : files.unread_weights)  // beside other weights at the top
    if (p.extension() == ".onnx") add(p);
  std::error_code ec;
  if (!opened.metadata && files.onnx_models.empty() && std::filesystem::is_directory(model, ec))
    for (const std::filesystem::path& p : onnx_files_in_folders(model))
      out.push_back(p.lexically_relative(model).generic_string());
  return out;
}

}  // namespace

int run_graph(const Args& args) {
  const GraphArgs a = parse_graph_args(args);
  Output out = detect_output(a.common);
  HubArgs hub = a.hub;
  OpenedModel opened = open_model(a.model, hub, /*skip_tokenizer=*/true);
  print_warnings(opened.warnings, out);
  if (opened.files.format != CheckpointFormat::Onnx && !hub.file) {
    // The graph is one of the models offered: the only one is read, as --file would name it; of several,
    // which one only the user can say (the note offering them would say it a second time).
    const std::vector<std::string> offered = offered_onnx_models(opened, a.model);
    if (offered.size() > 1)
      throw Error(ErrorKind::Usage, a.model, "",
                  "holds " + std::to_string(offered.size()) + " ONNX models (" + onnx_model_paths(offered) +
                      "): name the one to read with --file PATH");
    if (offered.size() == 1) {
      hub.file = offered.front();
      const std::vector<std::string> shown = std::move(opened.warnings);
      opened = open_model(a.model, hub, /*skip_tokenizer=*/true);
      std::erase_if(opened.warnings, [&](const std::string& w) { return std::ranges::count(shown, w) > 0; });
      print_warnings(opened.warnings, out);
    }
  }
  print_notes(opened.notes, out);
  const LocalModelFiles& files = opened.files;
  if (files.format != CheckpointFormat::Onnx)
    throw Error(ErrorKind::Usage, a.model, "",
                "not an ONNX model: `graph` reads the graph of a .onnx file (other formats: `tensors`)");
  // Titled as every report names the model: a local file by its directory and name (never its full path),
  // a Hub model by its id and the file read (as --file named it).
  const std::string title =
      opened.metadata
          ? files.display_name + " " + hub.file.value_or(files.weight_files.front().filename().string())
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
