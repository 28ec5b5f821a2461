#include "analysis/wide_tensor_stats.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <utility>
#include <vector>

#include "analysis/stats_math.h"
#include "analysis/wide_stats_kernels.h"
#include "core/dtype_values.h"

namespace ma {
namespace {

using wide_stats::add_central_moments;
using wide_stats::add_pass_one;
using wide_stats::bins_of;
using wide_stats::CentralMoments;
using wide_stats::count_key_buckets;
using wide_stats::float_key;
using wide_stats::for_each_piece;
using wide_stats::key_bits;
using wide_stats::kPiece;
using wide_stats::PassOne;
using wide_stats::Piece;

// Pass 1's figures of one unit, merged in unit order once every unit has run.
struct UnitPassOne {
  PassOne one;
  uint64_t finite = 0, nan = 0, inf = 0;
};

// An order statistic a percentile needs: its rank, the key bucket it lies in and its rank inside it.
struct Wanted {
  uint64_t rank, bucket, rank_in_bucket;
  double value = 0;
};

constexpr size_t kKeyBuckets = 65536;

// What pass 2 does with the values of each key bucket, one byte a bucket (64 KiB, in a core's L2 cache): 0,
// nothing (most values); kCut set, bin them one by one (a histogram edge cuts the bucket); in the kSlot bits,
// 1 + the slot of a bucket holding a wanted order statistic, whose values are counted or kept. A byte costs
// the sweep over every value one load, where a bit also cost shifts and a mask: 10% of stats on a Q4_K GGUF.
struct BucketTests {
  static constexpr uint8_t kCut = 0x80, kSlot = 0x7f;
  std::vector<uint8_t> of;  // kKeyBuckets, from pass 2's first unit of the tensor to its last
};
static_assert(2 * kPercentiles.size() < BucketTests::kSlot);

// A value of a wanted bucket (32-bit keys) in a slot's list: its low 16 key bits and how many elements it
// stands for (1, or a level's count, under 256).
struct LowBits {
  uint16_t low, weight;
};

// Pass 2's counts toward the order statistics of one wanted bucket, by the low 16 key bits. A bucket holding
// many values gets a table of 65,536 counts; one holding few (pass 1 counted them) a list of its values, as
// long as its count: a table is 512 KiB to allocate, clear and walk, which made a small tensor's fixed cost
// most of a BERT-sized float32 scan.
//
// Units do not count into these while they run: each keeps its values in a list of its own (PendingCounts),
// added here under the lock when the list fills or the unit ends. Counted by atomic adds as they were found,
// each add moved a counter's cache line from the core that last added to it (the values of a bucket fall on
// any of its 65,536 counters, and every core's values on the same ones): on a Q4_K GGUF, 2 cores, the adds
// of about 0.2% of the levels took 6% of `stats`, a line transfer each.
//
// A heavy bucket, one holding on average more values a unit than its table has entries (a tensor of one
// repeated value, a pruned matrix's zeros at the median), is counted by each unit into a table of its own,
// merged under the lock at the unit's end (`merge`): as a list, such a unit's would be most of its values,
// and by atomic adds, every core's adds met on the same few counters (a float32 tensor of 134 M copies of 0.5
// scanned at 0.83 GB/s on 2 cores where random values scan at 2.8, and at 0.7 on 16 cores).
struct SlotCounts {
  static constexpr uint64_t kMostListed = 2048;
  std::vector<uint64_t> table;
  std::vector<LowBits> list;
  uint64_t listed = 0;
  bool heavy = false;
  SlotCounts(uint64_t weight, size_t units) {
    if (weight <= kMostListed)
      list.resize(static_cast<size_t>(weight));
    else
      table.assign(kKeyBuckets, 0);
    heavy = weight / units >= kKeyBuckets;
  }
  // A unit's own counts of a heavy bucket, from `low` to `high`, which it leaves zero.
  void merge(uint32_t* own, uint32_t low, uint32_t high) {
    for (uint32_t i = low; i <= high; ++i) table[i] += std::exchange(own[i], 0);
  }
  // Under the scan's lock. Every value added has a weight, so pass 1's count bounds the list.
  void add(uint16_t low, uint64_t w) {
    if (!table.empty())
      table[low] += w;
    else if (listed < list.size())
      list[listed++] = {low, static_cast<uint16_t>(w)};
  }
  // The low bits of the value of rank `rank` among the bucket's.
  uint16_t low_of_rank(uint64_t rank) {
    uint64_t before = 0;
    if (!table.empty()) {
      size_t low = 0;
      while (low + 1 < kKeyBuckets && before + table[low] <= rank) before += table[low++];
      return static_cast<uint16_t>(low);
    }
    list.resize(std::min<uint64_t>(listed, list.size()));
    std::sort(list.begin(), list.end(), [](LowBits a, LowBits b) { return a.low < b.low; });
    size_t i = 0;
    while (i + 1 < list.size() && before + list[i].weight <= rank) before += list[i++].weight;
    return list.empty() ? 0 : list[i].low;
  }
};

// Pass 2's counts toward the order statistics, per wanted bucket: by the low 16 key bits for 32-bit keys,
// the values themselves for 64-bit ones.
struct PassTwoTables {
  std::vector<SlotCounts> narrow;
  std::vector<std::vector<double>> values;
  void merge_values(const PassTwoTables& o) {
    for (size_t slot = 0; slot < o.values.size(); ++slot)
      values[slot].insert(values[slot].end(), o.values[slot].begin(), o.values[slot].end());
  }
};

// A unit's counts of one heavy wanted bucket (SlotCounts), 32-bit as a unit holds fewer than 2^32 elements,
// and the range of low key bits it touched: only that is merged and cleared.
struct OwnSlotCounts {
  std::vector<uint32_t> table;
  uint32_t low = kKeyBuckets, high = 0;
};

// A unit's values of the wanted buckets that are not heavy, each as its slot, low key bits and weight (a
// level's count, under 256), to be added to the tensor's SlotCounts under the lock. Bounded: a full list is
// added and emptied, so a unit's memory does not grow with the values it finds.
struct PendingCounts {
  static constexpr size_t kMost = 16384;
  std::vector<uint32_t> entries;
  static uint32_t pack(unsigned slot, uint16_t low, uint64_t w) {
    return (static_cast<uint32_t>(slot) << 24) | (static_cast<uint32_t>(w) << 16) | low;
  }
  void add_into(std::vector<SlotCounts>& narrow) {
    for (uint32_t e : entries) narrow[e >> 24].add(static_cast<uint16_t>(e), (e >> 16) & 0xff);
    entries.clear();
  }
};
static_assert(BucketTests::kSlot < 256);

// One unit's histogram counts (four interleaved tables: runs of equal bins, the centre of a weight
// distribution, would otherwise make each increment wait for the one before) and bins of a piece.
struct PassTwoScratch {
  std::vector<uint64_t> counts;
  std::vector<OwnSlotCounts> own;  // by slot, for the heavy ones; all zero between units
  PendingCounts pending;           // empty between units
  std::vector<uint32_t> bin_of = std::vector<uint32_t>(kPiece);
  std::vector<uint32_t> looked_at = std::vector<uint32_t>(kPiece);  // narrow: a piece's values looked at
};

}  // namespace

struct WideScanScratch::Memory {
  wide_stats::PieceBuffers pieces;
  std::vector<uint32_t> key_buckets = std::vector<uint32_t>(kKeyBuckets);  // pass 1's counts of one unit
  bool key_buckets_clear = true;  // all zero: a unit clears what it used when it ends well
  PassTwoScratch pass_two;
};

WideScanScratch::WideScanScratch() = default;
WideScanScratch::~WideScanScratch() = default;

WideScanScratch::Memory& WideScanScratch::memory() {
  if (!memory_) memory_ = std::make_unique<Memory>();
  return *memory_;
}

struct WideTensorScan::State {
  State(TensorStats& stats, double eps_, uint32_t bins_, uint64_t unit_bytes, const BlockScale* scale_)
      : s(stats), eps(eps_), bins(bins_), scale(scale_) {
    const DTypeInfo& info = dtype_info(s.dtype);
    const bool blocks = info.block_elements > 1;
    // Block types are decoded to float32, and scaled float8 is multiplied out in it; s.dtype stays the
    // stored type.
    vt = blocks || scale ? DType::F32 : s.dtype;
    width = dtype_bits(vt) / 8;
    key_shift = width * 8 - 16;
    const uint64_t align = blocks ? info.block_bytes : dtype_bits(s.dtype) / 8;
    // At most 256 MiB a unit: fewer than 2^32 elements (IQ1_S, 1.56 bits, stores the fewest per element),
    // which pass 1 counts in 32 bits.
    const uint64_t bytes = std::min<uint64_t>(unit_bytes, uint64_t{256} << 20);
    step = std::max<uint64_t>(align, bytes / align * align);
    units = static_cast<size_t>(std::max<uint64_t>(1, (s.bytes + step - 1) / step));
    first.resize(units);
    central.resize(units);
    first_left = units;
    second_left = units;
  }

  uint64_t begin(size_t u) const { return std::min<uint64_t>(s.bytes, u * step); }
  // The scale of unit u's values (its first element's index with it), or none.
  wide_stats::Scaling scaled(size_t u) const {
    return {scale, scale ? begin(u) / (dtype_bits(s.dtype) / 8) : 0};
  }
  uint64_t end(size_t u) const { return std::min<uint64_t>(s.bytes, begin(u) + step); }
  void plan();  // after the last unit of pass 1
  void bin_whole_buckets();
  void finish();            // after the last unit of pass 2
  void prepare_pass_two();  // at its first unit, under the lock
  void narrow_pass_two(const Piece& p, const BucketTests& t, PassTwoScratch& scratch) const;
  void wide_pass_two(const Piece& p, const BucketTests& t, PassTwoScratch& scratch,
                     PassTwoTables& into) const;

  TensorStats& s;
  const double eps;
  const uint32_t bins;
  const BlockScale* scale;
  DType vt = DType::F32;
  unsigned width = 4, key_shift = 16;
  uint64_t step = 0;
  size_t units = 1;
  std::mutex mutex;  // guards the merged counts below
  std::atomic<size_t> first_left, second_left;
  // Pass 1.
  std::vector<UnitPassOne> first;
  std::vector<uint64_t> prefix;  // counts per key bucket, allocated by the units, freed by plan()
  size_t first_bucket = kKeyBuckets, last_bucket = 0;  // those of prefix that may hold counts
  // The buckets [first, last] that values from `min` to `max` lie in: all for keys other than float32's.
  std::pair<size_t, size_t> bucket_range(double min, double max) const {
    if (min > max) return {1, 0};  // no finite value
    if (vt != DType::F32) return {0, kKeyBuckets - 1};
    // A zero may be either: -0 sorts first and +0 last.
    const float low = min == 0 ? -0.0f : static_cast<float>(min),
                high = max == 0 ? 0.0f : static_cast<float>(max);
    return {float_key(low) >> 16, float_key(high) >> 16};
  }
  // What pass 2 needs, from plan().
  bool any_finite = false;
  double mean = 0;
  std::vector<PercentileRank> ranks;
  std::vector<Wanted> wanted;
  std::vector<uint64_t> slot_buckets;      // the wanted buckets, once each: a bucket's slot is its place here
  std::vector<uint64_t> slot_weights;      // and pass 1's count of each
  size_t slot_of(uint64_t bucket) const {  // slot_buckets.size() for a bucket not wanted
    return static_cast<size_t>(std::find(slot_buckets.begin(), slot_buckets.end(), bucket) -
                               slot_buckets.begin());
  }
  std::vector<uint32_t> cut_buckets;  // 32-bit keys: the buckets a histogram edge cuts (at most bins - 1)
  // Pass 2.
  std::vector<CentralMoments> central;
  std::vector<uint64_t> histogram;
  BucketTests tests;
  PassTwoTables tables;
};

void WideTensorScan::State::plan() {
  PassOne one;
  for (const UnitPassOne& u : first) {
    s.nan_count += u.nan;
    s.inf_count += u.inf;
    s.finite += u.finite;
    one.sum.add(u.one.sum.sum);
    one.sum.add(u.one.sum.c);
    one.squares.add(u.one.squares.sum);
    one.squares.add(u.one.squares.c);
    one.min = std::min(one.min, u.one.min);
    one.max = std::max(one.max, u.one.max);
    one.zeros += u.one.zeros;
    one.near += u.one.near;
  }
  std::vector<UnitPassOne>().swap(first);
  s.zeros_fraction = s.numel ? static_cast<double>(one.zeros) / static_cast<double>(s.numel) : 0;
  s.near_zero_fraction = s.numel ? static_cast<double>(one.near) / static_cast<double>(s.numel) : 0;
  s.l2_norm = std::sqrt(one.squares.value());
  s.histogram.counts.assign(bins, 0);
  any_finite = s.finite > 0;
  if (!any_finite) {
    std::vector<uint64_t>().swap(prefix);
    return;
  }
  mean = one.sum.value() / static_cast<double>(s.finite);  // compensated: exact even when huge values cancel
  s.min = one.min;
  s.max = one.max;
  s.abs_max = std::max(std::fabs(one.min), std::fabs(one.max));

  // Which key buckets hold the order statistics the percentiles need, and each one's rank inside its bucket.
  for (double q : kPercentiles) {
    ranks.push_back(percentile_rank(q, s.finite));
    wanted.push_back({ranks.back().below, 0, 0});
    wanted.push_back({std::min(ranks.back().below + 1, s.finite - 1), 0, 0});
  }
  // The ranks ascend but for a tiny tensor's repeats, so one walk over the buckets finds them all.
  uint64_t before = 0;
  size_t b = first_bucket;
  for (Wanted& w : wanted) {
    if (w.rank < before) {
      before = 0;
      b = first_bucket;
    }
    while (b + 1 < kKeyBuckets && before + prefix[b] <= w.rank) before += prefix[b++];
    w.bucket = b;
    w.rank_in_bucket = w.rank - before;
  }
  for (const Wanted& w : wanted)
    if (slot_of(w.bucket) == slot_buckets.size()) {
      slot_buckets.push_back(w.bucket);
      slot_weights.push_back(prefix[w.bucket]);
    }
  auto [lo, hi] = histogram_range(one.min, one.max);
  s.histogram.edges = histogram_edges(lo, hi, bins);
  histogram.assign(bins, 0);
  if (width == 4) bin_whole_buckets();
  std::vector<uint64_t>().swap(prefix);
}

// 32-bit keys: numpy's bin is monotone in the value, so a key bucket whose lowest and highest values fall in
// one bin has all of pass 1's count there. Only the buckets an edge cuts are binned value by value in pass
// 2: on weights, a few percent of the values, where every value was binned before.
void WideTensorScan::State::bin_whole_buckets() {
  const HistogramBinner binner(s.histogram.edges);
  const double lowest = s.histogram.edges.front(), highest = s.histogram.edges.back();
  for (uint64_t b = first_bucket; b <= last_bucket; ++b) {
    if (prefix[b] == 0) continue;
    const double low = element_value(vt, key_bits(vt, b << 16));
    const double high = element_value(vt, key_bits(vt, (b << 16) | 0xffff));
    if (std::isfinite(low) && std::isfinite(high)) {  // a bucket reaching ±Inf or NaN is cut, to be safe
      const uint32_t from = binner.bin(std::clamp(low, lowest, highest));
      if (from == binner.bin(std::clamp(high, lowest, highest))) {
        histogram[from] += prefix[b];
        continue;
      }
    }
    cut_buckets.push_back(static_cast<uint32_t>(b));
  }
}

// Pass 2's tables and bucket tests live from its first unit of the tensor to its last: a GGUF's hundreds of
// tensors all wait between the passes.
void WideTensorScan::State::prepare_pass_two() {
  if (!tests.of.empty()) return;
  if (width == 4)
    for (uint64_t weight : slot_weights) tables.narrow.emplace_back(weight, units);
  else
    tables.values.resize(slot_buckets.size());
  tests.of.assign(kKeyBuckets, 0);
  for (size_t slot = 0; slot < slot_buckets.size(); ++slot)
    tests.of[slot_buckets[slot]] = static_cast<uint8_t>(slot + 1);
  for (uint32_t b : cut_buckets) tests.of[b] |= BucketTests::kCut;
}

// Most values lie in no bucket looked at (on weights, a few percent do): a sweep without branches lists those
// that do, and only they are binned and counted. Tested one by one, each value's branch would cost a
// misprediction wherever looked-at buckets are frequent, and kept the loop from running ahead.
void WideTensorScan::State::narrow_pass_two(const Piece& p, const BucketTests& t,
                                            PassTwoScratch& scratch) const {
  uint32_t* looked_at = scratch.looked_at.data();
  const uint8_t* of = t.of.data();
  size_t found = 0;
  auto sweep = [&](auto bucket_of) {
    for (size_t i = 0; i < p.n; ++i) {
      looked_at[found] = static_cast<uint32_t>(i);
      found += of[bucket_of(i)] != 0;
    }
  };
  if (p.float_form())
    sweep([&](size_t i) { return p.buckets[i]; });
  else
    sweep([&](size_t i) { return p.keys[i] >> 16; });
  const HistogramBinner binner(s.histogram.edges);
  // A heavy bucket's values come in runs of one key (a repeated value, zeros): a run is summed here and
  // added once, where each value's add waited for the one before to the same counter.
  uint64_t run_key = 0, run_weight = 0;
  unsigned run_slot = 0;
  auto end_run = [&] {
    if (run_weight == 0) return;
    OwnSlotCounts& own = scratch.own[run_slot - 1];
    const auto low = static_cast<uint32_t>(run_key & 0xffff);
    own.table[low] += static_cast<uint32_t>(run_weight);
    own.low = std::min(own.low, low);
    own.high = std::max(own.high, low);
  };
  for (size_t j = 0; j < found; ++j) {
    const size_t i = looked_at[j];
    const uint64_t key = p.float_form() ? float_key(p.floats[i]) : p.keys[i];
    const uint8_t what = of[key >> 16];
    const uint64_t w = p.weighted() ? p.counts[i] : 1;
    if (what & BucketTests::kCut)
      scratch.counts[binner.bin(p.float_form() ? static_cast<double>(p.floats[i]) : p.values[i])] += w;
    if (const unsigned slot = what & BucketTests::kSlot) {
      if (!tables.narrow[slot - 1].heavy) {
        if (w != 0)
          scratch.pending.entries.push_back(
              PendingCounts::pack(slot - 1, static_cast<uint16_t>(key & 0xffff), w));
      } else if (key == run_key && run_weight != 0) {  // one key is one bucket, so one slot
        run_weight += w;
      } else {
        end_run();
        run_key = key;
        run_slot = slot;
        run_weight = w;
      }
    }
  }
  end_run();
}

// 64-bit keys: every value is binned (a bucket's values cannot be listed from its key bits here), and the
// values of the wanted buckets are kept. 64-bit types are never weighted.
void WideTensorScan::State::wide_pass_two(const Piece& p, const BucketTests& t, PassTwoScratch& scratch,
                                          PassTwoTables& into) const {
  const double* v = p.values.data();
  bins_of(v, p.n, s.histogram.edges, scratch.bin_of.data());
  uint64_t* counts = scratch.counts.data();
  const uint32_t* b = scratch.bin_of.data();
  size_t at = 0;
  for (; at + 4 <= p.n; at += 4)
    for (size_t j = 0; j < 4; ++j) ++counts[j * bins + b[at + j]];
  for (; at < p.n; ++at) ++counts[b[at]];
  for (size_t i = 0; i < p.n; ++i)
    if (const unsigned slot = t.of[p.keys[i] >> key_shift] & BucketTests::kSlot)
      into.values[slot - 1].push_back(v[i]);
}

void WideTensorScan::State::finish() {
  if (!any_finite) return;
  s.histogram.counts = std::move(histogram);
  for (Wanted& w : wanted) {
    const size_t slot = slot_of(w.bucket);
    if (width == 4) {
      const uint16_t low = tables.narrow[slot].low_of_rank(w.rank_in_bucket);
      w.value = element_value(vt, key_bits(vt, (w.bucket << 16) | low));
    } else {
      std::vector<double>& v = tables.values[slot];
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(w.rank_in_bucket), v.end());
      w.value = v[w.rank_in_bucket];
    }
  }
  for (size_t i = 0; i < ranks.size(); ++i)
    s.percentiles[i] = interpolate(wanted[2 * i].value, wanted[2 * i + 1].value, ranks[i].fraction);
  CentralMoments total;
  for (const CentralMoments& c : central) {
    for (auto [into, from] : {std::pair{&total.m2, &c.m2}, {&total.m4, &c.m4}}) {
      into->add(from->sum);
      into->add(from->c);
    }
  }
  apply_moments(
      s,
      Moments{
          .n = static_cast<double>(s.finite), .mean = mean, .m2 = total.m2.value(), .m4 = total.m4.value()});
  tables = PassTwoTables();
  tests = BucketTests();
}

WideTensorScan::WideTensorScan(TensorStats& s, double eps, uint32_t bins, uint64_t unit_bytes,
                               const BlockScale* scale)
    : state_(std::make_unique<State>(s, eps, bins, unit_bytes, scale)) {}

WideTensorScan::~WideTensorScan() = default;

size_t WideTensorScan::units() const {
  return state_->units;
}

uint64_t WideTensorScan::unit_bytes(size_t unit) const {
  return state_->end(unit) - state_->begin(unit);
}

WideTensorScan::UnitEnd WideTensorScan::first_pass(size_t unit, const FileSource& file, uint64_t offset,
                                                   char* buffer, size_t buffer_bytes,
                                                   WideScanScratch& scratch,
                                                   const std::atomic<bool>* cancel) {
  State& st = *state_;
  WideScanScratch::Memory& m = scratch.memory();
  UnitPassOne& r = st.first[unit];
  // The unit's own table of 32-bit counts (a unit holds fewer than 2^32 elements) is half the size of the
  // shared one, and stays in a core's L2 cache with the piece.
  uint32_t* own = m.key_buckets.data();
  if (!m.key_buckets_clear) std::fill(m.key_buckets.begin(), m.key_buckets.end(), 0);
  m.key_buckets_clear = false;
  const bool complete =
      for_each_piece(file, offset + st.begin(unit), unit_bytes(unit), st.s.dtype, st.scaled(unit), buffer,
                     buffer_bytes, cancel, m.pieces, [&](Piece& p) {
                       r.nan += p.nan;
                       r.inf += p.inf;
                       p.nan = p.inf = 0;
                       r.finite += p.elements;
                       add_pass_one(p, st.eps, r.one);
                       count_key_buckets(p, st.key_shift, own);
                     });
  if (!complete) return UnitEnd::Cancelled;
  // Only the buckets from that of the unit's least value to that of its greatest hold counts: the rest of
  // the table is neither merged nor cleared, which a small tensor's unit paid for all 65,536.
  const auto [lo, hi] = st.bucket_range(r.one.min, r.one.max);
  if (lo <= hi) {
    std::lock_guard lock(st.mutex);
    if (st.prefix.empty()) st.prefix.assign(kKeyBuckets, 0);
    for (size_t b = lo; b <= hi; ++b) st.prefix[b] += own[b];
    st.first_bucket = std::min(st.first_bucket, lo);
    st.last_bucket = std::max(st.last_bucket, hi);
  }
  if (lo <= hi) std::fill(own + lo, own + hi + 1, 0);
  m.key_buckets_clear = true;
  if (st.first_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return UnitEnd::Done;
  st.plan();
  return UnitEnd::PassComplete;
}

WideTensorScan::UnitEnd WideTensorScan::second_pass(size_t unit, const FileSource& file, uint64_t offset,
                                                    char* buffer, size_t buffer_bytes,
                                                    WideScanScratch& scratch,
                                                    const std::atomic<bool>* cancel) {
  State& st = *state_;
  if (st.any_finite) {
    {
      std::lock_guard lock(st.mutex);
      st.prepare_pass_two();
    }
    // 32-bit keys list the few values of the wanted buckets (PendingCounts) and add them to the tensor's
    // tables and lists under the lock: tables of the unit's own would be slots x 512 KiB to clear and then
    // merge, for a few thousand counts. 64-bit keys keep a unit's values apart and append them under the
    // lock.
    const bool narrow = st.width == 4;
    PassTwoTables local;
    if (!narrow) local.values.resize(st.slot_buckets.size());
    WideScanScratch::Memory& m = scratch.memory();
    m.pass_two.counts.assign(4 * static_cast<size_t>(st.bins), 0);
    if (narrow) {
      if (m.pass_two.own.size() < st.tables.narrow.size()) m.pass_two.own.resize(st.tables.narrow.size());
      for (size_t slot = 0; slot < st.tables.narrow.size(); ++slot)
        if (st.tables.narrow[slot].heavy && m.pass_two.own[slot].table.empty())
          m.pass_two.own[slot].table.assign(kKeyBuckets, 0);
    }
    const bool complete =
        for_each_piece(file, offset + st.begin(unit), unit_bytes(unit), st.s.dtype, st.scaled(unit), buffer,
                       buffer_bytes, cancel, m.pieces, [&](Piece& p) {
                         p.nan = p.inf = 0;
                         add_central_moments(p, st.mean, st.central[unit]);
                         if (narrow) {
                           st.narrow_pass_two(p, st.tests, m.pass_two);
                           if (m.pass_two.pending.entries.size() >= PendingCounts::kMost) {
                             std::lock_guard lock(st.mutex);
                             m.pass_two.pending.add_into(st.tables.narrow);
                           }
                         } else
                           st.wide_pass_two(p, st.tests, m.pass_two, local);
                       });
    // The unit's listed values and own counts of heavy buckets are added (and the list and tables left empty
    // for the worker's next unit) before anything else, cancelled or not: one place keeps the scratch's
    // invariant.
    std::lock_guard lock(st.mutex);
    if (narrow) m.pass_two.pending.add_into(st.tables.narrow);
    if (narrow)
      for (size_t slot = 0; slot < st.tables.narrow.size(); ++slot) {
        OwnSlotCounts& own = m.pass_two.own[slot];
        if (!st.tables.narrow[slot].heavy || own.low > own.high) continue;
        st.tables.narrow[slot].merge(own.table.data(), own.low, own.high);
        own.low = kKeyBuckets;
        own.high = 0;
      }
    if (!complete) return UnitEnd::Cancelled;
    for (size_t j = 0; j < 4; ++j)
      for (uint32_t k = 0; k < st.bins; ++k) st.histogram[k] += m.pass_two.counts[j * st.bins + k];
    if (!narrow) st.tables.merge_values(local);
  }
  if (st.second_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return UnitEnd::Done;
  st.finish();
  return UnitEnd::PassComplete;
}

}  // namespace ma
