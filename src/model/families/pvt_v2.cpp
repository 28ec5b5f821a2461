// Pyramid Vision Transformer v2 (pvt_v2: PvtV2Model, PvtV2ForImageClassification; OpenGVLab/pvt_v2_b0..b5):
// SegFormer's Mix Transformer under other names, each stage one module (patch embedding, blocks, norm), its
// attention's output projection inside the attention, and an optional linear attention that pools keys and
// values to 7 x 7 and reduces them with a 1 x 1 conv whatever sr_ratios says.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"

namespace ma::families {

void build_pvt_v2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "PvtV2Model");
  const std::string task = supported_task(cfg, cls, "PvtV2", {"Model", "ForImageClassification"});
  const MixStages s = read_mix_stages(cfg, {8, 8, 4, 4});
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  const bool linear_attention = cfg.flag_or("linear_attention", false);
  const std::string p = task == "Model" ? "" : "pvt_v2.";
  record_mix_stages(t, s, cls, p + "encoder.layers");
  for (size_t i = 0; i < s.count(); ++i) {
    const uint64_t c = s.widths[i];
    const std::string stage = p + "encoder.layers." + std::to_string(i) + ".";
    mix_patch_embedding(t, s, i, stage + "patch_embedding.");
    for (uint64_t j = 0; j < s.depths[i]; ++j) {
      const std::string b = stage + "blocks." + std::to_string(j) + ".";
      blocks::norm(t, b + "layer_norm_1", c, true);
      for (const char* proj : {"query", "key", "value"})
        blocks::linear(t, b + "attention." + proj, c, c, qkv_bias);
      blocks::linear(t, b + "attention.proj", c, c, true);
      if (linear_attention || s.reductions[i] > 1) {
        blocks::conv2d(t, b + "attention.spatial_reduction", c, c, linear_attention ? 1 : s.reductions[i]);
        blocks::norm(t, b + "attention.layer_norm", c, true);
      }
      blocks::norm(t, b + "layer_norm_2", c, true);
      mix_ffn(t, c, s.mlp(i), b + "mlp.");
    }
    blocks::norm(t, stage + "layer_norm", c, true);
  }
  // A Linear over the averaged last stage; nn.Identity when num_labels is 0.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier", s.widths.back(), labels, true);
}

}  // namespace ma::families
