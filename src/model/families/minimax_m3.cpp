// MiniMax-M3 (minimax_m3_vl, MiniMaxM3SparseForConditionalGeneration; minimax_m3_vl_text,
// MiniMaxM3VLForCausalLM or MiniMaxM3VLTextModel): MiniMax-M2's mixture with per-head q/k norms, dense layers
// first and one shared expert beside 128 routed ones, a Lightning indexer on its sparse-attention layers (a
// single key head it caches beside K and V; no weights projection, unlike DeepSeek-V3.2's), a CLIP-style
// vision tower and a projector that maps each patch before merging 2 x 2. Which layers are dense and which
// are sparse-attention: the lists transformers writes (mlp_layer_types, layer_types) or the Hub config's
// (moe_layer_freq, sparse_attention_config.sparse_attention_freq); with neither, every layer is a mixture and
// none has an indexer. The dense MLPs and the shared expert hold gate and up in one gate_up_proj [2I, H]
// (MiniMaxM3VLDenseMLP). The VL checkpoints store the remote code's names (language_model.model.*,
// block_sparse_moe with per-expert w1/w3/w2, gate_proj and up_proj apart, index_q_proj ...), which
// transformers renames and fuses on load; a text model alone is stored as held.
#include <array>
#include <optional>

#include "core/checked.h"
#include "model/families/encoders_common.h"
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
  // transformers indexes the list by layer: a shorter one fails there (IndexError).
  if (f.size() < layers) in.fail(key, "must list one entry per layer (" + std::to_string(layers) + ")");
  for (uint64_t i = 0; i < layers; ++i) on[i] = f[i] != 0;
  return on;
}

// The sparse-attention layers: transformers' layer_types ("minimax_m3_sparse" or "full_attention"), else
// the Hub's sparse_attention_freq, else none.
std::vector<bool> indexed_layers(const ModelConfig& text, const ModelConfig& sparse, uint64_t layers) {
  if (!text.has("layer_types")) return hub_layer_flags(sparse, "sparse_attention_freq", layers, false);
  const std::vector<std::string> types = text.strings("layer_types");
  text.check_layer_list("layer_types", types.size());
  if (types.size() < layers)
    text.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
  std::vector<bool> on(layers);
  for (uint64_t i = 0; i < layers; ++i) on[i] = types[i] == "minimax_m3_sparse";
  return on;
}

struct Indexer {
  uint64_t heads = 4, head_dim = 128, topk = 2048;
};

// MiniMaxM3VLTextConfig.__post_init__ pops the Hub's sparse_attention_config and copies each of its fields
// over the flat index_* one: the nested value wins, the flat field (or its default) stands otherwise.
Indexer read_indexer(const ModelConfig& text, const ModelConfig& sparse) {
  const auto field = [&](const char* flat, const char* nested, uint64_t dflt) {
    return sparse.has(nested) ? sparse.dim(nested) : text.dim_or(flat, dflt);
  };
  Indexer x;
  x.heads = field("index_n_heads", "sparse_num_index_heads", 4);
  x.head_dim = field("index_head_dim", "sparse_index_dim", 128);
  const uint64_t block = field("index_block_size", "sparse_block_size", 128);
  const uint64_t blocks = field("index_topk_blocks", "sparse_topk_blocks", 16);
  const std::optional<uint64_t> topk = checked_mul(block, blocks);  // each at most 2^26
  if (!topk) text.fail("index_topk_blocks", "times index_block_size overflows 64-bit arithmetic");
  x.topk = *topk;
  return x;
}

// Where a layer's MLP lives in memory and in the checkpoint (VL: block_sparse_moe for the mixture).
struct MinimaxM3Layout {
  bool hub = true;  // the VL checkpoint's remote-code names; false: stored as transformers holds them
  std::string disk(const std::string& layer, const char* module) const {
    return layer + (hub ? "block_sparse_moe" : "mlp") + module;
  }
};

// `mem`.weight of `shape`, stored as `disk`.weight when the names differ.
TemplateTensor& minimax_m3_weight(ModelTemplate& t, const std::string& mem, const std::string& disk,
                                  Shape shape) {
  TemplateTensor& x = t.add(mem + ".weight", shape);
  if (disk != mem) x.disk.push_back({disk + ".weight", std::move(shape)});
  return x;
}

// MiniMaxM3VLDenseMLP under `mem`: gate_up_proj [2I, H] (gate rows first) and down_proj [H, I]. Hub
// checkpoints store gate_proj and up_proj apart under `disk`, which transformers concatenates on load.
void minimax_m3_dense_mlp(ModelTemplate& t, const std::string& mem, const std::string& disk, bool hub,
                          uint64_t hidden, uint64_t inter) {
  TemplateTensor& gate_up = t.add(mem + ".gate_up_proj.weight", {2 * inter, hidden});
  if (hub)
    for (const char* half : {".gate_proj.weight", ".up_proj.weight"})
      gate_up.disk.push_back({disk + half, {inter, hidden}});
  minimax_m3_weight(t, mem + ".down_proj", disk + ".down_proj", {hidden, inter});
}

// MiniMaxM3VLTextModel under `root` ("model.language_model.", "model." or ""): its record, and the layers in
// transformers' order (self_attn with its indexer, mlp, input_layernorm, post_attention_layernorm).
void minimax_m3_text(const ModelConfig& text, const std::string& root, const MinimaxM3Layout& layout,
                     ModelTemplate& t) {
  DecoderDefaults dd;  // MiniMaxM3VLTextConfig's
  dd.vocab_size = 200064;
  dd.hidden_size = 6144;
  dd.intermediate_size = 3072;
  dd.num_hidden_layers = 60;
  dd.num_attention_heads = 64;
  dd.num_key_value_heads = 4;
  dd.head_dim = 128;
  dd.max_position_embeddings = 524288;
  read_decoder_dims(text, dd, t);
  t.arch.model_type = "minimax_m3_vl_text";
  read_experts(text, t, {"num_local_experts", "num_experts"}, 128, 4, t.arch.intermediate_size);
  ArchitectureRecord& a = t.arch;
  a.num_shared_experts = 1;  // one shared_intermediate_size-wide expert, whatever n_shared_experts says
  const uint64_t layers = a.num_layers, h = a.hidden_size;
  const ModelConfig sparse = sub_or_empty(text, "sparse_attention_config");
  const std::vector<bool> moe = text.has("mlp_layer_types")
                                    ? sparse_from_mlp_layer_types(text, layers, 0)
                                    : hub_layer_flags(text, "moe_layer_freq", layers, true);
  const std::vector<bool> indexed = indexed_layers(text, sparse, layers);
  const Indexer x = read_indexer(text, sparse);
  const uint64_t dense_inter = text.dim_or("dense_intermediate_size", 12288),
                 shared_inter = text.dim_or("shared_intermediate_size", 3072);
  token_embedding(t, root + "embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, root + "layers");
  blocks::Attention attn = standard_attention(a);
  attn.qk_norm = true;  // per head
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = root + "layers." + std::to_string(i) + ".";
    blocks::attention(t, l + "self_attn", attn);
    LayerSpec spec = attention_layer(a, 0, moe[i] ? Ffn::Moe : Ffn::Dense);
    if (indexed[i]) {
      // MiniMaxM3VLIndexer: q_proj, k_proj (one key head), q_norm, k_norm; index_* in Hub checkpoints.
      const auto index_part = [&](const std::string& part, Shape shape) {
        minimax_m3_weight(t, l + "self_attn.indexer." + part,
                          l + "self_attn." + (layout.hub ? "index_" : "indexer.") + part, std::move(shape));
      };
      index_part("q_proj", {x.heads * x.head_dim, h});
      index_part("k_proj", {x.head_dim, h});
      index_part("q_norm", {x.head_dim});
      index_part("k_norm", {x.head_dim});
      spec.attention.indexer_heads = x.heads;
      spec.attention.indexer_head_dim = x.head_dim;
      spec.attention.indexer_topk = x.topk;
    }
    if (!moe[i]) {
      minimax_m3_dense_mlp(t, l + "mlp", l + "mlp", layout.hub, h, dense_inter);
      spec.ffn.intermediate = dense_inter;
    } else {
      // MiniMaxM3VLSparseMoeBlock: gate (its weight, then the score-correction buffer), experts,
      // shared_experts.
      minimax_m3_weight(t, l + "mlp.gate", layout.disk(l, ".gate"), {a.num_experts, h});
      TemplateTensor& bias = t.add(l + "mlp.gate.e_score_correction_bias", {a.num_experts});
      bias.kind = TensorKind::Buffer;
      if (layout.hub) bias.disk.push_back({layout.disk(l, ".e_score_correction_bias"), {a.num_experts}});
      if (layout.hub)
        blocks::fused_experts(t, l + "mlp.experts", a.num_experts, h, a.moe_intermediate_size,
                              {.prefix = layout.disk(l, ".experts"), .gate = "w1", .up = "w3", .down = "w2"});
      else
        blocks::stacked_experts(t, l + "mlp.experts", {a.num_experts, 2 * a.moe_intermediate_size, h},
                                {a.num_experts, h, a.moe_intermediate_size});
      minimax_m3_dense_mlp(t, l + "mlp.shared_experts", layout.disk(l, ".shared_experts"), layout.hub, h,
                           shared_inter);
      spec.ffn.shared_intermediate = shared_inter;
    }
    blocks::norm(t, l + "input_layernorm", h, false);
    blocks::norm(t, l + "post_attention_layernorm", h, false);
    stack.layers.push_back(spec);
  }
  blocks::norm(t, root + "norm", h, false);
}

void build_minimax_m3_vl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MiniMaxM3SparseForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  minimax_m3_text(text, "model.language_model.", {}, t);
  // MiniMaxM3VLConfig.__post_init__ raises its own flag when text_config ties: either flag ties the head.
  t.arch.tie_word_embeddings =
      cfg.flag_or("tie_word_embeddings", false) || text.flag_or("tie_word_embeddings", false);
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const uint64_t width = minimax_m3_vision_tower(vision, "model.vision_tower.", t);
  // Each patch is projected first, then 2 x 2 neighbours' projections merge into one token.
  const std::string p = "model.multi_modal_projector.";
  const uint64_t mid = cfg.dim_or("projector_hidden_size", 6144),
                 merge = vision.dim_or("spatial_merge_size", 2);
  const ArchitectureRecord& a = t.arch;
  const std::optional<uint64_t> merged = checked_mul(a.hidden_size, merge * merge);  // each at most 2^26
  if (!merged) vision.fail("spatial_merge_size", "squared times the text width overflows 64-bit arithmetic");
  blocks::linear(t, p + "linear_1", width, mid, true);
  blocks::linear(t, p + "linear_2", mid, a.hidden_size, true);
  blocks::linear(t, p + "merge_linear_1", *merged, mid, true);
  blocks::linear(t, p + "merge_linear_2", mid, a.hidden_size, true);
  record_projector(t, "model.multi_modal_projector");
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  // MiniMaxM3VLModel (LlavaModel's layout) registers the tower, the projector, then the language model.
  t.order_modules({"model.vision_tower.", "model.multi_modal_projector.", "model.language_model."});
  t.rename_on_disk(p + "merge_linear_", "patch_merge_mlp.linear_");
  t.rename_on_disk(p, "multi_modal_projector.");
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
  t.known_extras.push_back(
      {"language_model.model.mtp.", "multi-token-prediction modules: transformers skips them"});
}

// The language model alone: MiniMaxM3VLForCausalLM (transformers' causal-LM class for the type) or
// MiniMaxM3VLTextModel. No conversion mapping names this type: its checkpoints hold transformers' names.
void build_minimax_m3_vl_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MiniMaxM3VLForCausalLM");
  const std::string task = supported_task(cfg, cls, "MiniMaxM3VL", {"ForCausalLM", "TextModel"});
  t.arch.architecture = cls;
  const bool head = task == "ForCausalLM";
  minimax_m3_text(cfg, head ? "model." : "", {.hub = false}, t);
  t.arch.tie_word_embeddings = head && cfg.flag_or("tie_word_embeddings", false);
  if (head) lm_head(t, "model.embed_tokens.weight", t.arch);
  t.known_extras.push_back({"model.mtp.", "multi-token-prediction modules: transformers skips them"});
}

constexpr std::array kMinimaxM3Families{
    FamilyBuilder{"minimax_m3_vl", build_minimax_m3_vl},
    FamilyBuilder{"minimax_m3_vl_text", build_minimax_m3_vl_text},
};

}  // namespace

std::span<const FamilyBuilder> minimax_m3() {
  return kMinimaxM3Families;
}

}  // namespace ma::families
