#include "analysis/embedding/embedding_analysis.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <unordered_map>

#include "analysis/matrix_reader.h"
#include "analysis/lapack.h"
#include "core/error.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

constexpr size_t kListed = 20;
constexpr double kOutlierZ = 3.5;        // Iglewicz & Hoaglin's modified z-score threshold
constexpr double kNearZeroFraction = 1e-3;  // of the median norm

const ScanItem& find_matrix(const PlannedScan& plan, const std::string& which) {
  const std::string role = which == "head" ? "lm-head" : "token-embedding";
  for (const ScanItem& item : plan.items)
    if (item.shape.size() == 2 && place_tensor(item.name).role == role) return item;
  throw Error(ErrorKind::NotFound, which == "head" ? "--matrix head" : "embedding", "tensors",
              which == "head" ? "no stored LM head (tied to the embedding, or absent): use --matrix embedding"
                              : "no 2-D token embedding among the selected tensors");
}

double percentile(const std::vector<double>& sorted, double q) {  // numpy's linear interpolation
  const double pos = q / 100 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

RowRef ref(uint64_t row, double value, const std::vector<std::string>& tokens) {
  return {row, row < tokens.size() ? tokens[row] : std::string(), value};
}

void row_norms(EmbeddingAnalysis& a, const std::vector<float>& x, std::vector<double>& norms,
               const std::vector<std::string>& tokens) {
  const uint64_t n = a.rows, d = a.cols;
  norms.resize(n);
  double sum = 0, sum_sq = 0;
  for (uint64_t i = 0; i < n; ++i) {
    double s = 0;
    for (uint64_t t = 0; t < d; ++t) s += double(x[i * d + t]) * x[i * d + t];
    norms[i] = std::sqrt(s);
    sum += norms[i];
    sum_sq += s;
  }
  std::vector<double> sorted = norms;
  std::sort(sorted.begin(), sorted.end());
  NormSummary& s = a.norms;
  s.min = sorted.front();
  s.max = sorted.back();
  s.p1 = percentile(sorted, 1);
  s.p50 = percentile(sorted, 50);
  s.p99 = percentile(sorted, 99);
  s.mean = sum / static_cast<double>(n);
  s.std = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(n) - s.mean * s.mean));
  std::vector<double> dev(n);
  for (uint64_t i = 0; i < n; ++i) dev[i] = std::fabs(norms[i] - s.p50);
  std::nth_element(dev.begin(), dev.begin() + static_cast<std::ptrdiff_t>(n / 2), dev.end());
  s.mad = dev[n / 2];
  // Outliers by the modified z-score 0.6745 (x − median) / MAD; near-zero rows by their norm.
  std::vector<RowRef> outliers, near_zero;
  for (uint64_t i = 0; i < n; ++i) {
    if (s.mad > 0) {
      const double z = 0.6745 * std::fabs(norms[i] - s.p50) / s.mad;
      if (z > kOutlierZ) outliers.push_back(ref(i, z, tokens));
    }
    if (norms[i] <= kNearZeroFraction * s.p50) near_zero.push_back(ref(i, norms[i], tokens));
  }
  a.outlier_count = outliers.size();
  a.near_zero_count = near_zero.size();
  std::stable_sort(outliers.begin(), outliers.end(), [](const RowRef& l, const RowRef& r) { return l.value > r.value; });
  outliers.resize(std::min(outliers.size(), kListed));
  near_zero.resize(std::min(near_zero.size(), kListed));
  a.outliers = std::move(outliers);
  a.near_zero = std::move(near_zero);
  a.row_norms.assign(norms.begin(), norms.end());
}

// Rows whose bytes are identical: untrained rows often keep one shared initial vector.
void duplicates(EmbeddingAnalysis& a, const std::vector<float>& x) {
  const uint64_t n = a.rows, d = a.cols;
  std::unordered_map<std::string_view, std::vector<uint64_t>> groups;
  const char* base = reinterpret_cast<const char*>(x.data());
  for (uint64_t i = 0; i < n; ++i) groups[std::string_view(base + i * d * 4, d * 4)].push_back(i);
  std::vector<std::vector<uint64_t>> repeated;
  for (auto& [bytes, rows] : groups)
    if (rows.size() > 1) repeated.push_back(std::move(rows));
  std::sort(repeated.begin(), repeated.end(), [](const auto& l, const auto& r) {
    return l.size() != r.size() ? l.size() > r.size() : l.front() < r.front();
  });
  a.duplicate_groups = repeated.size();
  for (const auto& g : repeated) a.duplicate_rows += g.size();
  a.largest_duplicate_group = repeated.empty() ? 0 : repeated.front().size();
  for (size_t i = 0; i < std::min<size_t>(repeated.size(), 5); ++i) {
    std::vector<uint64_t> rows = repeated[i];
    rows.resize(std::min<size_t>(rows.size(), 8));
    a.duplicate_examples.push_back(std::move(rows));
  }
}

// The top two eigenvectors of the covariance (ssyrk of the rows, then power iteration with deflation on
// the d x d matrix), and the projection of a seeded sample of rows onto them.
void principal_components(EmbeddingAnalysis& a, const std::vector<float>& x, std::mt19937_64& rng) {
  const uint64_t n = a.rows, d = a.cols;
  std::vector<double> mean(d, 0.0);
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t t = 0; t < d; ++t) mean[t] += x[i * d + t];
  for (double& m : mean) m /= static_cast<double>(n);
  std::vector<float> g(d * d);
  lapack::gram(false, static_cast<int64_t>(d), static_cast<int64_t>(n), x.data(), static_cast<int64_t>(d), g.data());
  std::vector<double> cov(d * d);
  for (uint64_t i = 0; i < d; ++i)
    for (uint64_t j = i; j < d; ++j) {  // the upper triangle holds XᵀX (column-major: g[i + j d], i <= j)
      const double c = g[i + j * d] / static_cast<double>(n) - mean[i] * mean[j];
      cov[i * d + j] = cov[j * d + i] = c;
    }
  double trace = 0;
  for (uint64_t i = 0; i < d; ++i) trace += cov[i * d + i];
  std::vector<std::vector<double>> vectors;
  std::normal_distribution<double> normal;
  for (int c = 0; c < 2; ++c) {
    std::vector<double> v(d), w(d);
    for (double& e : v) e = normal(rng);
    double lambda = 0;
    for (int it = 0; it < 300; ++it) {
      for (const auto& u : vectors) {  // deflation: stay orthogonal to the components found
        const double p = std::inner_product(v.begin(), v.end(), u.begin(), 0.0);
        for (uint64_t t = 0; t < d; ++t) v[t] -= p * u[t];
      }
      const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
      if (!(norm > 0)) break;
      for (double& e : v) e /= norm;
      for (uint64_t i = 0; i < d; ++i) w[i] = std::inner_product(v.begin(), v.end(), cov.begin() + static_cast<std::ptrdiff_t>(i * d), 0.0);
      const double next = std::inner_product(v.begin(), v.end(), w.begin(), 0.0);
      const bool settled = std::fabs(next - lambda) <= 1e-10 * std::fabs(next);
      lambda = next;
      v.swap(w);
      if (settled && it > 5) break;
    }
    const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
    if (norm > 0)
      for (double& e : v) e /= norm;
    a.explained_variance[c] = trace > 0 ? lambda / trace : 0;
    vectors.push_back(std::move(v));
  }
  std::vector<uint64_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0);
  if (n > a.options.plot_points) {
    std::shuffle(rows.begin(), rows.end(), rng);
    rows.resize(a.options.plot_points);
    std::sort(rows.begin(), rows.end());
  }
  for (uint64_t i : rows) {
    for (const auto& v : vectors) {
      double p = 0;
      for (uint64_t t = 0; t < d; ++t) p += (x[i * d + t] - mean[t]) * v[t];
      a.projection.push_back(static_cast<float>(p));
    }
  }
  a.projected_rows = std::move(rows);
}

void summarise_clusters(EmbeddingAnalysis& a, const std::vector<float>& x, const std::vector<std::string>& tokens) {
  const uint64_t d = a.cols;
  const KMeansResult& km = a.clustering;
  std::vector<std::vector<std::pair<double, uint64_t>>> members(km.k);
  a.distance_to_center.assign(a.rows, 0.0f);
  for (uint64_t i = 0; i < a.rows; ++i) {
    const uint32_t c = km.labels[i];
    double s = 0;
    for (uint64_t t = 0; t < d; ++t) {
      const double diff = double(x[i * d + t]) - km.centers[c * d + t];
      s += diff * diff;
    }
    members[c].emplace_back(std::sqrt(s), i);
    a.distance_to_center[i] = static_cast<float>(std::sqrt(s));
  }
  for (uint32_t c = 0; c < km.k; ++c) {
    ClusterSummary cs;
    cs.id = c;
    cs.size = km.sizes[c];
    double norm = 0;
    for (uint64_t t = 0; t < d; ++t) norm += double(km.centers[c * d + t]) * km.centers[c * d + t];
    cs.center_norm = std::sqrt(norm);
    auto& m = members[c];
    double total = 0;
    for (const auto& [dist, row] : m) total += dist;
    cs.mean_distance = m.empty() ? 0 : total / static_cast<double>(m.size());
    const size_t shown = std::min<size_t>(a.options.examples, m.size());
    std::partial_sort(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(shown), m.end());
    for (size_t e = 0; e < shown; ++e) cs.examples.push_back(ref(m[e].second, m[e].first, tokens));
    a.clusters.push_back(std::move(cs));
  }
}

}  // namespace

EmbeddingAnalysis analyse_embeddings(const PlannedScan& plan, const std::vector<std::string>& tokens,
                                     const EmbeddingOptions& o) {
  lapack::require();
  const auto start = std::chrono::steady_clock::now();
  const ScanItem& item = find_matrix(plan, o.matrix);
  EmbeddingAnalysis a;
  a.tensor = item.name;
  a.rows = item.shape[0];
  a.cols = item.shape[1];
  a.options = o;
  a.tokens_known = !tokens.empty();
  if (a.rows < 2 || a.cols == 0) throw Error(ErrorKind::Malformed, item.file.string(), item.name, "fewer than 2 rows");
  if (o.k_max > a.rows)
    throw Error(ErrorKind::Usage, "", "--k", "k = " + std::to_string(o.k_max) + " exceeds the " + std::to_string(a.rows) + " rows");
  std::vector<float> x;
  ElementDecoder decoder;
  const FileSource file(item.file);
  read_elements_as_float(file, item, 0, a.rows * a.cols, x, decoder);
  for (float v : x)
    if (!std::isfinite(v)) throw Error(ErrorKind::Malformed, item.file.string(), item.name, "holds NaN or Inf");
  std::vector<double> norms;
  row_norms(a, x, norms, tokens);
  duplicates(a, x);

  // The clustering: one k, or every k of the range and the elbow's.
  KMeansOptions km;
  km.seed = o.seed;
  km.max_iter = o.max_iter;
  std::vector<KMeansResult> runs;
  for (uint32_t k = o.k_min; k <= o.k_max; ++k) {
    km.k = k;
    runs.push_back(kmeans(x, a.rows, a.cols, km));
    a.elbow_ks.push_back(k);
    a.elbow_inertias.push_back(runs.back().inertia);
  }
  a.k = o.k_min;
  if (o.k_max > o.k_min) {
    a.elbow = kneedle_elbow(a.elbow_ks, a.elbow_inertias);
    a.k = *a.elbow;
  }
  a.clustering = std::move(runs[a.k - o.k_min]);
  summarise_clusters(a, x, tokens);

  std::mt19937_64 rng(o.seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<uint64_t> sample(a.rows);
  std::iota(sample.begin(), sample.end(), 0);
  if (a.rows > o.silhouette_sample) {
    std::shuffle(sample.begin(), sample.end(), rng);
    sample.resize(o.silhouette_sample);
    std::sort(sample.begin(), sample.end());
  }
  a.silhouette_rows = sample.size();
  a.silhouette = a.k > 1 ? silhouette(x, a.cols, sample, a.clustering.labels, a.k) : 0;
  principal_components(a, x, rng);
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

}  // namespace ma
