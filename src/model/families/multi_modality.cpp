// DeepSeek's own repositories of Janus, Janus-Pro and DeepSeek-VL (model_type multi_modality,
// MultiModalityCausalLM, remote code; derived by hand): the modules in the names that code gives them, which
// transformers' conversions (janus.cpp, deepseek_vl.cpp) rename. The tower is timm's SigLIP-L/16 at 384
// pixels with q, k and v fused and its attention-pooling head (stored although the features are read before
// it), an MLP aligner, a Llama language model; Janus adds LlamaGen's VQ-16 tokenizer (encoder, codebook and
// its usage buffer, decoder), the generation aligner, head and code embedding. DeepSeek-VL-7B's hybrid tower
// puts SAM's encoder (sam_vision.h) beside SigLIP.
#include <array>
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam_vision.h"
#include "model/families/timm_vit.h"
#include "model/families/vqgan.h"

namespace ma::families {
namespace {

// A nested config's params object (the code's own arguments).
ModelConfig params_of(const ModelConfig& cfg, std::string_view key) {
  return sub_or_empty(sub_or_empty(cfg, key), "params");
}

// timm's vit_large_patch16_siglip_384 under `p` (the code's siglip_large_patch16_384) as the tower's
// parameters `v` configure it, truncated to the layers select_layer reads: 24 + select_layer + 1 for
// select_layer <= 0, else select_layer. Returns its width.
uint64_t siglip_large(const ModelConfig& cfg, const ModelConfig& v, ModelTemplate& t, const std::string& p) {
  if (v.string_or("model_name", "siglip_large_patch16_384") != "siglip_large_patch16_384")
    unsupported(cfg, "multi_modality with the vision model " + printable(v.string_or("model_name", "")));
  constexpr uint64_t kDepth = 24, kWidth = 1024, kMlp = 4096, kHeads = 16, kPatch = 16;
  const uint64_t image = v.dim_or("image_size", 384), side = image / kPatch;
  if (side == 0) v.fail("image_size", "must be at least the patch size (16)");
  const double select = v.number_or("select_layer", -1);
  const double kept = select <= 0 ? static_cast<double>(kDepth) + select + 1 : select;
  if (!(kept >= 1 && kept <= static_cast<double>(kDepth)))
    v.fail("select_layer", "must select one of the tower's 24 layers");
  const auto layers = static_cast<uint64_t>(kept);
  const uint64_t h = kWidth;
  t.add(p + "pos_embed", {1, side * side, h});
  t.add(p + "patch_embed.proj.weight", {h, 3, kPatch, kPatch});
  t.add(p + "patch_embed.proj.bias", {h});
  for (uint64_t i = 0; i < layers; ++i) {
    timm_pre_norm_block(t, p + "blocks." + std::to_string(i) + ".", h, kMlp);
  }
  blocks::norm(t, p + "norm", h, true);
  const std::string a = p + "attn_pool.";
  t.add(a + "latent", {1, 1, h});
  blocks::linear(t, a + "q", h, h, true);
  blocks::linear(t, a + "kv", h, 2 * h, true);
  blocks::linear(t, a + "proj", h, h, true);
  blocks::norm(t, a + "norm", h, true);
  blocks::linear(t, a + "mlp.fc1", h, kMlp, true);
  blocks::linear(t, a + "mlp.fc2", kMlp, h, true);
  record_vision_tower(t, p + "blocks", h, layers, kHeads, h / kHeads, kMlp, kPatch, image);
  return h;
}

// MlpProjector's mlp_gelu: Linear(input_dim, n_embed), then depth - 1 x (GELU, Linear(n_embed, n_embed)), an
// nn.Sequential under `p`layers.
void mlp_projector(const ModelConfig& cfg, std::string_view key, ModelTemplate& t, const std::string& p,
                   uint64_t input) {
  const ModelConfig a = params_of(cfg, key);
  if (a.string_or("projector_type", "mlp_gelu") != "mlp_gelu")
    unsupported(cfg, "multi_modality with a projector other than mlp_gelu");
  const uint64_t width = a.dim_or("n_embed", 4096), depth = a.dim_or("depth", 2);
  if (depth > 64) a.fail("depth", "must be at most 64");
  blocks::linear(t, p + "layers.0", a.dim_or("input_dim", input), width, true);
  for (uint64_t i = 1; i < depth; ++i)
    blocks::linear(t, p + "layers." + std::to_string(2 * i), width, width, true);
}

// DeepSeek-VL-7B's HybridVisionTower: segment-anything's SAM ViT-B at high_res_cfg's image size (the code's
// sam_b_downsample: its neck, a second neck over the first global layer's states, two strided convolutions
// to 1,024 channels and their mixing weight) beside SigLIP-L at low_res_cfg's, each with a LayerNorm over
// its output that the code builds and never runs. Returns the width each tower hands the aligner.
uint64_t hybrid_tower(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig params = params_of(cfg, "vision_config");
  const ModelConfig high = sub_or_empty(params, "high_res_cfg"), low = sub_or_empty(params, "low_res_cfg");
  if (high.string_or("model_name", "sam_b_downsample") != "sam_b_downsample")
    unsupported(
        cfg, "multi_modality with the high-resolution model " + printable(high.string_or("model_name", "")));
  const std::string p = "vision_model.vision_tower_high.vision_tower.";
  t.add(p + "hd_alpha_downsamples", {1});
  SamShape sam;  // the code's ViT-B is fixed but for the image size
  sam.image = high.dim_or("image_size", sam.image);
  if (sam.image < sam.patch) high.fail("image_size", "must be at least the patch size (16)");
  sam_vision_encoder(sam, p, true, t);
  t.add(p + "downsamples.0.weight", {2 * sam.out, sam.out, 3, 3});
  t.add(p + "downsamples.1.weight", {4 * sam.out, 2 * sam.out, 3, 3});
  sam_neck(t, p + "neck_hd.", sam.hidden, sam.out, true);
  const uint64_t width = siglip_large(cfg, low, t, "vision_model.vision_tower_low.vision_tower.");
  blocks::norm(t, "vision_model.high_layer_norm", high.dim_or("output_dim", 4 * sam.out), true);
  blocks::norm(t, "vision_model.low_layer_norm", low.dim_or("output_dim", width), true);
  return width;
}

// MlpProjector's low_high_hybrid_split_mlp_gelu (HybridVisionTower's): each tower's features to half of
// n_embed (high_up_proj, low_up_proj), then depth - 1 x (GELU, Linear(n_embed, n_embed)) as layers.1, .3, ...
void hybrid_projector(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t input) {
  const ModelConfig a = params_of(cfg, "aligner_config");
  if (a.string_or("projector_type", "") != "low_high_hybrid_split_mlp_gelu")
    unsupported(cfg,
                "multi_modality's hybrid tower with a projector other than low_high_hybrid_split_mlp_gelu");
  const uint64_t width = a.dim_or("n_embed", 4096), depth = a.dim_or("depth", 2);
  if (depth > 64) a.fail("depth", "must be at most 64");
  blocks::linear(t, p + "high_up_proj", a.dim_or("input_dim", input), width / 2, true);
  blocks::linear(t, p + "low_up_proj", a.dim_or("input_dim", input), width / 2, true);
  for (uint64_t i = 1; i < depth; ++i)
    blocks::linear(t, p + "layers." + std::to_string(2 * i - 1), width, width, true);
}

void build_multi_modality(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MultiModalityCausalLM";
  const std::string tower = sub_or_empty(cfg, "vision_config").string_or("cls", "CLIPVisionTower");
  if (tower == "HybridVisionTower") {
    const uint64_t vision = hybrid_tower(cfg, t);
    hybrid_projector(cfg, t, "aligner.", vision);
  } else if (tower == "CLIPVisionTower") {
    const uint64_t vision =
        siglip_large(cfg, params_of(cfg, "vision_config"), t, "vision_model.vision_tower.");
    mlp_projector(cfg, "aligner_config", t, "aligner.", vision);
  } else {
    unsupported(cfg, "multi_modality with the vision tower " + printable(tower));
  }
  if (cfg.has("gen_vision_config")) {  // Janus
    const ModelConfig gen = params_of(cfg, "gen_vision_config");
    if (sub_or_empty(cfg, "gen_vision_config").string_or("cls", "VQ-16") != "VQ-16")
      unsupported(cfg, "multi_modality with a generation tokenizer other than VQ-16");
    VqganShape vq;  // VQ-16's: LlamaGen's constants but the codebook
    vq.embed = gen.dim_or("n_embed", 8);
    vq.codebook = gen.dim_or("image_token_size", 16384);
    const std::string g = "gen_vision_model.";
    vqgan_encoder(
        t, g, vq, [&](size_t level) { return level + 1 == vq.multipliers.size(); }, true, kLlamaGenNames);
    vqgan_decoder(t, g, vq, kLlamaGenNames);
    vqgan_quantizer(t, g, vq);
    t.add(g + "quantize.codebook_used", {65536}).kind = TensorKind::Buffer;
    mlp_projector(cfg, "gen_aligner_config", t, "gen_aligner.", vq.embed);
    const ModelConfig head = params_of(cfg, "gen_head_config");
    const uint64_t width = head.dim_or("n_embed", 4096);
    blocks::linear(t, "gen_head.output_mlp_projector", head.dim_or("image_token_embed", 4096), width, true);
    blocks::linear(t, "gen_head.vision_head", width, head.dim_or("image_token_size", vq.codebook), true);
    blocks::embedding(t, "gen_embed.weight", vq.codebook, vq.embed);
  }
  const ModelConfig text = sub_or_empty(cfg, "language_config");
  const LlamaStyle s = read_llama_text(text, t);
  llama_style_decoder(t, "language_model.model.", s);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
  t.arch.model_type = "multi_modality";
  t.arch.hand_derived = true;
}

constexpr std::array kMultiModalityFamilies{FamilyBuilder{"multi_modality", build_multi_modality}};

}  // namespace

std::span<const FamilyBuilder> multi_modality() {
  return kMultiModalityFamilies;
}

}  // namespace ma::families
