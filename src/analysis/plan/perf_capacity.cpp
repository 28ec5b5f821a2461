#include "analysis/plan/perf_capacity.h"

#include <cmath>

#include "analysis/plan/plan.h"
#include "core/units.h"

namespace ma {
namespace {

constexpr uint32_t kMostDevices = 256;

WeightPrecision precision_of(const PerfInputs& in) {
  if (!in.stored_bytes.empty()) return WeightPrecision::Stored;
  switch (in.weight_dtype) {
    case ComputeDType::FP32:
    case ComputeDType::TF32:
      return WeightPrecision::FP32;
    case ComputeDType::FP8:
    case ComputeDType::INT8:
      return WeightPrecision::FP8;
    case ComputeDType::FP4:
      return WeightPrecision::INT4;
    default:
      return WeightPrecision::BF16;
  }
}

DType kv_dtype_of(ComputeDType d) {
  if (d == ComputeDType::FP8 || d == ComputeDType::INT8) return DType::F8_E4M3;
  if (d == ComputeDType::FP32 || d == ComputeDType::TF32) return DType::F32;
  return DType::BF16;
}

}  // namespace

std::optional<CapacityCheck> check_capacity(const Inventory& inv, const ModelReport& report,
                                            const PerfInputs& in, const Hardware& hw) {
  if (in.mode == PerfMode::Train) return std::nullopt;
  // A profile without a memory size (a --hw file that gives no hbm_gb) has no capacity to judge against: 0 B
  // called every step "DOES NOT FIT". What the step needs is still known: sized on a device no step fills.
  if (!(hw.hbm_gb > 0)) {
    constexpr double kUnboundedGb = 1e9;
    Hardware unbounded = hw;
    unbounded.hbm_gb = kUnboundedGb;
    std::optional<CapacityCheck> need = check_capacity(inv, report, in, unbounded);
    if (!need) return need;
    need->capacity_known = false;
    need->fits = true;
    need->capacity_bytes = 0;
    need->advice =
        "the profile " + hw.name + " gives no memory size (hbm_gb): whether the step fits is not judged";
    return need;
  }
  PlanRequest rq;
  rq.gpus = devices_of(hw, in.parallel.tp * in.parallel.pp);
  rq.gpus.text = hw.name;
  rq.batch = in.batch;
  rq.context = in.mode == PerfMode::Decode ? in.kv_len + 1 : in.seq;
  rq.precision = precision_of(in);
  rq.kv_dtype = kv_dtype_of(in.kv_dtype);
  rq.time_splits = false;  // only whether it fits; the one plan that names a split below is timed
  const Plan plan = make_plan(inv, report, rq);
  CapacityCheck c;
  c.capacity_bytes = rq.gpus.memory_bytes;
  for (const SplitPlan& s : plan.splits)
    if (s.split.tp == in.parallel.tp && s.split.pp == in.parallel.pp && s.split.ep == in.parallel.ep &&
        s.invalid.empty()) {
      c.bytes_per_device = s.budget.worst.used();
      c.fits = s.budget.fits;
    }
  if (c.fits) return c;
  std::vector<std::string> would;
  for (uint32_t n = rq.gpus.count * 2; n <= kMostDevices; n *= 2) {
    PlanRequest more = rq;
    more.gpus.count = n;
    if (!make_plan(inv, report, more).fits) continue;
    more.time_splits = true;  // the fastest split of the first count that fits is the one named
    const Plan p = make_plan(inv, report, more);
    would.push_back("fits on " + std::to_string(n) + " x " + hw.name + " (" +
                    split_name(p.splits[*p.best].split) + ")");
    break;
  }
  if (plan.widest_fitting && *plan.widest_fitting != rq.precision)
    would.push_back("fits in " + std::string(precision_name(*plan.widest_fitting)) + " weights on these " +
                    std::to_string(rq.gpus.count) + " x " + hw.name);
  if (would.empty())
    would.push_back("no split of up to " + std::to_string(kMostDevices) + " x " + hw.name + " holds it");
  for (const std::string& w : would) c.advice += (c.advice.empty() ? "" : "; ") + w;
  return c;
}

}  // namespace ma
