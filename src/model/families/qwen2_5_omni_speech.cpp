// Qwen2.5-Omni's talker and token2wav, as modeling_qwen2_5_omni.py builds them. Neither runs for a text
// token: the talker decodes speech codes from the thinker's output when the model speaks, token2wav turns
// the codes into sound. Their names (talker.*, token2wav.*) place them in a block of their own, the speech
// output (tensor_placement.h), which the active counts of a text token leave out as they leave out towers.
#include "model/families/qwen2_5_omni_speech.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// The longest size list read here (ECAPA-TDNN channels, BigVGAN stages); the released model lists 6.
constexpr size_t kMaxListed = 64;

// A list of sizes of at least 1 at `key`, `dflt` when absent.
std::vector<uint64_t> sizes_or(const ModelConfig& cfg, std::string_view key, std::vector<uint64_t> dflt) {
  if (!cfg.has(key)) return dflt;
  const std::vector<int64_t> listed = cfg.ints(key);
  if (listed.empty() || listed.size() > kMaxListed)
    cfg.fail(key, "must list from 1 to " + std::to_string(kMaxListed) + " sizes");
  std::vector<uint64_t> sizes;
  for (int64_t x : listed) {
    if (x < 1 || static_cast<uint64_t>(x) > ModelConfig::kMaxValue)
      cfg.fail(key, "must list sizes from 1 to " + std::to_string(ModelConfig::kMaxValue));
    sizes.push_back(static_cast<uint64_t>(x));
  }
  return sizes;
}

// How many entries the list at `key` has (`dflt` when absent): the length is all the model takes from lists
// whose values only set strides or dilations.
size_t listed_or(const ModelConfig& cfg, std::string_view key, size_t dflt) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return dflt;
  if (!v->is_array() || v->items().size() > kMaxListed)
    cfg.fail(key, "must be a list of at most " + std::to_string(kMaxListed) + " entries");
  return v->items().size();
}

// ECAPA_TimeDelayNet, the DiT's speaker encoder: a TDNN, SE-Res2Net blocks, multi-layer feature aggregation,
// attentive statistics pooling and a 1 x 1 convolution to enc_dim. Every convolution has a bias; there is no
// BatchNorm.
void speaker_encoder(const ModelConfig& dit, ModelTemplate& t, const std::string& p, uint64_t mel,
                     uint64_t enc_dim) {
  const std::vector<uint64_t> ch = sizes_or(dit, "enc_channels", {256, 256, 256, 256, 768});
  const std::vector<uint64_t> kernel = sizes_or(dit, "enc_kernel_sizes", {5, 3, 3, 3, 1});
  // transformers raises unless the three lists have one entry per block.
  if (kernel.size() != ch.size())
    dit.fail("enc_kernel_sizes", "must list one kernel per entry of enc_channels");
  if (listed_or(dit, "enc_dilations", 5) != ch.size())
    dit.fail("enc_dilations", "must list one dilation per entry of enc_channels");
  const uint64_t scale = dit.dim_or("enc_res2net_scale", 2), se = dit.dim_or("enc_se_channels", 64);
  const uint64_t attention = dit.dim_or("enc_attention_channels", 64);
  blocks::conv1d(t, p + "blocks.0.conv", mel, ch[0], kernel[0]);
  for (size_t i = 1; i + 1 < ch.size(); ++i) {
    const std::string b = p + "blocks." + std::to_string(i) + ".";
    // Res2Net splits the channels into `scale` parts and convolves all but the first.
    if (scale > ch[i])
      dit.fail("enc_res2net_scale", "must not exceed enc_channels[" + std::to_string(i) + "]");
    blocks::conv1d(t, b + "tdnn1.conv", ch[i - 1], ch[i], 1);
    for (uint64_t j = 0; j + 1 < scale; ++j)
      blocks::conv1d(t, b + "res2net_block.blocks." + std::to_string(j) + ".conv", ch[i] / scale,
                     ch[i] / scale, kernel[i]);
    blocks::conv1d(t, b + "tdnn2.conv", ch[i], ch[i], 1);
    blocks::conv1d(t, b + "se_block.conv1", ch[i], se, 1);
    blocks::conv1d(t, b + "se_block.conv2", se, ch[i], 1);
  }
  const uint64_t last = ch.back();
  blocks::conv1d(t, p + "mfa.conv", last, last, kernel.back());
  blocks::conv1d(t, p + "asp.tdnn.conv", 3 * last, attention, 1);
  blocks::conv1d(t, p + "asp.conv", attention, last, 1);
  blocks::conv1d(t, p + "fc", 2 * last, enc_dim, 1);  // a bare Conv1d: fc.weight, not fc.conv.weight
}

// Qwen2_5OmniToken2WavDiTModel: a timestep MLP, the codec embedding, the input projection over the noisy
// mel, the speaker condition, the codes and the speaker embedding, then DiT blocks (AdaLayerNormZero,
// attention, a GELU MLP; their LayerNorms have no weights) and the final modulation and projection.
void dit_model(const ModelConfig& dit, ModelTemplate& t, const std::string& p) {
  const uint64_t h = dit.dim_or("hidden_size", 1024), layers = dit.layers_or("num_hidden_layers", 22);
  const uint64_t inner = dit.dim_or("num_attention_heads", 16) * dit.dim_or("head_dim", 64);
  const uint64_t ff = h * dit.dim_or("ff_mult", 2);
  const uint64_t mel = dit.dim_or("mel_dim", 80), emb = dit.dim_or("emb_dim", 512);
  const uint64_t enc_dim = dit.dim_or("enc_dim", 128), enc_emb = dit.dim_or("enc_emb_dim", 192);
  blocks::linear(t, p + "time_embed.time_mlp.0", 256, h, true);  // over a fixed 256-wide sinusoid
  blocks::linear(t, p + "time_embed.time_mlp.2", h, h, true);
  blocks::embedding(t, p + "text_embed.codec_embed.weight", dit.dim_or("num_embeds", 8193) + 1, emb);
  blocks::linear(t, p + "input_embed.proj", mel + enc_dim + enc_emb + emb, h, true);
  speaker_encoder(dit, t, p + "input_embed.spk_encoder.", mel, enc_dim);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string b = p + "transformer_blocks." + std::to_string(i) + ".";
    blocks::linear(t, b + "attn_norm.linear", h, 6 * h, true);
    for (const char* proj : {"to_q", "to_k", "to_v"}) blocks::linear(t, b + "attn." + proj, h, inner, true);
    blocks::linear(t, b + "attn.to_out.0", inner, h, true);
    blocks::linear(t, b + "ff.ff.0", h, ff, true);
    blocks::linear(t, b + "ff.ff.3", ff, h, true);
  }
  blocks::linear(t, p + "norm_out.linear", h, 2 * h, true);
  blocks::linear(t, p + "proj_out", h, mel, true);
}

// SnakeBeta's two learned vectors inside an anti-aliased activation (its Kaiser-sinc filters are buffers
// transformers rebuilds and does not save).
void anti_aliased_snake(ModelTemplate& t, const std::string& p, uint64_t channels) {
  blocks::snake_beta(t, p + ".act", channels);
}

// Qwen2_5OmniToken2WavBigVGANModel: conv_pre, then per stage a transposed convolution halving the channels
// and one AMP block per resblock kernel (three dilated and three plain convolutions, six activations), a
// final activation and a bias-free conv_post. No weight norm: plain weights, as the checkpoints store them.
void bigvgan(const ModelConfig& v, ModelTemplate& t, const std::string& p) {
  const uint64_t mel = v.dim_or("mel_dim", 80), initial = v.dim_or("upsample_initial_channel", 1536);
  const size_t stages = listed_or(v, "upsample_rates", 6);  // strides: only their number shapes tensors
  // transformers zips rates with kernels (extra kernels go unused) and runs one transposed convolution per
  // rate.
  const std::vector<uint64_t> up_kernel = sizes_or(v, "upsample_kernel_sizes", {11, 7, 4, 4, 4, 4});
  if (up_kernel.size() < stages) v.fail("upsample_kernel_sizes", "must list a kernel for each upsample rate");
  // Each stage halves the channels.
  if (stages >= 64 || (initial >> stages) == 0)
    v.fail("upsample_initial_channel", "must keep at least one channel after halving it for each of the " +
                                           std::to_string(stages) + " upsample rates");
  // One AMP block per (kernel, dilations) pair, zipped; each block reads three dilations.
  const std::vector<uint64_t> res_kernel = sizes_or(v, "resblock_kernel_sizes", {3, 7, 11});
  size_t per_stage = std::min<size_t>(res_kernel.size(), 3);
  if (const json::Value* d = v.raw("resblock_dilation_sizes"); d && !d->is_null()) {
    per_stage = std::min(res_kernel.size(), listed_or(v, "resblock_dilation_sizes", 0));
    for (size_t i = 0; i < per_stage; ++i)
      if (!d->items()[i].is_array() || d->items()[i].items().size() < 3)
        v.fail("resblock_dilation_sizes", "must give each resblock kernel a list of three dilations");
  }
  blocks::conv1d(t, p + "conv_pre", mel, initial, 7);
  for (size_t i = 0; i < stages; ++i) {
    // The extra ModuleList gives each its ".0".
    blocks::transposed_conv1d(t, p + "ups." + std::to_string(i) + ".0", initial >> i, initial >> (i + 1),
                              up_kernel[i]);
  }
  size_t block = 0;
  for (size_t i = 0; i < stages; ++i) {
    const uint64_t c = initial >> (i + 1);
    for (size_t j = 0; j < per_stage; ++j) {
      const uint64_t k = res_kernel[j];
      const std::string r = p + "resblocks." + std::to_string(block++) + ".";
      for (const char* convs : {"convs1.", "convs2."})
        for (int m = 0; m < 3; ++m) blocks::conv1d(t, r + convs + std::to_string(m), c, c, k);
      for (int m = 0; m < 6; ++m) anti_aliased_snake(t, r + "activations." + std::to_string(m), c);
    }
  }
  const uint64_t last = initial >> stages;
  anti_aliased_snake(t, p + "activation_post", last);
  t.add(p + "conv_post.weight", {1, last, 7});
}

}  // namespace

void qwen2_5_omni_talker(const ModelConfig& talker, uint64_t thinker_hidden, ModelTemplate& t) {
  DecoderDefaults d;  // Qwen2_5OmniTalkerConfig's (not the released models' sizes: those are in the configs)
  d.vocab_size = 8448;
  d.hidden_size = 3584;
  d.intermediate_size = 18944;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 28;
  d.num_key_value_heads = 4;
  d.head_dim = 128;  // a field of its own: 7B's talker has 12 heads of 128 in a width of 896
  d.max_position_embeddings = 32768;
  // Its dimensions, read and checked as any decoder's, in a record of its own: the model's record describes
  // the thinker.
  ModelTemplate own;
  read_decoder_dims(talker, d, own);
  const ArchitectureRecord& a = own.arch;
  const uint64_t embedding = talker.dim_or("embedding_size", 3584);
  if (embedding != thinker_hidden)
    talker.fail("embedding_size", "must equal the thinker's hidden_size (" + std::to_string(thinker_hidden) +
                                      "): the talker reads the thinker's embeddings and states");
  blocks::linear(t, "talker.thinker_to_talker_proj", embedding, a.hidden_size, true);
  blocks::embedding(t, "talker.model.embed_tokens.weight", a.vocab_size, embedding);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = true;  // Qwen2's: q/k/v biased, o not
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "talker.model.layers." + std::to_string(i);
    blocks::attention(t, p + ".self_attn", at);
    blocks::gated_mlp(t, p + ".mlp", a.hidden_size, a.intermediate_size);
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".post_attention_layernorm", a.hidden_size, false);
  }
  blocks::norm(t, "talker.model.norm", a.hidden_size, false);
  blocks::linear(t, "talker.codec_head", a.hidden_size, a.vocab_size, false);
}

void qwen2_5_omni_token2wav(const ModelConfig& token2wav, ModelTemplate& t) {
  const size_t first = t.tensors.size();
  dit_model(sub_or_empty(token2wav, "dit_config"), t, "token2wav.code2wav_dit_model.");
  bigvgan(sub_or_empty(token2wav, "bigvgan_config"), t, "token2wav.code2wav_bigvgan_model.");
  // enable_talker() calls token2wav.float() and transformers' loader keeps a parameter's own dtype, so these
  // stay float32 whatever dtype the rest loads in; the official checkpoints store them so. A re-saved
  // checkpoint that holds them in bf16 says so in its headers, which then have the last word.
  for (size_t i = first; i < t.tensors.size(); ++i) {
    TemplateTensor& x = t.tensors[i];
    x.disk.push_back({x.name, x.shape, DType::F32});
  }
}

}  // namespace ma::families
