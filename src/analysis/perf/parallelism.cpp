#include "analysis/perf/parallelism.h"

#include <string>

#include "core/error.h"

namespace ma {
namespace {

[[noreturn]] void refuse(const char* flag, uint32_t n, const std::string& why) {
  throw Error(ErrorKind::Usage, "", flag, std::to_string(n) + " cannot split this model: " + why);
}

}  // namespace

void check_parallelism(const ArchitectureRecord& arch, const Parallelism& p) {
  const std::vector<LayerSpec>& layers = arch.layers();
  const FfnShape* moe = nullptr;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& l = layers[i];
    if (l.ffn.kind == Ffn::Moe && !moe) moe = &l.ffn;
    uint64_t heads = 0, kv_heads = 0;
    if (l.mixer == Mixer::Attention) heads = l.attention.heads, kv_heads = l.attention.kv_heads;
    if (l.mixer == Mixer::LinearAttention) heads = l.state.value_heads, kv_heads = l.state.key_heads;
    // Nothing to split: one GPU, data-parallel attention (whole heads per GPU), or unknown without a config.
    if (p.tp <= 1 || p.dp_attention || heads == 0) continue;
    if (heads % p.tp != 0)
      refuse("--tp", p.tp,
             "layer " + std::to_string(i) + " has " + std::to_string(heads) + " attention heads, which " +
                 std::to_string(p.tp) + " GPUs cannot share evenly");
    if (kv_heads && kv_heads % p.tp != 0 && p.tp % kv_heads != 0)
      refuse("--tp", p.tp,
             "layer " + std::to_string(i) + " has " + std::to_string(kv_heads) +
                 " key/value heads: tp must divide them or be a multiple of them");
  }
  if (p.pp > layers.size()) refuse("--pp", p.pp, "it has " + std::to_string(layers.size()) + " layers");
  if (p.ep > 1) {
    if (!moe || moe->experts == 0) refuse("--ep", p.ep, "it has no routed experts");
    // Experts spread over the tensor-parallel group (as vLLM and SGLang run EP): each GPU of it holds 1/ep.
    if (p.ep != p.tp)
      refuse("--ep", p.ep,
             "expert parallel runs over the tensor-parallel group, so --ep is 1 or --tp (" +
                 std::to_string(p.tp) + ")");
    if (moe->experts % p.ep != 0)
      refuse("--ep", p.ep, std::to_string(moe->experts) + " routed experts do not split evenly");
  }
}

}  // namespace ma
