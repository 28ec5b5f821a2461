// Nemotron-NAS (DeciLMForCausalLM, modeling_decilm.py: Llama-3.1/3.3-Nemotron 51B, Super 49B, Ultra 253B): a
// Llama whose layers each take their shape from `block_configs`, as the architecture search left them. Per
// layer, attention is
//   no_op               absent, and so is input_layernorm;
//   replace_with_linear self_attn.linear_attn, one [hidden, hidden] matrix that mixes no positions;
//   else                Llama attention with num_attention_heads / n_heads_in_group K/V heads (window_length:
//                       sliding);
// and the FFN, likewise, absent (with post_attention_layernorm), mlp.linear_mlp, or a SwiGLU MLP of
// _ffn_mult_to_intermediate_size(ffn_mult) = int(2 * ffn_mult * hidden / 3) rounded up to a multiple of 256.
// The config's top-level intermediate_size and num_key_value_heads are null: no layer reads them.
#include <algorithm>

#include "model/families/decoder_llama.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

struct NasStyle {
  bool attention_bias = false, mlp_bias = false;
};

// Python's int(2 * ffn_mult * n_embd / 3), evaluated left to right in doubles as Python does, then
// _find_multiple(n, 256).
uint64_t nas_intermediate(const ModelConfig& ffn, uint64_t hidden) {
  const double mult = ffn.number_or("ffn_mult", 0);
  if (!(mult > 0) || mult > 64) ffn.fail("ffn_mult", "must be a number in (0, 64]");
  const auto n = static_cast<uint64_t>(2 * mult * static_cast<double>(hidden) / 3);
  return (n + 255) / 256 * 256;
}

// Parameter-free options that change what a layer computes in ways not derived here.
void refuse_underived(const ModelConfig& part, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys)
    if (part.has(k)) unsupported(part, k, "nemotron-nas with " + std::string(k));
}

void nas_attention(ModelTemplate& t, const ModelConfig& at, const std::string& p, const NasStyle& s,
                   LayerSpec& l) {
  const ArchitectureRecord& a = t.arch;
  refuse_underived(at, {"sparsify", "num_sink_tokens"});
  if (at.flag_or("no_op", false)) {
    l.mixer = Mixer::None;
    return;
  }
  blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
  if (at.flag_or("replace_with_linear", false)) {
    blocks::linear(t, p + ".self_attn.linear_attn", a.hidden_size, a.hidden_size, false);
    l.mixer = Mixer::None;
    return;
  }
  const uint64_t group = at.dim("n_heads_in_group");
  if (a.num_attention_heads % group != 0)
    at.fail("n_heads_in_group",
            "must divide num_attention_heads (" + std::to_string(a.num_attention_heads) + ")");
  blocks::Attention shape = standard_attention(a);
  shape.kv_heads = a.num_attention_heads / group;
  shape.qkv_bias = shape.o_bias = s.attention_bias;
  blocks::attention(t, p + ".self_attn", shape);
  l.attention.kind = attention_kind_of(shape.heads, shape.kv_heads);
  l.attention.heads = shape.heads;
  l.attention.kv_heads = shape.kv_heads;
  set_window(l.attention, at.count_or("window_length", 0));
}

void nas_ffn(ModelTemplate& t, const ModelConfig& ffn, const std::string& p, const NasStyle& s,
             LayerSpec& l) {
  const uint64_t h = t.arch.hidden_size;
  refuse_underived(ffn, {"sparsify", "moe"});
  if (ffn.flag_or("no_op", false)) {
    l.ffn.kind = Ffn::None;
    return;
  }
  blocks::norm(t, p + ".post_attention_layernorm", h, false);
  if (ffn.flag_or("replace_with_linear", false)) {
    blocks::linear(t, p + ".mlp.linear_mlp", h, h, false);
    l.ffn.kind = Ffn::None;  // a projection, not an MLP
    return;
  }
  l.ffn.intermediate = nas_intermediate(ffn, h);
  blocks::gated_mlp(t, p + ".mlp", h, l.ffn.intermediate, s.mlp_bias);
}

// The part of a block config at `key`, required.
ModelConfig part(const ModelConfig& block, std::string_view key) {
  std::optional<ModelConfig> c = block.sub(key);
  if (!c) block.fail(key, "must be an object");
  return *c;
}

}  // namespace

void build_nemotron_nas(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DeciLMForCausalLM";
  if (const json::Value* list = cfg.raw("block_configs"); list && list->is_array())
    cfg.check_layer_list("block_configs", list->items().size());
  const std::vector<ModelConfig> blocks_cfg = cfg.objects("block_configs");
  DecoderDefaults d;  // DeciLMConfig extends LlamaConfig
  d.num_hidden_layers = blocks_cfg.size();
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  if (blocks_cfg.size() != a.num_layers)
    cfg.fail("block_configs", "must hold one entry per layer (" + std::to_string(a.num_layers) + ")");
  const NasStyle s{cfg.flag_or("attention_bias", false), cfg.flag_or("mlp_bias", false)};

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = stack.path + "." + std::to_string(i);
    LayerSpec l;
    nas_attention(t, part(blocks_cfg[i], "attention"), p, s, l);
    nas_ffn(t, part(blocks_cfg[i], "ffn"), p, s, l);
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", a);

  // The record's model-wide defaults from the layers: the first attention layer's K/V heads, the widest FFN.
  a.intermediate_size = 0;
  a.num_key_value_heads = 0;
  for (const LayerSpec& l : stack.layers) {
    a.intermediate_size = std::max(a.intermediate_size, l.ffn.intermediate);
    if (!a.num_key_value_heads && l.mixer == Mixer::Attention) a.num_key_value_heads = l.attention.kv_heads;
  }
  if (!a.num_key_value_heads) a.num_key_value_heads = a.num_attention_heads;
}

}  // namespace ma::families::remote
