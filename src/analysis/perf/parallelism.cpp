#include "analysis/perf/parallelism.h"

#include <string>

#include "core/error.h"

namespace ma {
namespace {

[[noreturn]] void refuse(const char* flag, uint32_t n, const std::string& why) {
  throw Error(ErrorKind::Usage, "", flag, std::to_string(n) + " cannot split this model: " + why);
}

}  // namespace

void check_parallelism(const ModelReport& report, const Parallelism& p) {
  if (p.tp > 1)
    for (const LayerAttention& l : report.attention.layers) {
      if (l.heads == 0) continue;  // no attention (Mamba), or unknown
      if (l.heads % p.tp != 0)
        refuse("--tp", p.tp,
               "layer " + std::to_string(l.layer) + " has " + std::to_string(l.heads) +
                   " attention heads, which " + std::to_string(p.tp) + " GPUs cannot share evenly");
      if (l.kv_heads && l.kv_heads % p.tp != 0 && p.tp % l.kv_heads != 0)
        refuse("--tp", p.tp,
               "layer " + std::to_string(l.layer) + " has " + std::to_string(l.kv_heads) +
                   " key/value heads: tp must divide them or be a multiple of them");
    }
  if (p.pp > report.layers.size())
    refuse("--pp", p.pp, "it has " + std::to_string(report.layers.size()) + " layers");
  if (p.ep > 1) {
    if (!report.moe || report.moe->num_experts == 0) refuse("--ep", p.ep, "it has no routed experts");
    if (report.moe->num_experts % p.ep != 0)
      refuse("--ep", p.ep, std::to_string(report.moe->num_experts) + " routed experts do not split evenly");
  }
}

}  // namespace ma
