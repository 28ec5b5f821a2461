#include "model/families/state_space_blocks.h"

#include "core/json.h"
#include "model/blocks.h"

namespace ma::families::ssm {
namespace {

// nn.Conv1d with groups == channels: one [1, kernel] filter per channel.
void depthwise_conv(ModelTemplate& t, const std::string& prefix, uint64_t channels, uint64_t kernel,
                    bool bias) {
  t.add(prefix + ".weight", {channels, 1, kernel});
  if (bias) t.add(prefix + ".bias", {channels});
}

}  // namespace

void mamba1_mixer(ModelTemplate& t, const std::string& prefix, const Mamba1Mixer& m) {
  t.add(prefix + ".A_log", {m.inner, m.state});
  t.add(prefix + ".D", {m.inner});
  depthwise_conv(t, prefix + ".conv1d", m.inner, m.conv, m.conv_bias);
  // in_proj yields the SSM input and its gate.
  blocks::linear(t, prefix + ".in_proj", m.hidden, 2 * m.inner, m.proj_bias);
  // x_proj yields dt (low rank), B and C.
  blocks::linear(t, prefix + ".x_proj", m.inner, m.dt_rank + 2 * m.state, false);
  blocks::linear(t, prefix + ".dt_proj", m.dt_rank, m.inner, true);
  blocks::linear(t, prefix + ".out_proj", m.inner, m.hidden, m.proj_bias);
  if (m.dt_norms) {
    blocks::norm(t, prefix + ".dt_layernorm", m.dt_rank, false);
    blocks::norm(t, prefix + ".b_layernorm", m.state, false);
    blocks::norm(t, prefix + ".c_layernorm", m.state, false);
  }
}

void mamba2_mixer(ModelTemplate& t, const std::string& prefix, const Mamba2Mixer& m) {
  // The convolution runs over x, B and C together; in_proj adds the gate z and one dt per head.
  const uint64_t conv_channels = m.inner + 2 * m.groups * m.state;
  t.add(prefix + ".dt_bias", {m.heads});
  t.add(prefix + ".A_log", {m.heads});
  t.add(prefix + ".D", {m.heads});
  depthwise_conv(t, prefix + ".conv1d", conv_channels, m.conv, m.conv_bias);
  blocks::linear(t, prefix + ".in_proj", m.hidden, m.inner + conv_channels + m.heads, m.proj_bias);
  if (m.gated_norm) blocks::norm(t, prefix + ".norm", m.inner, false);
  blocks::linear(t, prefix + ".out_proj", m.inner, m.hidden, m.out_bias.value_or(m.proj_bias));
}

uint64_t dim_or_auto(const ModelConfig& cfg, std::string_view key, uint64_t auto_value) {
  const json::Value* v = cfg.raw(key);
  if (v && v->is_string()) {
    if (v->as_string() != "auto") cfg.fail(key, "must be a positive integer or \"auto\"");
    return auto_value;
  }
  return cfg.dim_or(key, auto_value);
}

uint64_t expanded_width(const ModelConfig& cfg, std::string_view key, double dflt, uint64_t hidden) {
  const double expand = cfg.number_or(key, dflt);
  const double width = expand * static_cast<double>(hidden);
  if (!(expand > 0) || !(width >= 1) || width > 1e15)
    cfg.fail(key, "must be positive and give an SSM width of at least 1");
  return static_cast<uint64_t>(width);
}

StateShape state_of(const Mamba1Mixer& m) {
  StateShape s;
  s.inner = m.inner;
  s.state = m.state;
  s.conv_kernel = m.conv;
  s.dt_rank = m.dt_rank;
  return s;
}

StateShape state_of(const Mamba2Mixer& m) {
  StateShape s;
  s.inner = m.inner;
  s.state = m.state;
  s.conv_kernel = m.conv;
  s.groups = m.groups;
  s.heads = m.heads;
  s.head_dim = m.head_dim ? m.head_dim : (m.heads ? m.inner / m.heads : 0);
  s.chunk_size = m.chunk;
  return s;
}

}  // namespace ma::families::ssm
