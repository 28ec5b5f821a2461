// The VQGAN image tokenizers of the early-fusion models (Chameleon, Janus): a convolutional encoder of
// residual blocks down to a latent grid, a codebook the latents snap to, and for models that also draw
// images the mirrored decoder. Their module names and shapes follow taming-transformers', as transformers
// keeps them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

struct VqganShape {
  uint64_t base = 128, blocks = 2, latent = 256, embed = 256, codebook = 8192;
  uint64_t in_channels = 3, out_channels = 3;
  std::vector<uint64_t> multipliers = {1, 1, 2, 2, 4};  // channels per level, times base
  bool double_latent = false;                           // the encoder outputs twice the latent channels
};

// Module names: transformers' (down / up, block, mid.block_1 ...) or those of the code Janus was released
// with (LlamaGen's VQ-16: conv_blocks, res, mid.0 ...).
struct VqganNames {
  const char *down = "down", *up = "up", *block = "block";
  const char *mid_block_1 = "mid.block_1", *mid_attention = "mid.attn_1", *mid_block_2 = "mid.block_2";
};
inline constexpr VqganNames kLlamaGenNames{"conv_blocks", "conv_blocks", "res", "mid.0", "mid.1", "mid.2"};

// Reads the config's VQ fields (base_channels, channel_multiplier, num_res_blocks, latent_channels,
// embed_dim, num_embeddings, in_channels, out_channels, double_latent) over `dflt`, checking that every
// level's width stays in range.
VqganShape read_vqgan(const ModelConfig& v, const VqganShape& dflt);

// `p`encoder.*: conv_in, per level `blocks` residual blocks (attention blocks after each where
// `attend(level)` says), a downsampling conv but at the last level, the middle blocks (their attention when
// `mid_attention`), norm_out and conv_out. Returns the width of the deepest level.
uint64_t vqgan_encoder(ModelTemplate& t, const std::string& p, const VqganShape& s,
                       const std::function<bool(size_t level)>& attend, bool mid_attention,
                       const VqganNames& n = {});
// `p`quantize.embedding (the codebook) and the 1 x 1 convolutions into and out of it.
void vqgan_quantizer(ModelTemplate& t, const std::string& p, const VqganShape& s);
// `p`decoder.*: conv_in, the middle blocks with attention, per level from the deepest `blocks` + 1
// residual blocks (attention blocks after each at the deepest level) and an upsampling conv but at the
// shallowest, norm_out and conv_out.
void vqgan_decoder(ModelTemplate& t, const std::string& p, const VqganShape& s, const VqganNames& n = {});

}  // namespace ma::families
