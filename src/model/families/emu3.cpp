// Emu3 (emu3; Emu3ForConditionalGeneration, BAAI/Emu3-Chat-hf and -Gen-hf): one Llama decoder over text and
// image tokens, the images tokenised by a VQ-VAE that sees video too: 2-D residual blocks and attention over
// each frame, then (encoder) temporal downsampling by 3-D convolutions and temporal residual blocks with
// BatchNorm, whose running statistics are persistent buffers; the decoder mirrors it with spatially
// conditioned norms (SpatialNorm: a GroupNorm whose scale and shift come from the quantised latents).
// The Hub checkpoints store transformers 4's layout (text_model.model.*, text_model.lm_head, vqmodel.*).
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

struct Emu3Vq {
  uint64_t base = 256, blocks = 2, latent = 4, embed = 4, codebook = 32768, hidden = 1024;
  uint64_t in_channels = 3, out_channels = 3, temporal_steps = 2;  // log2(temporal_downsample_factor)
  std::vector<uint64_t> multipliers = {1, 2, 2, 4};
  std::vector<int64_t> attention_levels = {3};  // attn_resolutions: level indices, not resolutions
  bool double_latent = false;
};

Emu3Vq read_emu3_vq(const ModelConfig& v) {
  Emu3Vq q;
  q.base = v.dim_or("base_channels", q.base);
  q.blocks = v.dim_or("num_res_blocks", q.blocks);
  q.latent = v.dim_or("latent_channels", q.latent);
  q.embed = v.dim_or("embed_dim", q.embed);
  q.codebook = v.dim_or("codebook_size", q.codebook);
  q.hidden = v.dim_or("hidden_size", q.hidden);
  q.in_channels = v.dim_or("in_channels", q.in_channels);
  q.out_channels = v.dim_or("out_channels", q.out_channels);
  q.double_latent = v.flag_or("double_latent", false);
  const uint64_t factor = v.dim_or("temporal_downsample_factor", 4);
  if ((factor & (factor - 1)) != 0) v.fail("temporal_downsample_factor", "must be a power of two");
  q.temporal_steps = static_cast<uint64_t>(std::log2(static_cast<double>(factor)));
  if (v.has("channel_multiplier")) {
    q.multipliers.clear();
    for (int64_t m : v.ints("channel_multiplier")) {
      if (m < 1 || static_cast<uint64_t>(m) > (uint64_t{1} << 16) / q.base)
        v.fail("channel_multiplier", "must hold levels of 1 to 65,536 channels");
      q.multipliers.push_back(static_cast<uint64_t>(m));
    }
    if (q.multipliers.empty() || q.multipliers.size() > 16)
      v.fail("channel_multiplier", "must list 1 to 16 levels");
  }
  if (q.blocks > 64) v.fail("num_res_blocks", "must be at most 64");
  if (v.has("attn_resolutions")) q.attention_levels = v.ints("attn_resolutions");
  return q;
}

bool attends(const Emu3Vq& q, size_t level) {
  for (int64_t a : q.attention_levels)
    if (a == static_cast<int64_t>(level)) return true;
  return false;
}

// nn.Conv3d with a bias: weight [out, in, kernel...].
void conv3d(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, Shape kernel) {
  Shape shape = {out, in};
  shape.insert(shape.end(), kernel.begin(), kernel.end());
  t.add(p + ".weight", shape);
  t.add(p + ".bias", {out});
}

// A GroupNorm whose output is scaled and shifted by 1 x 1 convolutions of the quantised latents.
void spatial_norm(ModelTemplate& t, const std::string& p, uint64_t channels, const Emu3Vq& q) {
  blocks::norm(t, p + ".norm_layer", channels, true);
  blocks::conv2d(t, p + ".conv_y", q.embed, channels, 1);
  blocks::conv2d(t, p + ".conv_b", q.embed, channels, 1);
}

// A 2-D residual block: both norms (GroupNorm, or SpatialNorm in the decoder), two 3 x 3 convolutions, a
// 1 x 1 shortcut when the width changes.
void residual(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, const Emu3Vq& q,
              bool spatial) {
  if (spatial) {
    spatial_norm(t, p + ".norm1", in, q);
    spatial_norm(t, p + ".norm2", out, q);
  } else {
    blocks::norm(t, p + ".norm1", in, true);
    blocks::norm(t, p + ".norm2", out, true);
  }
  blocks::conv2d(t, p + ".conv1", in, out, 3);
  blocks::conv2d(t, p + ".conv2", out, out, 3);
  if (in != out) blocks::conv2d(t, p + ".nin_shortcut", in, out, 1);
}

void attention(ModelTemplate& t, const std::string& p, const Emu3Vq& q) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "." + proj, q.hidden, q.hidden, true);
}

// A temporal residual block over `c` channels: BatchNorm3d (with its running statistics) and a 3 x 3 x 3
// convolution, twice.
void temporal_residual(ModelTemplate& t, const std::string& p, uint64_t c) {
  for (const char* half : {"1", "2"}) {
    const std::string norm = p + ".norm" + half;
    blocks::norm(t, norm, c, true);
    t.add(norm + ".running_mean", {c}).kind = TensorKind::Buffer;
    t.add(norm + ".running_var", {c}).kind = TensorKind::Buffer;
    t.add(norm + ".num_batches_tracked", {}).kind = TensorKind::Buffer;
    conv3d(t, p + ".conv" + half + ".conv", c, c, {3, 3, 3});
  }
}

void vq_encoder(ModelTemplate& t, const std::string& e, const Emu3Vq& q) {
  const size_t levels = q.multipliers.size();
  const uint64_t top = q.base * q.multipliers.back(), out = q.double_latent ? 2 * q.latent : q.latent;
  blocks::conv2d(t, e + "conv_in", q.in_channels, q.base, 3);
  uint64_t width = q.base;
  for (size_t i = 0; i < levels; ++i) {
    const std::string d = e + "down_block.down." + std::to_string(i) + ".";
    const uint64_t level_out = q.base * q.multipliers[i];
    for (uint64_t j = 0; j < q.blocks; ++j, width = level_out)
      residual(t, d + "block." + std::to_string(j), width, level_out, q, false);
    if (attends(q, i)) {
      for (uint64_t j = 0; j < q.blocks; ++j) attention(t, d + "attn." + std::to_string(j), q);
      for (uint64_t j = 0; j < q.blocks; ++j)
        blocks::norm(t, d + "attn_norms." + std::to_string(j), level_out, true);
    }
    if (i + 1 != levels) blocks::conv2d(t, d + "downsample.conv", level_out, level_out, 3);
  }
  residual(t, e + "middle_block.block_1", top, top, q, false);
  attention(t, e + "middle_block.attn_1", q);
  blocks::norm(t, e + "middle_block.attn_norm", top, true);
  residual(t, e + "middle_block.block_2", top, top, q, false);
  blocks::norm(t, e + "norm_out", top, true);
  blocks::conv2d(t, e + "conv_out", top, out, 3);
  for (uint64_t k = 0; k < q.temporal_steps; ++k)
    conv3d(t, e + "time_conv." + std::to_string(k) + ".conv.conv", out, out, {4, 3, 3});
  for (uint64_t k = 0; k < q.blocks; ++k)
    temporal_residual(t, e + "time_res_stack." + std::to_string(k), out);
}

// The decoder builds its levels from the deepest up and lists them by index, the shallowest first.
void vq_decoder(ModelTemplate& t, const std::string& d, const Emu3Vq& q) {
  const size_t levels = q.multipliers.size();
  const uint64_t top = q.base * q.multipliers.back();
  for (uint64_t k = 0; k < q.blocks; ++k)
    temporal_residual(t, d + "time_res_stack." + std::to_string(k), q.latent);
  for (uint64_t k = 0; k < q.temporal_steps; ++k)
    conv3d(t, d + "time_conv." + std::to_string(k) + ".conv.conv", q.latent, q.latent, {3, 3, 3});
  blocks::conv2d(t, d + "conv_in", q.latent, top, 3);
  residual(t, d + "middle_block.block_1", top, top, q, true);
  attention(t, d + "middle_block.attn_1", q);
  spatial_norm(t, d + "middle_block.attn_norm", top, q);
  residual(t, d + "middle_block.block_2", top, top, q, true);
  std::vector<uint64_t> inputs(levels);  // each level's first block reads the level above's output
  uint64_t width = top;
  for (size_t i = levels; i-- > 0;) {
    inputs[i] = width;
    width = q.base * q.multipliers[i];
  }
  for (size_t i = 0; i < levels; ++i) {
    const std::string u = d + "up_block.up." + std::to_string(i) + ".";
    const uint64_t level_out = q.base * q.multipliers[i];
    for (uint64_t j = 0; j <= q.blocks; ++j)
      residual(t, u + "block." + std::to_string(j), j == 0 ? inputs[i] : level_out, level_out, q, true);
    if (attends(q, i)) {
      for (uint64_t j = 0; j <= q.blocks; ++j) attention(t, u + "attn." + std::to_string(j), q);
      for (uint64_t j = 0; j <= q.blocks; ++j)
        spatial_norm(t, u + "attn_norms." + std::to_string(j), level_out, q);
    }
    if (i != 0) blocks::conv2d(t, u + "upsample.conv", level_out, level_out, 3);
  }
  spatial_norm(t, d + "norm_out", q.base * q.multipliers.front(), q);
  blocks::conv2d(t, d + "conv_out", q.base * q.multipliers.front(), q.out_channels, 3);
}

// Emu3TextConfig's defaults, which its checkpoints' configs spell out.
DecoderDefaults emu3_text_defaults() {
  DecoderDefaults d;
  d.vocab_size = 184622;
  d.hidden_size = 4096;
  d.intermediate_size = 14336;
  d.num_hidden_layers = 32;
  d.num_attention_heads = 32;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 9216;
  return d;
}

void build_emu3(const ModelConfig& cfg, ModelTemplate& t) {
  const bool conditional = first_architecture(cfg) != "Emu3Model";
  t.arch.architecture = conditional ? "Emu3ForConditionalGeneration" : "Emu3Model";
  const std::string root = conditional ? "model." : "";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  read_decoder_dims(text, emu3_text_defaults(), t);
  t.arch.model_type = "emu3_text_model";
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);  // the top-level flag alone
  LlamaStyle style;  // Emu3TextConfig fixes attention_bias and mlp_bias to false
  llama_style_decoder(t, root + "text_model.", style);
  const Emu3Vq q = read_emu3_vq(sub_or_empty(cfg, "vq_config"));
  const std::string vq = root + "vqmodel.";
  vq_encoder(t, vq + "encoder.", q);
  vq_decoder(t, vq + "decoder.", q);
  t.add(vq + "quantize.embedding.weight", {q.codebook, q.embed});
  conv3d(t, vq + "quant_conv.conv", q.latent, q.embed, {3, 1, 1});
  conv3d(t, vq + "post_quant_conv.conv", q.embed, q.latent, {3, 1, 1});
  if (!conditional) return;
  lm_head(t, "model.text_model.embed_tokens.weight", t.arch);
  t.rename_on_disk("model.text_model.", "text_model.model.");
  t.rename_on_disk("lm_head.", "text_model.lm_head.");
  t.rename_on_disk("model.vqmodel.", "vqmodel.");
}

constexpr std::array kEmu3Families{FamilyBuilder{"emu3", build_emu3}};

}  // namespace

std::span<const FamilyBuilder> emu3() {
  return kEmu3Families;
}

}  // namespace ma::families
