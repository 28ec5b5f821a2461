// k-means of the rows of a matrix, as scikit-learn's KMeans(algorithm="lloyd", n_init=1) computes it, so that
// the same initial centres give the same clustering and inertia: greedy k-means++ seeding (Arthur &
// Vassilvitskii 2007, with 2 + ln k local trials as scikit-learn), then Lloyd iterations until the labels
// stop changing or the centres move less than tol × the mean per-feature variance (squared, summed), at most
// max_iter times; an empty cluster takes the point farthest from its centre; a last assignment step when the
// loop ended on the tolerance. Distances and the clusters' sums through BLAS (‖x‖² − 2 x·c + ‖c‖², float32 as
// scikit-learn); the inertia summed in double. Deterministic for a seed: one thread of our own, BLAS's
// threads only inside each product.
#pragma once
#include <cstdint>
#include <vector>

namespace ma {

struct KMeansOptions {
  uint32_t k = 8;
  uint64_t seed = 0;
  uint32_t max_iter = 300;
  double tol = 1e-4;
};

struct KMeansResult {
  uint32_t k = 0;
  std::vector<float> centers;          // k x d, row-major
  std::vector<uint32_t> labels;        // per row
  std::vector<uint64_t> sizes;         // per cluster
  std::vector<uint64_t> initial_rows;  // the rows k-means++ chose as the first centres, in order
  double inertia = 0;                  // Σ ‖x − c(label)‖²
  uint32_t iterations = 0;
  bool converged = false;  // labels stable, or the centres' shift under the tolerance
};

// What every clustering of one matrix needs and one pass computes: each row's squared norm, and the sum
// over the d features of each feature's (population) variance, the covariance's trace.
struct RowStatistics {
  std::vector<double> norms_squared;
  double total_variance = 0;
};
RowStatistics row_statistics(const std::vector<float>& x, uint64_t n, uint64_t d);

// `x`: n rows of d floats. Requires 1 <= k <= n. Throws Error(Unsupported) without LAPACK/BLAS. `rows`:
// row_statistics(x, n, d), passed when several k share it; the overload without computes it.
KMeansResult kmeans(const std::vector<float>& x, uint64_t n, uint64_t d, const KMeansOptions& options,
                    const RowStatistics& rows);
KMeansResult kmeans(const std::vector<float>& x, uint64_t n, uint64_t d, const KMeansOptions& options);

// The elbow of an inertia curve over increasing k by Kneedle (Satopää et al. 2011), as the `kneed` package
// finds a convex decreasing curve's knee: k and inertia scaled to [0, 1], the k of the largest
// (1 − inertia') − k'. Fewer than 3 points: the first k.
uint32_t kneedle_elbow(const std::vector<uint32_t>& ks, const std::vector<double>& inertias);

// The mean silhouette (Rousseeuw 1987; scikit-learn's silhouette_score, Euclidean) of the rows `sample`
// (indices into x) with their labels, every distance within the sample: s = (b − a) / max(a, b), 0 for a
// point alone in its cluster. NaN (undefined) unless the sample holds 2 to m − 1 clusters, where
// scikit-learn raises. Pass centred rows: the distances come from ‖x‖² − 2 x·y + ‖y‖² in float64, the rows
// upcast as scikit-learn upcasts float32 input, and are exactly 0 between rows holding the same values.
double silhouette(const std::vector<float>& x, uint64_t d, const std::vector<uint64_t>& sample,
                  const std::vector<uint32_t>& labels, uint32_t k);

}  // namespace ma
