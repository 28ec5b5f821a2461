// Placement rules of convolutional vision networks, whose module names no transformer layer uses: ResNet and
// the classes copying its ConvLayer, BiT, RegNet, EfficientNet, ConvNeXt (V1, V2), MobileNetV2 and
// MobileViT (V1, V2), and the per-stage patch embeddings of the staged encoders (SegFormer, PVT, PoolFormer).
#include "model/cnn_tensor_placement.h"

#include <array>
#include <utility>

namespace ma::placement {

std::optional<std::pair<Block, std::string_view>> conv_network_block(const Parts& parts, const Parts& inner,
                                                                     std::string_view module, bool in_layer) {
  // The patch embedding that opens each stage of SegFormer's, PVTv2's and PoolFormer's encoders
  // (encoder.patch_embeddings.N.proj, encoder.layers.N.patch_embedding.proj,
  // encoder.patch_embeddings.N.projection): a strided conv embedding the image or the previous stage's grid,
  // as Swin's patch merging does.
  if ((module == "proj" || module == "projection") && parts.size() >= 4 &&
      (parts[parts.size() - 3] == "patch_embedding" || parts[parts.size() - 4] == "patch_embeddings")) {
    return std::pair{Block::Embedding, std::string_view("patch-embedding")};
  }
  // The conv layers of MobileNet-style networks (MobileNetV2's, MobileViT's and MobileViTV2's X.convolution,
  // with its BatchNorm in X.normalization), told by their names: the stem (conv_stem) embeds the image;
  // MobileViTV2's 1 x 1 convs inside a layer's attention (qkv_proj, out_proj) are attention, an inverted
  // residual's expand_1x1 / reduce_1x1 and an ffn's conv1 / conv2 its MLP; the other convs of a stage mix
  // neighbouring positions, as a short convolution does. Other convolutions: the CNN rule below.
  if (module == "convolution" && parts.size() >= 3) {
    const std::string_view conv = parts[parts.size() - 3];
    const bool in_ffn = parts.size() >= 4 && parts[parts.size() - 4] == "ffn";
    const bool in_attention = parts.size() >= 4 && parts[parts.size() - 4] == "attention";
    const bool stem = any_part_in(parts, std::array<std::string_view, 1>{"conv_stem"});
    const bool mlp = conv == "expand_1x1" || conv == "reduce_1x1" || in_ffn;
    const bool mixing = in_layer && (conv == "conv_3x3" || conv == "conv_kxk" || conv == "conv_1x1" ||
                                     conv == "conv_projection" || conv == "fusion");
    if (stem) return std::pair{Block::Embedding, std::string_view("stem")};
    if (in_attention) return std::pair{Block::Attention, std::string_view(conv == "out_proj" ? "o" : "qkv")};
    if (mlp)
      return std::pair{Block::Mlp, std::string_view(conv == "expand_1x1" || conv == "conv1" ? "up" : "down")};
    if (mixing) return std::pair{Block::ShortConv, std::string_view("conv")};
  }
  // ConvNeXt's blocks: a 7 x 7 depthwise convolution mixes neighbouring patches as LFM2's short convolution
  // mixes neighbouring tokens; two pointwise linears make the MLP. transformers' ConvNeXt spells them dwconv,
  // pwconv1 and pwconv2; ConvNeXt V2 puts a GRN (global response normalization) between the two linears.
  // SwiftFormer's conv encoders (and each stage's local representation) spell them depth_wise_conv and
  // point_wise_conv1 / point_wise_conv2, scaled by the block's own layer_scale.
  if (in_layer && (module == "depthwise_conv" || module == "dwconv" || module == "depth_wise_conv")) {
    return std::pair{Block::ShortConv, std::string_view("depthwise-conv")};
  }
  // (A Conformer's convolution module spells its pointwise convolutions the same under a conv module: they
  // are placed with its short convolution below.)
  if (in_layer && (module == "pointwise_conv1" || module == "pointwise_conv2") &&
      !any_part_in(inner, std::array<std::string_view, 1>{"conv"})) {
    return std::pair{Block::Mlp, std::string_view(module == "pointwise_conv1" ? "up" : "down")};
  }
  if (in_layer && (module == "pwconv1" || module == "pwconv2" || module == "grn")) {
    return std::pair{Block::Mlp, std::string_view(module == "pwconv1"   ? "up"
                                                  : module == "pwconv2" ? "down"
                                                                        : "grn")};
  }
  if (in_layer && (module == "point_wise_conv1" || module == "point_wise_conv2" || module == "layer_scale")) {
    return std::pair{Block::Mlp, std::string_view(module == "point_wise_conv1"   ? "up"
                                                  : module == "point_wise_conv2" ? "down"
                                                                                 : "layer-scale")};
  }
  // SwiftFormer's stem (patch_embed.patch_embedding.N: two strided convs and their BatchNorms) and the
  // strided conv that downsamples between two stages (encoder.network.N.proj, beside the stages in the
  // network list).
  if (parts.size() >= 3 && parts[parts.size() - 3] == "patch_embedding" &&
      all_digits(parts[parts.size() - 2])) {
    return std::pair{Block::Embedding, std::string_view("conv-stem")};
  }
  if (in_layer && module == "proj" && parts.size() >= 4 && parts[parts.size() - 4] == "network") {
    return std::pair{Block::Embedding, std::string_view("patch-merging")};
  }
  // A CNN's convolution layers (ResNetConvLayer and the classes that copy it: ConvLayer.convolution beside
  // its normalization, the shortcut's the same; EfficientNet's expand_conv / project_conv with batch norms
  // named *_bn, and its top_conv after the blocks): inside a stage the layer's own work, which no
  // transformer block names, so the vision block, as a final conv after the stages (MobileNetV2's conv_1x1);
  // the stem (embedder, embeddings, conv_stem) embeds the image.
  if (module == "convolution" || module == "expand_conv" || module == "project_conv" ||
      module == "top_conv") {
    const bool stem = !in_layer && any_part_in(parts, std::array<std::string_view, 3>{
                                                          "embedder", "embeddings", "conv_stem"});
    return std::pair{stem ? Block::Embedding : Block::Vision, std::string_view(stem ? "conv-stem" : "conv")};
  }
  // BiT's (ResNet v2) weight-standardized convs: conv1 ... conv3 right under the layer (or under ViTDet's
  // residual bottleneck block, layer.N.residual), and the projected shortcut's downsample.conv.
  if (in_layer && parts.size() >= 3 &&
      (((all_digits(parts[parts.size() - 3]) || parts[parts.size() - 3] == "residual") &&
        (module == "conv1" || module == "conv2" || module == "conv3")) ||
       (parts[parts.size() - 3] == "downsample" && module == "conv"))) {
    return std::pair{Block::Vision, std::string_view("conv")};
  }
  if (parts.size() >= 2 && parts[parts.size() - 2].ends_with("_bn")) {
    return std::pair{Block::Norm, std::string_view("norm")};
  }
  // EfficientNet's squeeze-and-excitation (squeeze_excite.reduce / expand) gates the channels as RegNet's
  // (layer.N.attention.{0,2}, placed with attention by its name) does.
  if (in_layer && any_part_in(inner, std::array<std::string_view, 1>{"squeeze_excite"})) {
    return std::pair{Block::Attention, std::string_view("squeeze-excite")};
  }
  return std::nullopt;
}

std::optional<std::pair<Block, std::string_view>> keypoint_network_block(const Parts& parts) {
  // The keypoint matchers (SuperGlue, LightGlue) and their detector (SuperPoint), none with a stack the index
  // rule below should see: the SuperPoint a matcher builds (keypoint_detector.*) is its vision tower, as a
  // bare SuperPoint's VGG encoder (encoder.conv_blocks.N.conv_a / conv_b) is; the keypoint encoder of
  // positions and scores (keypoint_encoder.encoder.N) an embedding; SuperPoint's score and descriptor
  // decoders, the matchers' final projection and dustbin score (bin_score) and LightGlue's per-layer match
  // assignment and token confidence heads are heads.
  if (const std::string_view root = parts.front();
      root == "keypoint_detector" || root == "keypoint_encoder" || root == "keypoint_decoder" ||
      root == "descriptor_decoder" || root == "bin_score" || root == "final_projection" ||
      root == "match_assignment_layers" || root == "token_confidence" ||
      (parts.size() == 5 && root == "encoder" && parts[1] == "conv_blocks" &&
       (parts[3] == "conv_a" || parts[3] == "conv_b"))) {
    if (root == "keypoint_detector" || root == "encoder")
      return std::pair{Block::Vision, std::string_view("conv")};
    if (root == "keypoint_encoder") return std::pair{Block::Embedding, std::string_view("keypoint-encoder")};
    return std::pair{Block::LmHead, std::string_view("keypoint-head")};
  }
  // EfficientLoFTR: its RepVGG backbone (efficientloftr.backbone.stages.N.blocks.M with conv1, conv2 and the
  // identity batch norm; at the root in a bare EfficientLoFTRModel) is its vision tower, the matcher's fine
  // fusion pyramid (refinement_layer) a head. Its local feature transformer takes the generic layer rules.
  const size_t at = parts.front() == "efficientloftr" ? 1 : 0;
  if (parts.size() >= at + 7 && parts[at] == "backbone" && parts[at + 1] == "stages" &&
      parts[at + 3] == "blocks" &&
      (parts[at + 5] == "conv1" || parts[at + 5] == "conv2" || parts[at + 5] == "identity"))
    return std::pair{Block::Vision, std::string_view("conv")};
  if (parts.front() == "refinement_layer") return std::pair{Block::LmHead, std::string_view("keypoint-head")};
  return std::nullopt;
}

}  // namespace ma::placement
