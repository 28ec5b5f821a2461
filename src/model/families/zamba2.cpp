// Zamba2 (Zyphra: Zamba2-1.2B, -2.7B, -7B; Zamba2ForCausalLM), and Zamba (Zamba-7B) at the end. Every layer
// runs a Mamba-2 mixer; the "hybrid" layers first run a transformer block shared across the model
// (num_mem_blocks of them, visited in turn), whose attention reads the hidden state concatenated with the
// original embeddings (2 x hidden wide, head dim 2 x hidden / heads), then project its output back through a
// `linear` of their own. Each visit j adds its own rank-adapter_rank LoRA pair to the block's gate_up_proj
// (always) and to q, k and v (use_shared_attention_adapter); visit j uses block j % num_mem_blocks.
//
// The block's weights exist once: under the first hybrid layer that visits it, as the Hub checkpoints store
// them, the other visits' names being tied copies. That is what transformers 4.48-4.57 built; transformers 5
// ties the blocks by layer index instead, which cannot build two blocks (Zamba2-2.7B, -7B raise at
// construction), and leaves them untied with tie_word_embeddings off. Config fields the config class
// recomputes (attention_hidden_size, attention_head_dim, mamba_headdim, hybrid_layer_ids) are not read.
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/state_space_blocks.h"

namespace ma::families {
namespace {

struct SharedBlocks {
  uint64_t blocks = 1, rank = 128, intermediate = 0;
  bool attention_adapters = false, bias = false;
};

// layers_block_type (alias layer_types): "hybrid" or "mamba" / "linear_attention" per layer; absent, the
// config class's own list, Zamba2-2.7B's 54 layers with hybrids at 6, 12, ..., 42, 47 and 51.
std::vector<bool> hybrid_layers(const ModelConfig& cfg, uint64_t layers) {
  std::vector<std::string> types =
      cfg.strings(cfg.has("layers_block_type") ? "layers_block_type" : "layer_types");
  if (types.empty()) {
    types.assign(54, "mamba");
    for (size_t i : {6, 12, 18, 24, 30, 36, 42, 47, 51}) types[i] = "hybrid";
    if (layers != types.size())
      cfg.fail("layers_block_type", "must be given when num_hidden_layers is not the default 54");
  }
  if (types.size() != layers)
    cfg.fail("layers_block_type", "must list one type per layer (" + std::to_string(layers) + ")");
  std::vector<bool> hybrid(layers);
  for (uint64_t i = 0; i < layers; ++i) {
    if (types[i] != "hybrid" && types[i] != "mamba" && types[i] != "linear_attention")
      cfg.fail("layers_block_type", "must hold \"hybrid\" or \"mamba\", not \"" + types[i] + "\"");
    hybrid[i] = types[i] == "hybrid";
  }
  return hybrid;
}

// The shared block under `p` (the shared_transformer of the first hybrid layer that visits it), with the
// adapters of the visits in `visits`.
void shared_block(ModelTemplate& t, const std::string& p, const SharedBlocks& s,
                  const std::vector<uint64_t>& visits) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, wide = 2 * h, hd = a.head_dim;
  blocks::norm(t, p + ".input_layernorm", wide, false);
  blocks::linear(t, p + ".self_attn.q_proj", wide, a.num_attention_heads * hd, false);
  blocks::linear(t, p + ".self_attn.k_proj", wide, a.num_key_value_heads * hd, false);
  blocks::linear(t, p + ".self_attn.v_proj", wide, a.num_key_value_heads * hd, false);
  blocks::linear(t, p + ".self_attn.o_proj", a.num_attention_heads * hd, h, false);
  blocks::norm(t, p + ".pre_ff_layernorm", h, false);
  blocks::linear(t, p + ".feed_forward.gate_up_proj", h, 2 * s.intermediate, s.bias);
  blocks::linear(t, p + ".feed_forward.down_proj", s.intermediate, h, s.bias);
  for (uint64_t j : visits) {
    const std::string v = std::to_string(j);
    if (s.attention_adapters)
      for (const char* x : {"q", "k", "v"}) {
        const std::string list = p + ".self_attn.linear_" + x + "_adapter_list." + v;
        blocks::linear(t, list + ".0", wide, s.rank, false);
        blocks::linear(t, list + ".1", s.rank, wide, false);
      }
    const std::string list = p + ".feed_forward.gate_up_proj_adapter_list." + v;
    blocks::linear(t, list + ".0", h, s.rank, false);
    blocks::linear(t, list + ".1", s.rank, 2 * s.intermediate, false);
  }
}

// Where one shared block's tensors lie in the template, and the prefix they were built under.
struct BuiltBlock {
  std::string prefix;
  size_t first = 0, end = 0;
};

void build_zamba2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Zamba2ForCausalLM";
  DecoderDefaults d;  // Zamba2Config's
  d.hidden_size = 2560;
  d.num_hidden_layers = 54;
  d.max_position_embeddings = 4096;
  d.tie_word_embeddings = true;
  d.head_dim = 1;  // any: the config class derives it below from the attention's 2 x hidden width
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  if ((2 * h) % a.num_attention_heads != 0)
    cfg.fail("num_attention_heads", "must divide 2 x hidden_size (" + std::to_string(2 * h) + ")");
  a.head_dim = 2 * h / a.num_attention_heads;
  // Only use_mem_rope rotates the shared blocks' queries and keys (Zamba2-1.2B and -7B; not -2.7B).
  a.position = cfg.flag_or("use_mem_rope", false) ? PositionKind::Rope : PositionKind::None;
  SharedBlocks s;
  s.intermediate = a.intermediate_size = cfg.has("intermediate_size") ? cfg.dim("intermediate_size") : 4 * h;
  s.blocks = cfg.dim_or("num_mem_blocks", 1);
  s.rank = cfg.dim_or("adapter_rank", 128);
  s.attention_adapters = cfg.flag_or("use_shared_attention_adapter", false);
  s.bias = cfg.flag_or("add_bias_linear", false);
  if (s.attention_adapters && a.num_key_value_heads != a.num_attention_heads)
    cfg.fail("num_key_value_heads",
             "must equal num_attention_heads with use_shared_attention_adapter: the "
             "key and value adapters are 2 x hidden_size wide");
  ssm::Mamba2Mixer m;
  m.hidden = h;
  m.inner = ssm::expanded_width(cfg, "mamba_expand", 2, h);
  m.heads = cfg.dim_or("n_mamba_heads", 8);
  if (m.inner % m.heads != 0)
    cfg.fail("n_mamba_heads", "must divide mamba_expand x hidden_size (" + std::to_string(m.inner) + ")");
  m.groups = cfg.dim_or("mamba_ngroups", 1);
  m.state = cfg.dim_or("mamba_d_state", 64);
  m.conv = cfg.dim_or("mamba_d_conv", 4);
  m.chunk = cfg.count_or("chunk_size", 256);
  m.proj_bias = s.bias;  // the convolution's bias is always there: use_conv_bias is not read
  const std::vector<bool> hybrid = hybrid_layers(cfg, a.num_layers);
  std::vector<uint64_t> hybrid_ids;
  for (uint64_t i = 0; i < a.num_layers; ++i)
    if (hybrid[i]) hybrid_ids.push_back(i);

  std::vector<BuiltBlock> built;
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0, visit = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    LayerSpec l = attention_layer(a, 0, Ffn::Dense);
    l.state = ssm::state_of(m);
    if (!hybrid[i]) {
      ssm::mamba2_mixer(t, p + ".mamba", m);
      blocks::norm(t, p + ".input_layernorm", h, false);
      l.mixer = Mixer::Mamba2;
      l.ffn.kind = Ffn::None;
      stack.layers.push_back(l);
      continue;
    }
    // The shared block (built at its first visit, tied copies after), then the layer's own projection of
    // its output and its own Mamba-2 layer.
    const std::string shared = p + ".shared_transformer";
    if (visit < s.blocks) {
      std::vector<uint64_t> visits;
      for (uint64_t j = visit; j < hybrid_ids.size(); j += s.blocks) visits.push_back(j);
      BuiltBlock& b = built.emplace_back(BuiltBlock{shared, t.tensors.size(), 0});
      shared_block(t, shared, s, visits);
      b.end = t.tensors.size();
    } else {
      const BuiltBlock& b = built[visit % s.blocks];
      for (size_t k = b.first; k < b.end; ++k) {
        const std::string name = t.tensors[k].name;  // a copy: tie() appends to t.tensors
        t.tie(shared + name.substr(b.prefix.size()), name);
      }
    }
    blocks::linear(t, p + ".linear", h, h, false);
    ssm::mamba2_mixer(t, p + ".mamba_decoder.mamba", m);
    blocks::norm(t, p + ".mamba_decoder.input_layernorm", h, false);
    // Attention, then the mixer on its output: each adds its own cache.
    l.parallel = Mixer::Mamba2;
    l.mixers_in_sequence = true;
    stack.layers.push_back(l);
    ++visit;
  }
  blocks::norm(t, "model.final_layernorm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

// ---- Zamba (Zamba-7B): Mamba-1 layers, one shared block ----

// Zamba's Mamba mixer splits its d_inner channels into n_mamba_heads, each with its own x_proj, dt_proj, A
// and D (parameters named without .weight), around Mamba-1's convolution and projections.
void zamba_mamba(ModelTemplate& t, const std::string& p, const ssm::Mamba1Mixer& m, uint64_t heads) {
  const uint64_t per_head = m.inner / heads;
  t.add(p + ".x_proj_weight", {heads, m.dt_rank + 2 * m.state, per_head});
  t.add(p + ".dt_proj_weight", {heads, per_head, m.dt_rank});
  t.add(p + ".dt_proj_bias", {heads, per_head});
  t.add(p + ".A_log", {heads, per_head, m.state});
  t.add(p + ".D", {heads, per_head});
  t.add(p + ".conv1d.weight", {m.inner, 1, m.conv});
  if (m.conv_bias) t.add(p + ".conv1d.bias", {m.inner});
  blocks::linear(t, p + ".in_proj", m.hidden, 2 * m.inner, m.proj_bias);
  blocks::linear(t, p + ".out_proj", m.inner, m.hidden, m.proj_bias);
}

// layers_block_type (alias layer_types), else ZambaConfig's: layer 2 and every attn_layer_period-th from
// attn_layer_offset after the first three are hybrid (Zamba-7B: 2, 7, 13, ..., 73).
std::vector<bool> zamba_hybrid_layers(const ModelConfig& cfg, uint64_t layers) {
  if (cfg.has("layers_block_type") || cfg.has("layer_types")) return hybrid_layers(cfg, layers);
  const uint64_t period = cfg.dim_or("attn_layer_period", 6), offset = cfg.count_or("attn_layer_offset", 4);
  std::vector<bool> hybrid(layers);
  for (uint64_t i = 0; i < layers; ++i) hybrid[i] = i == 2 || (i >= 3 && (i - 3) % period == offset);
  return hybrid;
}

// Every layer runs a Mamba mixer; a hybrid layer first runs the shared transformer block (attention over the
// hidden state concatenated with the embeddings, without positions, then a gated MLP) and adds its output,
// through a linear of its own, to the mixer's input. transformers 5 shares the block by tying each hybrid
// layer's copy to the first's, and only when tie_word_embeddings holds (as it does for the head): otherwise
// every hybrid layer keeps a block of its own. The checkpoint stores the first hybrid layer's.
void build_zamba(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "ZambaForCausalLM";
  DecoderDefaults d;  // ZambaConfig's: Zamba-7B
  d.hidden_size = 3712;
  d.intermediate_size = 14848;
  d.num_hidden_layers = 76;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 16;
  d.max_position_embeddings = 4096;
  d.tie_word_embeddings = true;
  d.head_dim = 1;  // any: derived below from the attention's width
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  // `or` in the config class: absent, null or 0 all take the default.
  const uint64_t wide = cfg.count_or("attention_hidden_size", 0) ? cfg.dim("attention_hidden_size") : 2 * h;
  if (!cfg.count_or("attention_head_dim", 0) && wide % a.num_attention_heads != 0)
    cfg.fail("num_attention_heads", "must divide attention_hidden_size (" + std::to_string(wide) + ")");
  a.head_dim =
      cfg.count_or("attention_head_dim", 0) ? cfg.dim("attention_head_dim") : wide / a.num_attention_heads;
  a.position = PositionKind::None;
  // Its cache keeps the scan's state in float32 whatever the weights' dtype (the scan runs in it).
  a.ssm_cache_dtype = DType::F32;
  ssm::Mamba1Mixer m;
  m.hidden = h;
  m.inner = ssm::expanded_width(cfg, "mamba_expand", 2, h);
  m.state = cfg.dim_or("mamba_d_state", 16);
  m.conv = cfg.dim_or("mamba_d_conv", 4);
  m.dt_rank = ssm::dim_or_auto(cfg, "mamba_dt_rank", (h + 15) / 16);
  m.conv_bias = cfg.flag_or("mamba_conv_bias", true);
  m.proj_bias = cfg.flag_or("mamba_proj_bias", false);
  const uint64_t heads = cfg.dim_or("n_mamba_heads", 2);
  if (m.inner % heads != 0)
    cfg.fail("n_mamba_heads", "must divide mamba_expand x hidden_size (" + std::to_string(m.inner) + ")");
  const bool shared = a.tie_word_embeddings;
  const std::vector<bool> hybrid = zamba_hybrid_layers(cfg, a.num_layers);

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  std::string first;  // the first hybrid layer's block, which the others' copies are
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    LayerSpec l = attention_layer(a, 0, Ffn::Dense);
    l.state = ssm::state_of(m);
    if (!hybrid[i]) {
      zamba_mamba(t, p + ".mamba", m, heads);
      blocks::norm(t, p + ".input_layernorm", h, false);
      l.mixer = Mixer::Mamba;
      l.ffn.kind = Ffn::None;
      stack.layers.push_back(l);
      continue;
    }
    const std::string block = p + ".shared_transf";
    const size_t begin = t.tensors.size();
    const uint64_t q = a.num_attention_heads * a.head_dim, kv = a.num_key_value_heads * a.head_dim;
    blocks::linear(t, block + ".self_attn.q_proj", wide, q, false);
    blocks::linear(t, block + ".self_attn.k_proj", wide, kv, false);
    blocks::linear(t, block + ".self_attn.v_proj", wide, kv, false);
    blocks::linear(t, block + ".self_attn.o_proj", q, h, false);
    blocks::gated_mlp(t, block + ".feed_forward", h, a.intermediate_size);
    blocks::norm(t, block + ".input_layernorm", wide, false);
    blocks::norm(t, block + ".pre_ff_layernorm", h, false);
    if (first.empty()) {
      first = block;
    } else if (shared) {  // this layer's copy is the first's
      for (size_t k = begin; k < t.tensors.size(); ++k) {
        TemplateTensor& x = t.tensors[k];
        x.tied_to = first + x.name.substr(block.size());
        x.stored = false;
      }
    }
    blocks::linear(t, p + ".linear", h, h, false);
    zamba_mamba(t, p + ".mamba_decoder.mamba", m, heads);
    blocks::norm(t, p + ".mamba_decoder.input_layernorm", h, false);
    l.parallel = Mixer::Mamba;
    l.mixers_in_sequence = true;
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.final_layernorm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

constexpr std::array kZamba2Families{FamilyBuilder{"zamba2", build_zamba2},
                                     FamilyBuilder{"zamba", build_zamba}};

}  // namespace

std::span<const FamilyBuilder> zamba2() {
  return kZamba2Families;
}

}  // namespace ma::families
