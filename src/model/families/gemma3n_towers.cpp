// Gemma 3n's two encoders. The vision tower is timm's MobileNetV5-300M encoder (mobilenetv5_300m_enc, which
// transformers builds through TimmWrapperModel under vision_tower.timm_model): a CNN of edge-residual,
// universal-inverted-residual and multi-query-attention blocks whose last two stages a multi-scale fusion
// adapter joins into 2048 channels on a 16 x 16 grid. Its shape is fixed by the architecture name, not by
// config fields, so it is written out here as timm defines it. The audio tower is Gemma3nAudioEncoder, a
// USM-style conformer: two strided convolutions and a projection, then blocks of a half-step feed-forward,
// local relative-position attention, a light depthwise convolution and a second feed-forward.
#include <array>
#include <string>
#include <vector>

#include "core/checked.h"
#include "model/blocks.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// MobileNetV5's blocks, as timm's architecture strings spell them. Every norm is an RmsNorm2d with a weight
// and no bias; no conv but the stem's has a bias.
enum class Kind : uint8_t {
  EdgeResidual,  // er: a full k x k conv expanding by `expand`, a 1 x 1 projection
  Inverted,    // uir: optional depthwise convs before (start) and after (mid) a 1 x 1 expansion, a projection
  MultiQuery,  // mqa: 1 x 1 query heads and one shared key and value, downsampled by a strided depthwise conv
};

struct MnBlock {
  Kind kind;
  uint64_t out;            // channels
  uint64_t start = 0;      // uir: dw_start kernel (0: none); er: the conv's kernel
  uint64_t mid = 0;        // uir: dw_mid kernel (0: none)
  uint64_t expand = 0;     // er / uir: expansion of the input channels
  uint64_t heads = 0;      // mqa
  uint64_t key_dim = 0;    // mqa: of each query head, of the key and of the value
  uint64_t kv_stride = 1;  // mqa: > 1 adds the key's and value's depthwise down-conv and its norm
  uint64_t repeat = 1;
};

constexpr uint64_t kStem = 64, kFeatures = 2048;

// timm's mobilenetv5_300m_enc, stage by stage; `repeat` stands for runs of one block, and the last two stages
// alternate (mqa, uir) pairs.
std::vector<std::vector<MnBlock>> mobilenet_v5_300m() {
  const MnBlock ffn640{Kind::Inverted, 640, 0, 0, 2}, ffn1280{Kind::Inverted, 1280, 0, 0, 2};
  const MnBlock mqa640{Kind::MultiQuery, 640, 0, 0, 0, 12, 64, 2},
      mqa1280{Kind::MultiQuery, 1280, 0, 0, 0, 16, 96, 1};
  std::vector<std::vector<MnBlock>> stages(4);
  stages[0] = {{Kind::EdgeResidual, 128, 3, 0, 4}, {Kind::EdgeResidual, 128, 3, 0, 4, 0, 0, 1, 2}};
  stages[1] = {{Kind::Inverted, 256, 3, 5, 6},
               {Kind::Inverted, 256, 5, 0, 4},
               {Kind::Inverted, 256, 3, 0, 4},
               {Kind::Inverted, 256, 5, 0, 4},
               {Kind::Inverted, 256, 3, 0, 4}};
  stages[2] = {{Kind::Inverted, 640, 5, 5, 6},
               {Kind::Inverted, 640, 5, 0, 4, 0, 0, 1, 7},
               {Kind::Inverted, 640, 0, 0, 1}};
  for (int i = 0; i < 14; ++i) stages[2].insert(stages[2].end(), {mqa640, ffn640});
  stages[3] = {{Kind::Inverted, 1280, 5, 5, 6}};
  for (int i = 0; i < 19; ++i) stages[3].insert(stages[3].end(), {mqa1280, ffn1280});
  return stages;
}

void conv(ModelTemplate& t, const std::string& name, uint64_t out, uint64_t in, uint64_t k) {
  t.add(name + ".weight", {out, in, k, k});
}

// A ConvNormAct: `p`.conv and its RmsNorm `p`.bn; a depthwise conv passes `in` = 1 (its inputs per group).
void conv_norm(ModelTemplate& t, const std::string& p, uint64_t out, uint64_t in, uint64_t k) {
  conv(t, p + ".conv", out, in, k);
  blocks::norm(t, p + ".bn", out, false);
}

// An inverted residual (timm's UniversalInvertedResidual) from `in` to b.out channels; `layer_scale` adds
// its per-channel gamma (the fusion adapter's has none).
void inverted(ModelTemplate& t, const std::string& p, uint64_t in, const MnBlock& b, bool layer_scale) {
  const uint64_t width = in * b.expand;
  if (b.start) conv_norm(t, p + "dw_start", in, 1, b.start);
  conv_norm(t, p + "pw_exp", width, in, 1);
  if (b.mid) conv_norm(t, p + "dw_mid", width, 1, b.mid);
  conv_norm(t, p + "pw_proj", b.out, width, 1);
  if (layer_scale) t.add(p + "layer_scale.gamma", {b.out});
}

void mn_block(ModelTemplate& t, const std::string& p, uint64_t in, const MnBlock& b) {
  switch (b.kind) {
    case Kind::EdgeResidual:
      conv(t, p + "conv_exp", in * b.expand, in, b.start);
      blocks::norm(t, p + "bn1", in * b.expand, false);
      conv(t, p + "conv_pwl", b.out, in * b.expand, 1);
      blocks::norm(t, p + "bn2", b.out, false);
      return;
    case Kind::Inverted:
      return inverted(t, p, in, b, true);
    case Kind::MultiQuery:
      blocks::norm(t, p + "norm", in, false);
      conv(t, p + "attn.query.proj", b.heads * b.key_dim, in, 1);
      for (const char* kv : {"attn.key.", "attn.value."}) {
        if (b.kv_stride > 1) {
          conv(t, p + kv + "down_conv", in, 1, 3);
          blocks::norm(t, p + kv + "norm", in, false);
        }
        conv(t, p + kv + "proj", b.key_dim, in, 1);
      }
      conv(t, p + "attn.output.proj", b.out, b.heads * b.key_dim, 1);
      t.add(p + "layer_scale.gamma", {b.out});
      return;
  }
}

// One of a conformer's half-step feed-forwards (H -> 4H -> H between two RMSNorms).
void conformer_ffw(ModelTemplate& t, const std::string& p, uint64_t h) {
  blocks::norm(t, p + "pre_layer_norm", h, false);
  blocks::linear(t, p + "ffw_layer_1", h, 4 * h, false);
  blocks::linear(t, p + "ffw_layer_2", 4 * h, h, false);
  blocks::norm(t, p + "post_layer_norm", h, false);
}

// A pair of integers from a config list of pairs (sscp_conv_kernel_size: [[3, 3], [3, 3]]), each in [1,
// 2^10].
std::array<uint64_t, 2> pair_at(const ModelConfig& a, std::string_view key, size_t i, uint64_t dflt) {
  const json::Value* v = a.raw(key);
  if (!v || v->is_null()) return {dflt, dflt};
  const auto fail = [&] { a.fail(key, "must list two pairs of integers from 1 to 1024"); };
  if (!v->is_array() || v->items().size() != 2 || !v->items()[i].is_array() ||
      v->items()[i].items().size() != 2)
    fail();
  std::array<uint64_t, 2> pair{};
  for (size_t j = 0; j < 2; ++j) {
    const std::optional<uint64_t> x = v->items()[i].items()[j].as_uint();
    if (!x || *x == 0 || *x > 1024) fail();
    pair[j] = *x;
  }
  return pair;
}

}  // namespace

uint64_t mobilenet_v5_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const std::string architecture = v.string_or("architecture", "mobilenetv5_300m_enc");
  // timm's classifier variant, built without its head as Gemma 3n's own weights use it, is the same encoder.
  if (architecture != "mobilenetv5_300m_enc" && architecture != "mobilenetv5_300m")
    unsupported(v, "a Gemma 3n vision tower other than timm's mobilenetv5_300m_enc (" + architecture + ")");
  if (const json::Value* args = v.raw("model_args"); args && !args->is_null())
    unsupported(v, "timm model_args, which change the vision tower's shape");
  t.add(prefix + "conv_stem.conv.weight", {kStem, 3, 3, 3});
  t.add(prefix + "conv_stem.conv.bias", {kStem});
  blocks::norm(t, prefix + "conv_stem.bn", kStem, false);
  uint64_t channels = kStem;
  std::vector<uint64_t> stage_out;
  const std::vector<std::vector<MnBlock>> stages = mobilenet_v5_300m();
  for (size_t s = 0; s < stages.size(); ++s) {
    uint64_t index = 0;
    for (const MnBlock& b : stages[s])
      for (uint64_t r = 0; r < b.repeat; ++r) {
        mn_block(t, prefix + "blocks." + std::to_string(s) + "." + std::to_string(index++) + ".", channels,
                 b);
        channels = b.out;
      }
    stage_out.push_back(channels);
  }
  // The fusion adapter: the last two stages' outputs side by side, through an inverted residual of
  // expansion 2 without depthwise convs, then an RMSNorm.
  const uint64_t fused = stage_out[2] + stage_out[3];
  inverted(t, prefix + "msfa.ffn.", fused, {Kind::Inverted, kFeatures, 0, 0, 2}, false);
  blocks::norm(t, prefix + "msfa.norm", kFeatures, false);
  // A CNN: a vision stack of its width, without the transformer layers the record describes.
  t.arch.add_stack(StackRole::Vision, prefix.substr(0, prefix.size() - 1), kFeatures);
  return kFeatures;
}

uint64_t gemma3n_audio_tower(const ModelConfig& a, const std::string& prefix, ModelTemplate& t) {
  const uint64_t h = a.dim_or("hidden_size", 1536), layers = a.layers_or("conf_num_hidden_layers", 12);
  const uint64_t heads = a.dim_or("conf_num_attention_heads", 8),
                 kernel = a.dim_or("conf_conv_kernel_size", 5);
  if (h % heads != 0)
    a.fail("conf_num_attention_heads", "must divide hidden_size (" + std::to_string(h) + ")");
  const uint64_t features = a.dim_or("input_feat_size", 128);
  uint64_t c0 = 128, c1 = 32;
  if (a.has("sscp_conv_channel_size")) {
    const std::vector<int64_t> c = a.ints("sscp_conv_channel_size");
    if (c.size() != 2 || c[0] < 1 || c[1] < 1 || c[0] > (int64_t{1} << 20) || c[1] > (int64_t{1} << 20))
      a.fail("sscp_conv_channel_size", "must be two channel counts from 1 to 2^20");
    c0 = static_cast<uint64_t>(c[0]);
    c1 = static_cast<uint64_t>(c[1]);
  }
  // Each convolution pads the frequency axis by one on either side; its output width feeds the next.
  uint64_t width = features;
  const std::string s = prefix + "subsample_conv_projection.";
  for (size_t i = 0; i < 2; ++i) {
    const std::array<uint64_t, 2> k = pair_at(a, "sscp_conv_kernel_size", i, 3);
    const std::array<uint64_t, 2> stride = pair_at(a, "sscp_conv_stride_size", i, 2);
    if (width + 2 < k[1]) a.fail("sscp_conv_kernel_size", "is wider than the padded input_feat_size");
    width = (width + 2 - k[1]) / stride[1] + 1;
    const std::string c = s + "conv_" + std::to_string(i) + ".";
    t.add(c + "conv.weight", {i == 0 ? c0 : c1, i == 0 ? 1 : c0, k[0], k[1]});
    blocks::norm(t, c + "norm", i == 0 ? c0 : c1, false);
  }
  const std::optional<uint64_t> projected = checked_mul(c1, width);
  if (!projected || *projected > ModelConfig::kMaxValue)
    a.fail("sscp_conv_channel_size", "times the frequency width left after the convolutions is too large");
  blocks::linear(t, s + "input_proj_linear", *projected, h, false);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "conformer." + std::to_string(i) + ".";
    conformer_ffw(t, p + "ffw_layer_start.", h);
    blocks::norm(t, p + "attention.pre_attn_norm", h, false);
    t.add(p + "attention.attn.per_dim_scale", {h / heads});
    blocks::linear(t, p + "attention.attn.relative_position_embedding.pos_proj", h, h, false);
    for (const char* proj : {"q_proj", "k_proj", "v_proj"})
      blocks::linear(t, p + "attention.attn." + proj, h, h, false);
    blocks::linear(t, p + "attention.post", h, h, false);
    blocks::norm(t, p + "attention.post_norm", h, false);
    blocks::norm(t, p + "lconv1d.pre_layer_norm", h, false);
    blocks::linear(t, p + "lconv1d.linear_start", h, 2 * h, false);
    t.add(p + "lconv1d.depthwise_conv1d.weight", {h, 1, kernel});
    blocks::norm(t, p + "lconv1d.conv_norm", h, false);
    blocks::linear(t, p + "lconv1d.linear_end", h, h, false);
    conformer_ffw(t, p + "ffw_layer_end.", h);
    blocks::norm(t, p + "norm", h, false);
  }
  record_conformer_stack(t, prefix + "conformer", h, layers, heads, h / heads, features,
                         a.dim_or("conf_attention_context_left", 13));
  return h;
}

}  // namespace ma::families
