#include "analysis/embedding/embedding_analysis.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <tuple>

#include "analysis/lapack.h"
#include "analysis/matrix_reader.h"
#include "core/error.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

constexpr size_t kListed = 20;

double percentile(const std::vector<double>& sorted, double q) {  // numpy's linear interpolation
  const double pos = q / 100 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

RowRef ref(uint64_t row, double value, const std::vector<std::string>& tokens) {
  return {row, row < tokens.size() ? tokens[row] : std::string(), value};
}

void row_norms(EmbeddingAnalysis& a, const RowStatistics& stats, std::vector<double>& norms,
               const std::vector<std::string>& tokens) {
  const uint64_t n = a.rows;
  norms.resize(n);
  double sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    norms[i] = std::sqrt(stats.norms_squared[i]);
    sum += norms[i];
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
  // Two passes, as numpy's std: E[x²] − E[x]² of norms 1000 ± 2e-4 was 21% off.
  double squares = 0;
  for (uint64_t i = 0; i < n; ++i) squares += (norms[i] - s.mean) * (norms[i] - s.mean);
  s.std = std::sqrt(squares / static_cast<double>(n));
  // numpy's median of the deviations: the mean of the two middle ones for an even count (most vocabularies).
  std::vector<double> dev(n);
  for (uint64_t i = 0; i < n; ++i) dev[i] = std::fabs(norms[i] - s.p50);
  const auto middle = dev.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(dev.begin(), middle, dev.end());
  s.mad = n % 2 ? *middle : (*middle + *std::max_element(dev.begin(), middle)) / 2;
  // Outliers by the modified z-score 0.6745 (x − median) / MAD; near-zero rows by their norm.
  std::vector<RowRef> outliers, near_zero;
  for (uint64_t i = 0; i < n; ++i) {
    if (s.mad > 0) {
      const double z = 0.6745 * std::fabs(norms[i] - s.p50) / s.mad;
      if (z > a.outlier_z) outliers.push_back(ref(i, z, tokens));
    }
    if (norms[i] <= a.near_zero_fraction * s.p50) near_zero.push_back(ref(i, norms[i], tokens));
  }
  a.outlier_count = outliers.size();
  a.near_zero_count = near_zero.size();
  std::stable_sort(outliers.begin(), outliers.end(),
                   [](const RowRef& l, const RowRef& r) { return l.value > r.value; });
  outliers.resize(std::min(outliers.size(), kListed));
  near_zero.resize(std::min(near_zero.size(), kListed));
  a.outliers = std::move(outliers);
  a.near_zero = std::move(near_zero);
  a.row_norms.assign(norms.begin(), norms.end());
}

// Rows whose bytes are identical: untrained rows often keep one shared initial vector. Identical rows have
// identical norms, so only rows of equal norm are compared, byte for byte.
void duplicates(EmbeddingAnalysis& a, const std::vector<float>& x, const std::vector<double>& norms) {
  const uint64_t n = a.rows, d = a.cols;
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](uint64_t i, uint64_t j) { return std::tie(norms[i], i) < std::tie(norms[j], j); });
  std::vector<std::vector<uint64_t>> repeated;
  for (uint64_t b = 0; b < n;) {
    uint64_t e = b + 1;
    while (e < n && norms[order[e]] == norms[order[b]]) ++e;
    // Within a run of equal norms, group the byte-identical rows (runs are short: a quadratic pass is fine
    // for real data; a run of thousands is one group of untrained rows, found on its first row).
    std::vector<bool> taken(e - b, false);
    for (uint64_t i = b; i < e; ++i) {
      if (taken[i - b]) continue;
      std::vector<uint64_t> group = {order[i]};
      for (uint64_t j = i + 1; j < e; ++j)
        if (!taken[j - b] && std::memcmp(&x[order[i] * d], &x[order[j] * d], d * sizeof(float)) == 0) {
          taken[j - b] = true;
          group.push_back(order[j]);
        }
      if (group.size() > 1) repeated.push_back(std::move(group));
    }
    b = e;
  }
  for (auto& g : repeated) std::sort(g.begin(), g.end());
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

// Near-identical rows: the unit rows are projected on four random unit directions (one BLAS product), sorted
// by the first, and each row is compared with its next few neighbours in that order; a pair with cosine >
// 0.9999 that is not byte-identical counts. Two unit rows that close are within sqrt(2 (1 − 0.9999)) =
// 0.0142 of each other on every direction, so a pair farther apart on any of the four is skipped without
// its dot product. O(n log n + n·d) where a full search costs n²·d (which a 150k-row embedding cannot
// afford); a heuristic, stated as one.
void near_duplicates(EmbeddingAnalysis& a, const std::vector<float>& x, const std::vector<double>& norms,
                     std::mt19937_64& rng) {
  constexpr uint64_t kWindow = 8, kDirections = 4;
  constexpr double kCosine = 0.9999;
  const double reach = std::sqrt(2 * (1 - kCosine));
  const uint64_t n = a.rows, d = a.cols;
  std::normal_distribution<float> normal;
  std::vector<float> dirs(d * kDirections), proj(n * kDirections);
  for (uint64_t k = 0; k < kDirections; ++k) {
    double norm = 0;
    for (uint64_t t = 0; t < d; ++t) {
      dirs[k * d + t] = normal(rng);
      norm += double(dirs[k * d + t]) * dirs[k * d + t];
    }
    for (uint64_t t = 0; t < d; ++t) dirs[k * d + t] = static_cast<float>(dirs[k * d + t] / std::sqrt(norm));
  }
  // proj[k + i * 4] = x_i · dir_k
  lapack::multiply(true, false, static_cast<int64_t>(kDirections), static_cast<int64_t>(n),
                   static_cast<int64_t>(d), dirs.data(), static_cast<int64_t>(d), x.data(),
                   static_cast<int64_t>(d), proj.data(), static_cast<int64_t>(kDirections));
  std::vector<double> unit(n * kDirections, 0.0);
  for (uint64_t i = 0; i < n; ++i)
    if (norms[i] > 0)
      for (uint64_t k = 0; k < kDirections; ++k)
        unit[i * kDirections + k] = proj[k + i * kDirections] / norms[i];
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint64_t i, uint64_t j) {
    return std::tie(unit[i * kDirections], i) < std::tie(unit[j * kDirections], j);
  });
  std::vector<bool> found(n, false);
  for (uint64_t s = 0; s < n; ++s) {
    const uint64_t i = order[s];
    if (!(norms[i] > 0)) continue;
    for (uint64_t w = 1; w <= kWindow && s + w < n; ++w) {
      const uint64_t j = order[s + w];
      if (!(norms[j] > 0)) continue;
      bool close = true;
      for (uint64_t k = 0; k < kDirections && close; ++k)
        close = std::fabs(unit[i * kDirections + k] - unit[j * kDirections + k]) <= reach;
      if (!close || std::memcmp(&x[i * d], &x[j * d], d * sizeof(float)) == 0) continue;
      double dot = 0;
      for (uint64_t t = 0; t < d; ++t) dot += double(x[i * d + t]) * x[j * d + t];
      if (dot / (norms[i] * norms[j]) > kCosine) {
        for (uint64_t r : {i, j})
          if (!found[r]) {
            found[r] = true;
            ++a.near_duplicate_rows;
          }
        if (a.near_duplicate_pairs.size() < 20)
          a.near_duplicate_pairs.emplace_back(std::min(i, j), std::max(i, j));
      }
    }
  }
}

// Eigenvectors of a small symmetric matrix (row-major l x l, destroyed) by cyclic Jacobi rotations: the
// eigenvalues on the diagonal, the vectors in the columns of `v`.
void jacobi_eigen(std::vector<double>& a, size_t l, std::vector<double>& v) {
  v.assign(l * l, 0.0);
  for (size_t i = 0; i < l; ++i) v[i * l + i] = 1;
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (size_t p = 0; p < l; ++p)
      for (size_t q = p + 1; q < l; ++q) off += a[p * l + q] * a[p * l + q];
    if (off < 1e-30) break;
    for (size_t p = 0; p < l; ++p)
      for (size_t q = p + 1; q < l; ++q) {
        if (std::fabs(a[p * l + q]) < 1e-300) continue;
        const double theta = (a[q * l + q] - a[p * l + p]) / (2 * a[p * l + q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (size_t k = 0; k < l; ++k) {  // columns p, q
          const double akp = a[k * l + p], akq = a[k * l + q];
          a[k * l + p] = c * akp - s * akq;
          a[k * l + q] = s * akp + c * akq;
        }
        for (size_t k = 0; k < l; ++k) {  // rows p, q
          const double apk = a[p * l + k], aqk = a[q * l + k];
          a[p * l + k] = c * apk - s * aqk;
          a[q * l + k] = s * apk + c * aqk;
        }
        for (size_t k = 0; k < l; ++k) {
          const double vkp = v[k * l + p], vkq = v[k * l + q];
          v[k * l + p] = c * vkp - s * vkq;
          v[k * l + q] = s * vkp + c * vkq;
        }
      }
  }
}

// The two leading principal directions by subspace iteration on the centred rows (Halko, Martinsson & Tropp
// 2011, §4.5: a block of columns, every product through BLAS; the centring applied implicitly as
// Xc V = X V − 1 (μᵀ V)), iterated until the two leading Ritz values move by less than 1e-6 of themselves
// (or a budget of work runs out, which `pca_converged` says), their share of the total variance, and the
// projection of a seeded sample of rows. A fixed 4 iterations of 6 columns left a flat spectrum's (a random
// initialisation's) leading share 2-11% low against numpy's exact SVD.
void principal_components(EmbeddingAnalysis& a, const std::vector<float>& x, double total,
                          std::mt19937_64& rng) {
  const uint64_t n = a.rows, d = a.cols;
  const int64_t ni = static_cast<int64_t>(n), di = static_cast<int64_t>(d);
  // The work budget, in multiply-adds: 3 x 10^10 (about a second of BLAS on two cores) or, for a large
  // matrix, the 64 n d the fixed scheme spent, whichever is more. A block of 16 where the budget affords 8
  // iterations of it, else of 8 (a vocabulary of 128k x 8k: 4 iterations).
  const double nd = static_cast<double>(n) * static_cast<double>(d);
  const double budget = std::max(3e10, 64 * nd);
  const uint64_t l = std::min<uint64_t>({budget >= 8 * 2 * nd * 16 ? uint64_t{16} : uint64_t{8}, n, d});
  const int64_t li = static_cast<int64_t>(l);
  std::vector<double> mean(d, 0.0);
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t t = 0; t < d; ++t) mean[t] += x[i * d + t];
  for (double& m : mean) m /= static_cast<double>(n);
  std::normal_distribution<float> normal;
  std::vector<float> z(d * l), y(n * l);  // column-major d x l and n x l
  for (float& e : z) e = normal(rng);
  // Y = Xc Z (n x l): X Z, then each column minus μᵀ z_j.
  const auto rows_times = [&] {
    lapack::multiply(true, false, ni, li, di, x.data(), di, z.data(), di, y.data(), ni);
    for (uint64_t j = 0; j < l; ++j) {
      double mz = 0;
      for (uint64_t t = 0; t < d; ++t) mz += mean[t] * z[j * d + t];
      for (uint64_t i = 0; i < n; ++i) y[j * n + i] -= static_cast<float>(mz);
    }
  };
  // Z = Xcᵀ Y (d x l): Xᵀ Y, then each column minus μ (1ᵀ y_j).
  const auto columns_times = [&] {
    lapack::multiply(false, false, di, li, ni, x.data(), di, y.data(), ni, z.data(), di);
    for (uint64_t j = 0; j < l; ++j) {
      double sy = 0;
      for (uint64_t i = 0; i < n; ++i) sy += y[j * n + i];
      for (uint64_t t = 0; t < d; ++t) z[j * d + t] -= static_cast<float>(mean[t] * sy);
    }
  };
  // B Bᵀ = Zᵀ Z (l x l) after Z = Xcᵀ Q: its eigenpairs are the σ² and left vectors of B = Qᵀ Xc, and the
  // directions are Z u / σ.
  std::vector<double> g, u;
  std::vector<size_t> order(l);
  const auto ritz = [&] {
    g.assign(l * l, 0.0);
    for (uint64_t p = 0; p < l; ++p)
      for (uint64_t q = 0; q < l; ++q)
        for (uint64_t t = 0; t < d; ++t) g[p * l + q] += double(z[p * d + t]) * z[q * d + t];
    jacobi_eigen(g, l, u);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return g[i * l + i] > g[j * l + j]; });
  };
  // Small matrices converge exactly within it; a large one with a flat spectrum says it did not.
  const double per_iteration = 2 * nd * static_cast<double>(l);
  const int most = static_cast<int>(std::clamp(budget / std::max(per_iteration, 1.0), 2.0, 300.0));
  double last[2] = {-1, -1};
  a.pca_converged = false;
  for (int it = 0; it < most; ++it) {
    rows_times();
    lapack::orthonormalize(ni, li, y.data());  // Q: an orthonormal basis of the leading range of Xc
    columns_times();                           // Z = Xcᵀ Q
    ritz();
    const double now[2] = {g[order[0] * l + order[0]], l > 1 ? g[order[1] * l + order[1]] : 0.0};
    a.pca_iterations = static_cast<uint32_t>(it + 1);
    if (std::fabs(now[0] - last[0]) <= 1e-6 * now[0] &&
        std::fabs(now[1] - last[1]) <= 1e-6 * std::max(now[1], 1e-300)) {
      a.pca_converged = true;
      break;
    }
    last[0] = now[0];
    last[1] = now[1];
    if (it + 1 < most) lapack::orthonormalize(di, li, z.data());
  }
  std::vector<std::vector<double>> directions;
  for (size_t c = 0; c < 2 && c < l; ++c) {
    const size_t e = order[c];
    const double sigma2 = std::max(0.0, g[e * l + e]);
    std::vector<double> v(d, 0.0);
    for (uint64_t t = 0; t < d; ++t)
      for (uint64_t p = 0; p < l; ++p) v[t] += double(z[p * d + t]) * u[p * l + e];
    const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
    if (norm > 0)
      for (double& w : v) w /= norm;
    a.explained_variance[c] = total > 0 ? sigma2 / static_cast<double>(n) / total : 0;
    directions.push_back(std::move(v));
  }
  while (directions.size() < 2) directions.emplace_back(d, 0.0);
  std::vector<uint64_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0);
  if (n > a.options.plot_points) {
    std::shuffle(rows.begin(), rows.end(), rng);
    rows.resize(a.options.plot_points);
    std::sort(rows.begin(), rows.end());
  }
  for (uint64_t i : rows)
    for (const auto& v : directions) {
      double p = 0;
      for (uint64_t t = 0; t < d; ++t) p += (x[i * d + t] - mean[t]) * v[t];
      a.projection.push_back(static_cast<float>(p));
    }
  a.projected_rows = std::move(rows);
}

// Subtracts each column's mean (in double, stored as float32) from the rows, and returns the means. k-means,
// its silhouette and the projection run on centred rows, as scikit-learn's KMeans centres X before it
// clusters: ‖x‖² − 2 x·c + ‖c‖² in float32 loses the distances of rows that share a large offset (two groups
// 0.5 apart around 1000·1 were mixed up: inertia 1,246 where their split's is 47). Distances, the inertia
// and the principal directions do not change; the row norms and duplicates are the raw rows', found first.
std::vector<double> centre_columns(std::vector<float>& x, uint64_t n, uint64_t d) {
  std::vector<double> means(d, 0.0);
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t t = 0; t < d; ++t) means[t] += x[i * d + t];
  for (double& m : means) m /= static_cast<double>(n);
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t t = 0; t < d; ++t) x[i * d + t] = static_cast<float>(x[i * d + t] - means[t]);
  return means;
}

// `x` and the centres are centred (centre_columns): distances are the raw rows', a centre's norm is that of
// the centre plus the column means.
void summarise_clusters(EmbeddingAnalysis& a, const std::vector<float>& x, const std::vector<double>& means,
                        const std::vector<std::string>& tokens) {
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
    for (uint64_t t = 0; t < d; ++t) {
      const double raw = double(km.centers[c * d + t]) + means[t];
      norm += raw * raw;
    }
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

const ScanItem& embedding_matrix(const PlannedScan& plan, const std::string& which,
                                 const std::string& model) {
  const std::string role = which == "head" ? "lm-head" : "token-embedding";
  for (const ScanItem& item : plan.items) {
    if (item.shape.size() != 2 || place_tensor(item.name).role != role) continue;
    if (item.shape[1] == 0)
      throw Error(ErrorKind::Malformed, item.file.string(), item.name, "has no columns");
    if (item.shape[0] < 2)
      throw Error(ErrorKind::Malformed, item.file.string(), item.name, "fewer than 2 rows");
    return item;
  }
  throw Error(ErrorKind::NotFound, model, "--matrix " + which,
              which == "head" ? "no stored LM head (tied to the embedding, or absent): use --matrix embedding"
                              : "no 2-D token embedding among its tensors (an export may keep only the "
                                "tied LM head: try --matrix head)");
}

EmbeddingAnalysis analyse_embeddings(const PlannedScan& plan, const std::vector<std::string>& tokens,
                                     const EmbeddingOptions& o, const std::string& model) {
  lapack::require();
  const auto start = std::chrono::steady_clock::now();
  const ScanItem& item = embedding_matrix(plan, o.matrix, model);
  EmbeddingAnalysis a;
  a.tensor = item.name;
  a.rows = item.shape[0];
  a.cols = item.shape[1];
  a.options = o;
  a.tokens_known = !tokens.empty();
  if (o.k_max > a.rows)
    throw Error(ErrorKind::Usage, "", "--k",
                "k = " + std::to_string(o.k_max) + " exceeds the " + std::to_string(a.rows) + " rows");
  std::vector<float> x;
  ElementDecoder decoder;
  const FileSource file(item.file);
  read_elements_as_float(file, item, 0, a.rows * a.cols, x, decoder);
  for (float v : x)
    if (!std::isfinite(v))
      throw Error(ErrorKind::Malformed, item.file.string(), item.name, "holds NaN or Inf");
  std::vector<double> norms;
  row_norms(a, row_statistics(x, a.rows, a.cols), norms, tokens);
  duplicates(a, x, norms);
  std::mt19937_64 rng(o.seed ^ 0x9e3779b97f4a7c15ull);
  near_duplicates(a, x, norms, rng);

  // The clustering, on the centred rows: one k, or every k of the range and the elbow's.
  const std::vector<double> means = centre_columns(x, a.rows, a.cols);
  const RowStatistics stats = row_statistics(x, a.rows, a.cols);  // once, for every k and the projection
  KMeansOptions km;
  km.seed = o.seed;
  km.max_iter = o.max_iter;
  std::vector<KMeansResult> runs;
  const auto clustering_start = std::chrono::steady_clock::now();
  for (uint32_t k = o.k_min; k <= o.k_max; ++k) {
    km.k = k;
    runs.push_back(kmeans(x, a.rows, a.cols, km, stats));
    a.elbow_ks.push_back(k);
    a.elbow_inertias.push_back(runs.back().inertia);
  }
  a.kmeans_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - clustering_start).count();
  a.k = o.k_min;
  if (o.k_max > o.k_min) {
    a.elbow = kneedle_elbow(a.elbow_ks, a.elbow_inertias);
    a.k = *a.elbow;
  }
  a.clustering = std::move(runs[a.k - o.k_min]);
  summarise_clusters(a, x, means, tokens);

  std::vector<uint64_t> sample(a.rows);
  std::iota(sample.begin(), sample.end(), 0);
  if (a.rows > o.silhouette_sample) {
    std::shuffle(sample.begin(), sample.end(), rng);
    sample.resize(o.silhouette_sample);
    std::sort(sample.begin(), sample.end());
  }
  a.silhouette_rows = sample.size();
  // One cluster has no neighbouring cluster to compare with: undefined (scikit-learn refuses k = 1), NaN.
  a.silhouette = a.k > 1 ? silhouette(x, a.cols, sample, a.clustering.labels, a.k) : NAN;
  principal_components(a, x, stats.total_variance, rng);
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

}  // namespace ma
