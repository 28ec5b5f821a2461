// DeepSeek's own repositories of Janus, Janus-Pro and DeepSeek-VL (model_type multi_modality,
// MultiModalityCausalLM, remote code; derived by hand): the modules in the names that code gives them, which
// transformers' conversions (janus.cpp, deepseek_vl.cpp) rename. The tower is timm's SigLIP-L/16 at 384
// pixels with q, k and v fused and its attention-pooling head (stored although the features are read before
// it), an MLP aligner, a Llama language model; Janus adds LlamaGen's VQ-16 tokenizer (encoder, codebook and
// its usage buffer, decoder), the generation aligner, head and code embedding. DeepSeek-VL-7B's hybrid tower
// (SigLIP with SAM) is not built here.
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vqgan.h"

namespace ma::families {
namespace {

// A nested config's params object (the code's own arguments).
ModelConfig params_of(const ModelConfig& cfg, std::string_view key) {
  return sub_or_empty(sub_or_empty(cfg, key), "params");
}

// timm's vit_large_patch16_siglip_384 under `p` (the code's siglip_large_patch16_384), truncated to the
// layers select_layer reads: 24 + select_layer + 1 for select_layer <= 0, else select_layer. Returns its
// width.
uint64_t siglip_large(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  const ModelConfig v = params_of(cfg, "vision_config");
  const std::string tower = sub_or_empty(cfg, "vision_config").string_or("cls", "CLIPVisionTower");
  if (tower != "CLIPVisionTower")
    unsupported(cfg, "multi_modality with the vision tower " + printable(tower));
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
    const std::string b = p + "blocks." + std::to_string(i) + ".";
    blocks::norm(t, b + "norm1", h, true);
    blocks::linear(t, b + "attn.qkv", h, 3 * h, true);
    blocks::linear(t, b + "attn.proj", h, h, true);
    blocks::norm(t, b + "norm2", h, true);
    blocks::linear(t, b + "mlp.fc1", h, kMlp, true);
    blocks::linear(t, b + "mlp.fc2", kMlp, h, true);
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

void build_multi_modality(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MultiModalityCausalLM";
  const uint64_t vision = siglip_large(cfg, t, "vision_model.vision_tower.");
  mlp_projector(cfg, "aligner_config", t, "aligner.", vision);
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
