#include "analysis/drift_sums.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>

namespace ma {
namespace {

// The six sums of one run of pairs: Σa², Σb², Σab, Σ(b-a)², Σ(b+a)², Σ(b-a)(b+a).
struct DriftSumsPart {
  double v[6] = {};
  void add_pair(double x, double y) {
    const double d = y - x, p = y + x;
    v[0] += x * x;
    v[1] += y * y;
    v[2] += x * y;
    v[3] += d * d;
    v[4] += p * p;
    v[5] += d * p;
  }
};

// numpy's pairwise summation (PW_BLOCKSIZE 128): up to 128 pairs in 8 lanes, added pairwise; more split in
// halves of a multiple of 8 and added. The rounding grows with log n, not n, and the lanes vectorize.
constexpr size_t kDriftSumsBlock = 128;

DriftSumsPart drift_sums_pairwise(const double* a, const double* b, size_t n) {
  DriftSumsPart r;
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) r.add_pair(a[i], b[i]);
    return r;
  }
  if (n <= kDriftSumsBlock) {
    double lane[6][8] = {};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (size_t j = 0; j < 8; ++j) {
        const double x = a[i + j], y = b[i + j], d = y - x, p = y + x;
        lane[0][j] += x * x;
        lane[1][j] += y * y;
        lane[2][j] += x * y;
        lane[3][j] += d * d;
        lane[4][j] += p * p;
        lane[5][j] += d * p;
      }
    for (size_t k = 0; k < 6; ++k) {
      const double* l = lane[k];
      r.v[k] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
    for (; i < n; ++i) r.add_pair(a[i], b[i]);
    return r;
  }
  size_t half = n / 2;
  half -= half % 8;
  r = drift_sums_pairwise(a, b, half);
  const DriftSumsPart rest = drift_sums_pairwise(a + half, b + half, n - half);
  for (size_t k = 0; k < 6; ++k) r.v[k] += rest.v[k];
  return r;
}

// A compensated sum times 2^shift (exact, but for parts that fall below float64's range, which are below a
// larger sum's last bit anyway).
void drift_sums_shift(CompensatedSum& s, int shift) {
  s.sum = std::ldexp(s.sum, shift);
  s.c = std::ldexp(s.c, shift);
}

// Puts the sums on the larger scale exponent `e`.
void drift_sums_rescale(DriftSums& s, int e) {
  const int shift = 2 * (s.scale_exp - e);
  for (CompensatedSum* c : {&s.aa, &s.bb, &s.ab, &s.dd, &s.ss, &s.dn}) drift_sums_shift(*c, shift);
  s.scale_exp = e;
}

}  // namespace

int DriftSums::add(double* a, double* b, size_t n) {
  pairs += n;
  double top = 0;
  for (size_t i = 0; i < n; ++i) top = std::max(top, std::max(std::fabs(a[i]), std::fabs(b[i])));
  if (top == 0) return 0;  // zeros add nothing, on any scale
  const int old = scale_exp;
  // The chunk's largest magnitude scaled below 1: a square below 1, a difference's or a sum's below 4.
  const int e = std::max(std::ilogb(top) + 1, kMinScaleExp);
  if (e > scale_exp) drift_sums_rescale(*this, e);
  const double s = std::ldexp(1.0, -scale_exp);
  for (size_t i = 0; i < n; ++i) {
    a[i] *= s;
    b[i] *= s;
  }
  const DriftSumsPart part = drift_sums_pairwise(a, b, n);
  CompensatedSum* sums[] = {&aa, &bb, &ab, &dd, &ss, &dn};
  for (size_t k = 0; k < 6; ++k) sums[k]->add(part.v[k]);
  return old - scale_exp;
}

void DriftSums::merge(const DriftSums& o) {
  pairs += o.pairs;
  if (o.scale_exp > scale_exp) drift_sums_rescale(*this, o.scale_exp);
  const int shift = 2 * (o.scale_exp - scale_exp);
  CompensatedSum* to[] = {&aa, &bb, &ab, &dd, &ss, &dn};
  const CompensatedSum* from[] = {&o.aa, &o.bb, &o.ab, &o.dd, &o.ss, &o.dn};
  for (size_t k = 0; k < 6; ++k) {
    to[k]->add(std::ldexp(from[k]->sum, shift));
    to[k]->add(std::ldexp(from[k]->c, shift));
  }
}

double DriftSums::relative_l2() const {
  // Both sums on one scale: their quotient is the unscaled one.
  const double a2 = aa.value(), d2 = dd.value();
  return a2 > 0 ? std::sqrt(d2 / a2) : (d2 > 0 ? INFINITY : 0);
}

double DriftSums::cosine() const {
  const double a2 = aa.value(), b2 = bb.value(), d2 = dd.value(), s2 = ss.value();
  if (a2 == 0 || b2 == 0) return a2 == 0 && b2 == 0 ? 1 : 0;
  const double na = std::sqrt(a2), nb = std::sqrt(b2);
  // ||A|| ||B|| as sqrt(Σa² Σb²) where that product is a normal number (the sums are scaled: it is unless one
  // side is tiny beside the other): B = A gives exactly 1 and B = -A exactly -1.
  const double product = a2 * b2;
  const double norms = product >= DBL_MIN ? std::sqrt(product) : na * nb;
  const double norm_diff = dn.value() / (na + nb);  // ||B|| - ||A||
  const double t = norm_diff * norm_diff;
  // Each difference form is good to a few ulps of the larger term it subtracts: better than the quotient
  // where that term is at most 2 ||A|| ||B||.
  const double value = d2 <= 2 * norms   ? 1 - (d2 - t) / (2 * norms)
                       : s2 <= 2 * norms ? (s2 - t) / (2 * norms) - 1
                                         : ab.value() / norms;
  // Rounding can leave it a few ulps outside [-1, 1]; a cosine never is.
  return std::clamp(value, -1.0, 1.0);
}

double DriftSums::snr_db() const {
  const double a2 = aa.value(), d2 = dd.value();
  return d2 == 0 ? INFINITY : a2 == 0 ? -INFINITY : 10 * std::log10(a2 / d2);
}

std::pair<int, double> DriftSums::diff2_key() const {
  const double d2 = dd.value();
  if (d2 == 0) return {INT_MIN, 0};
  int exp = 0;
  const double mantissa = std::frexp(d2, &exp);
  return {exp + 2 * scale_exp, mantissa};
}

void shift_moments(Moments& m, int shift) {
  m.mean = std::ldexp(m.mean, shift);
  m.m2 = std::ldexp(m.m2, 2 * shift);
  m.m3 = std::ldexp(m.m3, 3 * shift);
  m.m4 = std::ldexp(m.m4, 4 * shift);
}

}  // namespace ma
