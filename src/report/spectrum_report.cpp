#include "report/spectrum_report.h"

#include <cstdio>
#include <map>

#include "analysis/identity.h"
#include "core/shape.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/csv_cells.h"
#include "report/markdown_writer.h"
#include "report/stats_report.h"

namespace ma {
namespace {

std::string ratio_text(uint64_t n, uint64_t of) {
  return of ? fixed_decimals(100.0 * static_cast<double>(n) / static_cast<double>(of), 1) + "%" : "-";
}

std::string method_text(const ModelSpectrum& s) {
  switch (s.method) {
    case SpectrumMethod::Svd:
      return "full SVD (LAPACK sgesdd)";
    case SpectrumMethod::Gram:
      return "eigenvalues of the Gram matrix (ssyrk + ssyevd); σ below sqrt(n·ε)·σ_max not resolved";
    case SpectrumMethod::Randomized:
      return "top " + std::to_string(s.randomized.k) + " by randomized SVD (oversampling " +
             std::to_string(s.randomized.oversample) + ", " + std::to_string(s.randomized.power_iterations) +
             " power iterations, seed " + std::to_string(s.randomized.seed) + ")";
  }
  return "";
}

std::optional<double> ratio(const std::optional<uint64_t>& n, uint64_t of) {
  if (!n || !of) return std::nullopt;
  return static_cast<double>(*n) / static_cast<double>(of);
}

std::string opt_text(const std::optional<double>& v) {
  return v ? brief_number(*v) : "-";
}

// Whether a matrix of `s` is stored in a float narrower than float32, and so has a storage rank: the tables
// then show it beside the rank (for float32 and wider it would only repeat what the rank means).
bool shows_storage_rank(const ModelSpectrum& s) {
  for (const MatrixSpectrum& m : s.matrices)
    if (m.metrics.storage_tolerance) return true;
  return false;
}

// `storage`: with the Storage rank column ("-" for a matrix stored in float32 or wider).
std::vector<std::string> console_row(const MatrixSpectrum& m, bool storage) {
  const SpectralMetrics& x = m.metrics;
  std::vector<std::string> row = {std::string(module_class_name(m.module_class)),
                                  "(" + std::to_string(m.rows) + ", " + std::to_string(m.cols) + ")",
                                  rank_text(x.actual_rank, x.actual_rank_lower_bound, x.design_rank)};
  if (storage) row.push_back(rank_text(x.storage_rank, x.storage_rank_lower_bound, x.design_rank));
  row.push_back(rank_text(x.rank_90, x.rank_90_lower_bound, x.design_rank));
  row.push_back(brief_number(x.stable_rank));
  row.push_back(opt_text(x.effective_rank));
  row.push_back(brief_number(x.spectral_norm));
  row.push_back(x.alpha ? fixed_decimals(x.alpha->alpha, 2) : "-");
  row.push_back(fixed_decimals(100 * m.sparsity, 1) + "%");
  // As stats prints them: a LoRA matrix's std of 3e-5 is not "0.0000", a mean of 1e35 not 36 digits.
  row.push_back(table_number(m.mean));
  row.push_back(table_number(m.std));
  return row;
}

}  // namespace

std::string_view spectrum_method_name(SpectrumMethod m) {
  switch (m) {
    case SpectrumMethod::Svd:
      return "svd";
    case SpectrumMethod::Gram:
      return "gram";
    case SpectrumMethod::Randomized:
      return "randomized";
  }
  return "";
}

std::string rank_text(const std::optional<uint64_t>& rank, const std::optional<uint64_t>& lower_bound,
                      uint64_t design_rank) {
  if (rank)
    return std::to_string(*rank) + "/" + std::to_string(design_rank) + " (" + ratio_text(*rank, design_rank) +
           ")";
  if (lower_bound) return "≥ " + std::to_string(*lower_bound) + "/" + std::to_string(design_rank);
  return "-";
}

// The matrices by layer, in layer order; those outside the layer stack (embeddings, head) first, under -1.
std::map<int64_t, std::vector<const MatrixSpectrum*>> by_layer(const ModelSpectrum& s) {
  std::map<int64_t, std::vector<const MatrixSpectrum*>> out;
  for (const MatrixSpectrum& m : s.matrices) out[m.layer ? int64_t{*m.layer} : -1].push_back(&m);
  return out;
}

std::vector<std::string> table_header(bool storage) {
  std::vector<std::string> h = {"Matrix", "Shape", "Rank"};
  if (storage) h.push_back("Storage rank");
  for (const char* c : {"SVD 90%", "Stable rank", "Eff. rank", "||W||_2", "alpha", "Sparsity", "Mean", "Std"})
    h.push_back(c);
  return h;
}

// The row's label: the module class when it names one matrix of the layer ("q_proj"), else the name inside
// the layer ("mlp.gate_proj", "mlp.experts.3.down_proj"); outside the layers, the whole name.
std::vector<std::vector<std::string>> layer_rows(int64_t layer, const std::vector<const MatrixSpectrum*>& ms,
                                                 bool storage) {
  std::map<ModuleClass, size_t> per_class;
  for (const MatrixSpectrum* m : ms) ++per_class[m->module_class];
  std::vector<std::vector<std::string>> rows;
  for (const MatrixSpectrum* m : ms) {
    std::vector<std::string> row = console_row(*m, storage);
    if (layer < 0)
      row[0] = m->name;
    else if (per_class[m->module_class] > 1)
      row[0] = m->local_name;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string layer_title(int64_t layer) {
  return layer < 0 ? "OUTSIDE THE LAYERS" : "LAYER " + std::to_string(layer);
}

// The footnote. No figure in it but those the JSON holds (the console's numbers are all exported).
std::string rule_text(const ModelSpectrum& s) {
  const std::string numpy = s.method == SpectrumMethod::Gram
                                ? "max(σ_max·max(m, n)·ε_f32, the Gram resolution)"
                                : "σ_max·max(m, n)·ε_f32";
  std::string rule = "Rank: σ > ";
  if (s.tolerance)
    rule += short_number(*s.tolerance) + " (--rank-tol).";
  else
    rule +=
        numpy + ", numpy.linalg.matrix_rank of the values as stored, upcast to float32, whatever the dtype.";
  if (shows_storage_rank(s)) {
    rule +=
        " Storage rank (floats narrower than float32): σ > storage_tolerance, a bound on how far rounding "
        "to the stored dtype can move a σ (|| |W| ||_2 times the dtype's largest relative rounding error, "
        "plus what its subnormals add; never below the rank's default tolerance";
    if (s.tolerance) rule += ", whatever --rank-tol says";
    rule += "): any matrix that rounds to the stored one has at least this rank.";
  }
  return rule +
         " SVD 90%: fewest σ holding 90% of Σσ². Stable rank ||W||_F²/σ_max²; eff. rank exp(entropy of "
         "σ/Σσ); alpha: power-law exponent of the eigenvalues σ² (WeightWatcher), fitted to those above " +
         short_number(kAlphaEigenvalueThreshold) +
         " (its EVALS_THRESH) whose σ the rank counts, \"-\" where fewer than " +
         std::to_string(kAlphaMinEigenvalues) + " remain. Sparsity: |x| <= " + short_number(s.eps) + ".";
}

std::string render_spectrum_console(const ModelSpectrum& s, bool color) {
  ConsoleWriter w(color);
  w.heading("LAYER-BY-LAYER MATRIX ANALYSIS");
  w.field("matrices", with_thousands(s.matrices.size()) + " in " + duration_text(s.seconds));
  w.field("method", method_text(s));
  w.field("LAPACK", s.library);
  const bool storage = shows_storage_rank(s);
  for (const auto& [layer, matrices] : by_layer(s)) {
    w.heading(layer_title(layer));
    w.table(table_header(storage), layer_rows(layer, matrices, storage));
  }
  for (const std::string& skipped : s.skipped) w.footnote("skipped " + skipped);
  w.footnote(rule_text(s));
  return w.take();
}

std::string render_spectrum_markdown(const ModelSpectrum& s, const RunInfo& run) {
  MarkdownWriter w;
  w.heading(1, "Spectrum: " + display_name_of(s.model_id));
  w.paragraph(run_info_paragraph(run));
  w.fields({{"Matrices", with_thousands(s.matrices.size()) + " in " + duration_text(s.seconds)},
            {"Method", method_text(s)},
            {"LAPACK", s.library}});
  const bool storage = shows_storage_rank(s);
  for (const auto& [layer, matrices] : by_layer(s)) {
    w.heading(2, layer < 0 ? "Outside the layers" : "Layer " + std::to_string(layer));
    w.table(table_header(storage), layer_rows(layer, matrices, storage));
  }
  std::string skipped;
  for (const std::string& k : s.skipped) skipped += "- skipped " + k + "\n";
  if (!skipped.empty()) w.paragraph(skipped);
  w.paragraph(rule_text(s));
  return w.take();
}

void stream_spectrum_json(const ModelSpectrum& s, const RunInfo& run, bool values,
                          const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  w.begin_object();
  w.key("model_id").value(s.model_id);
  w.key("method").value(spectrum_method_name(s.method));
  if (s.method == SpectrumMethod::Randomized) {
    w.key("rank_k").value(uint64_t{s.randomized.k});
    w.key("oversample").value(uint64_t{s.randomized.oversample});
    w.key("power_iterations").value(uint64_t{s.randomized.power_iterations});
    w.key("seed").value(s.randomized.seed);
  }
  w.key("lapack").value(s.library);
  w.key("energy").value(s.energy);
  w.key("rank_tolerance_given").value_or_null(s.tolerance);
  w.key("eps").value(s.eps);
  w.key("alpha_eigenvalue_threshold").value(kAlphaEigenvalueThreshold);
  w.key("alpha_min_eigenvalues").value(kAlphaMinEigenvalues);
  w.key("seconds").value(s.seconds);
  w.key("tensors").begin_array();
  for (const MatrixSpectrum& m : s.matrices) {
    const SpectralMetrics& x = m.metrics;
    w.newline().begin_object();
    w.key("name").value(m.name);
    w.key("layer").value_or_null(m.layer);
    w.key("module_class").value(module_class_name(m.module_class));
    w.key("block").value(m.block);
    w.key("role").value(m.role);
    w.key("dtype").value(dtype_info(m.dtype).short_name);
    w.key("scaled_by").text_or_null(m.scaled_by);
    w.key("rows").value(m.rows);
    w.key("cols").value(m.cols);
    w.key("design_rank").value(x.design_rank);
    w.key("actual_rank").value_or_null(x.actual_rank);
    w.key("actual_rank_lower_bound").value_or_null(x.actual_rank_lower_bound);
    w.key("rank_ratio").value_or_null(ratio(x.actual_rank, x.design_rank));
    w.key("rank_tolerance").value(x.tolerance);
    // The storage-precision rank: null for a matrix stored in float32 or wider.
    w.key("storage_rank").value_or_null(x.storage_rank);
    w.key("storage_rank_lower_bound").value_or_null(x.storage_rank_lower_bound);
    w.key("storage_rank_ratio").value_or_null(ratio(x.storage_rank, x.design_rank));
    w.key("storage_tolerance").value_or_null(x.storage_tolerance);
    w.key("svd_90_percent_rank").value_or_null(x.rank_90);
    w.key("svd_90_percent_rank_lower_bound").value_or_null(x.rank_90_lower_bound);
    w.key("svd_90_percent_ratio").value_or_null(ratio(x.rank_90, x.design_rank));
    w.key("energy_rank").value_or_null(x.energy_rank);
    w.key("energy_rank_lower_bound").value_or_null(x.energy_rank_lower_bound);
    w.key("stable_rank").value(x.stable_rank);
    w.key("effective_rank").value_or_null(x.effective_rank);
    w.key("spectral_norm").value(x.spectral_norm);
    w.key("frobenius_norm").value(m.frobenius_norm);
    w.key("condition_number").value_or_null(x.condition_number);
    if (x.alpha) {
      w.key("alpha").value(x.alpha->alpha);
      w.key("alpha_xmin").value(x.alpha->xmin);
      w.key("alpha_ks_distance").value(x.alpha->ks_distance);
      w.key("alpha_tail").value(x.alpha->tail);
    } else {
      for (const char* k : {"alpha", "alpha_xmin", "alpha_ks_distance", "alpha_tail"}) w.key(k).null();
    }
    w.key("alpha_eigenvalues").value(x.alpha_eigenvalues);
    w.key("alpha_unset_reason").text_or_null(x.alpha_unset);
    w.key("gram_resolution").value(m.singular_values.resolution);
    w.key("randomized_error_factor").value(m.singular_values.error_factor);
    w.key("mean").value(m.mean);
    w.key("std").value(m.std);
    w.key("var").value(m.var);
    w.key("sparsity").value(m.sparsity);
    w.key("seconds").value(m.seconds);
    if (values) {
      w.key("singular_values").begin_array();
      for (double v : m.singular_values.values) w.value(v);
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  w.key("skipped").begin_array();
  for (const std::string& k : s.skipped) w.value(k);
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  w.flush();
}

std::string render_spectrum_csv(const ModelSpectrum& s, std::string_view model_path,
                                std::string_view revision, std::string_view created_at) {
  std::string out =
      "model_path,model_id,revision,param_name,layer_index,block_type,shape,rows,cols,design_rank,actual_"
      "rank,"
      "rank_ratio,svd_90_percent_rank,svd_90_percent_ratio,mean,std,var,sparsity,dtype,created_at,"
      "actual_rank_lower_bound,svd_90_percent_rank_lower_bound,energy_rank,stable_rank,effective_rank,"
      "spectral_norm,frobenius_norm,condition_number,alpha,alpha_xmin,alpha_ks_distance,rank_tolerance,"
      "storage_rank,storage_rank_lower_bound,storage_rank_ratio,storage_tolerance\n";
  const auto count = [](const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : std::string(); };
  const auto number = [](const std::optional<double>& v) { return v ? csv_number(*v) : std::string(); };
  for (const MatrixSpectrum& m : s.matrices) {
    const SpectralMetrics& x = m.metrics;
    const std::vector<std::string> cells = {csv_text(model_path),
                                            csv_text(s.model_id),
                                            csv_text(revision),
                                            csv_text(m.name),
                                            m.layer ? std::to_string(*m.layer) : std::string(),
                                            std::string(module_class_name(m.module_class)),
                                            csv_text(shape_to_python_tuple({m.rows, m.cols})),
                                            std::to_string(m.rows),
                                            std::to_string(m.cols),
                                            std::to_string(x.design_rank),
                                            count(x.actual_rank),
                                            number(ratio(x.actual_rank, x.design_rank)),
                                            count(x.rank_90),
                                            number(ratio(x.rank_90, x.design_rank)),
                                            csv_number(m.mean),
                                            csv_number(m.std),
                                            csv_number(m.var),
                                            csv_number(m.sparsity),
                                            std::string(dtype_info(m.dtype).torch_name),
                                            std::string(created_at),
                                            count(x.actual_rank_lower_bound),
                                            count(x.rank_90_lower_bound),
                                            count(x.energy_rank),
                                            csv_number(x.stable_rank),
                                            number(x.effective_rank),
                                            csv_number(x.spectral_norm),
                                            csv_number(m.frobenius_norm),
                                            number(x.condition_number),
                                            x.alpha ? csv_number(x.alpha->alpha) : std::string(),
                                            x.alpha ? csv_number(x.alpha->xmin) : std::string(),
                                            x.alpha ? csv_number(x.alpha->ks_distance) : std::string(),
                                            csv_number(x.tolerance),
                                            count(x.storage_rank),
                                            count(x.storage_rank_lower_bound),
                                            number(ratio(x.storage_rank, x.design_rank)),
                                            number(x.storage_tolerance)};
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += '\n';
  }
  return out;
}

}  // namespace ma
