#include "analysis/weight_scan.h"

#include <algorithm>
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
};

struct TensorState {
  std::mutex mutex;
  std::vector<uint64_t> totals;
  std::atomic<uint32_t> remaining{0};
};

// One per thread: its read buffer, count tables and the file it has open.
struct Worker {
  std::unique_ptr<char[]> buffer{new char[kBufferBytes]};
  PatternCounter counter;
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
  std::vector<Unit> units, wide_units;  // pass 1 of every tensor; pass 2 of the two-pass ones
  uint64_t total_bytes = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const ScanItem& it = items[i];
    TensorStats& s = out[i];
    s.name = it.name;
    s.dtype = it.dtype;
    s.shape = it.shape;
    s.numel = it.numel;
    s.bytes = it.bytes;
    total_bytes += it.bytes;
    if (!has_element_values(it.dtype) && !can_dequantize(it.dtype))
      throw Error(ErrorKind::Internal, it.file.string(), it.name, "scan of a dtype without element values");
    if (count_slots(it.dtype) == 0) {
      wide[i] = std::make_unique<WideTensorScan>(s, options.eps, options.bins, options.unit_bytes);
      for (size_t u = 0; u < wide[i]->units(); ++u) wide_units.push_back({i, 0, 0, u});
      continue;
    }
    const uint64_t elem = std::max<uint64_t>(1, dtype_bits(it.dtype) / 8);
    const uint64_t step = std::max(elem, options.unit_bytes / elem * elem);
    uint32_t n = 0;
    for (uint64_t b = 0; b < it.bytes || (b == 0 && n == 0); b += step, ++n)
      units.push_back({i, b, std::min(it.bytes, b + step)});
    state[i].remaining = n;
  }

  // The first loop runs pass 1 of the two-pass tensors (32/64-bit, block types), then the counted units, all
  // in checkpoint order so that few tensors' tables are alive at once; the second runs their pass 2.
  units.insert(units.begin(), wide_units.begin(), wide_units.end());

  std::atomic<uint64_t> done_bytes{0};
  auto report = [&](uint64_t bytes) {
    uint64_t done = done_bytes.fetch_add(bytes) + bytes;
    if (options.progress) options.progress(done, total_bytes);
  };
  auto stop = [&] { return options.cancel && options.cancel->load(); };

  auto run_unit = [&](Worker& w, const Unit& unit) {
    const ScanItem& it = items[unit.item];
    TensorStats& s = out[unit.item];
    const FileSource& file = w.file(it.file);
    if (WideTensorScan* scan = wide[unit.item].get()) {
      // Each pass reports half of the unit's bytes: the bar counts file bytes, read twice.
      const uint64_t bytes = scan->unit_bytes(unit.wide_unit);
      if (scan->first_pass(unit.wide_unit, file, it.offset, w.buffer.get(), kBufferBytes, options.cancel))
        report(bytes / 2);
      return;
    }
    for (uint64_t b = unit.begin; b < unit.end;) {
      if (stop()) return;
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
  };

  // Each thread owns one Worker (buffer, tables, open file) and pulls units in checkpoint order, so tensors
  // finish roughly in order and few totals are alive at once.
  const size_t threads = options.threads ? options.threads : available_cores();
  parallel_for_with_state<Worker>(units.size(), threads, [&](Worker& w, size_t u) {
    if (!stop()) run_unit(w, units[u]);
  });
  parallel_for_with_state<Worker>(wide_units.size(), threads, [&](Worker& w, size_t u) {
    if (stop()) return;
    const Unit& unit = wide_units[u];
    WideTensorScan& scan = *wide[unit.item];
    const uint64_t bytes = scan.unit_bytes(unit.wide_unit);
    if (scan.second_pass(unit.wide_unit, w.file(items[unit.item].file), items[unit.item].offset,
                         w.buffer.get(), kBufferBytes, options.cancel))
      report(bytes - bytes / 2);
  });
  if (options.cancel && options.cancel->load())
    throw Error(ErrorKind::LocalIO, items.empty() ? std::string() : items.front().file.string(), "",
                "interrupted");
  return out;
}

}  // namespace ma
