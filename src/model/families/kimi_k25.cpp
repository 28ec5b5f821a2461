// Kimi-K2.5 (moonshotai/Kimi-K2.5; K2.6 and K2.7-Code share the class): MoonViT, a ViT whose learned 64 x 64
// position table is resampled to each image's grid, then a projector from each 2 x 2 group of patches, then
// DeepSeek-V3's latent-attention mixture as the language model.
//
// Built as transformers' Kimi_K25ForConditionalGeneration names it in memory. On disk every tensor keeps
// Moonshot's name (vision_tower.encoder.blocks.N.wqkv, mm_projector.proj.0, language_model.model.*), which
// transformers' conversion mapping renames on load: the fused wqkv becomes q_proj, k_proj and v_proj, the
// 0-based norm0/norm1 and fc0/fc1 become norm1/norm2 and fc1/fc2. The Hub's INT4 experts (compressed-tensors
// weight_packed, weight_scale, weight_shape) match their experts as any packed weight does.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/deepseek_like.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// Two sides (height, width), each in [1, ModelConfig::kMaxValue] like every dimension a config gives: their
// products with a width stay far inside 64 bits.
bool sides_in_range(const std::vector<int64_t>& sides) {
  constexpr auto kMax = static_cast<int64_t>(ModelConfig::kMaxValue);
  return sides.size() == 2 && sides[0] >= 1 && sides[1] >= 1 && sides[0] <= kMax && sides[1] <= kMax;
}

// `mem`.weight and `mem`.bias (a biased linear or a LayerNorm), stored as `disk`.weight and `disk`.bias.
void with_bias_as(ModelTemplate& t, const std::string& mem, const std::string& disk, const Shape& weight,
                  uint64_t out) {
  t.add(mem + ".weight", weight).disk.push_back({disk + ".weight", weight});
  t.add(mem + ".bias", {out}).disk.push_back({disk + ".bias", {out}});
}

// Kimi_K25VisionModel under `prefix` ("model.vision_tower."), stored under `disk` ("vision_tower."). Reads
// Kimi_K25VisionConfig's fields with its defaults; the Hub config's own spellings (vt_hidden_size,
// init_pos_emb_height, ...) are read by Moonshot's remote code, not by transformers, and for Kimi-K2.5 they
// equal the defaults. Returns the tower's width.
uint64_t moonvit(const ModelConfig& v, const std::string& prefix, const std::string& disk, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 1152), inter = v.dim_or("intermediate_size", 4304);
  const uint64_t layers = v.layers_or("num_hidden_layers", 27), heads = v.dim_or("num_attention_heads", 16);
  if (hidden % heads != 0)
    v.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(hidden) + ")");
  // patch_size: one side, or [height, width].
  uint64_t patch_h = 14, patch_w = 14;
  if (const json::Value* raw = v.raw("patch_size"); raw && raw->is_array()) {
    const std::vector<int64_t> sides = v.ints("patch_size");
    if (!sides_in_range(sides))
      v.fail("patch_size", "must be one positive integer or two (height, width), each at most 2^26");
    patch_h = static_cast<uint64_t>(sides[0]);
    patch_w = static_cast<uint64_t>(sides[1]);
  } else {
    patch_h = patch_w = v.dim_or("patch_size", 14);
  }
  const Shape patch_shape{hidden, 3, patch_h, patch_w};
  with_bias_as(t, prefix + "patch_embed.proj", disk + "patch_embed.proj", patch_shape, hidden);
  const Shape table{v.dim_or("pos_emb_height", 64), v.dim_or("pos_emb_width", 64), hidden};
  t.add(prefix + "patch_embed.pos_emb.position_embeddings", table)
      .disk.push_back({disk + "patch_embed.pos_emb.weight", table});
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "layers." + std::to_string(i) + ".";
    const std::string d = disk + "encoder.blocks." + std::to_string(i) + ".";
    with_bias_as(t, p + "norm1", d + "norm0", {hidden}, hidden);
    with_bias_as(t, p + "norm2", d + "norm1", {hidden}, hidden);
    with_bias_as(t, p + "attn.proj", d + "wo", {hidden, hidden}, hidden);
    // q, k and v are one fused wqkv on disk, the disk piece of q_proj.
    t.add(p + "attn.q_proj.weight", {hidden, hidden})
        .disk.push_back({d + "wqkv.weight", {3 * hidden, hidden}});
    t.add(p + "attn.q_proj.bias", {hidden}).disk.push_back({d + "wqkv.bias", {3 * hidden}});
    for (const char* kv : {"attn.k_proj", "attn.v_proj"}) {
      t.add(p + kv + ".weight", {hidden, hidden}).fused_on_disk = true;
      t.add(p + kv + ".bias", {hidden}).fused_on_disk = true;
    }
    with_bias_as(t, p + "mlp.fc1", d + "mlp.fc0", {inter, hidden}, inter);
    with_bias_as(t, p + "mlp.fc2", d + "mlp.fc1", {hidden, inter}, hidden);
  }
  with_bias_as(t, prefix + "final_layernorm", disk + "encoder.final_layernorm", {hidden}, hidden);
  // The position table is resampled to any grid: no image size bounds the tower.
  record_vision_tower(t, prefix + "layers", hidden, layers, heads, hidden / heads, inter, patch_h, 0);
  return hidden;
}

void build_kimi_k25(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Kimi_K25ForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  // Kimi_K25Config reads "kimi_k2" (the Hub's spelling) as deepseek_v3, and no text_config as
  // DeepseekV3Config's defaults.
  std::string type = text.string_or("model_type", "deepseek_v3");
  if (type == "kimi_k2") type = "deepseek_v3";
  if (type != "deepseek_v3") unsupported(cfg, "kimi_k25 with a " + type + " language model");
  // Only the top-level flag ties the head (default true); the Hub's config says false.
  const bool tie = cfg.flag_or("tie_word_embeddings", true);
  mla_language_model(text, type, t, "model.language_model.", tie);
  t.arch.model_type = type;
  t.arch.tie_word_embeddings = tie;
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
  const ModelConfig vision_cfg = sub_or_empty(cfg, "vision_config");
  const uint64_t vision = moonvit(vision_cfg, "model.vision_tower.", "vision_tower.", t);
  // The projector: a LayerNorm over each patch (projection_hidden_size wide, the tower's width), then the
  // merge_kernel_size patches side by side through two linears to the text width.
  const std::vector<int64_t> kernel = vision_cfg.ints("merge_kernel_size");
  if (!kernel.empty() && !sides_in_range(kernel))
    vision_cfg.fail("merge_kernel_size", "must be two positive integers of at most 2^26");
  const std::optional<uint64_t> merged = checked_mul(
      vision, kernel.empty() ? 4 : static_cast<uint64_t>(kernel[0]) * static_cast<uint64_t>(kernel[1]));
  if (!merged) vision_cfg.fail("merge_kernel_size", "times hidden_size overflows 64-bit arithmetic");
  const uint64_t norm = cfg.dim_or("projection_hidden_size", 1152), width = t.arch.hidden_size;
  with_bias_as(t, "model.mm_projector.pre_norm", "mm_projector.pre_norm", {norm}, norm);
  with_bias_as(t, "model.mm_projector.in_proj", "mm_projector.proj.0", {*merged, *merged}, *merged);
  with_bias_as(t, "model.mm_projector.out_proj", "mm_projector.proj.2", {width, *merged}, width);
  record_projector(t, "model.mm_projector");
}

constexpr std::array kKimiK25Families{FamilyBuilder{"kimi_k25", build_kimi_k25}};

}  // namespace

std::span<const FamilyBuilder> kimi_k25() {
  return kKimiK25Families;
}

}  // namespace ma::families
