#include "report/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/identity.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/csv_cells.h"
#include "report/markdown_writer.h"
#include "report/run_info.h"
#include "report/stats_report.h"

namespace ma {
namespace {

// Tensor indices, most changed first (elements that became or stopped being NaN/Inf, then ||B-A||/||A||, then
// max |B-A|).
std::vector<size_t> ranked(const WeightComparison& c) {
  std::vector<size_t> order(c.tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const TensorDrift &a = c.tensors[x], &b = c.tensors[y];
    if (a.nonfinite_changed != b.nonfinite_changed) return a.nonfinite_changed > b.nonfinite_changed;
    // An undefined ratio (no pair finite on both sides) ranks as the largest.
    const double ra = std::isnan(a.rel_l2) ? INFINITY : a.rel_l2,
                 rb = std::isnan(b.rel_l2) ? INFINITY : b.rel_l2;
    return ra != rb ? ra > rb : a.max_abs_diff > b.max_abs_diff;
  });
  return order;
}

// Layers, most changed first, by the tensors' rule: elements that became or stopped being NaN/Inf (whose
// pooled figures are undefined), then ||B-A||/||A|| with an undefined one (NaN, which would break the sort's
// order) as the largest, then max |B-A|.
std::vector<const LayerDrift*> ranked_layers(const WeightComparison& c) {
  std::vector<const LayerDrift*> out;
  for (const LayerDrift& l : c.layers) out.push_back(&l);
  std::stable_sort(out.begin(), out.end(), [](const LayerDrift* a, const LayerDrift* b) {
    if (a->nonfinite_changed != b->nonfinite_changed) return a->nonfinite_changed > b->nonfinite_changed;
    const double ra = std::isnan(a->rel_l2) ? INFINITY : a->rel_l2,
                 rb = std::isnan(b->rel_l2) ? INFINITY : b->rel_l2;
    return ra != rb ? ra > rb : a->max_abs_diff > b->max_abs_diff;
  });
  return out;
}

std::string layer_name(const std::optional<uint32_t>& l) {
  return l ? std::to_string(*l) : "(outside layers)";
}

// A ratio that is undefined (no finite pair, a NaN) shows as "-"; an infinite one (B against an all-zero A,
// the SNR of identical tensors) as inf, which the JSON, having no infinity, writes as null.
std::string defined(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return std::isfinite(v) ? table_number(v) : "-";
}

std::vector<std::string> tensor_row(const TensorDrift& d) {
  return {d.name,
          layer_name(d.layer),
          std::string(module_class_name(d.module_class)),
          table_number(d.mean_drift),
          defined(d.std_ratio),
          defined(d.rel_l2),
          defined(d.cosine),
          table_number(d.max_abs_diff),
          with_thousands(d.nonfinite_changed),
          flagged_by_text(d)};
}

const std::vector<std::string> kTensorHeader = {"Tensor",          "Layer",         "Class",  "|Mean drift|",
                                                "Std ratio",       "||B-A||/||A||", "Cosine", "Max |B-A|",
                                                "NaN/Inf changed", "Flagged by"};
const std::vector<std::string> kLayerHeader = {"Layer",     "Elements",        "||B-A||/||A||", "Cosine",
                                               "Max |B-A|", "NaN/Inf changed", "Flagged"};

std::vector<std::string> layer_row(const LayerDrift& l) {
  // As a tensor's row: an undefined ratio is "-", null in the JSON (and is one wherever an element became or
  // stopped being NaN/Inf: the count says why).
  return {layer_name(l.layer),      with_thousands(l.numel),      defined(l.rel_l2),
          defined(l.cosine),        table_number(l.max_abs_diff), with_thousands(l.nonfinite_changed),
          std::to_string(l.flagged)};
}

std::string counts_line(const WeightComparison& c) {
  size_t flagged = 0, nonfinite = 0;
  for (const TensorDrift& d : c.tensors) {
    flagged += d.flagged;
    nonfinite += d.nonfinite_changed > 0;
  }
  // Values that became (or stopped being) NaN or Inf always flag their tensor: said only when there are any.
  // Every tensor of A and B is in one of the counts: compared, not compared (its values unreadable),
  // missing in B, extra in B, or reshaped.
  return std::to_string(c.tensors.size()) + " tensors compared, " + std::to_string(flagged) + " flagged (" +
         flag_rules_text(c) + ")" +
         (nonfinite ? ", " + std::to_string(nonfinite) + " of them with NaN/Inf where the other side has none"
                    : std::string()) +
         ", " + std::to_string(c.not_compared.size()) + " not compared, " +
         std::to_string(c.missing_in_b.size()) + " missing in B, " + std::to_string(c.extra_in_b.size()) +
         " extra in B, " + std::to_string(c.shape_mismatch.size()) + " shape mismatches";
}

// The error each dtype of B leaves (a GGUF file's Q4_K, Q6_K, ...): shown when B's types differ from A's.
const std::vector<std::string> kDTypeHeader = {"Type of B", "Tensors",   "Elements",       "||B-A||/||A||",
                                               "SNR (dB)",  "Max |B-A|", "NaN/Inf changed"};

bool types_differ(const WeightComparison& c) {
  for (const TensorDrift& d : c.tensors)
    if (d.dtype_a != d.dtype_b) return true;
  return false;
}

std::vector<std::vector<std::string>> dtype_rows(const WeightComparison& c) {
  std::vector<std::vector<std::string>> rows;
  for (const DTypeDrift& t : c.by_dtype_b)
    rows.push_back({std::string(dtype_info(t.dtype).name), with_thousands(t.tensors), with_thousands(t.numel),
                    defined(t.rel_l2), defined(t.snr_db), table_number(t.max_abs_diff),
                    with_thousands(t.nonfinite_changed)});
  return rows;
}

// How tensors were paired when the names differ (an original against its GGUF quantization).
std::string pairing_line(const WeightComparison& c) {
  if (c.paired_by != "place") return "";
  return "paired by place (layer, block, role, expert) across formats; " +
         with_thousands(c.rotary_reordered) + " q/k projections read in llama.cpp's rotary row order" +
         (c.rotary_order_mismatch ? " (" + with_thousands(c.rotary_order_mismatch) +
                                        " fit the other row order better: see ROTARY ORDER MISMATCH)"
                                  : std::string()) +
         "; tensors sharing a place: " + with_thousands(c.paired_by_names) + " paired by GGUF name, " +
         with_thousands(c.paired_by_values) + " by likeness";
}

// "name -> name_b: reason"; a tensor of B alone as "(B) name_b: reason".
std::vector<std::string> not_compared_lines(const WeightComparison& c) {
  std::vector<std::string> lines;
  for (const NotCompared& n : c.not_compared)
    lines.push_back((n.in_a ? n.name : "(B) " + n.name_b) +
                    (n.in_a && !n.name_b.empty() ? " -> " + n.name_b : std::string()) + ": " + n.reason);
  return lines;
}

// The q/k projections of a GGUF that fit A better in the other row order than in the one llama.cpp's
// converter writes for the file's architecture.
std::vector<std::string> rotary_mismatch_lines(const WeightComparison& c) {
  std::vector<std::string> lines;
  for (const TensorDrift& d : c.tensors)
    if (d.rotary_order_mismatch)
      lines.push_back(
          d.name + (d.name_b.empty() ? std::string() : " -> " + d.name_b) + ": ||B-A||/||A|| " +
          defined(d.rel_l2) + " read " +
          (d.rotary_order == "rotary" ? "in llama.cpp's rotary row order" : "as stored") +
          ", as the converter of this architecture writes it, but " + defined(d.rel_l2_other_order) +
          " read " + (d.rotary_order == "rotary" ? "as stored" : "in llama.cpp's rotary row order") +
          ": the conversion " +
          (d.rotary_order == "rotary" ? "did not permute q/k" : "permuted q/k where it should not") +
          " (rel_l2_other_order)");
  return lines;
}

// "name: [a] vs [b]", B's name before its shape where it differs.
std::vector<std::string> shape_mismatch_lines(const WeightComparison& c) {
  std::vector<std::string> lines;
  for (const ShapeMismatch& m : c.shape_mismatch)
    lines.push_back(m.name + ": " + shape_to_string(m.shape_a) + " vs " +
                    (m.name_b.empty() ? "" : m.name_b + " ") + shape_to_string(m.shape_b));
  return lines;
}

}  // namespace

std::string render_compare_console(const WeightComparison& c, size_t top, bool color) {
  ConsoleWriter w(color);
  w.heading("COMPARISON");
  w.field("A:", c.a);
  w.field("B:", c.b);
  w.footnote(counts_line(c));
  if (!pairing_line(c).empty()) w.footnote(pairing_line(c));
  if (types_differ(c)) {
    w.heading("ERROR BY TYPE OF B");
    w.table(kDTypeHeader, dtype_rows(c));
  }
  w.heading("MOST CHANGED TENSORS");
  std::vector<std::vector<std::string>> rows;
  for (size_t i : ranked(c)) {
    if (rows.size() == top) break;
    rows.push_back(tensor_row(c.tensors[i]));
  }
  w.table(kTensorHeader, rows);
  w.heading("MOST CHANGED LAYERS");
  rows.clear();
  for (const LayerDrift* l : ranked_layers(c)) {
    if (rows.size() == top) break;
    rows.push_back(layer_row(*l));
  }
  w.table(kLayerHeader, rows);
  std::vector<std::vector<std::string>> flagged;
  for (const TensorDrift& d : c.tensors)
    if (d.flagged) flagged.push_back(tensor_row(d));
  if (!flagged.empty()) {
    w.heading("FLAGGED");
    w.table(kTensorHeader, flagged);
  }
  auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    w.heading(title);
    for (const std::string& n : names) w.footnote(n);
  };
  list("ROTARY ORDER MISMATCH", rotary_mismatch_lines(c));
  list("NOT COMPARED", not_compared_lines(c));
  list("MISSING IN B", c.missing_in_b);
  list("EXTRA IN B", c.extra_in_b);
  list("SHAPE MISMATCH", shape_mismatch_lines(c));
  return w.take();
}

std::string flag_rules_text(const WeightComparison& c) {
  std::vector<std::string> rules = {"|mean drift| > " + short_number(c.mean_threshold)};
  if (c.rel_l2_threshold > 0) rules.push_back("||B-A||/||A|| > " + short_number(c.rel_l2_threshold));
  if (c.cosine_threshold > -1) rules.push_back("cosine < " + short_number(c.cosine_threshold));
  if (c.max_abs_threshold) rules.push_back("max |B-A| > " + short_number(*c.max_abs_threshold));
  std::string text;
  for (size_t i = 0; i < rules.size(); ++i)
    text += (i == 0 ? "" : i + 1 == rules.size() ? " or " : ", ") + rules[i];
  return text;
}

std::string flagged_by_text(const TensorDrift& d) {
  std::string text;
  for (DriftRule r : kDriftRules)
    if (d.flagged_by & r) text += (text.empty() ? "" : "+") + std::string(drift_rule_name(r));
  return text;
}

void stream_compare_json(const WeightComparison& c, const RunInfo& run, const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  auto names = [&](const char* key, const std::vector<std::string>& v) {
    w.key(key).begin_array();
    for (const std::string& s : v) w.value(s);
    w.end_array();
  };
  size_t flagged = 0;
  for (const TensorDrift& d : c.tensors) flagged += d.flagged;
  w.begin_object();
  w.key("a").value(c.a);
  w.key("b").value(c.b);
  w.key("mean_threshold").value(c.mean_threshold);
  // A rule that is off (its threshold 0, cosine's -1, no --max-diff) is null.
  auto threshold = [&](const char* key, double v, bool used) {
    w.key(key).value_or_null(used ? std::optional<double>(v) : std::nullopt);
  };
  threshold("rel_l2_threshold", c.rel_l2_threshold, c.rel_l2_threshold > 0);
  threshold("cosine_threshold", c.cosine_threshold, c.cosine_threshold > -1);
  w.key("max_abs_threshold").value_or_null(c.max_abs_threshold);
  w.key("compared").value(static_cast<uint64_t>(c.tensors.size()));
  w.key("flagged").value(static_cast<uint64_t>(flagged));
  w.key("seconds").value(c.seconds);
  names("missing_in_b", c.missing_in_b);
  names("extra_in_b", c.extra_in_b);
  w.key("shape_mismatch").begin_array();
  for (const ShapeMismatch& m : c.shape_mismatch) {
    w.newline().begin_object();
    w.key("name").value(m.name);
    w.key("name_b").text_or_null(m.name_b);
    for (const auto& [key, shape] : {std::pair{"shape_a", &m.shape_a}, std::pair{"shape_b", &m.shape_b}}) {
      w.key(key).begin_array();
      for (uint64_t x : *shape) w.value(x);
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  // Present but not compared (values that cannot be read, a counterpart that could not be told): "name" is
  // A's tensor (null for one of B's alone), "name_b" B's where it differs (null otherwise).
  w.key("not_compared").begin_array();
  for (const NotCompared& n : c.not_compared) {
    w.newline().begin_object();
    w.key("name").text_or_null(n.in_a ? n.name : std::string());
    w.key("name_b").text_or_null(n.name_b);
    if (n.in_a)
      w.key("dtype_a").value(dtype_info(n.dtype_a).short_name);
    else
      w.key("dtype_a").null();
    if (n.in_b)
      w.key("dtype_b").value(dtype_info(n.dtype_b).short_name);
    else
      w.key("dtype_b").null();
    w.key("shape").begin_array();
    for (uint64_t x : n.shape) w.value(x);
    w.end_array();
    w.key("numel").value(n.numel);
    w.key("reason").value(n.reason);
    w.end_object();
  }
  w.end_array();
  w.key("paired_by").value(c.paired_by);
  w.key("rotary_reordered").value(c.rotary_reordered);
  w.key("rotary_order_mismatch").value(c.rotary_order_mismatch);
  w.key("paired_by_names").value(c.paired_by_names);
  w.key("paired_by_values").value(c.paired_by_values);
  w.key("by_dtype_b").begin_array();
  for (const DTypeDrift& t : c.by_dtype_b) {
    w.newline().begin_object();
    w.key("dtype").value(dtype_info(t.dtype).short_name);
    w.key("tensors").value(t.tensors);
    w.key("numel").value(t.numel);
    w.key("rel_l2").value(t.rel_l2);
    w.key("snr_db").value(t.snr_db);
    w.key("max_abs_diff").value(t.max_abs_diff);
    w.key("nonfinite_changed").value(t.nonfinite_changed);
    w.end_object();
  }
  w.end_array();
  w.key("layers").begin_array();
  for (const LayerDrift& l : c.layers) {
    w.newline().begin_object();
    w.key("layer").value_or_null(l.layer);
    w.key("numel").value(l.numel);
    w.key("rel_l2").value(l.rel_l2);
    w.key("cosine").value(l.cosine);
    w.key("max_abs_diff").value(l.max_abs_diff);
    w.key("nonfinite_changed").value(l.nonfinite_changed);
    w.key("flagged").value(l.flagged);
    w.end_object();
  }
  w.end_array();
  w.key("tensors").begin_array();
  for (size_t i : ranked(c)) {
    const TensorDrift& d = c.tensors[i];
    w.newline().begin_object();
    w.key("name").value(d.name);
    w.key("name_b").text_or_null(d.name_b);
    w.key("layer").value_or_null(d.layer);
    w.key("module_class").value(std::string(module_class_name(d.module_class)));
    w.key("dtype_a").value(dtype_info(d.dtype_a).short_name);
    w.key("dtype_b").value(dtype_info(d.dtype_b).short_name);
    w.key("shape").begin_array();
    for (uint64_t x : d.shape) w.value(x);
    w.end_array();
    w.key("numel").value(d.numel);
    w.key("mean_a").value(d.mean_a);
    w.key("mean_b").value(d.mean_b);
    w.key("mean_drift").value(d.mean_drift);
    w.key("std_a").value(d.std_a);
    w.key("std_b").value(d.std_b);
    w.key("std_ratio").value(d.std_ratio);
    w.key("rel_l2").value(d.rel_l2);
    w.key("cosine").value(d.cosine);
    w.key("max_abs_diff").value(d.max_abs_diff);
    w.key("nonfinite_a").value(d.nonfinite_a);
    w.key("nonfinite_b").value(d.nonfinite_b);
    w.key("nonfinite_changed").value(d.nonfinite_changed);
    w.key("rotary_order").text_or_null(d.rotary_order);
    w.key("rel_l2_other_order").value(d.rel_l2_other_order);
    w.key("rotary_order_mismatch").value(d.rotary_order_mismatch);
    w.key("flagged").value(d.flagged);
    w.key("flagged_by").begin_array();
    for (DriftRule r : kDriftRules)
      if (d.flagged_by & r) w.value(drift_rule_name(r));
    w.end_array();
    w.end_object();
  }
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  w.flush();
  sink("\n");
}

std::string render_compare_csv(const WeightComparison& c) {
  std::string out =
      "name,layer,module_class,dtype_a,dtype_b,shape,numel,mean_a,mean_b,mean_drift,std_a,std_b,std_ratio,"
      "rel_l2,cosine,max_abs_diff,nonfinite_a,nonfinite_b,nonfinite_changed,flagged,flagged_by,not_"
      "compared\n";
  for (size_t i : ranked(c)) {
    const TensorDrift& d = c.tensors[i];
    const std::vector<std::string> cells = {csv_text(d.name),
                                            d.layer ? std::to_string(*d.layer) : std::string(),
                                            std::string(module_class_name(d.module_class)),
                                            std::string(dtype_info(d.dtype_a).short_name),
                                            std::string(dtype_info(d.dtype_b).short_name),
                                            csv_text(shape_to_python_tuple(d.shape)),
                                            std::to_string(d.numel),
                                            csv_number(d.mean_a),
                                            csv_number(d.mean_b),
                                            csv_number(d.mean_drift),
                                            csv_number(d.std_a),
                                            csv_number(d.std_b),
                                            csv_number(d.std_ratio),
                                            csv_number(d.rel_l2),
                                            csv_number(d.cosine),
                                            csv_number(d.max_abs_diff),
                                            std::to_string(d.nonfinite_a),
                                            std::to_string(d.nonfinite_b),
                                            std::to_string(d.nonfinite_changed),
                                            d.flagged ? "true" : "false",
                                            flagged_by_text(d),
                                            std::string()};
    for (size_t k = 0; k < cells.size(); ++k) out += (k ? "," : "") + cells[k];
    out += '\n';
  }
  // The tensors not compared: their names, dtypes and shape, no figures, and why (B's name for one of B's
  // alone).
  for (const NotCompared& n : c.not_compared) {
    const std::string dtype_a = n.in_a ? std::string(dtype_info(n.dtype_a).short_name) : std::string();
    const std::string dtype_b = n.in_b ? std::string(dtype_info(n.dtype_b).short_name) : std::string();
    out += csv_text(n.in_a ? n.name : n.name_b) + ",,," + dtype_a + "," + dtype_b + "," +
           csv_text(shape_to_python_tuple(n.shape)) + "," + std::to_string(n.numel) + std::string(15, ',') +
           csv_text(n.reason) + "\n";
  }
  return out;
}

std::string render_compare_markdown(const WeightComparison& c, size_t top) {
  MarkdownWriter w;
  w.heading(1, "Checkpoint drift: " + display_name_of(c.a) + " → " + display_name_of(c.b));
  w.paragraph(counts_line(c) + ".");
  if (!pairing_line(c).empty()) w.paragraph(pairing_line(c) + ".");
  if (types_differ(c)) {
    w.heading(2, "Error by type of B");
    w.table(kDTypeHeader, dtype_rows(c));
  }
  w.heading(2, "Most changed tensors");
  std::vector<std::vector<std::string>> rows;
  for (size_t i : ranked(c)) {
    if (rows.size() == top) break;
    rows.push_back(tensor_row(c.tensors[i]));  // the table escapes each cell
  }
  w.table(kTensorHeader, rows);
  w.heading(2, "Layers");
  rows.clear();
  for (const LayerDrift& l : c.layers) rows.push_back(layer_row(l));
  w.table(kLayerHeader, rows);
  auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    w.heading(2, title);
    std::string text;
    for (const std::string& n : names) text += "- " + n + "\n";  // the paragraph escapes them
    w.paragraph(text);
  };
  list("Rotary order mismatch", rotary_mismatch_lines(c));
  list("Not compared", not_compared_lines(c));
  list("Missing in B", c.missing_in_b);
  list("Extra in B", c.extra_in_b);
  list("Shape mismatch", shape_mismatch_lines(c));
  return w.take();
}

}  // namespace ma
