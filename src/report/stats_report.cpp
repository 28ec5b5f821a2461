#include "report/stats_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/identity.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/csv_cells.h"
#include "report/html_page.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/run_info.h"

namespace ma {
namespace {

constexpr std::array<const char*, kPercentiles.size()> kPercentileKeys = {"p0.1", "p1", "p50", "p99",
                                                                          "p99.9"};

bool defined(const TensorStats& t) {
  return t.finite > 0;
}

// Seed 001's "MB" columns divide by 1024^2 (its 131,072-float tensor shows "0.50 MB"): they are MiB, and
// labelled so here; the JSON gives exact bytes.
std::string mebibytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

std::string percent_2dp(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", f * 100);
  return buf;
}

// A statistic that is undefined (no finite values) or overflowed is "-", as the JSON's null.
std::string stat(const TensorStats& t, double v) {
  return defined(t) && std::isfinite(v) ? table_number(v) : "-";
}

// Undefined statistics (no finite values) are empty cells.
std::string csv_stat(const TensorStats& t, double v) {
  return defined(t) && std::isfinite(v) ? csv_number(v) : std::string();
}

// Fractions and the L2 norm are defined with no finite value (0 of the elements, an empty sum), as the JSON
// writes them; only an overflowed norm is empty.
std::string csv_total(double v) {
  return std::isfinite(v) ? csv_number(v) : std::string();
}

std::string opt(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}

}  // namespace

std::string table_number(double v) {
  char buf[32];
  if (v != 0 && (std::fabs(v) < 1e-4 || std::fabs(v) >= 1e6))
    std::snprintf(buf, sizeof buf, "%.4e", v);
  else
    std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

std::string render_stats_console(const WeightStats& s, bool color) {
  ConsoleWriter w(color);
  w.heading("SUMMARY");
  w.field("Total parameters:", with_thousands(s.summary.total_parameters));
  w.field("Trainable params:", with_thousands(s.summary.trainable_parameters));
  w.field("Non-trainable params:", with_thousands(s.summary.non_trainable_parameters));
  w.field("Total memory:", mebibytes(s.summary.bytes));
  w.field("Total tensors:", with_thousands(s.summary.tensors));

  w.heading("LAYER DETAILS");
  std::vector<std::vector<std::string>> rows;
  for (const TensorStats& t : s.tensors)
    rows.push_back({t.name, shape_to_python_tuple(t.shape), with_thousands(t.numel), mebibytes(t.bytes),
                    t.trainable ? "✓" : "✗"});
  w.table({"Layer Name", "Shape", "Params", "Memory", "Grad"}, rows);

  w.heading("WEIGHT STATISTICS");
  rows.clear();
  for (const TensorStats& t : s.tensors)
    rows.push_back({t.name, stat(t, t.mean), stat(t, t.std), stat(t, t.min), stat(t, t.max)});
  w.table({"Layer", "Mean", "Std", "Min", "Max"}, rows);

  w.heading("DISTRIBUTION");
  rows.clear();
  for (const TensorStats& t : s.tensors)
    rows.push_back({t.name, std::string(module_class_name(t.module_class)), stat(t, t.abs_max),
                    percent_2dp(t.zeros_fraction), percent_2dp(t.near_zero_fraction),
                    stat(t, t.percentiles[1]), stat(t, t.percentiles[2]), stat(t, t.percentiles[3]),
                    stat(t, t.kurtosis), std::to_string(t.nan_count), std::to_string(t.inf_count)});
  w.table({"Layer", "Class", "Abs max", "Zeros", "|x|<=eps", "p1", "p50", "p99", "Kurtosis", "NaN", "Inf"},
          rows);
  char eps[128];
  std::snprintf(eps, sizeof eps, "eps = %g; kurtosis is excess (0 for a normal distribution)", s.eps);
  w.footnote(eps);
  const auto scaled = std::count_if(s.tensors.begin(), s.tensors.end(),
                                    [](const TensorStats& t) { return !t.scaled_by.empty(); });
  if (scaled)
    w.footnote(std::to_string(scaled) + " float8 weight" + (scaled == 1 ? "" : "s") +
               ": the values are code x the scale of its block (the tensor beside it, e.g. " +
               std::find_if(s.tensors.begin(), s.tensors.end(),
                            [](const TensorStats& t) { return !t.scaled_by.empty(); })
                   ->scaled_by +
               "), in float32");
  return w.take();
}

void stream_stats_json(const WeightStats& s, const RunInfo& run, const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  auto num = [&](const TensorStats& t, double v) {
    if (defined(t))
      w.value(v);
    else
      w.null();
  };
  w.begin_object();
  w.key("model_id").value(s.model_id);
  w.key("summary").begin_object();
  w.key("total_parameters").value(s.summary.total_parameters);
  w.key("trainable_parameters").value(s.summary.trainable_parameters);
  w.key("non_trainable_parameters").value(s.summary.non_trainable_parameters);
  w.key("bytes").value(s.summary.bytes);
  w.key("tensors").value(s.summary.tensors);
  w.key("seconds").value(s.summary.seconds);
  w.key("gb_per_s").value_or_null(s.summary.gb_per_s());
  w.end_object();
  w.key("eps").value(s.eps);
  w.key("bins").value(s.bins);
  w.key("tensors").begin_array();
  for (const TensorStats& t : s.tensors) {
    w.newline().begin_object();
    w.key("name").value(t.name);
    w.key("dtype").value(dtype_info(t.dtype).short_name);
    w.key("scaled_by").text_or_null(t.scaled_by);
    w.key("shape").begin_array();
    for (uint64_t d : t.shape) w.value(d);
    w.end_array();
    w.key("numel").value(t.numel);
    w.key("bytes").value(t.bytes);
    w.key("mean");
    num(t, t.mean);
    w.key("std");
    num(t, t.std);
    w.key("var");
    num(t, t.var);
    w.key("min");
    num(t, t.min);
    w.key("max");
    num(t, t.max);
    w.key("abs_max");
    num(t, t.abs_max);
    w.key("l2_norm").value(t.l2_norm);
    w.key("zeros_fraction").value(t.zeros_fraction);
    w.key("near_zero_fraction").value(t.near_zero_fraction);
    w.key("nan_count").value(t.nan_count);
    w.key("inf_count").value(t.inf_count);
    w.key("percentiles").begin_object();
    for (size_t i = 0; i < kPercentiles.size(); ++i) {
      w.key(kPercentileKeys[i]);
      num(t, t.percentiles[i]);
    }
    w.end_object();
    w.key("kurtosis");
    num(t, t.kurtosis);
    w.key("histogram").begin_object();
    w.key("edges");
    if (defined(t)) {
      w.begin_array();
      for (double e : t.histogram.edges) w.value(e);
      w.end_array();
    } else {
      w.null();
    }
    w.key("counts").begin_array();
    for (uint64_t c : t.histogram.counts) w.value(c);
    w.end_array();
    w.end_object();
    w.key("layer").value_or_null(t.layer);
    w.key("block").text_or_null(t.block);
    w.key("role").text_or_null(t.role);
    w.key("module_class").value(std::string(module_class_name(t.module_class)));
    w.key("trainable").value(t.trainable);
    w.key("rows").value_or_null(t.rows);
    w.key("cols").value_or_null(t.cols);
    w.key("design_rank").value_or_null(t.design_rank);
    w.end_object();
  }
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  w.flush();
  sink("\n");
}

std::string render_stats_csv(const WeightStats& s, std::string_view model_path, std::string_view revision,
                             std::string_view created_at) {
  std::string out =
      "model_path,model_id,revision,param_name,layer_index,block_type,shape,rows,cols,design_rank,mean,std,"
      "var,"
      "sparsity,dtype,created_at,numel,bytes,min,max,abs_max,l2_norm,zeros_fraction,nan_count,inf_count,"
      "p0_1,p1,p50,p99,p99_9,kurtosis,block,role,trainable\n";
  for (const TensorStats& t : s.tensors) {
    std::vector<std::string> cells = {csv_text(model_path),
                                      csv_text(s.model_id),
                                      csv_text(revision),
                                      csv_text(t.name),
                                      t.layer ? std::to_string(*t.layer) : std::string(),
                                      std::string(module_class_name(t.module_class)),
                                      csv_text(shape_to_python_tuple(t.shape)),
                                      opt(t.rows),
                                      opt(t.cols),
                                      opt(t.design_rank),
                                      csv_stat(t, t.mean),
                                      csv_stat(t, t.std),
                                      csv_stat(t, t.var),
                                      csv_total(t.near_zero_fraction),
                                      std::string(dtype_info(t.dtype).torch_name),
                                      std::string(created_at),
                                      std::to_string(t.numel),
                                      std::to_string(t.bytes),
                                      csv_stat(t, t.min),
                                      csv_stat(t, t.max),
                                      csv_stat(t, t.abs_max),
                                      csv_total(t.l2_norm),
                                      csv_total(t.zeros_fraction),
                                      std::to_string(t.nan_count),
                                      std::to_string(t.inf_count)};
    for (double p : t.percentiles) cells.push_back(csv_stat(t, p));
    cells.push_back(csv_stat(t, t.kurtosis));
    cells.push_back(t.block);
    cells.push_back(csv_text(t.role));
    cells.push_back(t.trainable ? "true" : "false");
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += '\n';
  }
  return out;
}

void write_stats_document(DocumentWriter& w, const WeightStats& s) {
  w.heading(1, "Weight statistics: " + display_name_of(s.model_id));
  w.heading(2, "Summary");
  w.fields({{"Total parameters", with_thousands(s.summary.total_parameters)},
            {"Trainable parameters", with_thousands(s.summary.trainable_parameters)},
            {"Non-trainable parameters", with_thousands(s.summary.non_trainable_parameters)},
            {"Total memory", mebibytes(s.summary.bytes)},
            {"Tensors", with_thousands(s.summary.tensors)}});
  w.heading(2, "Weight statistics");
  std::vector<std::vector<std::string>> rows;
  for (const TensorStats& t : s.tensors)
    rows.push_back({t.name, shape_to_python_tuple(t.shape), std::string(dtype_info(t.dtype).short_name),
                    std::string(module_class_name(t.module_class)), t.trainable ? "✓" : "✗", stat(t, t.mean),
                    stat(t, t.std), stat(t, t.min), stat(t, t.max), stat(t, t.abs_max),
                    percent_2dp(t.near_zero_fraction), stat(t, t.kurtosis),
                    std::to_string(t.nan_count + t.inf_count)});
  w.table({"Tensor", "Shape", "Dtype", "Class", "Grad", "Mean", "Std", "Min", "Max", "Abs max", "|x|<=eps",
           "Kurtosis", "NaN/Inf"},
          rows);
  char eps[160];
  std::snprintf(eps, sizeof eps, "eps = %g. Statistics are over the finite values; kurtosis is excess.",
                s.eps);
  w.paragraph(eps);
}

std::string render_stats_markdown(const WeightStats& s) {
  MarkdownWriter w;
  write_stats_document(w, s);
  return w.take();
}

std::string render_stats_html(const WeightStats& s, const RunInfo& run, const std::string& distributions_svg,
                              const std::string& trends_svg) {
  HtmlWriter w;
  write_stats_document(w, s);
  std::string body = w.take();
  std::string figures = "<section>\n<h2>Figures</h2>\n";
  figures +=
      html_figure(distributions_svg, "Per-tensor histograms with their statistics (<code>--plot</code>).");
  figures += html_figure(trends_svg, "Statistics by layer for each module class (<code>--trends</code>).");
  figures += "</section>\n";
  const size_t second = body.find("<section>", body.find("<section>") + 1);
  body.insert(second == std::string::npos ? body.size() : second, figures);
  HtmlWriter run_line;
  run_line.paragraph(run_info_paragraph(run));
  body.insert(body.find("</h1>") + 6, run_line.take());
  return html_page("Weight statistics: " + display_name_of(s.model_id), body);
}

}  // namespace ma
