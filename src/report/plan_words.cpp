#include "report/plan_words.h"

#include "analysis/identity.h"
#include "core/units.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

const BytesKind kDeviceByteKinds[] = {
    {"weights", "weights", &DeviceBytes::weights, &plot::kBlue},
    {"kv_cache", "KV cache / state", &DeviceBytes::kv, &plot::kOrange},
    {"activations", "activations", &DeviceBytes::activations, &plot::kGreen},
    {"overhead", "engine overhead", &DeviceBytes::overhead, &plot::kPurple},
    {"reserved", "engine headroom", &DeviceBytes::reserved, &plot::kFaint},
    {"kv_spare", "KV pool unused", &DeviceBytes::kv_spare, &plot::kSky},
};

}  // namespace

std::vector<DeviceRun> device_runs(const DeviceSpec& g) {
  if (!g.mixed()) return {{g.count, g.hardware ? g.hardware->description : "", g.memory_bytes}};
  std::vector<DeviceRun> runs;
  for (size_t i = 0; i < g.memories.size(); ++i) {
    const std::string name = g.kinds[i] ? g.kinds[i]->description : "";
    if (runs.empty() || runs.back().name != name || runs.back().memory_bytes != g.memories[i])
      runs.push_back({0, name, g.memories[i]});
    ++runs.back().count;
  }
  return runs;
}

std::string devices_text(const Plan& p) {
  const DeviceSpec& g = p.request.gpus;
  std::string t;
  for (const DeviceRun& r : device_runs(g))
    t += (t.empty() ? "" : " + ") + std::to_string(r.count) + " x " +
         (r.name.empty() ? human_bytes(r.memory_bytes) + " device"
                         : r.name + " (" + human_bytes(r.memory_bytes) + (g.mixed() ? ")" : " each)"));
  return t;
}

const SplitPlan* shown_split(const Plan& p) {
  return p.shown ? &p.splits[*p.shown] : nullptr;
}

std::string plan_verdict(const Plan& p, bool on_devices) {
  if (!p.fits) {
    std::string t = on_devices ? "does not fit on " + devices_text(p) : "does not fit";
    // Offload flags the user gave ask about that command line first.
    const bool asked =
        p.offload && (p.offload->ngl_given || p.offload->cpu_moe_given || p.offload->tensor_split_given);
    if (p.widest_fitting && !asked)
      t += "; fits in " + std::string(precision_name(*p.widest_fitting));
    else if (p.offload && p.offload->fits)
      t += "; fits with CPU offload (" + llama_cpp_offload_flags(*p.offload) + ")";
    else if (asked)
      t += "; nor with CPU offload as given (" + llama_cpp_offload_flags(*p.offload) + ")";
    return t;
  }
  const SplitPlan& s = p.splits[*p.best];
  return "fits: " + split_name(s.split) + ", " +
         human_bytes(s.budget.worst.used() - s.budget.worst.kv_spare) + " of " +
         human_bytes(s.budget.worst.capacity) +
         (p.request.gpus.mixed() ? " on the fullest device" : " per device");
}

std::span<const BytesKind> device_byte_kinds() {
  return kDeviceByteKinds;
}

}  // namespace ma
