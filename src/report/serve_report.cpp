#include "report/serve_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "analysis/identity.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/csv_cells.h"
#include "report/diagram_canvas.h"
#include "report/markdown_writer.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

// Every time the console shows, in one unit and one rule of precision, so that equal times print alike (an
// E2EL equal to a TTFT of 7.37 ms printed "0.01 s": seconds to two decimals).
std::string ms(double s) {
  return fixed_decimals(s * 1e3, s < 0.1 ? 2 : 1) + " ms";
}

std::string settings(const ServeResult& r) {
  const ServeRequest& q = r.request;
  return std::to_string(q.tp) + " x " + q.hw.name + " (TP " + std::to_string(q.tp) +
         (q.ep > 1 ? ", EP " + std::to_string(q.ep) : "") + (q.dp_attention ? ", DP attention" : "") + "), " +
         std::string(serve_engine_rules(q.engine).name) + ", isl " + with_thousands(q.isl) + ", osl " +
         with_thousands(q.osl);
}

// The load point's figures under their JSON names.
std::vector<std::pair<std::string, std::string>> point_fields(const ServeResult& r) {
  const ServePoint& p = r.point;
  return {{"settings", settings(r)},
          {"weights", r.precision_label},
          {"concurrency", with_thousands(p.concurrency)},
          {"kv_cache_tokens", with_thousands(r.kv_cache_tokens)},
          {"max_running", with_thousands(r.max_running) + " requests of isl + osl at once"},
          {"mean_ttft_s", ms(p.mean_ttft_s)},
          {"mean_tpot_s", ms(p.mean_tpot_s)},
          {"mean_itl_s", ms(p.mean_itl_s)},
          {"mean_e2el_s", ms(p.mean_e2el_s)},
          {"throughput_tokens_per_s_per_gpu", rounded_with_thousands(p.throughput_tokens_per_s_per_gpu)},
          {"output_tokens_per_s_per_gpu", rounded_with_thousands(p.output_tokens_per_s_per_gpu)},
          {"input_tokens_per_s_per_gpu", rounded_with_thousands(p.input_tokens_per_s_per_gpu)},
          {"decode_step_s", r.request.osl == 1
                                ? "none (osl 1: the prefill gives the only token)"
                                : ms(p.decode_step_s) + " at batch " + fixed_decimals(p.decode_batch, 1) +
                                      ", bound: " + p.decode_bound},
          {"prefill_s", ms(p.prefill_s) + " per request, bound: " + p.prefill_bound},
          {"first_round_ttft_s",
           r.request.rounds == 0u ? "none (--rounds 0: the steady state alone)" : ms(p.first_round_ttft_s)}};
}

const std::vector<std::string> kSweepHeader = {"concurrency",  "TTFT",        "TPOT",          "ITL",
                                               "E2EL",         "tok/s/GPU",   "out tok/s/GPU", "tok/s/user",
                                               "decode batch", "decode bound"};

std::vector<std::vector<std::string>> sweep_rows(const ServeResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const ServePoint& p : r.sweep)
    rows.push_back({with_thousands(p.concurrency), ms(p.mean_ttft_s), ms(p.mean_tpot_s), ms(p.mean_itl_s),
                    ms(p.mean_e2el_s), rounded_with_thousands(p.throughput_tokens_per_s_per_gpu),
                    rounded_with_thousands(p.output_tokens_per_s_per_gpu),
                    p.mean_tpot_s > 0 ? fixed_decimals(1 / p.mean_tpot_s, 1) : "-",
                    fixed_decimals(p.decode_batch, 1), p.decode_bound});
  return rows;
}

// Every figure of one load point, under the names the JSON and the CSV both give them: one list, so the two
// exports never differ. `visit(name, value)` sees a uint64_t, a double, a string or an optional<double>: a
// figure the console shows as "none" or "-" (no decode step at osl 1, no first round with --rounds 0) is
// absent, JSON null and an empty CSV cell, never a 0 that reads as an instant.
template <typename Visit>
void each_point_field(const ServePoint& p, const ServeRequest& q, Visit&& visit) {
  using Maybe = std::optional<double>;
  const bool decodes = p.decode_batch > 0;  // 0 at osl 1: the prefill gives the only token
  visit("concurrency", p.concurrency);
  visit("mean_ttft_s", p.mean_ttft_s);
  visit("mean_tpot_s", p.mean_tpot_s);
  visit("mean_itl_s", p.mean_itl_s);
  visit("mean_e2el_s", p.mean_e2el_s);
  visit("throughput_tokens_per_s_per_gpu", p.throughput_tokens_per_s_per_gpu);
  visit("output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu);
  visit("input_tokens_per_s_per_gpu", p.input_tokens_per_s_per_gpu);
  visit("tokens_per_s_per_user", p.mean_tpot_s > 0 ? Maybe(1 / p.mean_tpot_s) : std::nullopt);
  visit("requests_per_s", p.requests_per_s);
  visit("running", p.running);
  visit("decode_batch", p.decode_batch);
  visit("decode_step_s", decodes ? Maybe(p.decode_step_s) : std::nullopt);
  visit("decode_bound", p.decode_bound);
  visit("prefill_s", p.prefill_s);
  visit("prefill_bound", p.prefill_bound);
  visit("first_round_ttft_s",
        q.rounds == 0u ? std::nullopt : Maybe(p.first_round_ttft_s));  // unset: default rounds
}

void write_point(JsonWriter& w, const ServePoint& p, const ServeRequest& q) {
  w.begin_object();
  each_point_field(p, q, [&w](const char* name, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::optional<double>>)
      w.key(name).value_or_null(value);
    else
      w.key(name).value(value);
  });
  w.end_object();
}

std::string csv_cell(uint64_t v) {
  return std::to_string(v);
}
std::string csv_cell(double v) {
  return csv_number(v);
}
std::string csv_cell(const std::string& v) {
  return csv_text(v);
}
std::string csv_cell(const std::optional<double>& v) {
  return v ? csv_number(*v) : "";
}

// One CSV row: which point it is (the load asked for, or one of the sweep), then its figures.
std::string csv_row(const char* which, const ServePoint& p, const ServeRequest& q) {
  std::string row = which;
  each_point_field(p, q, [&row](const char*, const auto& value) { row += "," + csv_cell(value); });
  return row + "\n";
}

}  // namespace

std::string render_serve_console(const ServeResult& r) {
  // Wide enough for the longest JSON name among the fields, throughput_tokens_per_s_per_gpu.
  ConsoleWriter w(false, 33);
  w.heading("SERVE " + display_name_of(r.model_id));
  for (const auto& [label, value] : point_fields(r)) w.field(label, value);
  if (!r.sweep.empty()) {
    w.heading("Concurrency sweep");
    w.table(kSweepHeader, sweep_rows(r));
  }
  for (const std::string& a : r.assumptions) w.footnote("assumption: " + a);
  return w.take();
}

std::string render_serve_markdown(const ServeResult& r, const RunInfo& run) {
  MarkdownWriter w;
  w.heading(1, "Serving estimate: " + display_name_of(r.model_id));
  w.paragraph(run_info_paragraph(run));
  w.fields(point_fields(r));
  if (!r.sweep.empty()) {
    w.heading(2, "Concurrency sweep");
    w.table(kSweepHeader, sweep_rows(r));
  }
  w.heading(2, "Assumptions");
  std::string list;
  for (const std::string& a : r.assumptions) list += "- " + a + "\n";
  w.paragraph(list);
  return w.take();
}

void stream_serve_json(const ServeResult& r, const RunInfo& run, const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  const ServeRequest& q = r.request;
  w.begin_object();
  w.key("model_id").value(r.model_id);
  w.key("hw").value(q.hw.name);
  w.key("tp").value(q.tp);
  w.key("ep").value(q.ep);
  w.key("dp_attention").value(q.dp_attention);
  w.key("engine").value(serve_engine_rules(q.engine).name);
  w.key("precision").value(r.precision_label);
  w.key("isl").value(q.isl);
  w.key("osl").value(q.osl);
  w.key("kv_cache_tokens").value(r.kv_cache_tokens);
  w.key("max_running").value(r.max_running);
  // The load point's figures at the top level, under the names the issue and InferenceMAX use.
  w.key("point");
  write_point(w, r.point, r.request);
  w.key("mean_ttft_s").value(r.point.mean_ttft_s);
  w.key("mean_tpot_s").value(r.point.mean_tpot_s);
  w.key("mean_itl_s").value(r.point.mean_itl_s);
  w.key("mean_e2el_s").value(r.point.mean_e2el_s);
  w.key("throughput_tokens_per_s_per_gpu").value(r.point.throughput_tokens_per_s_per_gpu);
  w.key("output_tokens_per_s_per_gpu").value(r.point.output_tokens_per_s_per_gpu);
  w.key("input_tokens_per_s_per_gpu").value(r.point.input_tokens_per_s_per_gpu);
  w.key("sweep").begin_array();
  for (const ServePoint& p : r.sweep) write_point(w, p, r.request);
  w.end_array();
  w.key("engine_source").value(r.engine_source);
  w.key("assumptions").begin_array();
  for (const std::string& a : r.assumptions) w.value(a);
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  w.flush();
}

std::string render_serve_csv(const ServeResult& r) {
  std::string out = "point";
  each_point_field(ServePoint{}, r.request,
                   [&out](const char* name, const auto&) { out += std::string(",") + name; });
  out += "\n" + csv_row("load", r.point, r.request);
  for (const ServePoint& p : r.sweep) out += csv_row("sweep", p, r.request);
  return out;
}

// InferenceMAX's picture: throughput per GPU (y) against interactivity, tokens/s per user (x), one marker per
// concurrency, labelled; the load point asked for is ringed.
std::string render_serve_svg(const ServeResult& r) {
  using diagram::Anchor;
  using diagram::TextStyle;
  constexpr double kW = 860, kH = 520, kLeft = 92, kTop = 78, kPlotW = 720, kPlotH = 360;
  std::vector<ServePoint> points = r.sweep;
  if (points.empty()) points.push_back(r.point);
  diagram::Svg svg(static_cast<int>(kW), static_cast<int>(kH),
                   "Serving throughput and latency: " + r.model_id);
  svg.rect(0, 0, kW, kH, "#ffffff");
  svg.fit(24, 32, kW - 48, r.model_id, TextStyle{18, plot::kInk, true, Anchor::Start, 10});
  svg.fit(24, 54, kW - 48, settings(r) + " \u00b7 " + r.precision_label,
          TextStyle{12, plot::kMuted, false, Anchor::Start, 9});
  plot::Axes a;
  double xmax = 0, ymax = 0;
  for (const ServePoint& p : points) {
    xmax = std::max(xmax, p.mean_tpot_s > 0 ? 1 / p.mean_tpot_s : 0);
    ymax = std::max(ymax, p.throughput_tokens_per_s_per_gpu);
  }
  a.sx.lo = 0;
  a.sx.hi = xmax * 1.08;
  a.sy.lo = 0;
  a.sy.hi = ymax * 1.1;
  plot::nice_domain(a.sx.lo, a.sx.hi, true);
  plot::nice_domain(a.sy.lo, a.sy.hi, true);
  a.xtitle = "interactivity: tokens/s per user (1 / TPOT)";
  a.ytitle = "tokens/s per GPU (input + output)";
  a.vertical_grid = true;
  plot::place(a, kLeft, kTop, kPlotW, kPlotH);
  a.xticks = plot::linear_ticks(a.sx.lo, a.sx.hi, 8);
  a.yticks = plot::linear_ticks(a.sy.lo, a.sy.hi, 7);
  plot::draw_grid(svg, a);
  std::vector<double> xy;
  for (const ServePoint& p : points) {
    xy.push_back(a.sx(p.mean_tpot_s > 0 ? 1 / p.mean_tpot_s : 0));
    xy.push_back(a.sy(p.throughput_tokens_per_s_per_gpu));
  }
  svg.polyline(xy, plot::kBlue, 2);
  // Labels from the highest concurrency down, each left out where it would overlap the last one drawn.
  double last_x = -1e9, last_y = -1e9;
  for (size_t j = points.size(); j-- > 0;) {
    const double x = xy[2 * j], y = xy[2 * j + 1];
    if (points[j].concurrency == r.point.concurrency) svg.circle(x, y, 8, "none", plot::kVermillion, 2);
    plot::draw_marker(svg, plot::Marker::Circle, x, y, 4.5, plot::kBlue);
    const std::string label = "c" + std::to_string(points[j].concurrency);
    if (std::abs(x - last_x) < diagram::text_width(label, 10, false) + 8 && std::abs(y - last_y) < 13)
      continue;
    svg.text(x + 7, y - 7, label, TextStyle{10, plot::kMuted, false, Anchor::Start});
    last_x = x;
    last_y = y;
  }
  plot::draw_axes(svg, a);
  return svg.finish();
}

}  // namespace ma
