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

void conv1d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, uint64_t kernel,
            uint64_t groups) {
  t.add(prefix + ".weight", {out, in / groups, kernel});
  t.add(prefix + ".bias", {out});
}

void conv2d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, uint64_t kernel,
            uint64_t groups) {
  t.add(prefix + ".weight", {out, in / groups, kernel, kernel});
  t.add(prefix + ".bias", {out});
}

void weight_normed_conv1d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out,
                          uint64_t kernel) {
  t.add(prefix + ".bias", {out});
  TemplateTensor& g = t.add(prefix + ".parametrizations.weight.original0", {out, 1, 1});
  g.disk.push_back({prefix + ".weight_g", g.shape});
  TemplateTensor& v = t.add(prefix + ".parametrizations.weight.original1", {out, in, kernel});
  v.disk.push_back({prefix + ".weight_v", v.shape});
}

void transposed_conv1d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out,
                       uint64_t kernel) {
  t.add(prefix + ".weight", {in, out, kernel});
  t.add(prefix + ".bias", {out});
}

void snake_beta(ModelTemplate& t, const std::string& prefix, uint64_t channels) {
  t.add(prefix + ".alpha", {channels});
  t.add(prefix + ".beta", {channels});
}

TemplateTensor& embedding(ModelTemplate& t, const std::string& name, uint64_t rows, uint64_t dim) {
  TemplateTensor& e = t.add(name, {rows, dim});
  e.embedding = true;
  return e;
}

void attention(ModelTemplate& t, const std::string& prefix, const Attention& a) {
  if (!a.key_first) linear(t, prefix + "." + a.q, a.hidden, a.heads * a.head_dim, a.qkv_bias);
  linear(t, prefix + "." + a.k, a.hidden, a.kv_heads * a.head_dim, a.qkv_bias);
  linear(t, prefix + "." + a.v, a.hidden, a.kv_heads * a.head_dim, a.qkv_bias);
  if (a.key_first) linear(t, prefix + "." + a.q, a.hidden, a.heads * a.head_dim, a.qkv_bias);
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

TemplateTensor& routed(ModelTemplate& t, const std::string& name, Shape shape) {
  TemplateTensor& x = t.add(name, std::move(shape));
  x.routed_expert = true;
  return x;
}

TemplateTensor& per_expert_stored(ModelTemplate& t, const std::string& name, uint64_t experts, uint64_t rows,
                                  uint64_t cols, const std::string& disk_prefix,
                                  std::initializer_list<std::string_view> leaves, uint32_t first) {
  t.charge(experts * leaves.size());
  TemplateTensor& x = routed(t, name, {experts, leaves.size() * rows, cols});
  // A pattern, not spelled-out names: DeepSeek-V3 alone would need 45,000 strings (see PerExpertPieces).
  PerExpertPieces pieces{disk_prefix, static_cast<uint32_t>(experts), {}, first};
  for (std::string_view leaf : leaves) pieces.parts.push_back({std::string(leaf) + ".weight", {rows, cols}});
  x.per_expert = std::move(pieces);
  return x;
}

void stacked_experts(ModelTemplate& t, const std::string& prefix, Shape gate_up, Shape down,
                     const std::optional<DiskPiece>& gate_up_disk,
                     const std::optional<DiskPiece>& down_disk) {
  TemplateTensor& g = routed(t, prefix + ".gate_up_proj", std::move(gate_up));
  if (gate_up_disk) g.disk.push_back(*gate_up_disk);
  TemplateTensor& d = routed(t, prefix + ".down_proj", std::move(down));
  if (down_disk) d.disk.push_back(*down_disk);
}

void expert_router(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t experts,
                   bool correction_bias) {
  linear(t, prefix, hidden, experts, false);
  if (correction_bias) t.add(prefix + ".e_score_correction_bias", {experts}).kind = TensorKind::Buffer;
}

void gated_shared_expert(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t inter) {
  gated_mlp(t, prefix + ".shared_expert", hidden, inter);
  linear(t, prefix + ".shared_expert_gate", hidden, 1, false);
}

void fused_experts(ModelTemplate& t, const std::string& prefix, uint64_t experts, uint64_t hidden,
                   uint64_t inter, const ExpertsOnDisk& disk) {
  per_expert_stored(t, prefix + ".gate_up_proj", experts, inter, hidden, disk.prefix, {disk.gate, disk.up});
  per_expert_stored(t, prefix + ".down_proj", experts, hidden, inter, disk.prefix, {disk.down});
}

}  // namespace ma::blocks
