// `modelanalyzer MODEL...`: seed 002's report — summary by default, every section with --detailed, JSON and
// Markdown exports, an architecture diagram, and a comparison table for several models.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "analysis/gguf_quantizations.h"
#include "analysis/identity.h"
#include "analysis/model_report.h"
#include "analysis/model_weight_stats.h"
#include "analysis/peft_adapter.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/report_args.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "core/text.h"
#include "formats/model_files.h"
#include "hub/hub_settings.h"
#include "io/file_source.h"
#include "io/output_file.h"
#include "model/inventory.h"
#include "report/diagram_png.h"
#include "report/diagram_svg.h"
#include "report/gguf_quantizations_report.h"
#include "report/html_page.h"
#include "report/markdown_writer.h"
#include "report/model_report_render.h"
#include "report/onnx_models_report.h"

namespace ma::cli {
namespace {

// One diagram file name per model when several are analysed: "<model>_architecture.png". Two models of one
// name (a/model, b/model) take "<model>_2_architecture.png" and on, or the second would replace the first.
std::vector<std::string> diagram_names(const std::vector<std::string>& models) {
  std::vector<std::string> out;
  for (const std::string& model : models) {
    std::string name = std::filesystem::path(model).filename().string();
    if (name.empty()) name = "model";
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
    std::string file = name + "_architecture.png";
    for (int n = 2; std::find(out.begin(), out.end(), file) != out.end(); ++n)
      file = name + "_" + std::to_string(n) + "_architecture.png";
    out.push_back(std::move(file));
  }
  return out;
}

// The report's warnings for stderr: all of them, less the tokenizer's when its section is on the screen.
std::vector<std::string> stderr_warnings(const ModelReport& r, bool tokenizer_section_on_screen) {
  if (!tokenizer_section_on_screen || !r.tokenizer) return r.warnings;
  std::vector<std::string> out;
  for (const std::string& w : r.warnings)
    if (std::find(r.tokenizer->warnings.begin(), r.tokenizer->warnings.end(), w) ==
        r.tokenizer->warnings.end())
      out.push_back(w);
  return out;
}

// What each model's warnings and notes on stderr are prefixed with: nothing for one model; with several, the
// name titles show (display_name_of), or the argument as given where two models share that name.
std::vector<std::string> warning_subjects(const std::vector<std::string>& models) {
  if (models.size() < 2) return std::vector<std::string>(models.size());
  std::vector<std::string> names;
  for (const std::string& model : models) names.push_back(display_name_of(model));
  std::vector<std::string> subjects;
  for (size_t i = 0; i < models.size(); ++i)
    subjects.push_back(std::count(names.begin(), names.end(), names[i]) > 1 ? models[i] : names[i]);
  return subjects;
}

std::string report_json_array(const std::vector<ModelReport>& reports, const RunInfo& run) {
  std::string out = "[\n";
  for (size_t i = 0; i < reports.size(); ++i) {
    std::string one = render_report_json(reports[i], run);
    while (!one.empty() && one.back() == '\n') one.pop_back();
    out += one + (i + 1 < reports.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

}  // namespace

int run_summary(const Args& args) {
  ReportArgs a = parse_report_args(args);
  // One repository (or directory) of several GGUF quantizations, or of ONNX models in folders only, and no
  // --file: the listing is the answer, unless a file only a report can be is asked for (an export, the page,
  // the diagram): then which model is meant is asked, as the other commands ask it.
  a.hub.list_models = a.models.size() == 1 && a.export_json.empty() && a.export_markdown.empty() &&
                      a.export_html.empty() && !a.visualize;
  Output out = detect_output(a.common);
  const bool progress = out.stderr_tty && !out.quiet;
  std::vector<ModelReport> reports;
  const std::vector<std::string> subjects = warning_subjects(a.models);
  // The console report lists the tokenizer's warnings in its Tokenizer section: where it shows on the
  // terminal stderr shows, they are not printed a second time.
  const bool tokenizer_section_on_screen = a.models.size() == 1 && !a.json && !out.quiet &&
                                           !claims_stdout(output_claims(a)) && out.stdout_tty &&
                                           out.stderr_tty;
  for (size_t m = 0; m < a.models.size(); ++m) {
    const std::string& model = a.models[m];
    const std::string& subject = subjects[m];
    auto start = std::chrono::steady_clock::now();
    if (progress) std::fprintf(stderr, "analysing %s ...\n", terminal_safe(model).c_str());
    OpenedModel opened = open_model(model, a.hub, a.options.skip_tokenizer);
    print_warnings(opened.warnings, out, subject);
    print_notes(opened.notes, out, subject);
    if (!opened.gguf_models.empty()) {
      const std::vector<GgufQuantization> models = summarize_gguf_models(opened.gguf_models);
      if (a.json)
        print_stdout(render_gguf_quantizations_json(models, model, run_info()));
      else if (!out.quiet)
        print_stdout(render_gguf_quantizations_console(models, model, out.color));
      return 0;
    }
    if (!opened.onnx_models.empty()) {  // nothing else to report: the repository's ONNX models
      if (a.json)
        print_stdout(render_onnx_models_json(opened.onnx_models, model, run_info()));
      else if (!out.quiet)
        print_stdout(render_onnx_models_console(opened.onnx_models, model, out.color));
      return 0;
    }
    // A PEFT adapter is reported with its base model, which the merged model is, when the base is found.
    std::optional<AdapterSummary> adapter;
    if (is_peft_adapter(opened.files)) {
      trace("a PEFT adapter: reading adapter_config.json and looking for its base model");
      adapter = summarize_adapter(opened.files);
      std::vector<std::string> base_warnings;
      ModelWeightsInput in =
          weights_input(opened.files, hub_settings(a.hub.flags).cache_root, base_warnings, a.base);
      print_warnings(base_warnings, out, subject);
      if (in.frozen_base) {
        adapter->base_found_at = a.base ? *a.base : in.base_found_at;
        opened.files = std::move(*in.frozen_base);
      }
    }
    const LocalModelFiles& files = opened.files;
    trace("reading the configuration and the weight headers; building the inventory");
    Inventory& inv = keep_until_exit(build_inventory_or_identity(files));
    trace("inventory: " + std::to_string(inv.tensors.size()) + " tensors");
    print_notes(inv.notes, out, subject);
    ReportOptions options = a.options;
    options.model_id = model;
    options.metadata = opened.metadata;
    trace(options.skip_tokenizer ? "building the report (tokenizer skipped)"
                                 : "building the report: parameters, memory, loading the tokenizer");
    reports.push_back(build_model_report(inv, files, options));
    if (adapter) {
      if (!adapter->base_found_at.empty()) {
        adapter->base_parameters = reports.back().parameters.total;
        for (std::string& w : adapter_base_mismatches(*adapter, inv))
          reports.back().warnings.push_back(std::move(w));
      }
      reports.back().adapter = std::move(adapter);
    }
    trace("report built");
    print_warnings(stderr_warnings(reports.back(), tokenizer_section_on_screen), out, subject);
    if (out.verbose && opened.stats)
      std::fprintf(stderr,
                   "%s: %llu HTTP requests, %llu bytes received; %llu files downloaded, %llu cached; "
                   "%llu headers fetched, %llu cached (%llu header bytes)\n",
                   model.c_str(), static_cast<unsigned long long>(opened.stats->requests),
                   static_cast<unsigned long long>(opened.stats->bytes_received),
                   static_cast<unsigned long long>(opened.stats->files_downloaded),
                   static_cast<unsigned long long>(opened.stats->files_cached),
                   static_cast<unsigned long long>(opened.stats->headers_fetched),
                   static_cast<unsigned long long>(opened.stats->headers_cached),
                   static_cast<unsigned long long>(opened.stats->header_bytes));
    if (out.verbose) {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "%s: config %s, %zu weight file(s)%s, %zu tensors, analysed in %.1f ms\n",
                   model.c_str(), files.config ? files.config->c_str() : "none", files.weight_files.size(),
                   files.index ? " + index" : "", inv.tensors.size(), ms);
    }
  }

  // Everything is rendered before anything is written, so a failure leaves no partial output file.
  const RunInfo run = run_info();
  RenderOptions render;
  render.detailed = a.detailed;
  const DiagramStyle style = a.viz_style == "simple" ? DiagramStyle::Simple : DiagramStyle::Detailed;
  if (reports.size() > 1) {
    relate_to_first(reports);
    if (a.visualize) {
      OutputBatch files = command_outputs();
      const std::vector<std::string> names = diagram_names(a.models);
      for (size_t i = 0; i < reports.size(); ++i)
        files.add(names[i], diagram_file_bytes(render_diagram_svg(reports[i], style), names[i]));
      files.commit();
      for (size_t i = 0; i < names.size(); ++i)
        print_notes({"diagram written to " + names[i]}, out, subjects[i]);
    }
    if (a.json)
      print_stdout(report_json_array(reports, run));
    else if (!out.quiet)
      print_stdout(render_comparison_console(reports, out.color));
    return 0;
  }
  const ModelReport& r = reports.front();
  std::string json = (a.json || !a.export_json.empty()) ? render_report_json(r, run) : std::string();
  std::string markdown = a.export_markdown.empty() ? std::string() : render_report_markdown(r, run);
  if (a.visualize && !markdown.empty())
    markdown +=
        markdown_figures({{a.viz_output, "Architecture diagram (" + a.viz_style + ")"}}, a.export_markdown);
  std::string svg = a.visualize ? render_diagram_svg(r, style) : std::string();
  // The page carries the diagram whether or not --visualize writes it to a file.
  std::string html = a.export_html.empty()
                         ? std::string()
                         : render_report_html(r, run, svg.empty() ? render_diagram_svg(r, style) : svg);
  OutputBatch files = command_outputs();
  if (a.visualize) files.add(a.viz_output, diagram_file_bytes(svg, a.viz_output));
  if (!a.export_json.empty()) files.add(a.export_json, json);
  if (!a.export_markdown.empty()) files.add(a.export_markdown, markdown);
  if (!a.export_html.empty()) files.add(a.export_html, html);
  files.commit();
  if (a.visualize && !names_stdout(a.viz_output)) print_notes({"diagram written to " + a.viz_output}, out);
  if (!a.export_html.empty() && !names_stdout(a.export_html))
    print_notes({"HTML report written to " + a.export_html}, out);
  // Standard output carries one document (parse_report_args allows one claim): the console report only
  // when no other output went there.
  const bool stdout_taken = claims_stdout(output_claims(a));
  if (a.json)
    print_stdout(json);
  else if (!out.quiet && !stdout_taken)
    print_stdout(render_report_console(r, render, out.color));
  return 0;
}

}  // namespace ma::cli
