// EfficientLoFTR (model_type efficientloftr: EfficientLoFTRModel, EfficientLoFTRForKeypointMatching;
// zju-community/efficientloftr): a detector-free semi-dense matcher. A RepVGG backbone (per block a 3 x 3
// and a 1 x 1 conv with batch norms, plus a batch norm as identity branch when the block keeps its width and
// stride) over one grey channel, then per attention layer an aggregated self and cross attention (a
// depthwise strided conv and a max-pool shrink queries and keys, a LayerNorm, bias-free Llama-style
// projections with a 2-D rotary embedding whose inv_freq is a non-persistent buffer, a bias-free MLP on the
// concatenation of input and upsampled attention output), and, in the matcher, a fine fusion pyramid of
// bias-free convs. EfficientLoFTRConfig derives the per-block channels and strides and fine_fusion_dims from
// stage_num_blocks, stage_stride and out_features and saves them in config.json; PretrainedConfig sets the
// saved copies back over the derived ones, so a saved list that disagrees is refused rather than guessed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_f.h"

namespace ma::families {
namespace {

using EloftrGrid = std::vector<std::vector<uint64_t>>;

// A list of lists of integers config.json may store (stage_block_in_channels ...), when it is one.
bool eloftr_saved_grid_matches(const ModelConfig& cfg, std::string_view key, const EloftrGrid& derived) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return true;
  if (!v->is_array() || v->items().size() != derived.size()) return false;
  for (size_t i = 0; i < derived.size(); ++i) {
    const json::Value& row = v->items()[i];
    if (!row.is_array() || row.items().size() != derived[i].size()) return false;
    for (size_t j = 0; j < derived[i].size(); ++j)
      if (row.items()[j].as_uint() != derived[i][j]) return false;
  }
  return true;
}

void eloftr_check_saved(const ModelConfig& cfg, std::string_view key, const EloftrGrid& derived) {
  if (!eloftr_saved_grid_matches(cfg, key, derived))
    cfg.fail(key, "must be what stage_num_blocks, stage_stride and out_features derive");
}

struct EloftrShape {
  std::vector<uint64_t> blocks, strides, widths;  // per stage: blocks, first block's stride, out channels
  uint64_t hidden = 256, heads = 8, kv_heads = 8, head_dim = 32, intermediate = 512, layers = 4, q_kernel = 4;
  bool attention_bias = false;
  std::vector<uint64_t> fine_fusion;  // out_features reversed, the first stage's dropped
};

EloftrShape read_eloftr_shape(const ModelConfig& cfg) {
  EloftrShape s;
  s.blocks = cfg.dims_or("stage_num_blocks", {1, 2, 4, 14});
  s.strides = cfg.dims_or("stage_stride", {2, 1, 2, 2});
  s.widths = cfg.dims_or("out_features", {64, 64, 128, 256});
  if (s.strides.size() != s.blocks.size())
    cfg.fail("stage_stride", "must give one stride per stage_num_blocks entry");
  if (s.widths.size() != s.blocks.size())
    cfg.fail("out_features", "must give one width per stage_num_blocks entry");
  if (s.widths.size() < 2)
    cfg.fail("out_features", "must name at least two stages (the fine fusion needs them)");
  uint64_t all_blocks = 0;
  EloftrGrid in, out, stride;
  for (size_t i = 0; i < s.blocks.size(); ++i) {
    all_blocks += s.blocks[i];
    cfg.check_layer_list("stage_num_blocks", all_blocks);
    out.emplace_back(s.blocks[i], s.widths[i]);
    in.emplace_back(s.blocks[i], s.widths[i]);
    in.back().front() = i == 0 ? 1 : s.widths[i - 1];  // stage_in_channels: [1] + out_features[:-1]
    stride.emplace_back(s.blocks[i], 1);
    stride.back().front() = s.strides[i];
  }
  eloftr_check_saved(cfg, "stage_block_in_channels", in);
  eloftr_check_saved(cfg, "stage_block_out_channels", out);
  eloftr_check_saved(cfg, "stage_block_stride", stride);
  s.fine_fusion.assign(s.widths.rbegin(), s.widths.rend() - 1);
  if (cfg.dims_or("fine_fusion_dims", s.fine_fusion) != s.fine_fusion)
    cfg.fail("fine_fusion_dims", "must be what out_features derives");
  s.hidden = cfg.dim_or("hidden_size", s.hidden);
  if (s.hidden != s.widths.back()) cfg.fail("hidden_size", "must equal the last out_features entry");
  s.heads = cfg.dim_or("num_attention_heads", s.heads);
  s.kv_heads = cfg.dim_or("num_key_value_heads", s.heads);  // the config sets it to num_attention_heads
  // LlamaAttention's getattr(config, "head_dim", hidden_size // heads).
  s.head_dim = cfg.dim_or("head_dim", split_heads(cfg, "num_attention_heads", s.hidden, s.heads));
  s.intermediate = cfg.dim_or("intermediate_size", 2 * s.hidden);  // the config sets it to 2 x hidden_size
  s.layers = cfg.layers_or("num_attention_layers", s.layers);
  s.q_kernel = cfg.dim_or("q_aggregation_kernel_size", s.q_kernel);
  s.attention_bias = cfg.flag_or("attention_bias", false);
  return s;
}

// A bias-free conv (EfficientLoFTRConvNormLayer.conv) and its trainable BatchNorm2d (.norm).
void eloftr_conv_norm(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel) {
  detr_conv_norm(t, p + "conv", p + "norm", in, out, kernel, false);
}

// EfficientLoFTRAggregatedAttention under `p`: aggregation (q_aggregation, a depthwise bias-free conv, and
// its LayerNorm), the attention's q/k/v/o projections, the MLP (fc1 from the concatenation, fc2, LayerNorm).
void eloftr_aggregated_attention(ModelTemplate& t, const std::string& p, const EloftrShape& s) {
  t.add(p + "aggregation.q_aggregation.weight", {s.hidden, 1, s.q_kernel, s.q_kernel});
  blocks::norm(t, p + "aggregation.norm", s.hidden, true);
  blocks::Attention a;
  a.hidden = s.hidden;
  a.heads = s.heads;
  a.kv_heads = s.kv_heads;
  a.head_dim = s.head_dim;
  a.qkv_bias = a.o_bias = s.attention_bias;
  blocks::attention(t, p + "attention", a);
  blocks::linear(t, p + "mlp.fc1", 2 * s.hidden, s.intermediate, false);
  blocks::linear(t, p + "mlp.fc2", s.intermediate, s.hidden, false);
  blocks::norm(t, p + "mlp.layer_norm", s.hidden, true);
}

// EfficientLoFTRModel under `prefix`: the RepVGG backbone, then the local feature transformer.
void eloftr_model(ModelTemplate& t, const std::string& prefix, const EloftrShape& s) {
  for (size_t st = 0; st < s.blocks.size(); ++st)
    for (uint64_t b = 0; b < s.blocks[st]; ++b) {
      const std::string p =
          prefix + "backbone.stages." + std::to_string(st) + ".blocks." + std::to_string(b) + ".";
      const uint64_t in = b == 0 ? (st == 0 ? 1 : s.widths[st - 1]) : s.widths[st];
      const uint64_t out = s.widths[st];
      const uint64_t stride = b == 0 ? s.strides[st] : 1;
      eloftr_conv_norm(t, p + "conv1.", in, out, 3);
      eloftr_conv_norm(t, p + "conv2.", in, out, 1);
      if (in == out && stride == 1) detr_batch_norm(t, p + "identity", in, false);
    }
  StackSpec& encoder =
      t.arch.add_stack(StackRole::Encoder, prefix + "local_feature_transformer.layers", s.hidden);
  for (uint64_t i = 0; i < s.layers; ++i) {
    const std::string p = encoder.path + "." + std::to_string(i) + ".";
    eloftr_aggregated_attention(t, p + "self_attention.", s);
    eloftr_aggregated_attention(t, p + "cross_attention.", s);
    LayerSpec l;
    l.attention.kind = attention_kind_of(s.heads, s.kv_heads);
    l.attention.heads = s.heads;
    l.attention.kv_heads = s.kv_heads;
    l.attention.head_dim = s.head_dim;
    l.attention.modules = 2;  // the self and the cross attention, each with its MLP
    l.ffn.gated = false;
    l.ffn.intermediate = s.intermediate;
    encoder.layers.push_back(l);
  }
}

// EfficientLoFTRFineFusionLayer under `p`: out_conv on the coarse width, then per finer level an
// EfficientLoFTROutConvBlock from that level's width up to the previous one and back.
void eloftr_fine_fusion(ModelTemplate& t, const std::string& p, const std::vector<uint64_t>& dims) {
  t.add(p + "out_conv.weight", {dims[0], dims[0], 1, 1});
  for (size_t i = 1; i < dims.size(); ++i) {
    const std::string b = p + "out_conv_layers." + std::to_string(i - 1) + ".";
    const uint64_t width = dims[i], inner = dims[i - 1];
    t.add(b + "out_conv1.weight", {inner, width, 1, 1});
    t.add(b + "out_conv2.weight", {inner, inner, 3, 3});
    detr_batch_norm(t, b + "batch_norm", inner, false);
    t.add(b + "out_conv3.weight", {width, inner, 3, 3});
  }
}

}  // namespace

void build_efficientloftr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "EfficientLoFTRModel");
  const std::string task = supported_task(cfg, cls, "EfficientLoFTR", {"Model", "ForKeypointMatching"});
  const EloftrShape s = read_eloftr_shape(cfg);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = s.hidden;
  a.num_layers = s.layers;
  a.num_attention_heads = s.heads;
  a.num_key_value_heads = s.kv_heads;
  a.head_dim = s.head_dim;
  a.intermediate_size = s.intermediate;
  a.attention_bias = s.attention_bias;
  a.mlp_bias = false;
  a.activation = cfg.string_or("mlp_activation_function", "leaky_relu");
  a.norm = NormKind::LayerNorm;
  a.position = PositionKind::Rope;
  if (task == "Model") {
    eloftr_model(t, "", s);
    return;
  }
  eloftr_model(t, "efficientloftr.", s);
  eloftr_fine_fusion(t, "refinement_layer.", s.fine_fusion);
}

}  // namespace ma::families
