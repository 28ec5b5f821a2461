// The performance model over any config a family builder accepts: for every mode and a few batch, sequence
// and parallel settings chosen by the input, the model either refuses the inputs (ma::Error) or returns
// finite, non-negative figures that respect physics — no step is faster than its HBM bytes over the
// bandwidth, and the operations' FLOPs add up to the step's. The first 4 bytes pick the settings; the rest is
// config.json, written into a private directory and analysed as the CLI would.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "analysis/perf/hardware.h"
#include "analysis/perf/perf_model.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "fuzz_work_dir.h"
#include "model/inventory.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const std::filesystem::path& dir = ma::fuzz::work_dir("ma-perf-fuzz");
  {
    std::ofstream out(dir / "config.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 4), static_cast<std::streamsize>(size - 4));
  }
  try {
    const ma::LocalModelFiles files = ma::locate_local_model(dir.string());
    const ma::Inventory inv = ma::build_inventory(files);
    ma::ReportOptions options;
    options.skip_tokenizer = true;
    options.kv_dtype = ma::DType::BF16;
    const ma::ModelReport report = ma::build_model_report(inv, files, options);
    // Any table entry: the V100 and the T4 run bf16 as fp16, the measured H200 has kernel overheads.
    const std::vector<ma::Hardware>& table = ma::hardware_table();
    const ma::Hardware& hw = table[data[3] % table.size()];
    for (ma::PerfMode mode : {ma::PerfMode::Decode, ma::PerfMode::Prefill, ma::PerfMode::Train}) {
      ma::PerfInputs in;
      in.mode = mode;
      in.batch = 1u + data[0] % 64;
      in.seq = 1u + static_cast<uint64_t>(data[1]) * 16;
      in.kv_len = in.seq;
      in.parallel.tp = 1u << (data[2] % 4);
      in.parallel.ep = 1u << ((data[2] >> 2) % 3);
      in.parallel.pp = 1u + (data[2] >> 4) % 3;
      try {
        const ma::PerfResult r = ma::model_performance(inv, report, in, hw);
        const ma::OpCost& t = r.total;
        check(std::isfinite(t.t_est) && t.t_est > 0 && std::isfinite(r.mfu_est) && r.mfu_est >= 0);
        check(t.t_est * hw.hbm_gbps * 1e9 >= t.bytes_hbm() * (1 - 1e-9));
        double flops = 0;
        for (const ma::OpCost& op : r.ops) {
          check(op.flops_theory >= 0 && op.bytes_hbm() >= 0 && std::isfinite(op.t_est));
          flops += op.flops_theory;
        }
        check(std::fabs(flops - t.flops_theory) <= 1e-9 * std::max(1.0, t.flops_theory));
      } catch (const ma::Error& e) {
        // An impossible split or dtype is refused; a model without layers has nothing to model.
        check(e.kind() == ma::ErrorKind::Usage || e.kind() == ma::ErrorKind::Unsupported);
      }
    }
  } catch (const ma::Error&) {
  }
  return 0;
}
