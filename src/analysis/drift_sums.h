// The sums `compare` derives ||B-A||/||A||, cosine and the SNR from, over the element pairs finite on both
// sides. Two things keep them exact where plain running sums are not:
// * a running power-of-two scale, as LAPACK's dlassq keeps its sum of squares: float64 values near
//   1e154..1e308, whose squares overflow, still give their figures (a power of two scales without rounding);
// * pairwise sums within each chunk (numpy's: blocks of 8 lanes, halves added), Neumaier-compensated across
//   chunks and tensors: a few ulps where a running sum of a million squares loses about ten bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "analysis/stats_math.h"

namespace ma {

struct DriftSums {
  // The smallest scale exponent: 2^960 is still a double, and a chunk of subnormals scaled by it squares far
  // above the underflow.
  static constexpr int kMinScaleExp = -960;
  uint64_t pairs = 0;  // the pairs summed (finite on both sides)
  // Each sum holds its value times 2^(-2 * scale_exp): Σa², Σb², Σab, Σ(b-a)², Σ(b+a)², and Σ(b-a)(b+a),
  // which is Σb² - Σa² without the cancellation of subtracting the two (the cosine of nearly equal or nearly
  // opposite tensors needs it).
  int scale_exp = kMinScaleExp;
  CompensatedSum aa, bb, ab, dd, ss, dn;

  // Adds `n` pairs, all finite, and leaves a[i], b[i] scaled by 2^-scale_exp (the new one: below 1 in
  // magnitude), so that the caller can take their moments on the same scale. Returns the shift (<= 0, in
  // binary places) that brings the caller's earlier results on the old scale to the new one: the old
  // scale_exp minus the new.
  int add(double* a, double* b, size_t n);
  // Pools another set of pairs into this one (a layer's tensors, a dtype's).
  void merge(const DriftSums& o);

  // ||B-A||/||A||: infinite when A is all zero and B is not, 0 when both are.
  double relative_l2() const;
  // <A,B>/(||A|| ||B||) within [-1, 1]. The quotient of the sums is good to a few ulps of 1, which is all of
  // 1 - cosine for near-identical tensors; where ||B-A||² is at most 2 ||A|| ||B|| (a cosine of at least 0,
  // norms within a factor 3.7), 1 - cosine comes instead from 2 ||A|| ||B|| (1 - cosine) = ||B-A||² -
  // (||B|| - ||A||)², good to a few ulps of itself, and 1 + cosine likewise from ||B+A||² near -1: B = A
  // gives 1 and B = -A gives -1 exactly. Where a side is all zero it has no direction: 0 when one is (as
  // torch's cosine_similarity and sklearn's give), 1 when both are (this tool's convention for identical
  // tensors; those libraries give 0 there too).
  double cosine() const;
  // 10 log10(Σa² / Σ(b-a)²): +infinity without noise, -infinity without signal.
  double snr_db() const;
  // Σ(b-a)² as (binary exponent, mantissa in [0.5, 1)), comparable exactly whatever the scale; {INT_MIN, 0}
  // for 0. Its value times 4 is {exponent + 2, mantissa}.
  std::pair<int, double> diff2_key() const;
};

// Rescales moments of scaled values by 2^shift (the mean by 2^shift, M2 by 2^(2 shift), M3, M4 alike): exact
// unless a moment leaves float64's range.
void shift_moments(Moments& m, int shift);

}  // namespace ma
