// BEiT (BeitModel, BeitForImageClassification, BeitForMaskedImageModeling, BeitForSemanticSegmentation) in
// transformers 5's layout (modular_beit.py): ViT's attention and MLP modules (q_proj ... o_proj, mlp.fc1/fc2)
// in a pre-norm layer with a learned scale on both residual branches and a relative position bias table of
// its own, or one shared by the encoder; Hub checkpoints keep transformers 4's BERT-like names (the table
// under attention.attention). data2vec-vision (Data2VecVisionModel, ...ForImageClassification,
// ...ForSemanticSegmentation) was left out of that refactor (modeling_data2vec_vision.py defers it to a later
// vision refactor): its body keeps transformers 4's modules (BeitLayout::Transformers4). Both config classes
// default to BEiT-base at 224 pixels in 16-pixel patches, with layer scales (0.1), mean pooling and neither
// position scheme.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/beit.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {
namespace {

// BeitConvModule under `p`: a bias-free convolution ("conv") and its BatchNorm2d ("bn").
void beit_conv_module(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel) {
  detr_conv_norm(t, p + "conv", p + "bn", in, out, kernel, false);
}

// nn.ConvTranspose2d(h, h, kernel_size=2, stride=2): weight [in, out, 2, 2] and a bias.
void beit_upsample(ModelTemplate& t, const std::string& p, uint64_t h) {
  t.add(p + ".weight", {h, h, 2, 2});
  t.add(p + ".bias", {h});
}

// BeitForSemanticSegmentation's modules after the backbone: the feature pyramid (fpn1: two upsamplings with a
// BatchNorm2d between; fpn2: one; fpn3 / fpn4 hold nothing), UperNet's decode head and, by default, the FCN
// auxiliary head.
void beit_segmentation_heads(const ModelConfig& cfg, uint64_t h, ModelTemplate& t) {
  const std::vector<int64_t> out_indices = cfg.ints("out_indices");
  if (cfg.has("out_indices") && out_indices.size() != 4)
    cfg.fail("out_indices", "must list 4 layers: the semantic segmentation head reads four feature maps");
  const uint64_t labels = num_labels(cfg);
  beit_upsample(t, "fpn1.0", h);
  detr_batch_norm(t, "fpn1.1", h, false);
  beit_upsample(t, "fpn1.3", h);
  beit_upsample(t, "fpn2.0", h);
  // BeitUperHead registers its classifier first; every convolution of it is h wide.
  const std::vector<uint64_t> pool_scales = cfg.dims_or("pool_scales", {1, 2, 3, 6});
  blocks::conv2d(t, "decode_head.classifier", h, labels, 1);
  for (size_t i = 0; i < pool_scales.size(); ++i)  // block i: "0" the pooling, "1" the convolution
    beit_conv_module(t, "decode_head.psp_modules." + std::to_string(i) + ".1.", h, h, 1);
  beit_conv_module(t, "decode_head.bottleneck.", h + pool_scales.size() * h, h, 3);
  for (int i = 0; i < 3; ++i)  // the top of the four maps has none
    beit_conv_module(t, "decode_head.lateral_convs." + std::to_string(i) + ".", h, h, 1);
  for (int i = 0; i < 3; ++i)
    beit_conv_module(t, "decode_head.fpn_convs." + std::to_string(i) + ".", h, h, 3);
  beit_conv_module(t, "decode_head.fpn_bottleneck.", 4 * h, h, 3);
  if (!cfg.flag_or("use_auxiliary_head", true)) return;
  // BeitFCNHead: auxiliary_num_convs 3 x 3 convolutions (an nn.Identity when 0), the optional conv_cat.
  const uint64_t channels = cfg.dim_or("auxiliary_channels", 256);
  const uint64_t convs = cfg.layers_or("auxiliary_num_convs", 1, 0);
  for (uint64_t i = 0; i < convs; ++i)
    beit_conv_module(t, "auxiliary_head.convs." + std::to_string(i) + ".", i == 0 ? h : channels, channels,
                     3);
  if (cfg.flag_or("auxiliary_concat_input", false))
    beit_conv_module(t, "auxiliary_head.conv_cat.", h + channels, channels, 3);
  blocks::conv2d(t, "auxiliary_head.classifier", channels, labels, 1);
}

// The final LayerNorm (an nn.Identity under mean pooling) and, when `pooler`, the pooler (a LayerNorm under
// mean pooling, nothing otherwise) under `prefix`: the last modules of BeitModel and Data2VecVisionModel.
void beit_model_tail(const ModelConfig& cfg, const std::string& prefix, uint64_t h, bool pooler,
                     ModelTemplate& t) {
  const bool mean_pooling = cfg.flag_or("use_mean_pooling", true);
  if (!mean_pooling) blocks::norm(t, prefix + "layernorm", h, true);
  if (pooler && mean_pooling) blocks::norm(t, prefix + "pooler.layernorm", h, true);
}

// The heads after the backbone (built with its pooler for classification only).
void beit_heads(const ModelConfig& cfg, const std::string& task, uint64_t h, ModelTemplate& t) {
  if (task == "ForImageClassification") {
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier", h, labels, true);  // else Identity
  } else if (task == "ForMaskedImageModeling") {
    blocks::norm(t, "layernorm", h, true);
    // Predicts the visual tokens of BEiT's image tokenizer: vocab_size, 8192 by default.
    blocks::linear(t, "lm_head", h, cfg.dim_or("vocab_size", 8192), true);
  } else if (task == "ForSemanticSegmentation") {
    beit_segmentation_heads(cfg, h, t);
  }
}

}  // namespace

void build_beit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BeitModel");
  const std::string task = supported_task(
      cfg, cls, "Beit",
      {"Model", "ForImageClassification", "ForMaskedImageModeling", "ForSemanticSegmentation"});
  const std::string prefix = task == "Model" ? "" : "beit.";
  const uint64_t h = beit_encoder(cfg, cls, prefix, BeitLayout::Transformers5, t);
  // BeitModel pools by default; the heads ask for a pooler only to classify.
  beit_model_tail(cfg, prefix, h, task == "Model" || task == "ForImageClassification", t);
  beit_heads(cfg, task, h, t);
}

void build_data2vec_vision(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Data2VecVisionModel");
  const std::string task = supported_task(cfg, cls, "Data2VecVision",
                                          {"Model", "ForImageClassification", "ForSemanticSegmentation"});
  const std::string prefix = task == "Model" ? "" : "data2vec_vision.";
  const uint64_t h = beit_encoder(cfg, cls, prefix, BeitLayout::Transformers4, t);
  // Data2VecVisionModel(add_pooling_layer=False) by default, unlike BeitModel.
  beit_model_tail(cfg, prefix, h, task == "ForImageClassification", t);
  beit_heads(cfg, task, h, t);
}

}  // namespace ma::families
