// DiNAT (dinat: DinatModel, DinatForImageClassification; shi-labs/dinat-mini-in1k-224 ... dinat-large): a
// Swin-like hierarchy whose blocks attend over a kernel_size x kernel_size neighbourhood (natten's kernels,
// dilated per layer by `dilations`) with a learned relative position bias per head,
// rpb [heads, 2k - 1, 2k - 1]. The stem is two strided 3 x 3 convs (patch size 4 is the only one transformers
// accepts), and each stage but the last ends in a strided 3 x 3 conv that doubles the width. Hub checkpoints
// use the module names. DinatBackbone is refused.
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_e.h"
#include "model/families/vision_hier.h"

namespace ma::families {
namespace {

// DinatConfig's fields; its defaults are dinat-mini's.
struct DinatShape {
  uint64_t embed = 64, kernel = 7, channels = 3;
  std::vector<uint64_t> depths{3, 4, 6, 5}, heads{2, 4, 8, 16};
  double mlp_ratio = 3.0;
  bool qkv_bias = true;
  double layer_scale = 0.0;  // layer_scale_init_value: the per-layer scales exist when it is > 0

  uint64_t width(size_t stage) const { return embed << stage; }  // int(embed_dim * 2 ** stage)
  uint64_t features() const { return width(depths.size() - 1); }
  uint64_t mlp(size_t stage) const {  // int(mlp_ratio * dim)
    return static_cast<uint64_t>(mlp_ratio * static_cast<double>(width(stage)));
  }
};

DinatShape read_dinat(const ModelConfig& cfg) {
  DinatShape s;
  s.embed = cfg.dim_or("embed_dim", s.embed);
  s.depths = cfg.dims_or("depths", s.depths);
  if (s.depths.empty()) cfg.fail("depths", "must list at least one stage");
  uint64_t blocks = 0;
  for (uint64_t d : s.depths) blocks += d;
  cfg.check_layer_list("depths", blocks);
  s.heads = per_stage_dims(cfg, "num_heads", s.heads, s.depths.size());
  s.kernel = cfg.dim_or("kernel_size", s.kernel);
  if (s.kernel > 4096) cfg.fail("kernel_size", "must be at most 4096");
  s.channels = cfg.dim_or("num_channels", s.channels);
  s.mlp_ratio = cfg.number_or("mlp_ratio", s.mlp_ratio);
  s.qkv_bias = cfg.flag_or("qkv_bias", s.qkv_bias);
  s.layer_scale = cfg.number_or("layer_scale_init_value", s.layer_scale);
  // DinatPatchEmbeddings raises for any other patch size.
  if (cfg.dim_or("patch_size", 4) != 4) cfg.fail("patch_size", "must be 4, the only one DiNAT supports");
  if (s.depths.size() > 27 || s.features() > ModelConfig::kMaxValue)
    cfg.fail("embed_dim", "doubled at every stage after the first must stay within 2^26");
  // The stem's first conv has embed_dim // 2 output channels.
  if (s.embed < 2) cfg.fail("embed_dim", "must be at least 2 (the stem's first conv has half as many)");
  // DinatStage reads dilations[stage][layer] for every layer of every stage (an IndexError when a list is
  // short); the default lists are dinat-mini's, one per layer of its 3, 4, 6 and 5.
  std::vector<size_t> dilation_counts{3, 4, 6, 5};
  if (const json::Value* dilations = cfg.raw("dilations"); dilations && !dilations->is_null()) {
    if (!dilations->is_array()) cfg.fail("dilations", "must be a list of per-stage lists");
    dilation_counts.clear();
    for (const json::Value& stage : dilations->items())
      dilation_counts.push_back(stage.is_array() ? stage.items().size() : 0);
  }
  for (size_t i = 0; i < s.depths.size(); ++i)
    if (i >= dilation_counts.size() || dilation_counts[i] < s.depths[i])
      cfg.fail("dilations",
               "must list one dilation per layer of each stage (stage " + std::to_string(i) + ")");
  for (size_t i = 0; i < s.depths.size(); ++i) {
    const double wide = s.mlp_ratio * static_cast<double>(s.width(i));
    if (!(wide >= 1.0) || wide > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each stage's width must make an MLP width from 1 to 2^26");
    // NeighborhoodAttention raises unless the heads divide the stage's width.
    if (s.width(i) % s.heads[i] != 0)
      cfg.fail("num_heads", "must divide each stage's width (stage " + std::to_string(i) + ": " +
                                std::to_string(s.width(i)) + ")");
  }
  return s;
}

// One DinatLayer under `b`. Its layer-scale pair, when present, is the layer's own parameter and so comes
// before its modules' in registration order; likewise rpb before the attention's q/k/v.
void dinat_layer(ModelTemplate& t, const DinatShape& s, const std::string& b, uint64_t dim, uint64_t heads,
                 uint64_t mlp) {
  if (s.layer_scale > 0) t.add(b + "layer_scale_parameters", {2, dim});
  blocks::norm(t, b + "layernorm_before", dim, true);
  const std::string a = b + "attention.self.";
  const uint64_t offsets = 2 * s.kernel - 1;
  t.add(a + "rpb", {heads, offsets, offsets});
  for (const char* proj : {"query", "key", "value"}) blocks::linear(t, a + proj, dim, dim, s.qkv_bias);
  blocks::linear(t, b + "attention.output.dense", dim, dim, true);
  blocks::norm(t, b + "layernorm_after", dim, true);
  blocks::linear(t, b + "intermediate.dense", dim, mlp, true);
  blocks::linear(t, b + "output.dense", mlp, dim, true);
}

// DinatModel under `p`: the conv stem and its LayerNorm, the stages, the final LayerNorm (the pooler is an
// AdaptiveAvgPool1d, no weights).
void dinat_body(ModelTemplate& t, const DinatShape& s, const std::string& p) {
  const uint64_t c = s.embed;
  const std::string stem = p + "embeddings.patch_embeddings.projection.";
  blocks::conv2d(t, stem + "0", s.channels, c / 2, 3);
  blocks::conv2d(t, stem + "1", c / 2, c, 3);
  blocks::norm(t, p + "embeddings.norm", c, true);
  StackSpec& stack = t.arch.add_stack(StackRole::Encoder, p + "encoder.levels", s.features());
  stack.patch_size = 4;
  for (size_t i = 0; i < s.depths.size(); ++i) {
    const uint64_t dim = s.width(i);
    const std::string stage = p + "encoder.levels." + std::to_string(i) + ".";
    for (uint64_t j = 0; j < s.depths[i]; ++j)
      dinat_layer(t, s, stage + "layers." + std::to_string(j) + ".", dim, s.heads[i], s.mlp(i));
    if (i + 1 < s.depths.size()) {  // DinatDownsampler: a bias-free strided 3 x 3 conv, then a LayerNorm
      t.add(stage + "downsample.reduction.weight", {2 * dim, dim, 3, 3});
      blocks::norm(t, stage + "downsample.norm", 2 * dim, true);
    }
  }
  blocks::norm(t, p + "layernorm", s.features(), true);
}

}  // namespace

void build_dinat(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DinatModel");
  const std::string task = supported_task(cfg, cls, "Dinat", {"Model", "ForImageClassification"});
  const DinatShape s = read_dinat(cfg);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = s.features();
  a.num_layers = 0;
  for (uint64_t d : s.depths) a.num_layers += d;
  a.num_attention_heads = a.num_key_value_heads = s.heads.back();
  a.head_dim = s.features() / a.num_attention_heads;
  a.intermediate_size = s.mlp(s.depths.size() - 1);
  dinat_body(t, s, task == "Model" ? "" : "dinat.");
  // A Linear over the pooled features; nn.Identity when num_labels is 0.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", s.features(), labels, true);
}

}  // namespace ma::families
