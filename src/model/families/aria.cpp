// Aria (Rhymes AI): a mixture-of-experts language model of which every layer is sparse (each token picks
// moe_topk of moe_num_experts and always runs a shared MLP moe_num_shared_experts wide), Idefics3's SigLIP
// tower without its head, and a projector that attends learned queries over the patches (a cross-attention
// of its own q/k/v over nn.MultiheadAttention's fused projections) then maps them up to the text width. The
// Hub's checkpoints store transformers 4's layout (language_model.model.*, language_model.lm_head).
#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// How many learned queries the projector holds: the largest of projector_patch_to_query_dict's values
// (AriaConfig's default {1225: 128, 4900: 256}).
uint64_t projector_queries(const ModelConfig& cfg) {
  const json::Value* map = cfg.raw("projector_patch_to_query_dict");
  if (!map || map->is_null()) return 256;
  if (!map->is_object() || map->members().empty())
    cfg.fail("projector_patch_to_query_dict", "must map patch counts to query counts");
  uint64_t most = 0;
  for (const auto& [patches, queries] : map->members()) {
    const std::optional<uint64_t> q = queries.as_uint();
    if (!q || *q == 0 || *q > ModelConfig::kMaxValue)
      cfg.fail("projector_patch_to_query_dict", "must give each patch count a query count from 1 to 2^26");
    most = std::max(most, *q);
  }
  return most;
}

// The projector under `p`: learned queries, layer_norm_kv over the patches, q/k/v into the multi-head
// attention's own fused projections, its output, a linear, a LayerNorm, then linear_in and linear_out (GELU
// between) into the text width `h`; `d` is the tower's width.
void aria_projector(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t d, uint64_t h) {
  t.add(p + "query", {projector_queries(cfg), d});
  const std::string a = p + "cross_attn.";
  for (const char* proj : {"q_proj", "k_proj", "v_proj"}) blocks::linear(t, a + proj, d, d, false);
  t.add(a + "multihead_attn.in_proj_weight", {3 * d, d});
  t.add(a + "multihead_attn.in_proj_bias", {3 * d});
  blocks::linear(t, a + "multihead_attn.out_proj", d, d, true);
  blocks::linear(t, a + "linear", d, d, true);
  blocks::norm(t, a + "layer_norm", d, true);
  blocks::norm(t, a + "layer_norm_kv", d, true);
  blocks::norm(t, p + "layer_norm", d, true);
  blocks::linear(t, p + "feed_forward.linear_in", d, h, false);
  blocks::linear(t, p + "feed_forward.linear_out", h, h, false);
  record_projector(t, p);
}

// AriaTextConfig's defaults. Its experts are intermediate_size wide, as transformers reads it; configs
// written for the original code give them moe_intermediate_size (intermediate_size being the dense width of
// that code), which is the width their checkpoints hold.
// `tie`: whether the head is tied, when the composite's own flag decides it rather than text_config's;
// `head`: false for the bare model class, which has none.
void aria_text(const ModelConfig& text, ModelTemplate& t, const std::string& root, std::optional<bool> tie,
               bool head) {
  DecoderDefaults d;
  d.vocab_size = 32000;
  d.intermediate_size = 4096;
  read_decoder_dims(text, d, t);
  ArchitectureRecord& a = t.arch;
  if (tie) a.tie_word_embeddings = *tie;
  a.num_experts = text.dim_or("moe_num_experts", 8);
  a.experts_per_token = text.dim_or("moe_topk", 2);
  if (a.experts_per_token > a.num_experts)
    text.fail("moe_topk", "must not exceed moe_num_experts (" + std::to_string(a.num_experts) + ")");
  a.moe_intermediate_size = text.dim_or("moe_intermediate_size", a.intermediate_size);
  MoeDecoder dec = all_sparse(a);
  dec.root = root;
  dec.lm_head = head;
  dec.attn.qkv_bias = dec.attn.o_bias = text.flag_or("attention_bias", false);
  dec.mlp_bias = text.flag_or("mlp_bias", false);
  dec.moe.router = "router";
  dec.moe.style = ExpertStyle::Grouped;
  dec.moe.shared_experts = true;
  dec.moe.shared_inter = a.moe_intermediate_size * text.dim_or("moe_num_shared_experts", 2);
  build_moe_decoder(t, dec);
}

void build_aria(const ModelConfig& cfg, ModelTemplate& t) {
  const bool conditional = first_architecture(cfg) != "AriaModel";
  t.arch.architecture = conditional ? "AriaForConditionalGeneration" : "AriaModel";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string root = conditional ? "model." : "";
  VitDefaults idefics3;  // Idefics3VisionConfig's defaults
  idefics3.hidden_size = 1152;
  idefics3.patch_size = 32;
  idefics3.num_attention_heads = 16;
  idefics3.model_type = "idefics3_vision";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), root + "vision_tower.", idefics3, t);
  aria_projector(cfg, t, root + "multi_modal_projector.", vision, text.dim_or("hidden_size", 4096));
  // Only the top-level flag ties the head (default: not). AriaModel has no head.
  aria_text(text, t, root + "language_model.", cfg.flag_or("tie_word_embeddings", false), conditional);
  if (conditional) v4_conditional_disk_names(t, "vision_tower.");
}

void build_aria_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "AriaTextForCausalLM";
  aria_text(cfg, t, "model.", std::nullopt, true);
}

constexpr std::array kAriaFamilies{FamilyBuilder{"aria", build_aria},
                                   FamilyBuilder{"aria_text", build_aria_text}};

}  // namespace

std::span<const FamilyBuilder> aria() {
  return kAriaFamilies;
}

}  // namespace ma::families
