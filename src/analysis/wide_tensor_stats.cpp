#include "analysis/wide_tensor_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "analysis/stats_math.h"
#include "core/dtype_values.h"
#include "formats/ggml_dequant.h"

namespace ma {
namespace {

// A key whose unsigned order is the values' order: sign-magnitude floats flip, signed integers offset.
uint64_t order_key(DType t, uint64_t bits) {
  switch (t) {
    case DType::F32:
      return (bits & 0x80000000u) ? (~bits & 0xffffffffu) : (bits | 0x80000000u);
    case DType::F64:
      return (bits >> 63) ? ~bits : (bits | (1ull << 63));
    case DType::I32:
      return (bits ^ 0x80000000u) & 0xffffffffu;
    case DType::I64:
      return bits ^ (1ull << 63);
    default:
      return bits;
  }
}

uint64_t load_bits(const char* p, unsigned width) {
  if (width == 4) {
    uint32_t u;
    std::memcpy(&u, p, 4);
    return u;
  }
  uint64_t u;
  std::memcpy(&u, p, 8);
  return u;
}

// Calls f(bits) for every element of the tensor, reading it through the buffer; false when cancelled. A ggml
// block type is read in whole blocks and decoded to float32 first (`decoded`: the caller's scratch), so f
// sees the F32 bits of the values llama.cpp computes with.
template <typename F>
bool for_each_element(const FileSource& file, uint64_t offset, uint64_t bytes, DType stored, char* buffer,
                      size_t buffer_bytes, std::vector<float>& decoded, const std::atomic<bool>* cancel,
                      F&& f) {
  const DTypeInfo& info = dtype_info(stored);
  const bool blocks = info.block_elements > 1;
  const unsigned width = blocks ? 4 : dtype_bits(stored) / 8;
  const size_t chunk = blocks ? buffer_bytes / info.block_bytes * info.block_bytes : buffer_bytes;
  if (blocks) decoded.resize(chunk / info.block_bytes * info.block_elements);
  for (uint64_t done = 0; done < bytes;) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return false;
    const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, bytes - done));
    file.read_exact(offset + done, len, buffer);
    done += len;
    if (!blocks) {
      for (size_t i = 0; i + width <= len; i += width) f(load_bits(buffer + i, width));
      continue;
    }
    const size_t n = len / info.block_bytes;
    dequantize_blocks(stored, reinterpret_cast<const uint8_t*>(buffer), n, decoded.data());
    for (size_t i = 0; i < n * info.block_elements; ++i)
      f(static_cast<uint64_t>(std::bit_cast<uint32_t>(decoded[i])));
  }
  return true;
}

}  // namespace

bool wide_tensor_stats(TensorStats& s, const FileSource& file, uint64_t offset, char* buffer,
                       size_t buffer_bytes, double eps, uint32_t bins, const std::atomic<bool>* cancel) {
  // Block types are decoded to float32: their values are F32's, their stored type stays s.dtype.
  const DType vt = is_block_type(s.dtype) ? DType::F32 : s.dtype;
  const unsigned width = dtype_bits(vt) / 8;
  const unsigned key_shift = width * 8 - 16;
  std::vector<float> decoded;
  // float32 (and every decoded block type) converts inline; the other wide types through the dtype table.
  const bool f32 = vt == DType::F32;
  auto value_of = [&](uint64_t bits) {
    return f32 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
               : element_value(vt, bits);
  };
  std::vector<uint64_t> prefix(65536, 0);
  CompensatedSum sum, squares;
  uint64_t zeros = 0, near = 0;
  double min = INFINITY, max = -INFINITY;
  const bool complete = for_each_element(file, offset, s.bytes, s.dtype, buffer, buffer_bytes, decoded,
                                         cancel, [&](uint64_t bits) {
                                           const double v = value_of(bits);
                                           if (std::isnan(v)) {
                                             ++s.nan_count;
                                             return;
                                           }
                                           if (std::isinf(v)) {
                                             ++s.inf_count;
                                             return;
                                           }
                                           ++s.finite;
                                           if (v == 0) ++zeros;
                                           if (std::fabs(v) <= eps) ++near;
                                           min = std::min(min, v);
                                           max = std::max(max, v);
                                           sum.add(v);
                                           squares.add(v * v);
                                           ++prefix[order_key(vt, bits) >> key_shift];
                                         });
  if (!complete) return false;
  s.zeros_fraction = s.numel ? static_cast<double>(zeros) / static_cast<double>(s.numel) : 0;
  s.near_zero_fraction = s.numel ? static_cast<double>(near) / static_cast<double>(s.numel) : 0;
  s.l2_norm = std::sqrt(squares.value());
  s.histogram.counts.assign(bins, 0);
  if (s.finite == 0) return true;
  const double n = static_cast<double>(s.finite);
  const double mean = sum.value() / n;  // compensated: exact even when huge values cancel
  s.min = min;
  s.max = max;
  s.abs_max = std::max(std::fabs(min), std::fabs(max));

  // Which key buckets hold the order statistics the percentiles need, and each one's rank inside its bucket.
  struct Wanted {
    uint64_t rank, bucket, rank_in_bucket;
    double value = 0;
  };
  std::vector<Wanted> wanted;
  std::vector<PercentileRank> pr;
  for (double q : kPercentiles) {
    pr.push_back(percentile_rank(q, s.finite));
    wanted.push_back({pr.back().below, 0, 0});
    wanted.push_back({std::min(pr.back().below + 1, s.finite - 1), 0, 0});
  }
  for (Wanted& w : wanted) {
    uint64_t before = 0;
    size_t b = 0;
    while (before + prefix[b] <= w.rank) before += prefix[b++];
    w.bucket = b;
    w.rank_in_bucket = w.rank - before;
  }
  std::vector<uint64_t> buckets;
  for (const Wanted& w : wanted) buckets.push_back(w.bucket);
  std::sort(buckets.begin(), buckets.end());
  buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
  auto slot_of = [&](uint64_t bucket) {
    return static_cast<size_t>(std::lower_bound(buckets.begin(), buckets.end(), bucket) - buckets.begin());
  };

  auto [first, last] = histogram_range(min, max);
  s.histogram.edges = histogram_edges(first, last, bins);
  s.histogram.counts.assign(bins, 0);
  HistogramBinner binner(s.histogram.edges);
  // 32-bit keys: the low 16 bits inside each wanted bucket pin the value down exactly. 64-bit: the values.
  std::vector<std::vector<uint64_t>> sub(width == 4 ? buckets.size() : 0, std::vector<uint64_t>(65536, 0));
  std::vector<std::vector<double>> values(width == 8 ? buckets.size() : 0);
  CompensatedSum m2, m3, m4;  // central moments about the exact mean: numpy's two-pass variance
  const bool second_complete = for_each_element(
      file, offset, s.bytes, s.dtype, buffer, buffer_bytes, decoded, cancel, [&](uint64_t bits) {
        const double v = value_of(bits);
        if (!std::isfinite(v)) return;
        const double d = v - mean, d2 = d * d;
        m2.add(d2);
        m3.add(d2 * d);
        m4.add(d2 * d2);
        ++s.histogram.counts[binner.bin(v)];
        const uint64_t key = order_key(vt, bits);
        const uint64_t bucket = key >> key_shift;
        if (!std::binary_search(buckets.begin(), buckets.end(), bucket)) return;
        if (width == 4)
          ++sub[slot_of(bucket)][key & 0xffff];
        else
          values[slot_of(bucket)].push_back(v);
      });
  if (!second_complete) return false;
  for (Wanted& w : wanted) {
    const size_t slot = slot_of(w.bucket);
    if (width == 4) {
      uint64_t before = 0;
      size_t low = 0;
      while (before + sub[slot][low] <= w.rank_in_bucket) before += sub[slot][low++];
      const uint64_t key = (w.bucket << 16) | low;
      // Back from the key to the bits, then the value.
      uint64_t bits = key;
      if (vt == DType::F32)
        bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : (~key & 0xffffffffu);
      else if (vt == DType::I32)
        bits = key ^ 0x80000000u;
      w.value = element_value(vt, bits);
    } else {
      std::vector<double>& v = values[slot];
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(w.rank_in_bucket), v.end());
      w.value = v[w.rank_in_bucket];
    }
  }
  for (size_t i = 0; i < pr.size(); ++i)
    s.percentiles[i] = interpolate(wanted[2 * i].value, wanted[2 * i + 1].value, pr[i].fraction);
  apply_moments(s, Moments{n, mean, m2.value(), m3.value(), m4.value()});
  return true;
}

}  // namespace ma
