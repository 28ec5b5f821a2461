// `modelanalyzer embeddings`: how a model's token embedding (or its untied output head) is organised —
// k-means clusters with their sizes and example tokens, the elbow over a range of k and the silhouette on a
// sample, the distribution of row norms with the rows that stand out (outliers, near-zero rows, exact
// duplicates: the untrained "glitch" tokens people look for), and the 2-D principal-component projection the
// plot draws (seed 004's embedding_analysis.py).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/embedding/kmeans.h"
#include "analysis/model_weight_stats.h"

namespace ma {

struct EmbeddingOptions {
  std::string matrix = "embedding";  // "embedding" or "head" (the untied LM head)
  uint32_t k_min = 8, k_max = 8;     // one k, or the range the elbow is chosen from
  uint64_t seed = 0;
  uint32_t max_iter = 300;
  uint64_t silhouette_sample = 2000;  // rows the silhouette is computed over (all when fewer)
  uint64_t plot_points = 4000;        // rows the projection keeps for the plot
  uint32_t examples = 5;              // tokens shown per cluster: the rows nearest its centre
};

struct RowRef {
  uint64_t row = 0;
  std::string token;  // from tokenizer.json; empty when unknown
  double value = 0;   // what ranks it: a distance, a norm, a robust z-score
};

struct ClusterSummary {
  uint32_t id = 0;
  uint64_t size = 0;
  double center_norm = 0;
  double mean_distance = 0;  // mean distance of its rows to the centre
  std::vector<RowRef> examples;
};

struct NormSummary {
  double min = 0, p1 = 0, p50 = 0, p99 = 0, max = 0, mean = 0, std = 0;
  double mad = 0;  // median absolute deviation
};

struct EmbeddingAnalysis {
  std::string model_id, tensor;
  uint64_t rows = 0, cols = 0;
  bool tokens_known = false;
  EmbeddingOptions options;
  uint32_t k = 0;  // the clustering reported: the given k, or the elbow's
  KMeansResult clustering;
  std::vector<ClusterSummary> clusters;
  std::vector<uint32_t> elbow_ks;
  std::vector<double> elbow_inertias;
  std::optional<uint32_t> elbow;  // when a range was given
  double silhouette = 0;          // NaN (JSON null) for one cluster, where it is undefined
  uint64_t silhouette_rows = 0;
  NormSummary norms;
  std::vector<float> row_norms;           // per row
  std::vector<float> distance_to_center;  // per row, to its cluster's centre
  // The rules that mark a row, reported beside what they found: Iglewicz & Hoaglin's modified z-score of
  // its norm, 0.6745 (x - median) / MAD, above outlier_z; a norm at most near_zero_fraction of the median.
  double outlier_z = 3.5, near_zero_fraction = 1e-3;
  std::vector<RowRef> outliers;  // modified z above outlier_z, largest first (at most 20)
  uint64_t outlier_count = 0;
  std::vector<RowRef> near_zero;  // norm <= near_zero_fraction x median (at most 20)
  uint64_t near_zero_count = 0;
  uint64_t duplicate_groups = 0, duplicate_rows = 0, largest_duplicate_group = 0;
  std::vector<std::vector<uint64_t>> duplicate_examples;  // the largest groups (at most 5, 8 rows each)
  // Rows nearly identical to another (cosine > 0.9999, not byte-identical), found among neighbours in the
  // order of a random projection: a heuristic that catches untrained rows drifting together, not a full
  // nearest-neighbour search.
  uint64_t near_duplicate_rows = 0;
  std::vector<std::pair<uint64_t, uint64_t>> near_duplicate_pairs;  // (row, its near twin), at most 20
  double explained_variance[2] = {0, 0};                            // of the two principal components
  // Subspace iterations the principal components took; false when the work budget ran out first (a flat
  // spectrum of a large matrix), the shares then lower bounds.
  uint32_t pca_iterations = 0;
  bool pca_converged = true;
  std::vector<float> projection;  // (pc1, pc2) of the plotted rows
  std::vector<uint64_t> projected_rows;
  double kmeans_seconds = 0;  // the clustering alone (every k of the range): what scikit-learn's fit does
  double seconds = 0;         // the whole analysis
};

// The matrix `which` ("embedding" or "head") names in `plan`: the 2-D tensor whose role is the token
// embedding or the LM head. Throws Error(NotFound) when the model has none (naming `model`, what the user
// named), Error(Malformed) when it has no columns or fewer than 2 rows.
const ScanItem& embedding_matrix(const PlannedScan& plan, const std::string& which, const std::string& model);

// Finds the matrix in `plan` (embedding_matrix) (the tensor whose role is the token embedding, or the LM
// head), reads it and analyses it; `token_strings` maps ids to text (may be empty). Throws Error(NotFound)
// when the model has no such matrix (naming `model`, what the user named), Error(Unsupported) without
// LAPACK/BLAS.
EmbeddingAnalysis analyse_embeddings(const PlannedScan& plan, const std::vector<std::string>& token_strings,
                                     const EmbeddingOptions& options, const std::string& model);

}  // namespace ma
