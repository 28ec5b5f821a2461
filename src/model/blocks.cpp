#include "model/blocks.h"

namespace ma::blocks {

void linear(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, bool bias) {
  t.add(prefix + ".weight", {out, in});
  if (bias) t.add(prefix + ".bias", {out});
}

void norm(ModelTemplate& t, const std::string& prefix, uint64_t dim, bool bias) {
  t.add(prefix + ".weight", {dim});
  if (bias) t.add(prefix + ".bias", {dim});
}

TemplateTensor& embedding(ModelTemplate& t, const std::string& name, uint64_t rows, uint64_t dim) {
  TemplateTensor& e = t.add(name, {rows, dim});
  e.embedding = true;
  return e;
}

void attention(ModelTemplate& t, const std::string& prefix, const Attention& a) {
  linear(t, prefix + "." + a.q, a.hidden, a.heads * a.head_dim, a.qkv_bias);
  linear(t, prefix + "." + a.k, a.hidden, a.kv_heads * a.head_dim, a.qkv_bias);
  linear(t, prefix + "." + a.v, a.hidden, a.kv_heads * a.head_dim, a.qkv_bias);
  linear(t, prefix + "." + a.o, a.heads * a.head_dim, a.hidden, a.o_bias);
  if (a.qk_norm) {
    uint64_t w = a.qk_norm_width ? a.qk_norm_width : a.head_dim;
    norm(t, prefix + "." + a.q_norm, w, false);
    norm(t, prefix + "." + a.k_norm, a.qk_norm_width ? a.kv_heads * a.head_dim : w, false);
  }
}

void gated_mlp(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t inter, bool bias,
               const std::string& gate, const std::string& up, const std::string& down) {
  linear(t, prefix + "." + gate, hidden, inter, bias);
  linear(t, prefix + "." + up, hidden, inter, bias);
  linear(t, prefix + "." + down, inter, hidden, bias);
}

void fused_experts(ModelTemplate& t, const std::string& prefix, uint64_t experts, uint64_t hidden, uint64_t inter,
                   const ExpertsOnDisk& disk) {
  t.charge(3 * experts);
  TemplateTensor& gate_up = t.add(prefix + ".gate_up_proj", {experts, 2 * inter, hidden});
  gate_up.routed_expert = true;
  for (uint64_t e = 0; e < experts; ++e) {
    std::string p = disk.prefix + "." + std::to_string(e) + ".";
    gate_up.disk.push_back({p + disk.gate + ".weight", {inter, hidden}});
    gate_up.disk.push_back({p + disk.up + ".weight", {inter, hidden}});
  }
  TemplateTensor& down = t.add(prefix + ".down_proj", {experts, hidden, inter});
  down.routed_expert = true;
  for (uint64_t e = 0; e < experts; ++e)
    down.disk.push_back({disk.prefix + "." + std::to_string(e) + "." + disk.down + ".weight", {hidden, inter}});
}

}  // namespace ma::blocks
