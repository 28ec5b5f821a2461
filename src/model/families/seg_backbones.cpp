// The backbones the segmentation heads nest (AutoBackbone.from_config over backbone_config), each built by
// its own family's file: transformers' ResNet (resnet.cpp), ConvNeXt (convnext.cpp), Swin and MaskFormer's
// Swin (swin.cpp).
#include <string>
#include <vector>

#include "core/error.h"
#include "model/families/cnn_backbones.h"
#include "model/families/depth.h"
#include "model/families/detr.h"
#include "model/families/multimodal_towers.h"
#include "model/families/seg_heads.h"

namespace ma::families {

std::vector<size_t> backbone_out_stages(const ModelConfig& bb, size_t stages) {
  const auto stage_name = [](size_t i) { return i == 0 ? std::string("stem") : "stage" + std::to_string(i); };
  std::vector<size_t> out;
  for (const std::string& f : bb.strings("out_features")) {
    size_t i = 0;
    while (i < stages && f != stage_name(i)) ++i;
    if (i == stages) bb.fail("out_features", "names no stage of the backbone: " + printable(f));
    out.push_back(i);
  }
  if (out.empty())
    for (const int64_t i : bb.ints("out_indices")) {
      if (i < 0 || static_cast<uint64_t>(i) >= stages) bb.fail("out_indices", "names no stage");
      out.push_back(static_cast<size_t>(i));
    }
  if (out.empty()) out.push_back(stages - 1);
  return out;
}

std::vector<uint64_t> seg_backbone(const ModelConfig& cfg, const char* dflt, const std::string& prefix,
                                   bool maskformer, ModelTemplate& t) {
  const std::string type = sub_or(cfg, "backbone_config", dflt).string_or("model_type", "");
  // The checks on backbone / use_timm_backbone that load_backbone makes, for whatever model_type it names.
  const ModelConfig bb = depth_backbone_config(cfg, dflt, type);
  if (type == "resnet") {
    // ResNetBackbone: ResNetModel's embedder and encoder (no pooler), its batch norms trainable.
    const std::vector<uint64_t> features = transformers_resnet_body(bb, prefix, false, t);
    std::vector<uint64_t> channels;
    for (const size_t i : backbone_out_stages(bb, features.size())) channels.push_back(features[i]);
    uint64_t blocks = 0;
    for (const uint64_t d : read_resnet_shape(bb).depths) blocks += d;
    describe_cnn_backbone(bb, t.arch.architecture, prefix + "encoder.stages", features.back(), blocks, t);
    return channels;
  }
  if (type == "convnext" || type == "convnextv2") return convnext_backbone(bb, prefix, t);
  if (type == "swin")
    return swin_backbone(bb, prefix,
                         maskformer ? SwinBackboneKind::MaskFormerFromSwin : SwinBackboneKind::Swin, t);
  if (type == "maskformer-swin") return swin_backbone(bb, prefix, SwinBackboneKind::MaskFormer, t);
  // AutoBackbone would build it (a BEiT, a DiNAT ...): a backbone this analysis does not nest.
  throw Error(ErrorKind::Unsupported, bb.file(), bb.path() + ".model_type",
              "unsupported architecture: " + printable(type) +
                  " as a segmentation backbone (resnet, convnext, convnextv2, swin and maskformer-swin are)");
}

}  // namespace ma::families
