#include "analysis/weight_scan.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "analysis/value_counts.h"
#include "analysis/wide_tensor_stats.h"
#include "core/dtype_values.h"
#include "core/error.h"
#include "core/parallel.h"
#include "formats/ggml_dequant.h"
#include "io/file_source.h"

namespace ma {
namespace {

// 256 KB: a read() this size costs a few microseconds of syscall against ~20 us of copying, and the buffer
// plus two 256 KB count tables stay close to a core's L2.
constexpr size_t kBufferBytes = 256 << 10;

// Work for one thread at a time: a byte range of a counted tensor, or a unit of a two-pass one's pass.
struct Unit {
  size_t item;
  uint64_t begin = 0, end = 0;  // counted: the byte range within the tensor
  size_t wide_unit = 0;         // two-pass: the unit of its WideTensorScan
  bool second = false;          // two-pass: a unit of pass 2
};

// Hands the units out: a tensor's pass 2 as soon as its pass 1 is complete, ahead of any unit not yet
// started, then the rest in checkpoint order. So few tensors wait between the passes (each holds its plan
// and pass 2's tables), and no core idles at a barrier between the passes while one unit of pass 1 ends.
// Each call of next() takes one unit; a caller may wait there for a pass 2 still to come.
class UnitQueue {
 public:
  UnitQueue(std::vector<Unit> first, size_t second_units)
      : first_(std::move(first)), total_(first_.size() + second_units) {}
  size_t total() const { return total_; }

  // The next unit; none once the scan is abandoned.
  std::optional<Unit> next() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (abandoned_) return std::nullopt;
      if (!second_.empty()) {
        const Unit u = second_.front();
        second_.pop_front();
        return u;
      }
      if (next_first_ < first_.size()) return first_[next_first_++];
      ready_.wait(lock);  // every unit left is a pass 2 whose pass 1 is still running
    }
  }
  // A tensor's pass 1 is complete: its pass 2 may start.
  void second_pass_ready(size_t item, size_t units) {
    {
      std::lock_guard lock(mutex_);
      for (size_t u = 0; u < units; ++u) second_.push_back({item, 0, 0, u, true});
    }
    ready_.notify_all();
  }
  // A unit failed or was cancelled: a pass 2 it held back would never come, so nobody waits for one.
  void abandon() {
    {
      std::lock_guard lock(mutex_);
      abandoned_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Unit> first_;
  size_t next_first_ = 0;
  std::deque<Unit> second_;
  size_t total_;
  bool abandoned_ = false;
};

struct TensorState {
  std::mutex mutex;
  std::vector<uint64_t> totals;
  std::atomic<uint32_t> remaining{0};
};

// One per thread: its read buffer, count tables, two-pass scratch and the file it has open.
struct ScanWorker {
  std::unique_ptr<char[]> buffer{new char[kBufferBytes]};
  PatternCounter counter;
  WideScanScratch wide;
  std::filesystem::path open_path;
  std::optional<FileSource> open_file;

  const FileSource& file(const std::filesystem::path& p) {
    if (!open_file || open_path != p) {
      open_file.reset();
      open_file.emplace(p);
      open_path = p;
    }
    return *open_file;
  }
};

}  // namespace

std::vector<TensorStats> scan_weights(const std::vector<ScanItem>& items, const ScanOptions& options) {
  std::vector<TensorStats> out(items.size());
  std::vector<TensorState> state(items.size());
  std::vector<std::unique_ptr<WideTensorScan>> wide(items.size());
  std::vector<Unit> first;  // counted units and pass 1 of the two-pass tensors, in checkpoint order
  size_t second_units = 0;
  uint64_t total_bytes = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const ScanItem& it = items[i];
    TensorStats& s = out[i];
    s.name = it.name;
    s.dtype = it.dtype;
    s.shape = it.shape;
    s.numel = it.numel;
    s.bytes = it.bytes;
    if (it.scale) s.scaled_by = it.scale->tensor;
    total_bytes += it.bytes;
    if (!has_element_values(it.dtype) && !can_dequantize(it.dtype))
      throw Error(ErrorKind::Internal, it.file.string(), it.name, "scan of a dtype without element values");
    // Scaled float8 values are float32 products, not 256 codes to count: they take the two-pass scan.
    if (it.scale || count_slots(it.dtype) == 0) {
      wide[i] =
          std::make_unique<WideTensorScan>(s, options.eps, options.bins, options.unit_bytes, it.scale.get());
      for (size_t u = 0; u < wide[i]->units(); ++u) first.push_back({i, 0, 0, u});
      second_units += wide[i]->units();
      continue;
    }
    const uint64_t elem = std::max<uint64_t>(1, dtype_bits(it.dtype) / 8);
    const uint64_t step = std::max(elem, options.unit_bytes / elem * elem);
    uint32_t n = 0;
    for (uint64_t b = 0; b < it.bytes || (b == 0 && n == 0); b += step, ++n)
      first.push_back({i, b, std::min(it.bytes, b + step)});
    state[i].remaining = n;
  }
  UnitQueue queue(std::move(first), second_units);

  std::atomic<uint64_t> done_bytes{0};
  auto report = [&](uint64_t bytes) {
    uint64_t done = done_bytes.fetch_add(bytes) + bytes;
    if (options.progress) options.progress(done, total_bytes);
  };
  auto stop = [&] { return options.cancel && options.cancel->load(); };

  // Runs a unit; false when it was cancelled.
  auto run_unit = [&](ScanWorker& w, const Unit& unit) {
    const ScanItem& it = items[unit.item];
    TensorStats& s = out[unit.item];
    const FileSource& file = w.file(it.file);
    if (WideTensorScan* scan = wide[unit.item].get()) {
      // Each pass reports half of the unit's bytes: the bar counts file bytes, read twice.
      const uint64_t bytes = scan->unit_bytes(unit.wide_unit);
      const uint64_t reported = unit.second ? bytes - bytes / 2 : bytes / 2;
      const WideTensorScan::UnitEnd end =
          unit.second ? scan->second_pass(unit.wide_unit, file, it.offset, w.buffer.get(), kBufferBytes,
                                          w.wide, options.cancel)
                      : scan->first_pass(unit.wide_unit, file, it.offset, w.buffer.get(), kBufferBytes,
                                         w.wide, options.cancel);
      if (end == WideTensorScan::UnitEnd::Cancelled) return false;
      report(reported);
      if (!unit.second && end == WideTensorScan::UnitEnd::PassComplete)
        queue.second_pass_ready(unit.item, scan->units());
      return true;
    }
    for (uint64_t b = unit.begin; b < unit.end;) {
      if (stop()) return false;
      const size_t len = static_cast<size_t>(std::min<uint64_t>(kBufferBytes, unit.end - b));
      file.read_exact(it.offset + b, len, w.buffer.get());
      w.counter.count(it.dtype, w.buffer.get(), len);
      b += len;
      report(len);
    }
    TensorState& st = state[unit.item];
    {
      std::lock_guard lock(st.mutex);
      if (st.totals.empty()) st.totals.assign(count_slots(it.dtype), 0);
      w.counter.flush_into(it.dtype, st.totals);
    }
    if (st.remaining.fetch_sub(1) == 1) {  // the last unit of the tensor: every count is in
      stats_from_counts(s, st.totals, options.eps, options.bins);
      std::vector<uint64_t>().swap(st.totals);
    }
    return true;
  };

  // Each thread owns one ScanWorker (buffer, tables, open file) and takes one unit per item of the loop. A
  // unit that fails or is cancelled abandons the queue, so no thread waits for a pass 2 that cannot come.
  const size_t threads = options.threads ? options.threads : available_cores();
  parallel_for_with_state<ScanWorker>(queue.total(), threads, [&](ScanWorker& w, size_t) {
    const std::optional<Unit> unit = queue.next();
    if (!unit) return;
    try {
      if (stop() || !run_unit(w, *unit)) queue.abandon();
    } catch (...) {
      queue.abandon();
      throw;
    }
  });
  if (options.cancel && options.cancel->load())
    throw Error(ErrorKind::LocalIO, items.empty() ? std::string() : items.front().file.string(), "",
                "interrupted");
  return out;
}

}  // namespace ma
