// Chameleon (Meta's early-fusion model: images become tokens of the same vocabulary): Llama's layers with a
// LayerNorm over each head's queries and keys (weight and bias per head and dimension), and the encoder half
// of a VQGAN under model.vqmodel that turns an image into codebook indices. Only the encoder, the codebook
// and the two 1 x 1 convolutions around it are built (the converter drops the decoder); no text token runs
// them.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// A residual block of GroupNorm, conv 3 x 3, GroupNorm, conv 3 x 3, with a 1 x 1 shortcut when the channels
// change.
void resnet_block(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  blocks::norm(t, p + "norm1", in, true);
  t.add(p + "conv1.weight", {out, in, 3, 3});
  t.add(p + "conv1.bias", {out});
  blocks::norm(t, p + "norm2", out, true);
  t.add(p + "conv2.weight", {out, out, 3, 3});
  t.add(p + "conv2.bias", {out});
  if (in != out) {
    t.add(p + "nin_shortcut.weight", {out, in, 1, 1});
    t.add(p + "nin_shortcut.bias", {out});
  }
}

// A single-head attention block over the feature map: GroupNorm and four 1 x 1 convolutions.
void attention_block(ModelTemplate& t, const std::string& p, uint64_t c) {
  blocks::norm(t, p + "norm", c, true);
  for (const char* conv : {"q", "k", "v", "proj_out"}) {
    t.add(p + conv + ".weight", {c, c, 1, 1});
    t.add(p + conv + ".bias", {c});
  }
}

// ChameleonVQVAE's encoder, quantizer codebook and 1 x 1 convolutions under `p` ("model.vqmodel.").
// ChameleonVQVAEConfig's defaults are the checkpoints' values.
void vq_encoder(const ModelConfig& v, ModelTemplate& t, const std::string& p) {
  const uint64_t base = v.dim_or("base_channels", 128), blocks_per_level = v.count_or("num_res_blocks", 2);
  const uint64_t latent = v.dim_or("latent_channels", 256), embed = v.dim_or("embed_dim", 256);
  uint64_t resolution = v.dim_or("resolution", 512);
  std::vector<int64_t> multipliers = {1, 1, 2, 2, 4};
  if (v.has("channel_multiplier")) multipliers = v.ints("channel_multiplier");
  if (multipliers.empty() || multipliers.size() > 16)
    v.fail("channel_multiplier", "must list one multiplier per level, 1 to 16 levels");
  for (int64_t m : multipliers)
    if (m < 1 || base * static_cast<uint64_t>(m) > ModelConfig::kMaxValue)
      v.fail("channel_multiplier",
             "must hold multipliers of at least 1 that keep base_channels x it in range");
  const std::vector<int64_t> attention_at = v.ints("attn_resolutions");
  const bool vanilla = v.string_or("attn_type", "vanilla") == "vanilla";
  const std::string e = p + "encoder.";
  t.add(e + "conv_in.weight", {base, v.dim_or("in_channels", 3), 3, 3});
  t.add(e + "conv_in.bias", {base});
  uint64_t channels = base;
  for (size_t level = 0; level < multipliers.size(); ++level) {
    const std::string d = e + "down." + std::to_string(level) + ".";
    const uint64_t out = base * static_cast<uint64_t>(multipliers[level]);
    const bool attend = vanilla && std::find(attention_at.begin(), attention_at.end(),
                                             static_cast<int64_t>(resolution)) != attention_at.end();
    for (uint64_t b = 0; b < blocks_per_level; ++b) {
      resnet_block(t, d + "block." + std::to_string(b) + ".", channels, out);
      channels = out;
      if (attend) attention_block(t, d + "attn." + std::to_string(b) + ".", channels);
    }
    if (level + 1 < multipliers.size()) {
      t.add(d + "downsample.conv.weight", {channels, channels, 3, 3});
      t.add(d + "downsample.conv.bias", {channels});
      resolution /= 2;
    }
  }
  resnet_block(t, e + "mid.block_1.", channels, channels);
  if (vanilla) attention_block(t, e + "mid.attn_1.", channels);
  resnet_block(t, e + "mid.block_2.", channels, channels);
  blocks::norm(t, e + "norm_out", channels, true);
  const uint64_t out = v.flag_or("double_latent", false) ? 2 * latent : latent;
  t.add(e + "conv_out.weight", {out, channels, 3, 3});
  t.add(e + "conv_out.bias", {out});
  blocks::embedding(t, p + "quantize.embedding.weight", v.dim_or("num_embeddings", 8192), embed);
  t.add(p + "quant_conv.weight", {embed, latent, 1, 1});
  t.add(p + "quant_conv.bias", {embed});
  t.add(p + "post_quant_conv.weight", {latent, embed, 1, 1});
  t.add(p + "post_quant_conv.bias", {latent});
}

void build_chameleon(const ModelConfig& cfg, ModelTemplate& t) {
  const bool conditional = first_architecture(cfg) != "ChameleonModel";
  t.arch.architecture = conditional ? "ChameleonForConditionalGeneration" : "ChameleonModel";
  DecoderDefaults d;  // ChameleonConfig's: Chameleon-7B
  d.vocab_size = 65536;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  const uint64_t heads = t.arch.num_attention_heads, kv = t.arch.num_key_value_heads, hd = t.arch.head_dim;
  s.layer_extras = [heads, kv, hd](ModelTemplate& m, const std::string& layer) {
    for (const auto& [norm, rows] : {std::pair{".self_attn.q_norm.", heads}, {".self_attn.k_norm.", kv}}) {
      m.add(layer + norm + "weight", {rows, hd});
      m.add(layer + norm + "bias", {rows, hd});
    }
  };
  const std::string root = conditional ? "model." : "";
  llama_style_decoder(t, root, s);
  vq_encoder(sub_or_empty(cfg, "vq_config"), t, root + "vqmodel.");
  if (conditional) lm_head(t, root + "embed_tokens.weight", t.arch);
}

constexpr std::array kChameleonFamilies{FamilyBuilder{"chameleon", build_chameleon}};

}  // namespace

std::span<const FamilyBuilder> chameleon() {
  return kChameleonFamilies;
}

}  // namespace ma::families
