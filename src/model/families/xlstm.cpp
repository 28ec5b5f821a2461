// xLSTM (xlstm; xLSTMForCausalLM, NX-AI/xLSTM-7b): mLSTM blocks only. Each block's mixer keeps per head a
// key x value matrix memory, written through exponential input and forget gates (one scalar each per head)
// and read by the queries, with an output gate and a per-head norm; a gated feed-forward follows. As
// transformers' native classes build it: the head is never tied (xLSTMForCausalLM declares no tie), and
// hidden_size / num_hidden_layers have values of their own (4,096 and 32) whatever embedding_dim and
// num_blocks say.
#include <array>
#include <cmath>
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// int(hidden x factor), as the layers size q/k and v.
uint64_t scaled(const ModelConfig& cfg, std::string_view key, double dflt, uint64_t hidden) {
  const double factor = cfg.number_or(key, dflt);
  if (!(factor > 0 && factor <= 64)) cfg.fail(key, "must be in (0, 64]");
  const auto width = static_cast<uint64_t>(std::floor(static_cast<double>(hidden) * factor));
  if (width == 0) cfg.fail(key, "gives a width of 0");
  return width;
}

// x rounded up to a multiple of m as the config computes it in floats: ((x + m - 1) // m) * m.
uint64_t round_up(double x, uint64_t m) {
  const double md = static_cast<double>(m);
  return static_cast<uint64_t>(std::floor((x + md - 1) / md) * md);
}

void build_xlstm(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "xLSTMForCausalLM");
  const std::string task = supported_task(cfg, cls, "xLSTM", {"ForCausalLM", "Model"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.vocab_size = cfg.dim_or("vocab_size", 50304);
  // hidden_size null (not absent) falls back to embedding_dim.
  const json::Value* hidden = cfg.raw("hidden_size");
  a.hidden_size =
      hidden && hidden->is_null() ? cfg.dim_or("embedding_dim", 4096) : cfg.dim_or("hidden_size", 4096);
  const uint64_t h = a.hidden_size, embedding = cfg.dim_or("embedding_dim", h);
  a.num_layers =
      cfg.has("num_blocks") ? cfg.layers_or("num_blocks", 32) : cfg.layers_or("num_hidden_layers", 32);
  const uint64_t heads = cfg.dim_or("num_heads", 8);
  a.num_attention_heads = 0;
  a.position = PositionKind::None;
  a.norm = NormKind::RmsNorm;
  a.tie_word_embeddings = false;
  const double qk_factor = cfg.number_or("qk_dim_factor", 0.5), v_factor = cfg.number_or("v_dim_factor", 1.0);
  const uint64_t qk = scaled(cfg, "qk_dim_factor", 0.5, h), v = scaled(cfg, "v_dim_factor", 1.0, h);
  const double ffn_factor = cfg.number_or("ffn_proj_factor", 2.667);
  if (!(ffn_factor > 0 && ffn_factor <= 64)) cfg.fail("ffn_proj_factor", "must be in (0, 64]");
  const uint64_t up =
      round_up(static_cast<double>(h) * ffn_factor, cfg.dim_or("ffn_round_up_to_multiple_of", 64));
  if (up == 0) cfg.fail("ffn_proj_factor", "gives a feed-forward of no width");
  a.intermediate_size = up;
  const bool bias = cfg.flag_or("use_bias", false);
  const std::string mode = cfg.string_or("weight_mode", "single");
  if (mode != "single" && mode != "fused") cfg.fail("weight_mode", "must be single or fused");
  const bool fused = mode == "fused";
  // The cache sizes its memories from the config's rounded widths (multiples of 64), which agree with the
  // layers' for every published config.
  const uint64_t cache_qk = round_up(static_cast<double>(h) * qk_factor, 64) / heads;
  const uint64_t cache_v = round_up(static_cast<double>(h) * v_factor, 64) / heads;

  const std::string root = task == "Model" ? "" : "backbone.";
  blocks::embedding(t, root + "embeddings.weight", a.vocab_size, embedding);
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "blocks", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string b = root + "blocks." + std::to_string(i) + ".";
    const std::string m = b + "mlstm_layer.";
    blocks::norm(t, b + "norm_mlstm", h, bias);
    if (fused) {
      blocks::linear(t, m + "qkv_opreact", h, 2 * qk + 2 * v, bias);
      blocks::linear(t, m + "ifgate_preact", h, 2 * heads, true);
    } else {
      blocks::linear(t, m + "q", h, qk, bias);
      blocks::linear(t, m + "k", h, qk, bias);
      blocks::linear(t, m + "v", h, v, bias);
      blocks::linear(t, m + "ogate_preact", h, v, bias);
      blocks::linear(t, m + "igate_preact", h, heads, true);  // the gates always have biases
      blocks::linear(t, m + "fgate_preact", h, heads, true);
    }
    blocks::norm(t, m + "multihead_norm", heads * (v / heads), bias);
    blocks::linear(t, m + "out_proj", v, h, bias);
    blocks::norm(t, b + "norm_ffn", h, bias);
    if (fused) {
      blocks::linear(t, b + "ffn.proj_up_gate_z", h, 2 * up, bias);
    } else {
      blocks::linear(t, b + "ffn.proj_up_gate", h, up, bias);
      blocks::linear(t, b + "ffn.proj_up", h, up, bias);
    }
    blocks::linear(t, b + "ffn.proj_down", up, h, bias);
    LayerSpec l;
    l.mixer = Mixer::Mlstm;
    l.state.heads = heads;
    l.state.key_head_dim = cache_qk;
    l.state.value_head_dim = cache_v;
    l.ffn.kind = Ffn::Dense;
    l.ffn.intermediate = up;
    stack.layers.push_back(l);
  }
  blocks::norm(t, root + "out_norm", h, false);  // weight only, whatever use_bias says
  if (task == "ForCausalLM") t.add("lm_head.weight", {a.vocab_size, h});
}

constexpr std::array kXlstmFamilies{FamilyBuilder{"xlstm", build_xlstm}};

}  // namespace

std::span<const FamilyBuilder> xlstm() {
  return kXlstmFamilies;
}

}  // namespace ma::families
