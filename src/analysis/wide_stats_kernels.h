// The per-value loops of analysis/wide_tensor_stats.h's two passes: a tensor's bytes read into pieces of
// finite values with their order keys (a ggml block type in its level form or decoded to float32), and the
// vectorised sums, bins and moments over a piece. The scan around them (units, merging, percentiles) is in
// wide_tensor_stats.cpp.
#pragma once
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/block_scale.h"
#include "analysis/stats_math.h"
#include "core/dtype.h"
#include "io/file_source.h"

namespace ma::wide_stats {

// Values are handled a piece at a time: 16,384 doubles and their keys (256 KiB) stay in a core's L2 cache
// between the loops that each look at them once.
inline constexpr size_t kPiece = 16384;

// A key whose unsigned order is the values' order: sign-magnitude floats flip, signed integers offset.
uint64_t order_key(DType t, uint64_t bits);
// The bits back from a key (order_key's inverse for the 32-bit types).
uint64_t key_bits(DType t, uint64_t key);
// A float32's key, order_key(F32, its bits), without a branch: weights' signs are random, and a branch on
// them would mispredict half the time.
inline uint64_t float_key(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  return bits ^ ((0 - (bits >> 31)) | 0x80000000u);
}

// The finite values of one piece, NaN and ±Inf counted and left out, in one of two forms.
//  - Float form (float32 tensors, and the float32 values ggml block types decode to): the values are floats,
//    read in place, with each one's key bucket (float_key >> 16). In level form, the float form of a block
//    type read as its groups' levels (formats/ggml_levels.h), each value is a level and stands for
//    `counts[i]` elements, those of its group holding its code; a NaN or infinite level (from a NaN or
//    infinite scale) has been counted and set to 0 with a count of 0, which every loop below adds nothing
//    for.
//  - Double form (the other types, and a float32 piece holding a NaN or ±Inf, left out): each value as a
//    double with its order key.
struct Piece {
  std::vector<double> values;  // double form: kPiece of each, allocated by the first piece that needs them
  std::vector<uint64_t> keys;
  const float* floats = nullptr;        // float form: `n` floats
  const uint16_t* buckets = nullptr;    // and their key buckets
  const uint8_t* counts = nullptr;      // level form: how many elements each level stands for
  std::vector<uint16_t> float_buckets;  // where `buckets` points
  bool float_form() const { return floats != nullptr; }
  bool weighted() const { return counts != nullptr; }
  size_t n = 0;
  uint64_t elements = 0;  // the finite elements the piece's values stand for
  uint64_t nan = 0, inf = 0;
};

// What for_each_piece reads into: the piece and the floats and counts it points at. A thread keeps one from
// unit to unit and tensor to tensor, so a unit allocates nothing.
struct PieceBuffers {
  Piece piece;
  std::vector<float> decoded;
  std::vector<uint8_t> level_counts;
};

// A float8 weight's scales and the index of the first element read (analysis/block_scale.h); none: null.
struct Scaling {
  const BlockScale* scale = nullptr;
  uint64_t first_element = 0;
};

// Calls f(piece) for the values of [offset, offset + bytes) of `file` (whole elements or blocks of `stored`)
// a piece at a time, reading them through the caller's buffer; false when cancelled (checked before every
// read). A ggml block type is read in whole blocks: in its level form where it has one (each group's levels
// weighted by their counts), else decoded to float32; either way f sees the values llama.cpp computes with.
// With `scaling`, each float8 element is decoded to float32 and multiplied by its scale.
bool for_each_piece(const FileSource& file, uint64_t offset, uint64_t bytes, DType stored, Scaling scaling,
                    char* buffer, size_t buffer_bytes, const std::atomic<bool>* cancel, PieceBuffers& into,
                    const std::function<void(Piece&)>& f);

// Pass 1's figures, accumulated over the pieces.
struct PassOne {
  CompensatedSum sum, squares;
  double min = INFINITY, max = -INFINITY;
  uint64_t zeros = 0, near = 0;
};
void add_pass_one(const Piece& p, double eps, PassOne& r);
// Adds each value's weight to buckets[key >> shift]: where the percentiles' order statistics lie. In float
// form the piece has each value's bucket (shift 16).
void count_key_buckets(const Piece& p, unsigned shift, uint32_t* buckets);

// Pass 2's sums of (x - mean)^2 and ^4 about pass 1's mean (numpy's two-pass variance), each value as many
// times as its weight: the variance and the kurtosis. The third (skewness) is not reported, and every unit's
// sums are about the same mean, so their merge needs no third moment either.
struct CentralMoments {
  CompensatedSum m2, m4;
};
void add_central_moments(const Piece& p, double mean, CentralMoments& c);

// numpy.histogram's bin of each of v[0, n) over `edges` (histogram_edges'), as HistogramBinner gives it.
void bins_of(const double* v, size_t n, const std::vector<double>& edges, uint32_t* out);

}  // namespace ma::wide_stats
