// `modelanalyzer embeddings MODEL`: the structure of the token embedding (issue 16, seed 004's
// embedding_analysis.py) as console, JSON, CSV, Markdown and two plots.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/embedding/embedding_analysis.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/embeddings_args.h"
#include "cli/model_folders.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "formats/token_strings.h"
#include "report/diagram_png.h"
#include "report/embedding_plots.h"
#include "report/embeddings_report.h"
#include "report/markdown_writer.h"

namespace ma::cli {
namespace {

// One model's embedding analysis (`model.model_id` in it) and the token strings of its rows.
struct AnalysedEmbedding {
  EmbeddingAnalysis analysis;
  std::vector<std::string> tokens;
};

AnalysedEmbedding analyse_model(const ModelToAnalyse& model, const EmbeddingsArgs& a, const Output& out) {
  std::vector<std::string> warnings;
  const PlannedScan plan = plan_scan(model.input, StatsSelection{}, warnings);
  print_warnings(warnings, out);
  trace("reading tokenizer.json for the token strings of " + model.model_id);
  // As many strings as the analysed matrix has rows: its data, which the reader checked lies in the file,
  // bounds them (a zero-column tensor elsewhere could name 2^64 rows at no cost).
  const uint64_t rows = embedding_matrix(plan, a.options.matrix, model.where).shape[0];
  AnalysedEmbedding r;
  r.tokens = read_token_strings(model.input.model.root / "tokenizer.json", rows);
  trace("clustering");
  r.analysis = analyse_embeddings(plan, r.tokens, a.options, model.where);
  r.analysis.model_id = model.model_id;
  return r;
}

}  // namespace

// MODEL is what `stats` takes: a checkpoint, a downloaded Hub id, or a directory of models, each analysed in
// turn (a JSON array, one CSV told apart by model_id, a console block per model).
int run_embeddings(const Args& args) {
  EmbeddingsArgs a = parse_embeddings_args(args);
  Output out = detect_output(a.common);
  const std::vector<ModelToAnalyse> inputs = models_to_analyse(a.model, a.hub, std::nullopt, out);
  const bool several = inputs.size() > 1;
  if (several && (!a.outputs.plot_file.empty() || !a.elbow_plot.empty()))
    throw_one_model_figure(a.model, !a.outputs.plot_file.empty() ? "--plot" : "--elbow-plot", inputs.size());
  std::vector<AnalysedEmbedding> all;
  for (const ModelToAnalyse& m : inputs) all.push_back(analyse_model(m, a, out));

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  const ResultOutputs& o = a.outputs;
  const bool console = !o.json && !out.quiet;
  RenderedResults r;
  std::vector<std::string> json_documents;
  std::string console_text;
  for (size_t i = 0; i < all.size(); ++i) {
    const EmbeddingAnalysis& analysis = all[i].analysis;
    if (o.json || !o.json_file.empty()) {
      std::string& one = json_documents.emplace_back();
      stream_embeddings_json(analysis, run, [&](std::string_view s) { one.append(s); });
    }
    if (!o.csv_file.empty()) append_csv(r.csv, render_embeddings_csv(analysis, all[i].tokens, run.timestamp));
    if (!o.markdown_file.empty()) r.markdown += render_embeddings_markdown(analysis, run);
    if (console)
      console_text +=
          console_block(analysis.model_id, render_embeddings_console(analysis, out.color), several, i == 0);
  }
  if (!json_documents.empty()) r.json = joined_json(json_documents);
  // The figures draw one model.
  if (!o.plot_file.empty()) r.plot_svg = render_embedding_projection_svg(all.front().analysis);
  const std::string elbow = a.elbow_plot.empty() ? std::string() : render_elbow_svg(all.front().analysis);
  if (!o.markdown_file.empty())
    r.markdown += markdown_figures({{o.plot_file, "Embeddings PCA (--plot)"},
                                    {a.elbow_plot, "Elbow of the k-means inertia (--elbow-plot)"}},
                                   o.markdown_file);
  OutputBatch files = command_outputs();
  if (!a.elbow_plot.empty()) files.add(a.elbow_plot, diagram_file_bytes(elbow, a.elbow_plot));
  write_results(o, r, out.quiet, a.elbow_plot == "-", console_text, std::move(files));
  return 0;
}

}  // namespace ma::cli
