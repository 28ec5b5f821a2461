// `modelanalyzer embeddings MODEL`: the structure of the token embedding (issue 16, seed 004's
// embedding_analysis.py) as console, JSON, CSV, Markdown and two plots.
#include <utility>

#include "analysis/embedding/embedding_analysis.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/embeddings_args.h"
#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/error.h"
#include "formats/token_strings.h"
#include "report/diagram_png.h"
#include "report/embedding_plots.h"
#include "report/embeddings_report.h"

namespace ma::cli {

int run_embeddings(const Args& args) {
  EmbeddingsArgs a = parse_embeddings_args(args);
  Output out = detect_output(a.common);
  const auto [input, plan] = plan_weights(a.model, a.hub, StatsSelection{}, out);
  trace("reading tokenizer.json for the token strings");
  // As many strings as the analysed matrix has rows: its data, which the reader checked lies in the file,
  // bounds them (a zero-column tensor elsewhere could name 2^64 rows at no cost).
  const uint64_t rows = embedding_matrix(plan, a.options.matrix, a.model).shape[0];
  const std::vector<std::string> tokens = read_token_strings(input.model.root / "tokenizer.json", rows);
  trace("clustering");
  EmbeddingAnalysis analysis = analyse_embeddings(plan, tokens, a.options, a.model);
  analysis.model_id = a.model;

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  const ResultOutputs& o = a.outputs;
  RenderedResults r;
  if (o.json || !o.json_file.empty())
    stream_embeddings_json(analysis, run, [&](std::string_view s) { r.json.append(s); });
  if (!o.csv_file.empty()) r.csv = render_embeddings_csv(analysis, tokens, run.timestamp);
  if (!o.markdown_file.empty()) r.markdown = render_embeddings_markdown(analysis, run);
  if (!o.plot_file.empty()) r.plot_svg = render_embedding_projection_svg(analysis);
  const std::string elbow = a.elbow_plot.empty() ? std::string() : render_elbow_svg(analysis);
  OutputBatch files = command_outputs();
  if (!a.elbow_plot.empty()) files.add(a.elbow_plot, diagram_file_bytes(elbow, a.elbow_plot));
  const bool console = !o.json && !out.quiet;
  write_results(o, r, out.quiet, a.elbow_plot == "-",
                console ? render_embeddings_console(analysis, out.color) : std::string(), std::move(files));
  return 0;
}

}  // namespace ma::cli
