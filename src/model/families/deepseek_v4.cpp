// DeepSeek-V4 (Flash, Pro): every layer a mixture of experts (the first num_hash_layers routed by a token
// hash), under attention that is neither MLA nor GQA. Queries keep V3's low-rank path (q_a, q_b) into heads
// of head_dim 512; keys and values are one shared head (kv_proj), cached once; the output projection is
// grouped and low-rank (o_a into o_groups x o_lora_rank, then o_b); each head learns an attention-sink
// logit. Per layer_types a layer attends over a sliding window only, or also over compressed entries: HCA
// ("heavily compressed") pools every 128 tokens into one head_dim entry, CSA ("compressed sparse") every 4
// tokens from overlapping windows (twice as wide) and scores them with its Lightning Indexer, which keeps
// compressed keys of its own. Manifold-constrained hyper-connections mix hc_mult copies of the residual
// stream around attention and MLP (attn_hc, ffn_hc) and before the head (hc_head).
//
// Built as transformers' DeepseekV4ForCausalLM names it. DeepSeek's own checkpoints name everything their
// own way (layers.N.attn.wq_a, ffn.experts.E.w1, ...) and store FP8 blocks and FP4 experts with scales
// (deepseek_v4_checkpoint.h gives the template that form), plus multi-token-prediction stages (mtp.*) that
// transformers skips.
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/deepseek_v4_checkpoint.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"

namespace ma::families {
namespace {

enum class V4Attention : uint8_t { Sliding, Compressed, HeavilyCompressed };

// layer_types when listed, else the legacy compress_ratios of the Hub configs (0: sliding, 4: CSA, 128: HCA;
// entries past num_hidden_layers are the multi-token-prediction stages', dropped), else DeepseekV4Config's
// default: two HCA layers, then CSA and HCA alternating.
std::vector<V4Attention> attention_kinds(const ModelConfig& cfg, uint64_t layers) {
  std::vector<V4Attention> kinds;
  if (const std::vector<std::string> types = cfg.strings("layer_types"); !types.empty()) {
    if (types.size() < layers)
      cfg.fail("layer_types", "must list at least one type per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      if (types[i] == "sliding_attention")
        kinds.push_back(V4Attention::Sliding);
      else if (types[i] == "compressed_sparse_attention")
        kinds.push_back(V4Attention::Compressed);
      else if (types[i] == "heavily_compressed_attention")
        kinds.push_back(V4Attention::HeavilyCompressed);
      else
        cfg.fail("layer_types",
                 "entries must be sliding_attention, compressed_sparse_attention or "
                 "heavily_compressed_attention, not \"" +
                     types[i] + "\"");
    }
    return kinds;
  }
  if (const std::vector<int64_t> ratios = cfg.ints("compress_ratios"); !ratios.empty()) {
    if (ratios.size() < layers)
      cfg.fail("compress_ratios", "must list at least one ratio per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      if (ratios[i] == 0)
        kinds.push_back(V4Attention::Sliding);
      else if (ratios[i] == 4)
        kinds.push_back(V4Attention::Compressed);
      else if (ratios[i] == 128)
        kinds.push_back(V4Attention::HeavilyCompressed);
      else
        cfg.fail("compress_ratios", "entries must be 0, 4 or 128 (DeepseekV4Config maps no other)");
    }
    return kinds;
  }
  for (uint64_t i = 0; i < layers; ++i)
    kinds.push_back(i < 2 || i % 2 == 0 ? V4Attention::HeavilyCompressed : V4Attention::Compressed);
  return kinds;
}

// Per layer, whether a token hash routes it (mlp_layer_types "hash_moe", else the first num_hash_layers).
std::vector<bool> hash_routed(const ModelConfig& cfg, uint64_t layers) {
  std::vector<bool> hash(layers);
  if (const std::vector<std::string> types = cfg.strings("mlp_layer_types"); !types.empty()) {
    if (types.size() < layers)
      cfg.fail("mlp_layer_types", "must list at least one type per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      if (types[i] != "hash_moe" && types[i] != "moe")
        cfg.fail("mlp_layer_types", "entries must be hash_moe or moe, not \"" + types[i] + "\"");
      hash[i] = types[i] == "hash_moe";
    }
    return hash;
  }
  const uint64_t n = cfg.count_or("num_hash_layers", 3);
  for (uint64_t i = 0; i < layers; ++i) hash[i] = i < n;
  return hash;
}

// compress_rates {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}, or the legacy
// compress_rate_csa / compress_rate_hca that override them.
std::pair<uint64_t, uint64_t> compress_rates(const ModelConfig& cfg) {
  uint64_t csa = 4, hca = 128;
  if (const std::optional<ModelConfig> rates = cfg.sub("compress_rates")) {
    csa = rates->dim_or("compressed_sparse_attention", csa);
    hca = rates->dim_or("heavily_compressed_attention", hca);
  }
  return {cfg.dim_or("compress_rate_csa", csa), cfg.dim_or("compress_rate_hca", hca)};
}

// A hyper-connection's mixing weights: fn [(2 + hc) x hc, hc x H], base [(2 + hc) x hc], scale [3].
void hyper_connection(ModelTemplate& t, const std::string& p, uint64_t hc, uint64_t h) {
  const uint64_t mix = (2 + hc) * hc;
  t.add(p + ".fn", {mix, hc * h});
  t.add(p + ".base", {mix});
  t.add(p + ".scale", {3});
}

// A compressor's projections and positional bias: `width` wide (twice head_dim for CSA's overlapping
// windows), its norm over `head_dim`.
void compressor(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t width, uint64_t head_dim,
                uint64_t rate) {
  blocks::linear(t, p + ".kv_proj", h, width, false);
  blocks::linear(t, p + ".gate_proj", h, width, false);
  t.add(p + ".position_bias", {rate, width});
  blocks::norm(t, p + ".kv_norm", head_dim, false);
}

void build_deepseek_v4(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DeepseekV4ForCausalLM";
  DecoderDefaults d;  // DeepseekV4Config's: V4-Flash's sizes
  d.vocab_size = 129280;
  d.intermediate_size = 2048;  // an alias of moe_intermediate_size
  d.num_hidden_layers = 43;
  d.num_attention_heads = 64;
  d.num_key_value_heads = 1;
  d.head_dim = 512;
  d.max_position_embeddings = 1048576;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  a.num_key_value_heads = 1;  // one shared key-value head, whatever num_key_value_heads says
  const uint64_t h = a.hidden_size, heads = a.num_attention_heads, hd = a.head_dim;
  const uint64_t q_rank = cfg.dim_or("q_lora_rank", 1024);
  const uint64_t groups = cfg.dim_or("o_groups", 8), o_rank = cfg.dim_or("o_lora_rank", 1024);
  if ((heads * hd) % groups != 0)
    cfg.fail("o_groups", "must divide num_attention_heads x head_dim (" + std::to_string(heads * hd) + ")");
  const uint64_t index_heads = cfg.dim_or("index_n_heads", 64), index_dim = cfg.dim_or("index_head_dim", 128);
  const uint64_t hc = cfg.dim_or("hc_mult", 4);
  const auto [csa_rate, hca_rate] = compress_rates(cfg);
  read_experts(cfg, t, {"n_routed_experts", "num_local_experts"}, 256, 6,
               cfg.dim_or("moe_intermediate_size", a.intermediate_size));
  a.intermediate_size = a.moe_intermediate_size;
  a.num_shared_experts = 1;  // one MLP moe_intermediate_size wide, whatever n_shared_experts says
  const uint64_t inter = a.moe_intermediate_size;
  const bool mlp_bias = cfg.flag_or("mlp_bias", false);
  const uint64_t window = window_or_none(cfg, 128);
  const std::vector<V4Attention> kinds = attention_kinds(cfg, a.num_layers);
  const std::vector<bool> hash = hash_routed(cfg, a.num_layers);

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i), at = p + ".self_attn";
    blocks::linear(t, at + ".q_a_proj", h, q_rank, false);
    blocks::norm(t, at + ".q_a_norm", q_rank, false);
    blocks::linear(t, at + ".q_b_proj", q_rank, heads * hd, false);
    blocks::linear(t, at + ".kv_proj", h, hd, false);
    blocks::norm(t, at + ".kv_norm", hd, false);
    blocks::linear(t, at + ".o_a_proj", heads * hd / groups, groups * o_rank, false);
    blocks::linear(t, at + ".o_b_proj", groups * o_rank, h, false);
    t.add(at + ".sinks", {heads});
    LayerSpec l = attention_layer(a, window, Ffn::Moe);
    l.attention.kv_stored_once = l.attention.keys_are_values = true;
    if (kinds[i] == V4Attention::HeavilyCompressed) {
      compressor(t, at + ".compressor", h, hd, hd, hca_rate);
      l.attention.compress_ratio = hca_rate;
      l.attention.compressed_width = hd;
    } else if (kinds[i] == V4Attention::Compressed) {
      compressor(t, at + ".compressor", h, 2 * hd, hd, csa_rate);
      const std::string ix = at + ".compressor.indexer";
      compressor(t, ix, h, 2 * index_dim, index_dim, csa_rate);
      blocks::linear(t, ix + ".q_b_proj", q_rank, index_heads * index_dim, false);
      blocks::linear(t, ix + ".scorer.weights_proj", h, index_heads, false);
      l.attention.compress_ratio = csa_rate;
      l.attention.compressed_width = hd + index_dim;  // the compressor's entries and the indexer's keys
    }
    // Hash layers keep their router's weight and a token-to-expert table; the others a score correction.
    t.add(p + ".mlp.gate.weight", {a.num_experts, h});
    TemplateTensor& table = hash[i] ? t.add(p + ".mlp.gate.tid2eid", {a.vocab_size, a.experts_per_token})
                                    : t.add(p + ".mlp.gate.e_score_correction_bias", {a.num_experts});
    table.kind = TensorKind::Buffer;
    blocks::fused_experts(t, p + ".mlp.experts", a.num_experts, h, inter, {p + ".mlp.experts"});
    blocks::gated_mlp(t, p + ".mlp.shared_experts", h, inter, mlp_bias);
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
    hyper_connection(t, p + ".attn_hc", hc, h);
    hyper_connection(t, p + ".ffn_hc", hc, h);
    l.ffn.shared_intermediate = inter;
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", h, false);
  t.add("model.hc_head.hc_fn", {hc, hc * h});
  t.add("model.hc_head.hc_base", {hc});
  t.add("model.hc_head.hc_scale", {1});
  lm_head(t, "model.embed_tokens.weight", a);
  t.known_extras.push_back({"mtp.", "multi-token-prediction stages: transformers skips them"});
  if (deepseek_v4_upstream_form(cfg)) use_upstream_checkpoint_names(cfg, t);
}

constexpr std::array kDeepseekV4Families{FamilyBuilder{"deepseek_v4", build_deepseek_v4}};

}  // namespace

std::span<const FamilyBuilder> deepseek_v4() {
  return kDeepseekV4Families;
}

}  // namespace ma::families
