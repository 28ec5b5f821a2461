#include "analysis/embedding/kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "analysis/lapack.h"

namespace ma {
namespace {

// dots (rows of b) x (n rows of x): out[j + i * m] = x_i · b_j, m rows in b.
void dots(const std::vector<float>& x, uint64_t n, uint64_t d, const float* b, uint64_t m,
          std::vector<float>& out) {
  out.resize(n * m);
  lapack::multiply(true, false, static_cast<int64_t>(m), static_cast<int64_t>(n), static_cast<int64_t>(d), b,
                   static_cast<int64_t>(d), x.data(), static_cast<int64_t>(d), out.data(),
                   static_cast<int64_t>(m));
}

double squared_distance(const float* a, const float* b, uint64_t d) {
  double s = 0;
  for (uint64_t j = 0; j < d; ++j) {
    const double t = double(a[j]) - b[j];
    s += t * t;
  }
  return s;
}

// Greedy k-means++: each new centre is the best (lowest potential) of 2 + ln k candidates drawn with
// probability proportional to the squared distance to the nearest centre so far.
std::vector<uint64_t> kmeans_plus_plus(const std::vector<float>& x, uint64_t n, uint64_t d, uint32_t k,
                                       const std::vector<double>& norms, std::mt19937_64& rng) {
  const uint32_t trials = 2 + static_cast<uint32_t>(std::log(static_cast<double>(k)));
  std::vector<uint64_t> chosen = {std::uniform_int_distribution<uint64_t>(0, n - 1)(rng)};
  std::vector<double> closest(n);
  for (uint64_t i = 0; i < n; ++i) closest[i] = squared_distance(&x[i * d], &x[chosen[0] * d], d);
  std::vector<float> candidates(trials * d), dot;
  std::vector<double> cumulative(n), best_closest(n), trial_closest(n);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  while (chosen.size() < k) {
    std::partial_sum(closest.begin(), closest.end(), cumulative.begin());
    const double potential = cumulative.back();
    std::vector<uint64_t> ids(trials);
    for (uint32_t t = 0; t < trials; ++t) {
      const double r = uniform(rng) * potential;
      ids[t] =
          std::min<uint64_t>(static_cast<uint64_t>(std::lower_bound(cumulative.begin(), cumulative.end(), r) -
                                                   cumulative.begin()),
                             n - 1);
      std::copy_n(&x[ids[t] * d], d, &candidates[t * d]);
    }
    dots(x, n, d, candidates.data(), trials, dot);
    double best_potential = std::numeric_limits<double>::infinity();
    uint64_t best = ids[0];
    for (uint32_t t = 0; t < trials; ++t) {
      double pot = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const double dist = std::max(0.0, norms[i] - 2.0 * dot[t + i * trials] + norms[ids[t]]);
        trial_closest[i] = std::min(closest[i], dist);
        pot += trial_closest[i];
      }
      if (pot < best_potential) {
        best_potential = pot;
        best = ids[t];
        best_closest.swap(trial_closest);
      }
    }
    closest.swap(best_closest);
    chosen.push_back(best);
  }
  return chosen;
}

// Labels by the nearest centre (argmin of ‖c‖² − 2 x·c; ties to the lower index); returns each row's squared
// distance to its centre in `dist`.
void assign(const std::vector<float>& x, uint64_t n, uint64_t d, const std::vector<float>& centers,
            uint32_t k, const std::vector<double>& norms, std::vector<uint32_t>& labels,
            std::vector<double>& dist, std::vector<float>& dot) {
  std::vector<double> cnorm(k);
  for (uint32_t j = 0; j < k; ++j) {
    double s = 0;
    for (uint64_t t = 0; t < d; ++t) s += double(centers[j * d + t]) * centers[j * d + t];
    cnorm[j] = s;
  }
  dots(x, n, d, centers.data(), k, dot);
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t best = 0;
    double best_v = std::numeric_limits<double>::infinity();
    for (uint32_t j = 0; j < k; ++j) {
      const double v = cnorm[j] - 2.0 * dot[j + i * k];
      if (v < best_v) {
        best_v = v;
        best = j;
      }
    }
    labels[i] = best;
    dist[i] = std::max(0.0, norms[i] + best_v);
  }
}

}  // namespace

RowStatistics row_statistics(const std::vector<float>& x, uint64_t n, uint64_t d) {
  RowStatistics r;
  r.norms_squared.resize(n);
  std::vector<double> sum(d, 0.0), sum_sq(d, 0.0);
  for (uint64_t i = 0; i < n; ++i) {
    const float* row = &x[i * d];
    double norm = 0;
    for (uint64_t t = 0; t < d; ++t) {
      const double sq = double(row[t]) * row[t];
      sum[t] += row[t];
      sum_sq[t] += sq;
      norm += sq;
    }
    r.norms_squared[i] = norm;
  }
  for (uint64_t t = 0; t < d; ++t) {
    const double mean = sum[t] / static_cast<double>(n);
    r.total_variance += std::max(0.0, sum_sq[t] / static_cast<double>(n) - mean * mean);
  }
  return r;
}

KMeansResult kmeans(const std::vector<float>& x, uint64_t n, uint64_t d, const KMeansOptions& o) {
  return kmeans(x, n, d, o, row_statistics(x, n, d));
}

KMeansResult kmeans(const std::vector<float>& x, uint64_t n, uint64_t d, const KMeansOptions& o,
                    const RowStatistics& rows) {
  KMeansResult r;
  r.k = o.k;
  const uint32_t k = o.k;
  std::mt19937_64 rng(o.seed);
  const std::vector<double>& norms = rows.norms_squared;
  r.initial_rows = kmeans_plus_plus(x, n, d, k, norms, rng);
  r.centers.resize(k * d);
  for (uint32_t j = 0; j < k; ++j) std::copy_n(&x[r.initial_rows[j] * d], d, &r.centers[j * d]);
  // scikit-learn's tolerance: tol × the mean over features of the per-feature variance.
  const double tol = o.tol * rows.total_variance / static_cast<double>(d);

  r.labels.assign(n, 0);
  std::vector<uint32_t> previous(n, std::numeric_limits<uint32_t>::max());
  std::vector<double> dist(n), sums(k * d);
  std::vector<float> one_hot(n * k), sum_f(k * d);
  std::vector<uint64_t> counts(k);
  std::vector<float> dot;
  bool strict = false;
  for (r.iterations = 0; r.iterations < o.max_iter;) {
    assign(x, n, d, r.centers, k, norms, r.labels, dist, dot);
    ++r.iterations;
    // The clusters' sums in one product: (d x n rows) x (n x k one-hot labels), float32 as scikit-learn.
    std::fill(one_hot.begin(), one_hot.end(), 0.0f);
    std::fill(counts.begin(), counts.end(), 0);
    for (uint64_t i = 0; i < n; ++i) {
      one_hot[i + r.labels[i] * n] = 1.0f;
      ++counts[r.labels[i]];
    }
    lapack::multiply(false, false, static_cast<int64_t>(d), k, static_cast<int64_t>(n), x.data(),
                     static_cast<int64_t>(d), one_hot.data(), static_cast<int64_t>(n), sum_f.data(),
                     static_cast<int64_t>(d));
    for (size_t i = 0; i < sums.size(); ++i) sums[i] = sum_f[i];
    // Empty clusters take the rows farthest from their centres, farthest first (scikit-learn's relocation).
    std::vector<uint32_t> empty;
    for (uint32_t j = 0; j < k; ++j)
      if (counts[j] == 0) empty.push_back(j);
    if (!empty.empty()) {
      std::vector<uint64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(empty.size()), order.end(),
                        [&](uint64_t a, uint64_t b) { return dist[a] > dist[b]; });
      for (size_t e = 0; e < empty.size(); ++e) {
        const uint64_t i = order[e];
        const uint32_t from = r.labels[i], to = empty[e];
        for (uint64_t t = 0; t < d; ++t) {
          sums[from * d + t] -= x[i * d + t];
          sums[to * d + t] = x[i * d + t];
        }
        --counts[from];
        counts[to] = 1;
      }
    }
    double shift = 0;
    for (uint32_t j = 0; j < k; ++j) {
      if (counts[j] == 0) continue;  // cannot happen after relocation; keeps the old centre
      for (uint64_t t = 0; t < d; ++t) {
        const float c = static_cast<float>(sums[j * d + t] / static_cast<double>(counts[j]));
        const double delta = double(c) - r.centers[j * d + t];
        shift += delta * delta;
        r.centers[j * d + t] = c;
      }
    }
    if (r.labels == previous) {
      strict = true;
      break;
    }
    if (shift <= tol) break;
    previous = r.labels;
  }
  r.converged = strict || r.iterations < o.max_iter;
  if (!strict) assign(x, n, d, r.centers, k, norms, r.labels, dist, dot);  // labels that match the centres
  r.sizes.assign(k, 0);
  r.inertia = 0;
  for (uint64_t i = 0; i < n; ++i) {
    ++r.sizes[r.labels[i]];
    r.inertia += squared_distance(&x[i * d], &r.centers[r.labels[i] * d], d);
  }
  return r;
}

uint32_t kneedle_elbow(const std::vector<uint32_t>& ks, const std::vector<double>& inertias) {
  if (ks.empty()) return 0;
  if (ks.size() < 3) return ks.front();
  const double k0 = ks.front(), k1 = ks.back();
  const auto [lo, hi] = std::minmax_element(inertias.begin(), inertias.end());
  if (!(*hi > *lo)) return ks.front();
  size_t best = 0;
  double best_d = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < ks.size(); ++i) {
    const double kn = (ks[i] - k0) / (k1 - k0), yn = (inertias[i] - *lo) / (*hi - *lo);
    const double diff = (1 - yn) - kn;
    if (diff > best_d) {
      best_d = diff;
      best = i;
    }
  }
  return ks[best];
}

double silhouette(const std::vector<float>& x, uint64_t d, const std::vector<uint64_t>& sample,
                  const std::vector<uint32_t>& labels, uint32_t k) {
  const uint64_t m = sample.size();
  // Undefined, as scikit-learn refuses it, unless the sample holds 2 to m - 1 clusters: one cluster
  // (identical rows) has no neighbour to compare with, and every row alone in its own compares nothing.
  std::vector<bool> present(k, false);
  for (uint64_t i : sample) present[labels[i]] = true;
  const auto clusters = static_cast<uint64_t>(std::count(present.begin(), present.end(), true));
  if (clusters < 2 || clusters > m - 1) return NAN;
  // The sample in float64, as scikit-learn upcasts float32 rows for its distances
  // (_euclidean_distances_upcast): ‖x‖² + ‖y‖² − 2 x·y in float32 left rows that are the same vector (the
  // untrained tokens of an embedding) about sqrt(ε_f32)·‖x‖ apart instead of 0, and moved the silhouette of a
  // vocabulary with such rows in its fourth digit.
  std::vector<double> s(m * d);
  std::vector<double> norms(m);
  std::vector<uint64_t> in_cluster(k, 0);
  for (uint64_t i = 0; i < m; ++i) {
    const float* row = &x[sample[i] * d];
    double v = 0;
    for (uint64_t t = 0; t < d; ++t) {
      s[i * d + t] = row[t];
      v += double(row[t]) * row[t];
    }
    norms[i] = v;
    ++in_cluster[labels[sample[i]]];
  }
  // Rows holding the same values share a group: their distance is exactly 0, which float64's cancellation
  // would still leave at ~1e-8·‖x‖.
  std::vector<uint64_t> order(m), group(m);
  std::iota(order.begin(), order.end(), 0);
  const auto row_of = [&](uint64_t i) { return &s[i * d]; };
  std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    return std::lexicographical_compare(row_of(a), row_of(a) + d, row_of(b), row_of(b) + d);
  });
  for (uint64_t r = 0; r < m; ++r)
    group[order[r]] = r > 0 && std::equal(row_of(order[r]), row_of(order[r]) + d, row_of(order[r - 1]))
                          ? group[order[r - 1]]
                          : order[r];
  // Row blocks of the sample against the whole sample: each row's summed distance to every cluster.
  constexpr uint64_t kBlock = 256;
  std::vector<double> dot;
  std::vector<double> per_cluster(k);
  double total = 0;
  for (uint64_t b0 = 0; b0 < m; b0 += kBlock) {
    const uint64_t nb = std::min(kBlock, m - b0);
    // dot[j + i * nb] = s_(b0+j) · s_i for every sample row i.
    dot.resize(nb * m);
    lapack::multiply(true, false, static_cast<int64_t>(nb), static_cast<int64_t>(m), static_cast<int64_t>(d),
                     &s[b0 * d], static_cast<int64_t>(d), s.data(), static_cast<int64_t>(d), dot.data(),
                     static_cast<int64_t>(nb));
    for (uint64_t j = 0; j < nb; ++j) {
      const uint64_t row = b0 + j;
      const uint32_t own = labels[sample[row]];
      if (in_cluster[own] <= 1) continue;  // alone in its cluster: s = 0
      std::fill(per_cluster.begin(), per_cluster.end(), 0.0);
      for (uint64_t i = 0; i < m; ++i) {
        if (i == row || group[i] == group[row]) continue;  // distance 0
        per_cluster[labels[sample[i]]] +=
            std::sqrt(std::max(0.0, norms[row] + norms[i] - 2.0 * dot[j + i * nb]));
      }
      const double a = per_cluster[own] / static_cast<double>(in_cluster[own] - 1);
      double b = std::numeric_limits<double>::infinity();
      for (uint32_t c = 0; c < k; ++c)
        if (c != own && in_cluster[c] > 0)
          b = std::min(b, per_cluster[c] / static_cast<double>(in_cluster[c]));
      if (std::isfinite(b) && std::max(a, b) > 0) total += (b - a) / std::max(a, b);
    }
  }
  return total / static_cast<double>(m);
}

}  // namespace ma
