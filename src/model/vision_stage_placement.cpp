// Placement rules of vision networks' stage modules that no other rule claimed, each spelled by its own
// family: LeViT's attention biases and MLPLayerWithBN linears, CvT's stage tokens and convolutional
// embeddings, FocalNet's layer scales and focal modulation, GLPN's decoder stages, V-JEPA 2's predictor
// projection, HGNetV2's learnable affine blocks, TextNet's RepVGG-style convs and torchvision's ResNet names.
#include "model/vision_stage_placement.h"

#include <array>

#include "model/tensor_name_tables.h"

namespace ma::placement {

std::optional<std::pair<Block, std::string>> vision_stage_block(const Parts& parts, const Parts& inner,
                                                                std::string_view module, bool in_layer,
                                                                bool layer_own, const std::string& role) {
  using Placed = std::pair<Block, std::string>;
  const std::string_view leaf = parts.back();
  // LeViT's, CvT's and FocalNet's stage modules, past every other rule. LeViT: each attention's learned
  // bias per head and offset and its index (attention_biases, attention_bias_idxs); its MLPLayerWithBN
  // linears X.linear (queries_keys_values, keys_values, queries, projection in attention; linear_up /
  // linear_down in the MLP); the teacher model's second classifier, classifier_distill. CvT: a stage's
  // class token and the conv token embedding that opens it (embedding.convolution_embeddings.projection).
  // FocalNet: a layer's own layer-scale vectors (gamma_1 / gamma_2), the focal modulation that replaces
  // attention (modulation.projection_in / projection_context / projection_out, focal_layers.N.0) and the
  // strided patch embedding that downsamples a stage (downsample.projection). GLPN: its depth decoder's
  // stages at the root (decoder.stages.N: the selective feature fusion's convs and BatchNorms) are its head.
  if (in_layer && (leaf == "attention_biases" || leaf == "attention_bias_idxs")) {
    return Placed{Block::Attention, "position-bias"};
  }
  if (in_layer && module == "linear" && parts.size() >= 3) {
    const std::string_view linear = parts[parts.size() - 3];
    if (in(linear,
           std::array<std::string_view, 4>{"queries_keys_values", "keys_values", "queries", "projection"})) {
      return Placed{Block::Attention, linear == "projection" ? "o" : linear == "queries" ? "q" : "qkv"};
    }
    if (linear == "linear_up" || linear == "linear_down") {
      return Placed{Block::Mlp, linear == "linear_up" ? "up" : "down"};
    }
  }
  // (SwiftFormer's distillation head, dist_head, is the same second classifier.)
  if (!in_layer && (parts.front() == "classifier_distill" || parts.front() == "dist_head")) {
    return Placed{Block::LmHead, "lm-head"};
  }
  if (in_layer && module == "cls_token") {
    return Placed{Block::Embedding, "cls_token"};
  }
  if (module == "projection" && parts.size() >= 3 &&
      (parts[parts.size() - 3] == "convolution_embeddings" || parts[parts.size() - 3] == "downsample")) {
    return Placed{Block::Embedding,
                  parts[parts.size() - 3] == "downsample" ? "patch-merging" : "patch-embedding"};
  }
  if (in_layer && layer_own && (leaf == "gamma_1" || leaf == "gamma_2")) {
    return Placed{leaf == "gamma_1" ? Block::Attention : Block::Mlp, "layer-scale"};
  }
  if (in_layer && any_part_in(inner, std::array<std::string_view, 1>{"modulation"})) {
    return Placed{Block::Attention,
                  any_part_in(inner, std::array<std::string_view, 1>{"focal_layers"}) ? "focal-conv" : role};
  }
  if (parts.size() >= 3 && parts[0] == "decoder" && parts[1] == "stages") {
    return Placed{Block::LmHead, "lm-head"};
  }
  // V-JEPA 2's predictor maps its output back to the encoder's width (predictor.proj), to be compared with
  // the encoder's features: the predictor's output projection, a head.
  if (!in_layer && module == "proj" && parts.size() >= 3 && parts[parts.size() - 3] == "predictor") {
    return Placed{Block::LmHead, "predictor-projection"};
  }
  // HGNetV2's learnable affine block (a conv layer's lab.scale and lab.bias, one scalar each after its
  // activation) belongs to the conv layer, as its BatchNorm does.
  if (parts.size() >= 3 && parts[parts.size() - 2] == "lab" && (leaf == "scale" || leaf == "bias")) {
    return Placed{Block::Vision, "learnable-affine"};
  }
  // TextNet's RepVGG-style layers sum three parallel convs (main_conv, vertical_conv, horizontal_conv, each
  // with its own BatchNorm) and a BatchNorm of the layer's input (rbr_identity, its statistics included).
  if (in_layer && (module == "main_conv" || module == "vertical_conv" || module == "horizontal_conv")) {
    return Placed{Block::Vision, "conv"};
  }
  if (parts.size() >= 2 && parts[parts.size() - 2] == "rbr_identity") {
    return Placed{Block::Norm, "norm"};
  }
  // torchvision's ResNet names, which timm keeps (a bare timm/resnet50 checkpoint), told by the module that
  // owns the tensor (the running statistics' too): each convolution's BatchNorm (bn1, bn2, bn3) and a stage's
  // shortcut, downsample.0 its 1 x 1 convolution and downsample.1 that convolution's BatchNorm.
  const std::string_view owner = parts.size() >= 2 ? parts[parts.size() - 2] : std::string_view();
  const bool shortcut = parts.size() >= 3 && parts[parts.size() - 3] == "downsample";
  if ((owner.size() > 2 && owner.starts_with("bn") && all_digits(owner.substr(2))) ||
      (shortcut && owner == "1")) {
    return Placed{Block::Norm, "norm"};
  }
  if (shortcut && owner == "0") {
    return Placed{Block::Vision, "conv"};
  }
  return std::nullopt;
}

}  // namespace ma::placement
