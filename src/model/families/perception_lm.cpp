// Perception-LM (Meta): a Perception Encoder tower (timm's Eva in its PE configuration, built through
// TimmWrapper from the config's architecture name and model_args), LLaVA's two-linear projector after a
// parameter-free pooling, and a Llama language model (Llama 3.2 1B / 3B, Llama 3.1 8B).
#include <array>
#include <string>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/llama_vlm.h"
#include "model/families/multimodal_towers.h"
#include "model/families/timm_vit.h"

namespace ma::families {
namespace {

// The two PE towers timm registers, as their architecture names fix them.
struct PeArchitecture {
  std::string_view name;
  uint64_t width, depth, heads, mlp, image;
  bool class_token;
};
constexpr std::array<PeArchitecture, 2> kPeArchitectures{{
    {"vit_pe_core_large_patch14_336", 1024, 24, 16, 4096, 336, true},
    {"vit_pe_core_gigantic_patch14_448", 1536, 50, 16, 8960, 448, false},
}};

// The tower under `p` ("model.vision_tower.timm_model."): class token (L) and position table, a bias-free
// patch conv (the tower normalises before its layers: norm_pre), pre-norm blocks with fused q/k/v and, with
// init_values, LayerScale's gamma_1 / gamma_2. Only the released options are modelled: no pooling head
// (global_pool "") and no final norm unless use_post_transformer_norm. Returns its width.
uint64_t pe_tower(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  const ModelConfig v = sub_or_empty(cfg, "vision_config");
  const std::string arch = v.string_or("architecture", "");
  const PeArchitecture* pe = nullptr;
  for (const PeArchitecture& a : kPeArchitectures)
    if (a.name == arch) pe = &a;
  if (!pe) unsupported(cfg, "Perception-LM with the vision architecture " + printable(arch));
  const ModelConfig args = sub_or_empty(v, "model_args");
  if (args.string_or("global_pool", "map") != "" || !args.has("use_post_transformer_norm"))
    unsupported(cfg,
                "Perception-LM with a tower pooling head (the released model_args set global_pool \"\" "
                "and use_post_transformer_norm)");
  const uint64_t h = args.dim_or("embed_dim", pe->width), depth = args.layers_or("depth", pe->depth);
  uint64_t image = pe->image;
  if (const json::Value* size = args.raw("img_size"); size && size->is_array()) {
    const std::vector<int64_t> sides = args.ints("img_size");
    if (sides.size() != 2 || sides[0] != sides[1] || sides[0] < 14 || sides[0] > (int64_t{1} << 20))
      args.fail("img_size", "must be a square side from 14 to 2^20");
    image = static_cast<uint64_t>(sides[0]);
  } else {
    image = args.dim_or("img_size", image);
  }
  const uint64_t patch = 14, side = image / patch;
  if (side == 0) args.fail("img_size", "must be at least the patch size (14)");
  const uint64_t mlp = h == pe->width ? pe->mlp : h * pe->mlp / pe->width;  // the architecture's mlp_ratio
  const bool layer_scale = args.raw("init_values") && !args.raw("init_values")->is_null();
  if (pe->class_token) t.add(p + "cls_token", {1, 1, h});
  t.add(p + "pos_embed", {1, side * side + (pe->class_token ? 1 : 0), h});
  t.add(p + "patch_embed.proj.weight", {h, 3, patch, patch});
  blocks::norm(t, p + "norm_pre", h, true);
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string b = p + "blocks." + std::to_string(i) + ".";
    if (layer_scale) {
      t.add(b + "gamma_1", {h});
      t.add(b + "gamma_2", {h});
    }
    timm_pre_norm_block(t, b, h, mlp);
  }
  if (args.flag_or("use_post_transformer_norm", false)) blocks::norm(t, p + "norm", h, true);
  record_vision_tower(t, p + "blocks", h, depth, pe->heads, h / pe->heads, mlp, patch, image);
  return h;
}

void build_perception_lm(const ModelConfig& cfg, ModelTemplate& t) {
  const LlamaVlm v = begin_llama_vlm(cfg, t, "PerceptionLM", "Perception-LM");
  const uint64_t h = t.arch.hidden_size;
  const uint64_t vision = pe_tower(cfg, t, v.root + "vision_tower.timm_model.");
  blocks::linear(t, v.root + "multi_modal_projector.linear_1", vision, h, true);
  blocks::linear(t, v.root + "multi_modal_projector.linear_2", h, h, true);
  record_projector(t, v.root + "multi_modal_projector");
  // tie_word_embeddings null (the class default) takes text_config's.
  finish_llama_vlm(v, t, tie_embeddings(cfg, v.text, false), "perception_lm");
}

constexpr std::array kPerceptionLmFamilies{FamilyBuilder{"perception_lm", build_perception_lm}};

}  // namespace

std::span<const FamilyBuilder> perception_lm() {
  return kPerceptionLmFamilies;
}

}  // namespace ma::families
