// Swin Transformer (swin: SwinModel, SwinForImageClassification), Donut's copy of it (donut-swin:
// DonutSwinModel, DonutSwinForImageClassification), the image encoder of Donut and Nougat, which
// VisionEncoderDecoderModel nests under encoder.*, and Swin V2 (swinv2: Swinv2Model,
// Swinv2ForImageClassification). All embed 4 x 4-pixel patches, then run stages of window-attention blocks
// (every other one shifted), each stage but the last ending in a patch merging that halves the grid and
// doubles the width.
//
// transformers 5 rebuilt Swin on ViT's modules (attention.q_proj ... o_proj, the relative position table in
// attention.relative_position_bias, mlp.fc1 / fc2) and made relative_position_index a non-persistent buffer
// it recomputes; Hub checkpoints keep transformers 4's names and still store the index, which it ignores.
// Donut's copy kept the old modules: attention.self.{query,key,value}, attention.output.dense,
// intermediate / output, its index a persistent buffer, and no final LayerNorm.
//
// Swin V2 (transformers 5: modular_swinv2.py over Swin's modules) replaces the bias table by cosine attention
// with a learned per-head logit_scale and a small MLP (continuous_position_bias_mlp) that makes the biases
// from log-spaced coordinates, so no parameter depends on the window size; its coordinate table and index are
// non-persistent buffers. Its patch merging norms the merged 2 x width features after the reduction.
//
// MaskFormer's Swin (maskformer-swin: MaskFormerSwinModel, MaskFormerSwinBackbone,
// modeling_maskformer_swin.py) is a copy transformers 5 left on the old modules: Donut's layers (index a
// persistent buffer, position table with the class-token row) with Swin's final LayerNorm. SwinBackbone (what
// UperNet nests) is Swin without the final LayerNorm, with a LayerNorm per stage it hands on.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/ocr_vlms.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// Which of the three models a template is built for.
enum class SwinKind { Swin, DonutSwin, SwinV2, MaskFormerSwin };

// SwinConfig's, DonutSwinConfig's and Swinv2Config's fields; their defaults (Swin-T's) are the same.
struct SwinShape {
  uint64_t embed = 96, window = 7, channels = 3;
  std::vector<uint64_t> depths{2, 2, 6, 2}, heads{3, 6, 12, 24};
  double mlp_ratio = 4.0;
  bool qkv_bias = true, absolute_positions = false;
  std::pair<uint64_t, uint64_t> image{224, 224}, patch{4, 4};

  // int(embed_dim * 2 ** stage): the width of a stage's blocks.
  uint64_t width(size_t stage) const { return embed << stage; }
  // The last stage's width, what the model outputs (SwinConfig.hidden_size).
  uint64_t features() const { return width(depths.size() - 1); }
  // int(mlp_ratio * dim)
  uint64_t mlp(size_t stage) const {
    return static_cast<uint64_t>(mlp_ratio * static_cast<double>(width(stage)));
  }
  // (2 * window - 1)^2 relative offsets inside a window, one bias per head.
  uint64_t offsets() const { return (2 * window - 1) * (2 * window - 1); }
};

// A per-stage list (depths, num_heads) of integers >= `min`, or `dflt` when absent.
std::vector<uint64_t> swin_stage_list(const ModelConfig& cfg, std::string_view key,
                                      std::vector<uint64_t> dflt, int64_t min) {
  if (!cfg.has(key)) return dflt;
  std::vector<uint64_t> out;
  for (int64_t x : cfg.ints(key)) {
    if (x < min || static_cast<uint64_t>(x) > ModelConfig::kMaxValue)
      cfg.fail(key, "must list integers from " + std::to_string(min) + " to 2^26");
    out.push_back(static_cast<uint64_t>(x));
  }
  return out;
}

SwinShape read_swin(const ModelConfig& cfg, SwinKind kind) {
  SwinShape s;
  s.embed = cfg.dim_or("embed_dim", s.embed);
  s.depths = swin_stage_list(cfg, "depths", s.depths, 0);
  s.heads = swin_stage_list(cfg, "num_heads", s.heads, 1);
  s.window = cfg.dim_or("window_size", s.window);
  s.channels = cfg.dim_or("num_channels", s.channels);
  s.mlp_ratio = cfg.number_or("mlp_ratio", s.mlp_ratio);
  s.qkv_bias = cfg.flag_or("qkv_bias", s.qkv_bias);
  s.absolute_positions = cfg.flag_or("use_absolute_embeddings", s.absolute_positions);
  s.image = vit_pair(cfg, "image_size", 224);
  s.patch = vit_pair(cfg, "patch_size", 4);
  // Swin's attention does not check that the heads divide a stage's width (its q/k/v are width x width
  // whatever the heads); DonutSwinSelfAttention and Swinv2Attention raise.
  check_swin_stages(cfg, {"depths", "num_heads", "embed_dim"}, s.depths, s.heads, s.embed, s.window,
                    s.mlp_ratio, kind != SwinKind::Swin);
  return s;
}

// transformers 5's SwinLayer modules (registration order) and where transformers 4 kept them.
constexpr std::pair<std::string_view, std::string_view> kSwinStoredAs[] = {
    {"attention.q_proj", "attention.self.query"},
    {"attention.k_proj", "attention.self.key"},
    {"attention.v_proj", "attention.self.value"},
    {"attention.o_proj", "attention.output.dense"},
    {"attention.relative_position_bias.relative_position_bias_table",
     "attention.self.relative_position_bias_table"},
    {"mlp.fc1", "intermediate.dense"},
    {"mlp.fc2", "output.dense"},
    // Swin V2's attention parameters, which transformers 4 kept in attention.self.
    {"attention.logit_scale", "attention.self.logit_scale"},
    {"attention.continuous_position_bias_mlp", "attention.self.continuous_position_bias_mlp"},
};

// The tensors added from t.tensors[first] on under `block`, stored under transformers 4's names.
void swin_block_on_disk(ModelTemplate& t, size_t first, const std::string& block) {
  for (size_t i = first; i < t.tensors.size(); ++i) {
    TemplateTensor& x = t.tensors[i];
    const std::string_view rest = std::string_view(x.name).substr(block.size());
    for (const auto& [memory, stored] : kSwinStoredAs)
      if (rest.starts_with(memory))
        x.disk.push_back({block + std::string(stored) + std::string(rest.substr(memory.size())), x.shape});
  }
}

// One SwinLayer (transformers 5: ViT's layer with windowed attention) of `dim` channels under `b`.
void swin_block(ModelTemplate& t, const SwinShape& s, const std::string& b, uint64_t dim, uint64_t heads,
                uint64_t mlp) {
  const size_t first = t.tensors.size();
  for (const char* proj : {"q_proj", "k_proj", "v_proj"})
    blocks::linear(t, b + "attention." + proj, dim, dim, s.qkv_bias);
  blocks::linear(t, b + "attention.o_proj", dim, dim, true);
  t.add(b + "attention.relative_position_bias.relative_position_bias_table", {s.offsets(), heads});
  blocks::norm(t, b + "layernorm_before", dim, true);
  blocks::norm(t, b + "layernorm_after", dim, true);
  blocks::linear(t, b + "mlp.fc1", dim, mlp, true);
  blocks::linear(t, b + "mlp.fc2", mlp, dim, true);
  swin_block_on_disk(t, first, b);
  // Hub checkpoints store the index transformers 5 recomputes (_keys_to_ignore_on_load_unexpected).
  t.known_extras.push_back({b + "attention.self.relative_position_index",
                            "Swin's relative position index, a buffer transformers 5 recomputes"});
}

// One DonutSwinLayer under `b`: transformers 4's Swin layer, its index a persistent int64 buffer.
void donut_swin_block(ModelTemplate& t, const SwinShape& s, const std::string& b, uint64_t dim,
                      uint64_t heads, uint64_t mlp) {
  blocks::norm(t, b + "layernorm_before", dim, true);
  const std::string a = b + "attention.self.";
  t.add(a + "relative_position_bias_table", {s.offsets(), heads});
  const std::string index = a + "relative_position_index";
  TemplateTensor& x = t.add(index, {s.window * s.window, s.window * s.window});
  x.kind = TensorKind::Buffer;
  x.disk.push_back({.name = index, .shape = x.shape, .dtype = DType::I64});
  for (const char* proj : {"query", "key", "value"}) blocks::linear(t, a + proj, dim, dim, s.qkv_bias);
  blocks::linear(t, b + "attention.output.dense", dim, dim, true);
  blocks::norm(t, b + "layernorm_after", dim, true);
  blocks::linear(t, b + "intermediate.dense", dim, mlp, true);
  blocks::linear(t, b + "output.dense", mlp, dim, true);
}

// One Swinv2Layer under `b`. It is built as a SwinLayer whose attention is then deleted and set again, which
// moves the attention after the norms and the MLP in registration order. Inside the attention the module's
// own logit_scale comes before its submodules' parameters.
void swinv2_block(ModelTemplate& t, const SwinShape& s, const std::string& b, uint64_t dim, uint64_t heads,
                  uint64_t mlp) {
  const size_t first = t.tensors.size();
  blocks::norm(t, b + "layernorm_before", dim, true);
  blocks::norm(t, b + "layernorm_after", dim, true);
  blocks::linear(t, b + "mlp.fc1", dim, mlp, true);
  blocks::linear(t, b + "mlp.fc2", mlp, dim, true);
  t.add(b + "attention.logit_scale", {heads, 1, 1});
  blocks::linear(t, b + "attention.q_proj", dim, dim, s.qkv_bias);
  blocks::linear(t, b + "attention.k_proj", dim, dim, false);  // the key never has a bias
  blocks::linear(t, b + "attention.v_proj", dim, dim, s.qkv_bias);
  blocks::linear(t, b + "attention.o_proj", dim, dim, true);
  // Linear(2, 512), ReLU, Linear(512, heads, bias=False): 512 is fixed, whatever the config.
  blocks::linear(t, b + "attention.continuous_position_bias_mlp.0", 2, 512, true);
  blocks::linear(t, b + "attention.continuous_position_bias_mlp.2", 512, heads, false);
  swin_block_on_disk(t, first, b);
  // Both are non-persistent buffers transformers recomputes (_keys_to_ignore_on_load_unexpected).
  for (const char* buffer : {"relative_coords_table", "relative_position_index"})
    t.known_extras.push_back(
        {b + "attention.self." + buffer, "Swin V2's window coordinates, a buffer transformers recomputes"});
}

// The model under `p` ("", "swin.", "donut.", "swinv2."): embeddings, stages, and, when `final_norm`, the
// final LayerNorm (Swin's, Swin V2's and MaskFormer's; not Donut's nor SwinBackbone's). Returns the output
// width.
uint64_t swin_body(ModelTemplate& t, const SwinShape& s, const std::string& p, SwinKind kind,
                   bool final_norm) {
  // Donut and MaskFormer keep transformers 4's layers.
  const bool donut = kind == SwinKind::DonutSwin || kind == SwinKind::MaskFormerSwin;
  const uint64_t c = s.embed;
  const auto [image_h, image_w] = s.image;
  const auto [patch_h, patch_w] = s.patch;
  // Donut's table keeps ViT's extra row for a class token it does not have; Swin 5's dropped it.
  const uint64_t positions = (image_h / patch_h) * (image_w / patch_w) + (donut ? 1 : 0);
  if (s.absolute_positions) t.add(p + "embeddings.position_embeddings", {1, positions, c});
  t.add(p + "embeddings.patch_embeddings.projection.weight", {c, s.channels, patch_h, patch_w});
  t.add(p + "embeddings.patch_embeddings.projection.bias", {c});
  blocks::norm(t, p + "embeddings.norm", c, true);
  // Its stages differ in width and heads: no stack of equal layers. The record keeps the tower's output
  // width and input size, as for the other staged towers (FastViT, DaViT).
  StackSpec& stack = t.arch.add_stack(StackRole::Encoder, p + "encoder.layers", s.features());
  stack.patch_size = patch_h;
  stack.image_size = image_h;
  // The patches the last stage outputs: the embedding pads the image to whole patches, and each merging pads
  // an odd side before halving it (Donut's 2,560 x 1,920 pages in patches of 4: 80 x 60).
  uint64_t side_h = (image_h + patch_h - 1) / patch_h, side_w = (image_w + patch_w - 1) / patch_w;
  for (size_t i = 1; i < s.depths.size(); ++i) {
    side_h = (side_h + 1) / 2;
    side_w = (side_w + 1) / 2;
  }
  stack.output_positions = side_h * side_w;
  for (size_t i = 0; i < s.depths.size(); ++i) {
    const uint64_t dim = s.width(i);
    const std::string stage = p + "encoder.layers." + std::to_string(i) + ".";
    for (uint64_t j = 0; j < s.depths[i]; ++j) {
      const std::string b = stage + "blocks." + std::to_string(j) + ".";
      if (donut)
        donut_swin_block(t, s, b, dim, s.heads[i], s.mlp(i));
      else if (kind == SwinKind::SwinV2)
        swinv2_block(t, s, b, dim, s.heads[i], s.mlp(i));
      else
        swin_block(t, s, b, dim, s.heads[i], s.mlp(i));
    }
    if (i + 1 < s.depths.size()) {  // SwinPatchMerging: 2 x 2 patches into twice the width
      blocks::linear(t, stage + "downsample.reduction", 4 * dim, 2 * dim, false);
      // Swin norms the 4 x width input of the reduction, Swin V2 its 2 x width output.
      blocks::norm(t, stage + "downsample.norm", (kind == SwinKind::SwinV2 ? 2 : 4) * dim, true);
    }
  }
  if (final_norm) blocks::norm(t, p + "layernorm", s.features(), true);
  return s.features();
}

// The record of an encoder whose depth is its blocks, its other dimensions the last stage's.
void swin_record(ModelTemplate& t, const SwinShape& s, const std::string& cls) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = s.features();
  a.num_layers = 0;
  for (uint64_t d : s.depths) a.num_layers += d;
  a.num_attention_heads = a.num_key_value_heads = s.heads[s.depths.size() - 1];
  a.head_dim = s.features() / a.num_attention_heads;
  a.intermediate_size = s.mlp(s.depths.size() - 1);
}

// SwinModel / DonutSwinModel / Swinv2Model as AutoModel builds them (their pooler is an AdaptiveAvgPool1d,
// no weights), or the image classifier over the pooled features under the base model's prefix (swin, donut,
// swinv2). The masked-image-modeling heads and the backbones are refused.
void build_swin_family(const ModelConfig& cfg, ModelTemplate& t, std::string_view family, SwinKind kind,
                       std::string_view base_prefix) {
  const std::string cls = architecture_of(cfg, std::string(family) + "Model");
  const std::string task = supported_task(cfg, cls, family, {"Model", "ForImageClassification"});
  const SwinShape s = read_swin(cfg, kind);
  swin_record(t, s, cls);
  const uint64_t features =
      swin_body(t, s, task == "Model" ? "" : std::string(base_prefix), kind, kind != SwinKind::DonutSwin);
  // A Linear over the pooled features, an nn.Identity when num_labels is 0.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", features, labels, true);
}

}  // namespace

void check_swin_stages(const ModelConfig& cfg, const SwinStageKeys& keys, const std::vector<uint64_t>& depths,
                       const std::vector<uint64_t>& heads, uint64_t embed, uint64_t window, double mlp_ratio,
                       bool heads_divide_width) {
  const auto width = [embed](size_t stage) { return embed << stage; };  // int(embed * 2 ** stage)
  if (depths.empty()) cfg.fail(keys.depths, "must list at least one stage");
  uint64_t blocks = 0;
  for (uint64_t d : depths) blocks += d;
  if (blocks > ModelConfig::kMaxLayers) cfg.fail(keys.depths, "must add up to at most 1024 blocks");
  // The encoder reads a head count for every stage of depths (extra entries go unread).
  if (heads.size() < depths.size())
    cfg.fail(keys.heads, "must list one head count per stage (" + std::to_string(depths.size()) + ")");
  if (depths.size() > 27 || width(depths.size() - 1) > ModelConfig::kMaxValue)
    cfg.fail(keys.embed, "doubled at every stage after the first must stay within 2^26");
  if (window > 4096) cfg.fail("window_size", "must be at most 4096");
  for (size_t i = 0; i < depths.size(); ++i) {
    const double wide = mlp_ratio * static_cast<double>(width(i));
    if (!(wide >= 1.0) || wide > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each stage's width must make an MLP width from 1 to 2^26");
    if (heads_divide_width && width(i) % heads[i] != 0)
      cfg.fail(keys.heads, "must divide each stage's width (stage " + std::to_string(i) + ": " +
                               std::to_string(width(i)) + ")");
  }
}

void swinv2_layer(ModelTemplate& t, const std::string& block, uint64_t dim, uint64_t heads, uint64_t mlp,
                  bool qkv_bias) {
  SwinShape s;
  s.qkv_bias = qkv_bias;
  swinv2_block(t, s, block, dim, heads, mlp);
}

void donut_swin_layer(ModelTemplate& t, const std::string& block, uint64_t dim, uint64_t heads, uint64_t mlp,
                      uint64_t window, bool qkv_bias) {
  SwinShape s;
  s.window = window;
  s.qkv_bias = qkv_bias;
  donut_swin_block(t, s, block, dim, heads, mlp);
}

void build_swin(const ModelConfig& cfg, ModelTemplate& t) {
  build_swin_family(cfg, t, "Swin", SwinKind::Swin, "swin.");
}

void build_donut_swin(const ModelConfig& cfg, ModelTemplate& t) {
  build_swin_family(cfg, t, "DonutSwin", SwinKind::DonutSwin, "donut.");
}

void build_swinv2(const ModelConfig& cfg, ModelTemplate& t) {
  build_swin_family(cfg, t, "Swinv2", SwinKind::SwinV2, "swinv2.");
}

std::vector<uint64_t> swin_backbone(const ModelConfig& bb, const std::string& prefix, SwinBackboneKind kind,
                                    ModelTemplate& t) {
  const bool maskformer = kind != SwinBackboneKind::Swin;
  const SwinShape s = read_swin(bb, maskformer ? SwinKind::MaskFormerSwin : SwinKind::Swin);
  swin_record(t, s, t.arch.architecture);
  // The stem's width (the patch embeddings), then each stage's.
  std::vector<uint64_t> features{s.embed};
  for (size_t i = 0; i < s.depths.size(); ++i) features.push_back(s.width(i));
  std::vector<size_t> out;
  if (kind == SwinBackboneKind::MaskFormerFromSwin) {
    // MaskFormer sets out_features to stage1..stage4 whatever the config says.
    if (s.depths.size() < 4) bb.fail("depths", "must list at least the four stages MaskFormer hands on");
    out = {1, 2, 3, 4};
  } else {
    out = backbone_out_stages(bb, features.size());
  }
  if (!maskformer) {
    // SwinBackbone: a LayerNorm per stage it hands on, in a ModuleDict keyed by the stage's name.
    swin_body(t, s, prefix, SwinKind::Swin, false);
    for (const size_t i : out)
      blocks::norm(t, prefix + "hidden_states_norms.stage" + std::to_string(i), features[i], true);
  } else {
    // MaskFormerSwinBackbone: the whole MaskFormerSwinModel (its final LayerNorm unused) under model., then a
    // LayerNorm for every stage whatever out_features says; "stem" it refuses.
    for (const size_t i : out)
      if (i == 0) bb.fail("out_features", "must not name the stem (MaskFormerSwinBackbone refuses it)");
    swin_body(t, s, prefix + "model.", SwinKind::MaskFormerSwin, true);
    for (size_t i = 1; i < features.size(); ++i)
      blocks::norm(t, prefix + "hidden_states_norms." + std::to_string(i - 1), features[i], true);
  }
  std::vector<uint64_t> channels;
  for (const size_t i : out) channels.push_back(features[i]);
  return channels;
}

void build_maskformer_swin(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MaskFormerSwinModel");
  const std::string task = supported_task(cfg, cls, "MaskFormerSwin", {"Model", "Backbone"});
  t.arch.architecture = cls;
  if (task == "Backbone") {
    swin_backbone(cfg, "", SwinBackboneKind::MaskFormer, t);
    return;
  }
  // MaskFormerSwinModel's pooler is an AdaptiveAvgPool1d: no weights.
  const SwinShape s = read_swin(cfg, SwinKind::MaskFormerSwin);
  swin_record(t, s, cls);
  swin_body(t, s, "", SwinKind::MaskFormerSwin, true);
}

}  // namespace ma::families
