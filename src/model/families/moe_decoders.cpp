// Mixture-of-experts decoders that keep Llama's layer layout (self_attn + sparse block + two RMSNorms):
// Mixtral, Qwen1.5/2-MoE, Qwen3-MoE, OLMoE, Granite-MoE (and its shared-MLP variant), MiniMax-M2, gpt-oss,
// Phi-3.5-MoE, ERNIE 4.5 MoE, Laguna, AFMoE (Arcee's Trinity) and Hunyuan-MoE, plus DBRX with its own
// fused-attention layout. transformers >= 5 fuses the experts of a layer into stacked tensors; Hub
// checkpoints mostly keep one tensor per expert, so each family also says how its experts are stored.
#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"

namespace ma::families {

uint64_t count_of(const ModelConfig& cfg, std::initializer_list<std::string_view> keys, uint64_t dflt) {
  for (std::string_view k : keys)
    if (cfg.has(k)) return cfg.count_or(k, dflt);
  return dflt;
}

void read_experts(const ModelConfig& cfg, ModelTemplate& t,
                  std::initializer_list<std::string_view> expert_keys, uint64_t experts, uint64_t top_k,
                  uint64_t expert_inter, bool allow_zero) {
  ArchitectureRecord& a = t.arch;
  a.num_experts = count_of(cfg, expert_keys, experts);
  if (a.num_experts == 0 && !allow_zero) cfg.fail(*expert_keys.begin(), "must be at least 1");
  a.experts_per_token = cfg.dim_or("num_experts_per_tok", top_k);
  if (a.num_experts && a.experts_per_token > a.num_experts)
    cfg.fail("num_experts_per_tok",
             "must not exceed the number of experts (" + std::to_string(a.num_experts) + ")");
  a.moe_intermediate_size = expert_inter;
}

std::vector<uint64_t> uniform_windows(uint64_t layers, uint64_t window) {
  return std::vector<uint64_t>(layers, window);
}

namespace {

TemplateTensor& add_renamed(ModelTemplate& t, const std::string& name, const Shape& shape,
                            const std::string& disk) {
  TemplateTensor& x = t.add(name, shape);
  if (disk != name) x.disk.push_back({disk, shape});
  return x;
}

// MXFP4 (gpt-oss on the Hub): each output row of each expert is cut into blocks of 32 four-bit values, packed
// two per byte (`_blocks` [E, rows, cols/32, 16], uint8), with one shared exponent per block (`_scales`
// [E, rows, cols/32], uint8). Only exact when 32 divides the row length; otherwise the template keeps the
// unquantized form.
void mxfp4_pieces(TemplateTensor& x, uint64_t experts, uint64_t rows, uint64_t cols) {
  constexpr uint64_t kBlock = 32;
  if (cols % kBlock != 0) return;
  x.disk.push_back({x.name + "_blocks", {experts, rows, cols / kBlock, kBlock / 2}, DType::U8});
  x.disk.push_back(
      {x.name + "_scales", {experts, rows, cols / kBlock}, DType::U8, TensorKind::QuantizationScale});
}

void experts(ModelTemplate& t, const std::string& mem, const std::string& disk, const ArchitectureRecord& a,
             const MoeLayout& m) {
  const uint64_t e = a.num_experts, h = a.hidden_size, i = a.moe_intermediate_size;
  switch (m.style) {
    case ExpertStyle::PerExpert: {
      blocks::ExpertsOnDisk d = m.names;
      d.prefix = disk;
      blocks::fused_experts(t, mem, e, h, i, d);
      break;
    }
    case ExpertStyle::Stacked:
      blocks::stacked_experts(t, mem, {e, 2 * i, h}, {e, h, i},
                              DiskPiece{disk + "." + m.names.up + ".weight", {e, 2 * i, h}},
                              DiskPiece{disk + "." + m.names.down + ".weight", {e, h, i}});
      break;
    case ExpertStyle::StackedHalves: {
      TemplateTensor& gate_up = blocks::routed(t, mem + ".gate_up_proj", {e, 2 * i, h});
      for (const std::string& half : {m.names.gate, m.names.up})
        gate_up.disk.push_back({disk + "." + half + ".weight", {e, i, h}});
      blocks::routed(t, mem + ".down_proj", {e, h, i})
          .disk.push_back({disk + "." + m.names.down + ".weight", {e, h, i}});
      break;
    }
    case ExpertStyle::Biased: {
      // Stored transposed against the other families: [E, in, out].
      TemplateTensor& gate_up = blocks::routed(t, mem + ".gate_up_proj", {e, h, 2 * i});
      if (m.mxfp4) mxfp4_pieces(gate_up, e, 2 * i, h);
      blocks::routed(t, mem + ".gate_up_proj_bias", {e, 2 * i});
      TemplateTensor& down = blocks::routed(t, mem + ".down_proj", {e, i, h});
      if (m.mxfp4) mxfp4_pieces(down, e, h, i);
      blocks::routed(t, mem + ".down_proj_bias", {e, h});
      break;
    }
    case ExpertStyle::Grouped:
      blocks::routed(t, mem + ".fc1.weight", {e, h, 2 * i});
      blocks::routed(t, mem + ".fc2.weight", {e, i, h});
      break;
  }
}

void sparse_block(ModelTemplate& t, const std::string& layer, const ArchitectureRecord& a, const MoeLayout& m,
                  bool mlp_bias) {
  const std::string mem = layer + "." + m.block, disk = layer + "." + m.disk_block;
  const std::string disk_router = disk + "." + (m.disk_router.empty() ? m.router : m.disk_router);
  const bool stacked = m.style == ExpertStyle::Stacked || m.style == ExpertStyle::StackedHalves;
  const std::string experts_disk = stacked ? disk : disk + ".experts";
  // The bias buffer: the block's own (MiniMax-M2, HY-V3) comes before its submodules in state_dict, the
  // router's (gate.e_score_correction_bias) after the router's weight.
  const bool own_correction_bias = m.correction_bias_name.find('.') == std::string::npos;
  const auto correction_bias = [&] {
    TemplateTensor& b = add_renamed(t, mem + "." + m.correction_bias_name, {a.num_experts},
                                    disk + "." + m.disk_correction_bias_name);
    b.kind = TensorKind::Buffer;
  };
  if (m.correction_bias && own_correction_bias) correction_bias();
  if (m.experts_first) experts(t, mem + ".experts", experts_disk, a, m);
  add_renamed(t, mem + "." + m.router + ".weight", {a.num_experts, a.hidden_size}, disk_router + ".weight");
  if (m.router_bias) add_renamed(t, mem + "." + m.router + ".bias", {a.num_experts}, disk_router + ".bias");
  if (m.correction_bias && !own_correction_bias) correction_bias();
  if (m.statics_bias)
    add_renamed(t, mem + "." + m.router + ".moe_statics.e_score_correction_bias", {1, a.num_experts},
                disk + ".moe_statics.e_score_correction_bias");
  if (m.router_score_bias)
    add_renamed(t, mem + "." + m.router + ".e_score_correction_bias", {a.num_experts},
                disk + ".experts.e_score_correction_bias");
  if (m.expert_bias) add_renamed(t, mem + ".expert_bias", {a.num_experts}, disk + ".expert_bias");
  if (!m.experts_first) experts(t, mem + ".experts", experts_disk, a, m);
  if (m.shared_expert) blocks::gated_shared_expert(t, mem, a.hidden_size, m.shared_inter);
  if (m.shared_experts) {
    blocks::gated_mlp(t, mem + "." + m.shared_name, a.hidden_size, m.shared_inter, mlp_bias);
    if (!m.disk_shared_name.empty())
      t.rename_on_disk(mem + "." + m.shared_name + ".", disk + "." + m.disk_shared_name + ".");
  }
}

}  // namespace

void build_moe_decoder(ModelTemplate& t, const MoeDecoder& d) {
  const ArchitectureRecord& a = t.arch;
  token_embedding(t, d.root + "embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, d.root + "layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = d.root + "layers." + std::to_string(i);
    blocks::Attention attn = d.attn;
    if (!d.heads.empty()) attn.heads = d.heads[i];
    if (d.sinks) t.add(p + ".self_attn.sinks", {attn.heads});
    blocks::attention(t, p + ".self_attn", attn);
    if (d.gate == OutputGate::PerHead)
      blocks::linear(t, p + ".self_attn.g_proj", a.hidden_size, attn.heads, false);
    if (d.gate == OutputGate::PerElement)
      blocks::linear(t, p + ".self_attn.gate_proj", a.hidden_size, attn.heads * attn.head_dim, false);
    const auto layer_norms = [&] {
      for (std::string_view n : d.layer_norms)
        blocks::norm(t, p + "." + std::string(n), a.hidden_size, d.norm_bias);
    };
    if (d.norms_before_mlp) layer_norms();
    if (!d.sparse[i]) {
      blocks::gated_mlp(t, p + ".mlp", a.hidden_size, d.dense_inter, d.mlp_bias);
    } else {
      sparse_block(t, p, a, d.moe, d.mlp_bias);
      if (d.granite_shared) {
        blocks::linear(t, p + ".shared_mlp.input_linear", a.hidden_size, 2 * d.granite_shared, false);
        blocks::linear(t, p + ".shared_mlp.output_linear", d.granite_shared, a.hidden_size, false);
      }
    }
    if (!d.norms_before_mlp) layer_norms();
    if (d.mlp_norms) {
      blocks::norm(t, p + ".pre_mlp_layernorm", a.hidden_size, d.norm_bias);
      blocks::norm(t, p + ".post_mlp_layernorm", a.hidden_size, d.norm_bias);
    }
    LayerSpec l = attention_layer(a, d.windows[i], d.sparse[i] ? Ffn::Moe : Ffn::Dense);
    if (!d.heads.empty()) {
      l.attention.heads = attn.heads;
      l.attention.kind = attention_kind_of(attn.heads, attn.kv_heads);
    }
    if (d.sparse[i] && (d.moe.shared_expert || d.moe.shared_experts))
      l.ffn.shared_intermediate = d.moe.shared_inter;
    if (d.sparse[i] && d.granite_shared) l.ffn.shared_intermediate = d.granite_shared;
    if (!d.sparse[i]) l.ffn.intermediate = d.dense_inter;
    stack.layers.push_back(l);
  }
  blocks::norm(t, d.root + "norm", a.hidden_size, d.norm_bias);
  if (!d.lm_head) return;
  lm_head(t, d.root + "embed_tokens.weight", a);
  if (d.lm_head_bias) t.add("lm_head.bias", {a.vocab_size});
}

// A decoder whose every layer is sparse, with full attention unless `windows` says otherwise.
MoeDecoder all_sparse(const ArchitectureRecord& a) {
  MoeDecoder d;
  d.attn = standard_attention(a);
  d.sparse.assign(a.num_layers, true);
  d.windows = uniform_windows(a.num_layers, 0);
  return d;
}

// Mixtral's Hub layout, shared by MiniMax-M2: block_sparse_moe.{gate, experts.N.w1/w3/w2}.
MoeLayout block_sparse_moe_layout() {
  MoeLayout m;
  m.disk_block = "block_sparse_moe";
  m.names.gate = "w1";
  m.names.up = "w3";
  m.names.down = "w2";
  return m;
}

namespace {

void build_mixtral(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MixtralForCausalLM";
  DecoderDefaults dd;
  dd.intermediate_size = 14336;
  dd.num_key_value_heads = 8;
  dd.max_position_embeddings = 4096 * 32;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_local_experts", "num_experts"}, 8, 2, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.windows = uniform_windows(t.arch.num_layers, cfg.count_or("sliding_window", 0));
  d.moe = block_sparse_moe_layout();
  build_moe_decoder(t, d);
}

void build_minimax_m2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MiniMaxM2ForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 200064;
  dd.hidden_size = 3072;
  dd.intermediate_size = 1536;
  dd.num_hidden_layers = 62;
  dd.num_attention_heads = 48;
  dd.num_key_value_heads = 8;
  dd.head_dim = 128;
  dd.max_position_embeddings = 196608;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_local_experts", "num_experts"}, 256, 8, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  // Norms over all heads at once (q: heads x head_dim, k: kv_heads x head_dim), not per head.
  d.attn.qk_norm = true;
  d.attn.qk_norm_width = t.arch.num_attention_heads * t.arch.head_dim;
  d.moe = block_sparse_moe_layout();
  d.moe.correction_bias = true;
  build_moe_decoder(t, d);
}

// Qwen-style expert storage: mlp.experts.N.{gate,up,down}_proj on disk, names unchanged elsewhere.
MoeDecoder qwen_style(const ModelConfig& cfg, const ArchitectureRecord& a) {
  MoeDecoder d = all_sparse(a);
  d.sparse = qwen_sparse_layers(cfg, a);
  d.dense_inter = a.intermediate_size;
  return d;
}

void build_qwen2_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2MoeForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 151936;
  dd.hidden_size = 2048;
  dd.intermediate_size = 5632;
  dd.num_hidden_layers = 24;
  dd.num_attention_heads = 16;
  dd.num_key_value_heads = 16;
  dd.max_position_embeddings = 32768;
  read_decoder_dims(cfg, dd, t);
  const ArchitectureRecord& a = t.arch;
  read_experts(cfg, t, {"num_experts"}, 60, 4, cfg.dim_or("moe_intermediate_size", 1408), true);
  MoeDecoder d = qwen_style(cfg, a);
  d.attn.qkv_bias = cfg.flag_or("qkv_bias", true);
  d.moe.shared_expert = true;
  d.moe.shared_inter = cfg.count_or("shared_expert_intermediate_size", 5632);
  t.arch.num_shared_experts = d.moe.shared_inter ? 1 : 0;
  const bool sliding = cfg.flag_or("use_sliding_window", false);
  const uint64_t max_window_layers = cfg.count_or("max_window_layers", 28);
  d.windows = layer_windows(cfg, a.num_layers, sliding ? cfg.count_or("sliding_window", 4096) : 0,
                            [&](uint64_t i) { return sliding && (i + 1) % 2 == 1 && i < max_window_layers; });
  build_moe_decoder(t, d);
}

void build_qwen3_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen3MoeForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 151936;
  dd.hidden_size = 2048;
  dd.intermediate_size = 6144;
  dd.num_hidden_layers = 24;
  dd.num_attention_heads = 32;
  dd.num_key_value_heads = 4;
  dd.max_position_embeddings = 32768;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_local_experts", "num_experts"}, 128, 8, cfg.dim_or("moe_intermediate_size", 768),
               true);
  MoeDecoder d = qwen_style(cfg, t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.moe.experts_first = true;
  if (cfg.flag_or("use_sliding_window", false))
    d.windows = uniform_windows(t.arch.num_layers, cfg.count_or("sliding_window", 4096));
  build_moe_decoder(t, d);
}

void build_olmoe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "OlmoeForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 50304;
  dd.hidden_size = 2048;
  dd.intermediate_size = 2048;
  dd.num_hidden_layers = 16;
  dd.num_attention_heads = 16;
  dd.max_position_embeddings = 4096;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_experts"}, 64, 8, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  // OLMoE normalises q and k over the whole projection (hidden wide for q), not per head.
  d.attn.qk_norm = true;
  d.attn.qk_norm_width = t.arch.num_attention_heads * t.arch.head_dim;
  build_moe_decoder(t, d);
}

MoeDecoder read_granitemoe(const ModelConfig& cfg, ModelTemplate& t) {
  read_decoder_dims(cfg, {}, t);
  read_experts(cfg, t, {"num_local_experts"}, 8, 2, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  // Granite checkpoints already stack the experts: block_sparse_moe.{input,output}_linear.weight, and the
  // router keeps its inner Linear: router.layer.weight.
  d.moe.block = d.moe.disk_block = "block_sparse_moe";
  d.moe.router = "router";
  d.moe.disk_router = "router.layer";
  d.moe.style = ExpertStyle::Stacked;
  d.moe.names.up = "input_linear";
  d.moe.names.down = "output_linear";
  d.norms_before_mlp = true;
  return d;
}

void build_granitemoe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GraniteMoeForCausalLM";
  build_moe_decoder(t, read_granitemoe(cfg, t));
}

// GraniteMoE with a shared MLP beside the experts, of shared_intermediate_size (0: none).
void build_granitemoeshared(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GraniteMoeSharedForCausalLM";
  MoeDecoder d = read_granitemoe(cfg, t);
  d.granite_shared = cfg.count_or("shared_intermediate_size", 0);
  build_moe_decoder(t, d);
}

void build_gpt_oss(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GptOssForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 201088;
  dd.hidden_size = 2880;
  dd.intermediate_size = 2880;
  dd.num_hidden_layers = 36;
  dd.num_attention_heads = 64;
  dd.num_key_value_heads = 8;
  dd.head_dim = 64;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_local_experts", "num_experts"}, 128, 4, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", true);
  d.sinks = true;
  d.moe.router = "router";
  d.moe.router_bias = true;
  d.moe.style = ExpertStyle::Biased;
  std::optional<ModelConfig> quant = cfg.sub("quantization_config");
  d.moe.mxfp4 = quant && quant->string_or("quant_method", "") == "mxfp4";
  // Even layers slide, odd layers attend fully, unless layer_types says otherwise.
  d.windows = layer_windows(cfg, t.arch.num_layers, cfg.count_or("sliding_window", 128),
                            [](uint64_t i) { return (i + 1) % 2 == 1; });
  build_moe_decoder(t, d);
}

void build_phimoe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "PhimoeForCausalLM";
  t.arch.norm = NormKind::LayerNorm;
  DecoderDefaults dd;
  dd.vocab_size = 32064;
  dd.intermediate_size = 6400;
  dd.num_key_value_heads = 8;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_local_experts"}, 16, 2, t.arch.intermediate_size);
  MoeDecoder d = all_sparse(t.arch);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.windows = uniform_windows(t.arch.num_layers, cfg.count_or("sliding_window", 0));
  // Mixtral's checkpoint layout; in memory the router is mlp.router.
  d.moe = block_sparse_moe_layout();
  d.moe.router = "router";
  d.moe.disk_router = "gate";
  d.norm_bias = true;  // nn.LayerNorm throughout
  d.lm_head_bias = cfg.flag_or("lm_head_bias", false);
  build_moe_decoder(t, d);
}

// ERNIE 4.5 MoE: layers from moe_layer_start_index (1) to moe_layer_end_index (-1: the last), every
// moe_layer_interval-th of them, route; the others are dense.
std::vector<bool> ernie_sparse_layers(const ModelConfig& cfg, uint64_t layers) {
  const uint64_t start = cfg.count_or("moe_layer_start_index", 1);
  int64_t end = -1;
  if (const json::Value* v = cfg.raw("moe_layer_end_index"); v && !v->is_null()) {
    if (!v->as_int()) cfg.fail("moe_layer_end_index", "must be an integer");
    end = *v->as_int();
  }
  const uint64_t last = end < 0 ? layers - 1 : static_cast<uint64_t>(end);
  const uint64_t interval = cfg.dim_or("moe_layer_interval", 1);
  std::vector<bool> sparse(layers);
  for (uint64_t i = 0; i < layers; ++i) sparse[i] = (i + 1) % interval == 0 && i >= start && i <= last;
  return sparse;
}

}  // namespace

std::vector<bool> qwen_sparse_layers(const ModelConfig& cfg, const ArchitectureRecord& a) {
  uint64_t step = cfg.dim_or("decoder_sparse_step", 1);
  std::vector<int64_t> dense = cfg.ints("mlp_only_layers");
  std::vector<bool> sparse(a.num_layers);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    bool listed = std::find(dense.begin(), dense.end(), static_cast<int64_t>(i)) != dense.end();
    sparse[i] = !listed && a.num_experts > 0 && (i + 1) % step == 0;
  }
  return sparse;
}

DecoderDefaults ernie4_5_moe_defaults() {
  DecoderDefaults d;
  d.vocab_size = 103424;
  d.hidden_size = 2560;
  d.intermediate_size = 12288;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 20;
  d.num_key_value_heads = 4;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 131072;
  return d;
}

namespace {

void build_ernie4_5_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Ernie4_5_MoeForCausalLM";
  read_decoder_dims(cfg, ernie4_5_moe_defaults(), t);
  read_experts(cfg, t, {"moe_num_experts", "num_experts"}, 64, cfg.dim_or("moe_k", 6),
               cfg.dim_or("moe_intermediate_size", 1536));
  MoeDecoder d = all_sparse(t.arch);
  d.sparse = ernie_sparse_layers(cfg, t.arch.num_layers);
  d.dense_inter = t.arch.intermediate_size;
  // One use_bias for the attention, the dense and shared MLPs and the head; the experts never have one.
  d.attn.qkv_bias = d.attn.o_bias = d.mlp_bias = d.lm_head_bias = cfg.flag_or("use_bias", false);
  d.moe.statics_bias = true;
  t.arch.num_shared_experts = cfg.count_or("moe_num_shared_experts", 2);
  d.moe.shared_experts = t.arch.num_shared_experts > 0;
  d.moe.shared_inter = t.arch.num_shared_experts * t.arch.moe_intermediate_size;
  // The larger checkpoints keep a multi-token-prediction module transformers does not load.
  t.known_extras.push_back({"model.mtp", "multi-token-prediction module: transformers skips it"});
  build_moe_decoder(t, d);
}

// Laguna (poolside): Qwen3-MoE's experts behind a sigmoid router with a score bias, a shared MLP, dense
// layers where mlp_layer_types says so (the first, by default), and attention whose query head count varies
// by layer (num_attention_heads_per_layer: XS.2 gives its sliding layers 64 heads, its full ones 48), each
// head's output scaled by a softplus gate of its own (g_proj).
std::vector<uint64_t> laguna_heads(const ModelConfig& cfg, const ArchitectureRecord& a) {
  std::vector<int64_t> listed = cfg.ints("num_attention_heads_per_layer");
  if (listed.empty()) return std::vector<uint64_t>(a.num_layers, a.num_attention_heads);
  if (listed.size() != a.num_layers)
    cfg.fail("num_attention_heads_per_layer",
             "must list one head count per layer (" + std::to_string(a.num_layers) + ")");
  std::vector<uint64_t> heads;
  for (int64_t h : listed) {
    if (h <= 0 || static_cast<uint64_t>(h) % a.num_key_value_heads != 0)
      cfg.fail("num_attention_heads_per_layer",
               "each head count must be a positive multiple of num_key_value_heads (" +
                   std::to_string(a.num_key_value_heads) + ")");
    heads.push_back(static_cast<uint64_t>(h));
  }
  return heads;
}

void build_laguna(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LagunaForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 100352;
  dd.hidden_size = 2048;
  dd.intermediate_size = 8192;
  dd.num_hidden_layers = 40;
  dd.num_attention_heads = 48;
  dd.num_key_value_heads = 8;
  dd.head_dim = 128;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(cfg, dd, t);
  read_experts(cfg, t, {"num_experts"}, 256, 8, cfg.dim_or("moe_intermediate_size", 512));
  MoeDecoder d = all_sparse(t.arch);
  d.heads = laguna_heads(cfg, t.arch);
  d.gate = OutputGate::PerHead;
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.sparse = sparse_from_mlp_layer_types(cfg, t.arch.num_layers, 1);
  d.dense_inter = t.arch.intermediate_size;
  d.windows = layer_windows(cfg, t.arch.num_layers, cfg.count_or("sliding_window", 512),
                            [](uint64_t) { return false; });
  d.moe.router_score_bias = true;
  d.moe.shared_experts = true;
  d.moe.disk_shared_name = "shared_expert";
  d.moe.shared_inter = cfg.dim_or("shared_expert_intermediate_size", 512);
  t.arch.num_shared_experts = 1;
  build_moe_decoder(t, d);
}

// AFMoE (Arcee's Trinity): Llama's attention with q/k norms and a sigmoid gate on every output element,
// norms before and after both attention and MLP, num_dense_layers dense layers, then Qwen2-MoE's experts
// behind a sigmoid router (mlp.router.gate) with a score bias (mlp.expert_bias) beside num_shared_experts
// shared ones as one MLP. Every global_attn_every_n_layers-th layer attends fully, the others slide.
void build_afmoe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "AfmoeForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 200192;
  dd.hidden_size = 2048;
  dd.intermediate_size = 6144;
  dd.num_hidden_layers = 32;
  dd.num_attention_heads = 16;
  dd.head_dim = 128;
  dd.max_position_embeddings = 16384;
  read_decoder_dims(cfg, dd, t);
  ArchitectureRecord& a = t.arch;
  read_experts(cfg, t, {"num_experts"}, 64, 6, cfg.dim_or("moe_intermediate_size", 1408));
  MoeDecoder d = all_sparse(a);
  d.attn.qk_norm = true;  // AfmoeConfig sets attention_bias false whatever the file says
  d.gate = OutputGate::PerElement;
  d.mlp_norms = true;
  const uint64_t dense = cfg.count_or("num_dense_layers", 1);
  for (uint64_t i = 0; i < a.num_layers; ++i) d.sparse[i] = i >= dense;
  d.dense_inter = a.intermediate_size;
  const uint64_t period = cfg.dim_or("global_attn_every_n_layers", 4);
  d.windows = layer_windows(cfg, a.num_layers, cfg.count_or("sliding_window", 1024),
                            [&](uint64_t i) { return (i + 1) % period != 0; });
  d.moe.router = "router.gate";
  d.moe.expert_bias = true;
  a.num_shared_experts = cfg.count_or("num_shared_experts", 2);
  d.moe.shared_experts = a.num_shared_experts > 0;
  d.moe.shared_inter = a.num_shared_experts * a.moe_intermediate_size;
  build_moe_decoder(t, d);
}

// Hunyuan-MoE (Hunyuan-A13B, transformers' HunYuanMoEV1): Hunyuan-dense's attention (query_layernorm and
// key_layernorm after rotary) and, in every layer, num_experts routed experts behind mlp.gate.wg beside one
// shared MLP (shared_mlp), experts and shared MLP both intermediate_size wide: transformers reads neither
// moe_intermediate_size nor num_shared_expert (llama.cpp's converter, too, sizes both from
// intermediate_size). moe_topk may be listed per layer; the layers must then agree.
void build_hunyuan_v1_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "HunYuanMoEV1ForCausalLM";
  DecoderDefaults dd;
  dd.vocab_size = 290943;
  read_decoder_dims(cfg, dd, t);
  ArchitectureRecord& a = t.arch;
  uint64_t top_k = 1;
  if (const json::Value* v = cfg.raw("moe_topk"); v && v->is_array()) {
    const std::vector<int64_t> per_layer = cfg.ints("moe_topk");
    if (per_layer.size() != a.num_layers)
      cfg.fail("moe_topk", "must list one count per layer (" + std::to_string(a.num_layers) + ")");
    for (int64_t k : per_layer)
      if (k != per_layer.front() || k < 1)
        cfg.fail("moe_topk", "must list one positive count for every layer");
    top_k = static_cast<uint64_t>(per_layer.front());
  } else {
    top_k = cfg.dim_or("moe_topk", 1);
  }
  if (!cfg.has("num_experts_per_tok") && top_k > count_of(cfg, {"num_experts", "num_local_experts"}, 1))
    cfg.fail("moe_topk", "must not exceed num_experts");
  read_experts(cfg, t, {"num_experts", "num_local_experts"}, 1, top_k, a.intermediate_size);
  MoeDecoder d = all_sparse(a);
  d.attn.qkv_bias = d.attn.o_bias = cfg.flag_or("attention_bias", false);
  d.attn.qk_norm = true;
  d.attn.q_norm = "query_layernorm";
  d.attn.k_norm = "key_layernorm";
  d.moe.router = "gate.wg";
  d.moe.shared_experts = true;
  d.moe.shared_name = "shared_mlp";
  d.moe.shared_inter = a.intermediate_size;
  a.num_shared_experts = 1;
  build_moe_decoder(t, d);
}

// DBRX names everything its own way and fuses q/k/v into one projection; its nested attn_config and
// ffn_config hold the attention and expert numbers.
void read_dbrx_dims(const ModelConfig& cfg, ArchitectureRecord& a) {
  a.hidden_size = cfg.dim_or("d_model", 2048);
  a.num_attention_heads = cfg.dim_or("n_heads", 16);
  a.num_layers = cfg.layers_or("n_layers", 24);
  a.max_position_embeddings = cfg.count_or("max_seq_len", 2048);
  a.vocab_size = cfg.dim_or("vocab_size", 32000);
  if (cfg.flag_or("tie_word_embeddings", false)) cfg.fail("tie_word_embeddings", "is not supported by DBRX");
  if (a.hidden_size % a.num_attention_heads != 0)
    cfg.fail("n_heads", "must divide d_model (" + std::to_string(a.hidden_size) + ")");
  a.head_dim = a.hidden_size / a.num_attention_heads;
  std::optional<ModelConfig> attn = cfg.sub("attn_config");
  a.num_key_value_heads = attn ? attn->dim_or("kv_n_heads", 1) : 1;
  if (a.num_attention_heads % a.num_key_value_heads != 0)
    (attn ? *attn : cfg)
        .fail("kv_n_heads", "must divide n_heads (" + std::to_string(a.num_attention_heads) + ")");
  std::optional<ModelConfig> ffn = cfg.sub("ffn_config");
  a.intermediate_size = a.moe_intermediate_size = ffn ? ffn->dim_or("ffn_hidden_size", 3584) : 3584;
  a.num_experts = ffn ? ffn->dim_or("moe_num_experts", 4) : 4;
  a.experts_per_token = ffn ? ffn->dim_or("moe_top_k", 1) : 1;
  if (a.experts_per_token > a.num_experts)
    (ffn ? *ffn : cfg)
        .fail("moe_top_k", "must not exceed moe_num_experts (" + std::to_string(a.num_experts) + ")");
}

void build_dbrx(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DbrxForCausalLM";
  read_dbrx_dims(cfg, t.arch);
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, stacked = a.num_experts * a.intermediate_size;
  blocks::embedding(t, "transformer.wte.weight", a.vocab_size, h);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "transformer.blocks");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = "transformer.blocks." + std::to_string(i);
    blocks::norm(t, p + ".norm_attn_norm.norm_1", h, false);
    blocks::linear(t, p + ".norm_attn_norm.attn.Wqkv", h, h + 2 * a.num_key_value_heads * a.head_dim, false);
    blocks::linear(t, p + ".norm_attn_norm.attn.out_proj", h, h, false);
    blocks::norm(t, p + ".norm_attn_norm.norm_2", h, false);
    blocks::linear(t, p + ".ffn.router.layer", h, a.num_experts, false);
    // Experts stay stacked along the first axis ([E * ffn_hidden, d_model]), in memory and on disk.
    for (const char* w : {"w1", "v1", "w2"}) blocks::routed(t, p + ".ffn.experts.mlp." + w, {stacked, h});
    stack.layers.push_back(attention_layer(a, 0, Ffn::Moe));
  }
  blocks::norm(t, "transformer.norm_f", h, false);
  t.add("lm_head.weight", {a.vocab_size, h});
}

constexpr std::array kMoeDecoderFamilies{
    FamilyBuilder{"mixtral", build_mixtral},
    FamilyBuilder{"qwen2_moe", build_qwen2_moe},
    FamilyBuilder{"qwen3_moe", build_qwen3_moe},
    FamilyBuilder{"olmoe", build_olmoe},
    FamilyBuilder{"granitemoe", build_granitemoe},
    FamilyBuilder{"dbrx", build_dbrx},
    FamilyBuilder{"minimax_m2", build_minimax_m2},
    FamilyBuilder{"gpt_oss", build_gpt_oss},
    FamilyBuilder{"phimoe", build_phimoe},
    FamilyBuilder{"ernie4_5_moe", build_ernie4_5_moe},
    FamilyBuilder{"granitemoeshared", build_granitemoeshared},
    FamilyBuilder{"laguna", build_laguna},
    FamilyBuilder{"afmoe", build_afmoe},
    FamilyBuilder{"hunyuan_v1_moe", build_hunyuan_v1_moe},
};

}  // namespace

std::span<const FamilyBuilder> moe_decoders() {
  return kMoeDecoderFamilies;
}

}  // namespace ma::families
