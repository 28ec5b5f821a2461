// SegFormer (segformer: SegformerModel, SegformerForImageClassification - the nvidia/mit-b* encoders -, and
// SegformerForSemanticSegmentation - nvidia/segformer-b*-finetuned-*): the Mix Transformer encoder (stages of
// overlapping patch embeddings and blocks whose keys and values come from a spatially reduced sequence),
// then an image classifier over the pooled last stage or the all-MLP decode head.
#include <string>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"

namespace ma::families {

// SegformerEncoder under `p`: all stages' patch embeddings, then all stages' blocks, then all stages' norms
// (three ModuleLists, in that order).
void segformer_encoder(ModelTemplate& t, const MixStages& s, const std::string& p) {
  for (size_t i = 0; i < s.count(); ++i)
    mix_patch_embedding(t, s, i, p + "patch_embeddings." + std::to_string(i) + ".");
  for (size_t i = 0; i < s.count(); ++i) {
    const uint64_t c = s.widths[i];
    for (uint64_t j = 0; j < s.depths[i]; ++j) {
      const std::string b = p + "block." + std::to_string(i) + "." + std::to_string(j) + ".";
      blocks::norm(t, b + "layer_norm_1", c, true);
      const std::string a = b + "attention.self.";
      for (const char* proj : {"query", "key", "value"}) blocks::linear(t, a + proj, c, c, true);
      if (s.reductions[i] > 1) {  // keys and values from an sr x sr strided conv of the grid, then a norm
        blocks::conv2d(t, a + "sr", c, c, s.reductions[i]);
        blocks::norm(t, a + "layer_norm", c, true);
      }
      blocks::linear(t, b + "attention.output.dense", c, c, true);
      blocks::norm(t, b + "layer_norm_2", c, true);
      mix_ffn(t, c, s.mlp(i), b + "mlp.");
    }
  }
  for (size_t i = 0; i < s.count(); ++i)
    blocks::norm(t, p + "layer_norm." + std::to_string(i), s.widths[i], true);
}

namespace {

// SegformerDecodeHead: one linear per stage into decoder_hidden_size, a bias-free 1 x 1 conv fusing their
// concatenation, a BatchNorm (its running statistics are buffers the checkpoints store) and a 1 x 1 conv
// classifier.
void segformer_decode_head(const ModelConfig& cfg, ModelTemplate& t, const MixStages& s) {
  const uint64_t d = cfg.dim_or("decoder_hidden_size", 256);
  for (size_t i = 0; i < s.count(); ++i)
    blocks::linear(t, "decode_head.linear_c." + std::to_string(i) + ".proj", s.widths[i], d, true);
  t.add("decode_head.linear_fuse.weight", {d, d * s.count(), 1, 1});
  detr_batch_norm(t, "decode_head.batch_norm", d, false);
  blocks::conv2d(t, "decode_head.classifier", d, num_labels(cfg), 1);
}

}  // namespace

void build_segformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SegformerModel");
  const std::string task =
      supported_task(cfg, cls, "Segformer", {"Model", "ForImageClassification", "ForSemanticSegmentation"});
  const MixStages s = read_mix_stages(cfg, {4, 4, 4, 4});
  const std::string p = task == "Model" ? "" : "segformer.";
  record_mix_stages(t, s, cls, p + "encoder.block");
  segformer_encoder(t, s, p + "encoder.");
  if (task == "ForImageClassification")  // a Linear over the averaged last stage, even for 0 labels
    blocks::linear(t, "classifier", s.widths.back(), num_labels(cfg), true);
  else if (task == "ForSemanticSegmentation")
    segformer_decode_head(cfg, t, s);
}

}  // namespace ma::families
