// MiniMax-M3 (minimax_m3_vl, MiniMaxM3SparseForConditionalGeneration): MiniMax-M2's mixture with per-head q/k
// norms, dense layers first and one shared expert beside 128 routed ones, a Lightning indexer on its sparse-
// attention layers (a single key head it caches beside K and V; no weights projection, unlike
// DeepSeek-V3.2's), a CLIP-style vision tower and a projector that maps each patch before merging 2 x 2.
// Which layers are dense and which are sparse-attention: the lists transformers writes (mlp_layer_types,
// layer_types) or the Hub config's (moe_layer_freq, sparse_attention_config.sparse_attention_freq); with
// neither, every layer is a mixture and none has an indexer. Its checkpoints store the remote code's names
// (language_model.model.*, block_sparse_moe with per-expert w1/w3/w2, index_q_proj ...), which transformers
// renames and fuses on load.
#include <array>
#include <optional>

#include "core/checked.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// Per layer, the Hub config's 0/1 list `key` under `in` (moe_layer_freq, sparse_attention_freq); `otherwise`
// for every layer when it has none.
std::vector<bool> hub_layer_flags(const ModelConfig& in, const std::string& key, uint64_t layers,
                                  bool otherwise) {
  std::vector<bool> on(layers, otherwise);
  if (!in.has(key)) return on;
  const std::vector<int64_t> f = in.ints(key);
  in.check_layer_list(key, f.size());
  for (uint64_t i = 0; i < layers; ++i) on[i] = f[i] != 0;
  return on;
}

// The sparse-attention layers: transformers' layer_types ("minimax_m3_sparse" or "full_attention"), else
// the Hub's sparse_attention_freq, else none.
std::vector<bool> indexed_layers(const ModelConfig& text, const ModelConfig& sparse, uint64_t layers) {
  if (!text.has("layer_types")) return hub_layer_flags(sparse, "sparse_attention_freq", layers, false);
  const std::vector<std::string> types = text.strings("layer_types");
  text.check_layer_list("layer_types", types.size());
  std::vector<bool> on(layers);
  for (uint64_t i = 0; i < layers; ++i) on[i] = types[i] == "minimax_m3_sparse";
  return on;
}

struct Indexer {
  uint64_t heads = 4, head_dim = 128, topk = 2048;
};

// The flat index_* fields transformers writes, else the Hub's sparse_attention_config.
Indexer read_indexer(const ModelConfig& text, const ModelConfig& sparse) {
  Indexer x;
  x.heads =
      text.has("index_n_heads") ? text.dim("index_n_heads") : sparse.dim_or("sparse_num_index_heads", 4);
  x.head_dim =
      text.has("index_head_dim") ? text.dim("index_head_dim") : sparse.dim_or("sparse_index_dim", 128);
  const uint64_t block =
      text.has("index_block_size") ? text.dim("index_block_size") : sparse.dim_or("sparse_block_size", 128);
  const uint64_t blocks =
      text.has("index_topk_blocks") ? text.dim("index_topk_blocks") : sparse.dim_or("sparse_topk_blocks", 16);
  const std::optional<uint64_t> topk = checked_mul(block, blocks);  // each at most 2^26
  if (!topk) text.fail("index_topk_blocks", "times index_block_size overflows 64-bit arithmetic");
  x.topk = *topk;
  return x;
}

void build_minimax_m3_vl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MiniMaxM3SparseForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  DecoderDefaults dd;  // MiniMaxM3VLTextConfig's
  dd.vocab_size = 200064;
  dd.hidden_size = 6144;
  dd.intermediate_size = 3072;
  dd.num_hidden_layers = 60;
  dd.num_attention_heads = 64;
  dd.num_key_value_heads = 4;
  dd.head_dim = 128;
  dd.max_position_embeddings = 1048576;
  read_decoder_dims(text, dd, t);
  t.arch.model_type = "minimax_m3_vl_text";
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);  // only the top-level flag ties
  read_experts(text, t, {"num_local_experts", "num_experts"}, 128, 4, t.arch.intermediate_size);
  ArchitectureRecord& a = t.arch;
  a.num_shared_experts = 1;  // always one, whatever n_shared_experts says
  const uint64_t layers = a.num_layers;
  const ModelConfig sparse = sub_or_empty(text, "sparse_attention_config");
  MoeDecoder d = all_sparse(a);
  d.root = "model.language_model.";
  d.sparse = text.has("mlp_layer_types") ? sparse_from_mlp_layer_types(text, layers, 0)
                                         : hub_layer_flags(text, "moe_layer_freq", layers, true);
  d.dense_inter = text.dim_or("dense_intermediate_size", 12288);
  d.attn.qk_norm = true;  // per head
  d.moe = block_sparse_moe_layout();
  d.moe.correction_bias = true;
  d.moe.correction_bias_name = "gate.e_score_correction_bias";
  d.moe.shared_experts = true;
  d.moe.shared_inter = text.dim_or("shared_intermediate_size", 3072);
  d.moe.disk_shared_name = "shared_experts";
  build_moe_decoder(t, d);
  const std::vector<bool> indexed = indexed_layers(text, sparse, layers);
  const Indexer x = read_indexer(text, sparse);
  StackSpec& stack = *t.arch.stack(StackRole::Decoder);
  for (uint64_t i = 0; i < layers; ++i) {
    if (!indexed[i]) continue;
    const std::string p = d.root + "layers." + std::to_string(i) + ".self_attn.";
    blocks::linear(t, p + "indexer.q_proj", a.hidden_size, x.heads * x.head_dim, false);
    blocks::linear(t, p + "indexer.k_proj", a.hidden_size, x.head_dim, false);
    blocks::norm(t, p + "indexer.q_norm", x.head_dim, false);
    blocks::norm(t, p + "indexer.k_norm", x.head_dim, false);
    for (const char* part : {"q_proj.", "k_proj.", "q_norm.", "k_norm."})
      t.rename_on_disk(p + "indexer." + part, p + "index_" + part);
    AttentionShape& at = stack.layers[i].attention;
    at.indexer_heads = x.heads;
    at.indexer_head_dim = x.head_dim;
    at.indexer_topk = x.topk;
  }
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const uint64_t width = minimax_m3_vision_tower(vision, "model.vision_tower.", t);
  // Each patch is projected first, then 2 x 2 neighbours' projections merge into one token.
  const std::string p = "model.multi_modal_projector.";
  const uint64_t mid = cfg.dim_or("projector_hidden_size", 6144),
                 merge = vision.dim_or("spatial_merge_size", 2);
  const std::optional<uint64_t> merged = checked_mul(a.hidden_size, merge * merge);  // each at most 2^26
  if (!merged) vision.fail("spatial_merge_size", "squared times the text width overflows 64-bit arithmetic");
  blocks::linear(t, p + "linear_1", width, mid, true);
  blocks::linear(t, p + "linear_2", mid, a.hidden_size, true);
  blocks::linear(t, p + "merge_linear_1", *merged, mid, true);
  blocks::linear(t, p + "merge_linear_2", mid, a.hidden_size, true);
  record_projector(t, "model.multi_modal_projector");
  t.rename_on_disk(p + "merge_linear_", "patch_merge_mlp.linear_");
  t.rename_on_disk(p, "multi_modal_projector.");
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
  t.known_extras.push_back(
      {"language_model.model.mtp.", "multi-token-prediction modules: transformers skips them"});
}

constexpr std::array kMinimaxM3Families{FamilyBuilder{"minimax_m3_vl", build_minimax_m3_vl}};

}  // namespace

std::span<const FamilyBuilder> minimax_m3() {
  return kMinimaxM3Families;
}

}  // namespace ma::families
