#include "report/embeddings_report.h"

#include <cmath>
#include <cstdio>

#include "analysis/identity.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/csv_cells.h"
#include "report/markdown_writer.h"

namespace ma {
namespace {

// How a list shows tokens: as they are on the console; in Markdown with its markup characters escaped, so
// that tokens holding backticks or asterisks do not turn the rest of the cell into code or bold.
enum class TokenForm { Console, Markdown };

// A token as shown in a list: quoted, control characters escaped, long ones cut.
std::string shown(const RowRef& r, TokenForm form) {
  if (r.token.empty()) return "#" + std::to_string(r.row);
  std::string out;
  size_t n = 0;
  for (char c : r.token) {
    if (++n > 24) {
      out += "…";
      break;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += hex;
    } else {
      out += c;
    }
  }
  return "\"" + (form == TokenForm::Markdown ? markdown_literal(out) : out) + "\"";
}

std::string list(const std::vector<RowRef>& rows, TokenForm form, size_t at_most = 8) {
  std::string out;
  for (size_t i = 0; i < rows.size() && i < at_most; ++i) out += (i ? ", " : "") + shown(rows[i], form);
  return out.empty() ? "-" : out;
}

std::string clustering_text(const EmbeddingAnalysis& a) {
  std::string s = "k = " + std::to_string(a.k);
  if (a.elbow)
    s += " (the elbow of k = " + std::to_string(a.elbow_ks.front()) + "-" +
         std::to_string(a.elbow_ks.back()) + ", Kneedle)";
  s += ", inertia " + brief_number(a.clustering.inertia) + ", " + std::to_string(a.clustering.iterations) +
       " Lloyd iterations" + (a.clustering.converged ? "" : " (max_iter reached)") + ", seed " +
       std::to_string(a.options.seed);
  return s;
}

std::vector<std::vector<std::string>> cluster_rows(const EmbeddingAnalysis& a, TokenForm form) {
  std::vector<std::vector<std::string>> rows;
  for (const ClusterSummary& c : a.clusters)
    rows.push_back(
        {std::to_string(c.id), with_thousands(c.size),
         fixed_decimals(100.0 * static_cast<double>(c.size) / static_cast<double>(a.rows), 1) + "%",
         brief_number(c.center_norm), brief_number(c.mean_distance), list(c.examples, form)});
  return rows;
}

const std::vector<std::string>& cluster_header() {
  static const std::vector<std::string> h = {"Cluster",     "Rows",      "Share",
                                             "Centre norm", "Mean dist", "Nearest to the centre"};
  return h;
}

std::vector<std::pair<std::string, std::string>> summary_fields(const EmbeddingAnalysis& a, TokenForm form) {
  return {
      {"matrix", a.tensor + " (" + with_thousands(a.rows) + " x " + with_thousands(a.cols) + ")"},
      {"clusters", clustering_text(a)},
      {"silhouette", std::isnan(a.silhouette)
                         ? std::string("undefined for one cluster")
                         : fixed_decimals(a.silhouette, 4) + " (" + with_thousands(a.silhouette_rows) +
                               " rows" + (a.silhouette_rows < a.rows ? ", a seeded sample)" : ")")},
      {"principal components", "PC1 " + fixed_decimals(100 * a.explained_variance[0], 2) + "%, PC2 " +
                                   fixed_decimals(100 * a.explained_variance[1], 2) + "% of the variance (" +
                                   std::to_string(a.pca_iterations) + " iterations" +
                                   (a.pca_converged ? ")" : ", not converged: lower bounds)")},
      {"row norms", "min " + brief_number(a.norms.min) + ", p1 " + brief_number(a.norms.p1) + ", median " +
                        brief_number(a.norms.p50) + ", p99 " + brief_number(a.norms.p99) + ", max " +
                        brief_number(a.norms.max) + "; mean " + brief_number(a.norms.mean) + ", std " +
                        brief_number(a.norms.std)},
      {"outlier norms", with_thousands(a.outlier_count) + " rows with modified z > " +
                            brief_number(a.outlier_z) + ": " + list(a.outliers, form)},
      {"near-zero rows", with_thousands(a.near_zero_count) + " rows with norm <= " +
                             brief_number(a.near_zero_fraction) + " x median: " + list(a.near_zero, form)},
      {"exact duplicates", with_thousands(a.duplicate_rows) + " rows in " +
                               with_thousands(a.duplicate_groups) + " groups of identical rows (largest " +
                               with_thousands(a.largest_duplicate_group) + ")"},
  };
}

}  // namespace

std::string render_embeddings_console(const EmbeddingAnalysis& a, bool color) {
  ConsoleWriter w(color);
  w.heading("EMBEDDING ANALYSIS");
  for (const auto& [label, value] : summary_fields(a, TokenForm::Console)) w.field(label, value);
  if (!a.tokens_known) w.footnote("no tokenizer.json beside the weights: rows are shown by id (#row)");
  w.heading("CLUSTERS");
  w.table(cluster_header(), cluster_rows(a, TokenForm::Console));
  if (a.elbow) {
    w.heading("ELBOW");
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < a.elbow_ks.size(); ++i)
      rows.push_back({std::to_string(a.elbow_ks[i]), brief_number(a.elbow_inertias[i]),
                      a.elbow_ks[i] == *a.elbow ? "<- elbow" : ""});
    w.table({"k", "Inertia", ""}, rows);
  }
  return w.take();
}

std::string render_embeddings_markdown(const EmbeddingAnalysis& a, const RunInfo& run) {
  MarkdownWriter w;
  w.heading(1, "Embeddings: " + display_name_of(a.model_id));
  w.paragraph(run_info_paragraph(run));
  w.fields(summary_fields(a, TokenForm::Markdown));
  w.heading(2, "Clusters");
  w.table(cluster_header(), cluster_rows(a, TokenForm::Markdown));
  if (a.elbow) {
    w.heading(2, "Elbow");
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < a.elbow_ks.size(); ++i)
      rows.push_back({std::to_string(a.elbow_ks[i]), brief_number(a.elbow_inertias[i]),
                      a.elbow_ks[i] == *a.elbow ? "elbow" : ""});
    w.table({"k", "Inertia", ""}, rows);
  }
  return w.take();
}

void stream_embeddings_json(const EmbeddingAnalysis& a, const RunInfo& run, const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  const auto refs = [&](const char* key, const std::vector<RowRef>& rows, const char* value_key) {
    w.key(key).begin_array();
    for (const RowRef& r : rows) {
      w.begin_object();
      w.key("row").value(r.row);
      w.key("token").text_or_null(r.token);
      w.key(value_key).value(r.value);
      w.end_object();
    }
    w.end_array();
  };
  w.begin_object();
  w.key("model_id").value(a.model_id);
  w.key("tensor").value(a.tensor);
  w.key("rows").value(a.rows);
  w.key("cols").value(a.cols);
  w.key("seed").value(a.options.seed);
  w.key("k").value(uint64_t{a.k});
  w.key("inertia").value(a.clustering.inertia);
  w.key("iterations").value(uint64_t{a.clustering.iterations});
  w.key("converged").value(a.clustering.converged);
  w.key("initial_center_rows").begin_array();
  for (uint64_t r : a.clustering.initial_rows) w.value(r);
  w.end_array();
  w.key("clusters").begin_array();
  for (const ClusterSummary& c : a.clusters) {
    w.newline().begin_object();
    w.key("id").value(uint64_t{c.id});
    w.key("size").value(c.size);
    w.key("share").value(static_cast<double>(c.size) / static_cast<double>(a.rows));  // of the rows
    w.key("center_norm").value(c.center_norm);
    w.key("mean_distance").value(c.mean_distance);
    refs("examples", c.examples, "distance");
    w.end_object();
  }
  w.end_array();
  if (a.elbow) {
    w.key("elbow").begin_object();
    w.key("method").value("kneedle");
    w.key("k").value(uint64_t{*a.elbow});
    w.key("ks").begin_array();
    for (uint32_t k : a.elbow_ks) w.value(uint64_t{k});
    w.end_array();
    w.key("inertias").begin_array();
    for (double v : a.elbow_inertias) w.value(v);
    w.end_array();
    w.end_object();
  } else {
    w.key("elbow").null();
  }
  w.key("silhouette").value(a.silhouette);
  w.key("silhouette_rows").value(a.silhouette_rows);
  w.key("norms").begin_object();
  w.key("min").value(a.norms.min);
  w.key("p1").value(a.norms.p1);
  w.key("p50").value(a.norms.p50);
  w.key("p99").value(a.norms.p99);
  w.key("max").value(a.norms.max);
  w.key("mean").value(a.norms.mean);
  w.key("std").value(a.norms.std);
  w.key("mad").value(a.norms.mad);
  w.end_object();
  w.key("outlier_z").value(a.outlier_z);
  w.key("outlier_count").value(a.outlier_count);
  refs("outliers", a.outliers, "modified_z");
  w.key("near_zero_fraction").value(a.near_zero_fraction);
  w.key("near_zero_count").value(a.near_zero_count);
  refs("near_zero", a.near_zero, "norm");
  w.key("duplicate_groups").value(a.duplicate_groups);
  w.key("duplicate_rows").value(a.duplicate_rows);
  w.key("largest_duplicate_group").value(a.largest_duplicate_group);
  w.key("duplicate_examples").begin_array();
  for (const auto& g : a.duplicate_examples) {
    w.begin_array();
    for (uint64_t r : g) w.value(r);
    w.end_array();
  }
  w.end_array();
  w.key("near_duplicate_rows").value(a.near_duplicate_rows);
  w.key("near_duplicate_pairs").begin_array();
  for (const auto& [i, j] : a.near_duplicate_pairs) w.begin_array().value(i).value(j).end_array();
  w.end_array();
  w.key("explained_variance_ratio")
      .begin_array()
      .value(a.explained_variance[0])
      .value(a.explained_variance[1])
      .end_array();
  w.key("pca_iterations").value(a.pca_iterations);
  w.key("pca_converged").value(a.pca_converged);
  w.key("kmeans_seconds").value(a.kmeans_seconds);
  w.key("seconds").value(a.seconds);
  write_run_info(w, run);
  w.end_object();
  w.flush();
}

std::string render_embeddings_csv(const EmbeddingAnalysis& a, const std::vector<std::string>& tokens,
                                  std::string_view created_at) {
  std::string out = "model_id,tensor,row,token,cluster,norm,distance_to_center,created_at\n";
  const std::string prefix = csv_text(a.model_id) + "," + csv_text(a.tensor) + ",";
  for (uint64_t i = 0; i < a.rows; ++i) {
    out += prefix + std::to_string(i) + "," + csv_text(i < tokens.size() ? tokens[i] : "") + "," +
           std::to_string(a.clustering.labels[i]) + "," + csv_number(a.row_norms[i]) + "," +
           csv_number(a.distance_to_center[i]) + "," + std::string(created_at) + "\n";
  }
  return out;
}

}  // namespace ma
