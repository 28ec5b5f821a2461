// Janus and Janus-Pro (DeepSeek), as transformers converts them: a Llama language model that both reads and
// draws images. Understanding runs a SigLIP-style tower (no pooling head; q, k and v apart, the output
// named projection_layer) and an MLP aligner into the text width; generation embeds VQ codes, aligns them
// to the text width and predicts the next code through a head of its own, and the VQGAN (encoder,
// codebook, decoder) turns images into codes and back. Neither path runs for a text token.
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/llama_vlm.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vqgan.h"

namespace ma::families {
namespace {

// JanusVisionModel under `p`: a biased patch conv, a learned position table, pre-norm layers, a final norm.
// JanusVisionConfig's defaults (SigLIP-L/16 at 384 pixels). Returns its width.
uint64_t janus_vision(const ModelConfig& v, ModelTemplate& t, const std::string& p) {
  const uint64_t h = v.dim_or("hidden_size", 1024), layers = v.layers_or("num_hidden_layers", 24);
  const uint64_t heads = v.dim_or("num_attention_heads", 16), patch = v.dim_or("patch_size", 16);
  const uint64_t image = v.dim_or("image_size", 384), channels = v.dim_or("num_channels", 3);
  const double ratio = v.number_or("mlp_ratio", 4.0);
  if (!(ratio > 0) || ratio * static_cast<double>(h) > static_cast<double>(ModelConfig::kMaxValue))
    v.fail("mlp_ratio", "must be positive and keep the MLP width in range");
  const auto inter = static_cast<uint64_t>(static_cast<double>(h) * ratio);  // int(hidden * mlp_ratio)
  if (inter == 0) v.fail("mlp_ratio", "leaves an MLP of no width");
  if (h % heads != 0) v.fail("num_attention_heads", "must divide hidden_size");
  const bool qkv_bias = v.flag_or("attention_bias", true), qk_norm = v.flag_or("use_qk_norm", false);
  const uint64_t side = image / patch;
  if (side == 0) v.fail("patch_size", "must not exceed image_size");
  t.add(p + "embeddings.patch_embedding.weight", {h, channels, patch, patch});
  t.add(p + "embeddings.patch_embedding.bias", {h});
  blocks::embedding(t, p + "embeddings.position_embedding.weight", side * side, h);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "encoder.layers." + std::to_string(i) + ".";
    blocks::norm(t, l + "layer_norm1", h, true);
    for (const char* proj : {"q_proj", "k_proj", "v_proj"})
      blocks::linear(t, l + "self_attn." + proj, h, h, qkv_bias);
    blocks::linear(t, l + "self_attn.projection_layer", h, h, true);
    if (qk_norm) {
      blocks::norm(t, l + "self_attn.q_norm", h, true);
      blocks::norm(t, l + "self_attn.k_norm", h, true);
    }
    blocks::norm(t, l + "layer_norm2", h, true);
    blocks::linear(t, l + "mlp.fc1", h, inter, true);
    blocks::linear(t, l + "mlp.fc2", inter, h, true);
  }
  blocks::norm(t, p + "post_layernorm", h, true);
  record_vision_tower(t, p + "encoder.layers", h, layers, heads, h / heads, inter, patch, image);
  return h;
}

// An aligner: fc1 from `in` to `width`, then depth - 1 hidden layers of `width` (GELU between).
void aligner(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t width, uint64_t depth) {
  blocks::linear(t, p + "fc1", in, width, true);
  for (uint64_t i = 1; i < depth; ++i)
    blocks::linear(t, p + "hidden_layers." + std::to_string(i - 1), width, width, true);
}

void build_janus(const ModelConfig& cfg, ModelTemplate& t) {
  const LlamaVlm lm = begin_llama_vlm(cfg, t, "Janus", "Janus");
  const std::string& root = lm.root;
  const ModelConfig v = sub_or_empty(cfg, "vision_config"), q = sub_or_empty(cfg, "vq_config");
  const uint64_t vision = janus_vision(v, t, root + "vision_model.");
  aligner(t, root + "aligner.", vision, v.dim_or("projection_dim", 2048), v.dim_or("depth", 2));
  // JanusVQVAEConfig's defaults: an 8-wide codebook of 16,384 codes; attention at the deepest level.
  VqganShape vq;
  vq.embed = 8;
  vq.codebook = 16384;
  vq = read_vqgan(q, vq);
  const std::string vqp = root + "vqmodel.";
  vqgan_encoder(
      t, vqp, vq, [&](size_t level) { return level + 1 == vq.multipliers.size(); }, true);
  vqgan_quantizer(t, vqp, vq);
  vqgan_decoder(t, vqp, vq);
  const uint64_t generation = q.dim_or("projection_dim", 2048);
  blocks::embedding(t, root + "generation_embeddings.weight", vq.codebook, vq.embed);
  aligner(t, root + "generation_aligner.", vq.embed, generation, q.dim_or("num_hidden_layers", 2));
  blocks::linear(t, root + "generation_head.proj_out", q.dim_or("image_token_embed_dim", 2048), generation,
                 true);
  blocks::linear(t, root + "generation_head.vision_head", generation, vq.codebook, true);
  // JanusConfig ties the head by default; the converted checkpoints' configs untie it in text_config, and
  // their files hold a trained head of its own.
  finish_llama_vlm(lm, t, tie_embeddings(cfg, lm.text, true), "janus");
}

constexpr std::array kJanusFamilies{FamilyBuilder{"janus", build_janus}};

}  // namespace

std::span<const FamilyBuilder> janus() {
  return kJanusFamilies;
}

}  // namespace ma::families
