#include "model/families/vqgan.h"

#include "model/blocks.h"

namespace ma::families {
namespace {

void conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel) {
  t.add(p + ".weight", {out, in, kernel, kernel});
  t.add(p + ".bias", {out});
}

// GroupNorm, conv 3 x 3, GroupNorm, conv 3 x 3, with a 1 x 1 shortcut when the channels change.
void resnet_block(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  blocks::norm(t, p + "norm1", in, true);
  conv(t, p + "conv1", in, out, 3);
  blocks::norm(t, p + "norm2", out, true);
  conv(t, p + "conv2", out, out, 3);
  if (in != out) conv(t, p + "nin_shortcut", in, out, 1);
}

// Single-head attention over the feature map: a GroupNorm and four 1 x 1 convolutions.
void attention_block(ModelTemplate& t, const std::string& p, uint64_t c) {
  blocks::norm(t, p + "norm", c, true);
  for (const char* name : {"q", "k", "v", "proj_out"}) conv(t, p + name, c, c, 1);
}

void middle(ModelTemplate& t, const std::string& p, uint64_t c, bool attention, const VqganNames& n) {
  resnet_block(t, p + n.mid_block_1 + ".", c, c);
  if (attention) attention_block(t, p + n.mid_attention + ".", c);
  resnet_block(t, p + n.mid_block_2 + ".", c, c);
}

}  // namespace

VqganShape read_vqgan(const ModelConfig& v, const VqganShape& dflt) {
  VqganShape s = dflt;
  s.base = v.dim_or("base_channels", dflt.base);
  s.blocks = v.count_or("num_res_blocks", dflt.blocks);
  s.latent = v.dim_or("latent_channels", dflt.latent);
  s.embed = v.dim_or("embed_dim", dflt.embed);
  s.codebook = v.dim_or("num_embeddings", dflt.codebook);
  s.in_channels = v.dim_or("in_channels", dflt.in_channels);
  s.out_channels = v.dim_or("out_channels", dflt.out_channels);
  s.double_latent = v.flag_or("double_latent", dflt.double_latent);
  if (v.has("channel_multiplier")) {
    const std::vector<int64_t> m = v.ints("channel_multiplier");
    if (m.empty() || m.size() > 16)
      v.fail("channel_multiplier", "must list one multiplier per level, 1 to 16");
    s.multipliers.clear();
    for (int64_t x : m) {
      if (x < 1 || s.base * static_cast<uint64_t>(x) > ModelConfig::kMaxValue)
        v.fail("channel_multiplier",
               "must hold multipliers of at least 1 that keep base_channels x it in range");
      s.multipliers.push_back(static_cast<uint64_t>(x));
    }
  }
  return s;
}

uint64_t vqgan_encoder(ModelTemplate& t, const std::string& p, const VqganShape& s,
                       const std::function<bool(size_t level)>& attend, bool mid_attention,
                       const VqganNames& n) {
  const std::string e = p + "encoder.";
  conv(t, e + "conv_in", s.in_channels, s.base, 3);
  uint64_t channels = s.base;
  for (size_t level = 0; level < s.multipliers.size(); ++level) {
    const std::string d = e + n.down + "." + std::to_string(level) + ".";
    const uint64_t out = s.base * s.multipliers[level];
    for (uint64_t b = 0; b < s.blocks; ++b) {
      resnet_block(t, d + n.block + "." + std::to_string(b) + ".", channels, out);
      channels = out;
      if (attend(level)) attention_block(t, d + "attn." + std::to_string(b) + ".", channels);
    }
    if (level + 1 < s.multipliers.size()) conv(t, d + "downsample.conv", channels, channels, 3);
  }
  middle(t, e, channels, mid_attention, n);
  blocks::norm(t, e + "norm_out", channels, true);
  conv(t, e + "conv_out", channels, s.double_latent ? 2 * s.latent : s.latent, 3);
  return channels;
}

void vqgan_quantizer(ModelTemplate& t, const std::string& p, const VqganShape& s) {
  blocks::embedding(t, p + "quantize.embedding.weight", s.codebook, s.embed);
  conv(t, p + "quant_conv", s.latent, s.embed, 1);
  conv(t, p + "post_quant_conv", s.embed, s.latent, 1);
}

void vqgan_decoder(ModelTemplate& t, const std::string& p, const VqganShape& s, const VqganNames& n) {
  const std::string d = p + "decoder.";
  const size_t levels = s.multipliers.size();
  uint64_t channels = s.base * s.multipliers.back();
  conv(t, d + "conv_in", s.latent, channels, 3);
  middle(t, d, channels, true, n);
  for (size_t k = 0; k < levels; ++k) {
    const size_t level = levels - 1 - k;
    const std::string u = d + n.up + "." + std::to_string(k) + ".";
    const uint64_t out = s.base * s.multipliers[level];
    for (uint64_t b = 0; b <= s.blocks; ++b) {
      resnet_block(t, u + n.block + "." + std::to_string(b) + ".", channels, out);
      channels = out;
      if (k == 0) attention_block(t, u + "attn." + std::to_string(b) + ".", channels);
    }
    if (level != 0) conv(t, u + "upsample.conv", channels, channels, 3);
  }
  blocks::norm(t, d + "norm_out", channels, true);
  conv(t, d + "conv_out", channels, s.out_channels, 3);
}

}  // namespace ma::families
