// GLPN (glpn: GLPNModel, GLPNForDepthEstimation; vinvino02/glpn-kitti, glpn-nyu): SegFormer's Mix Transformer
// encoder (the same modules, segformer_encoder), then a decoder that maps each stage, last first, to
// decoder_hidden_size with a 1 x 1 conv (none where the widths match) and fuses it with the previous one
// (selective feature fusion: two conv + BatchNorm layers and a conv to two attention maps; none in the first
// stage), and a head of two 3 x 3 convs to one depth channel.
#include <string>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"
#include "model/families/vision_hier_b.h"

namespace ma::families {
namespace {

// GLPNSelectiveFeatureFusion under `p` over `c` channels: convolutional_layer1 (conv 2c -> c, BatchNorm),
// convolutional_layer2 (conv c -> c / 2, BatchNorm), convolutional_layer3 (conv c / 2 -> 2); 3 x 3 convs
// with biases, BatchNorm statistics as buffers.
void glpn_fusion(ModelTemplate& t, const std::string& p, uint64_t c) {
  blocks::conv2d(t, p + "convolutional_layer1.0", 2 * c, c, 3);
  detr_batch_norm(t, p + "convolutional_layer1.1", c, false);
  blocks::conv2d(t, p + "convolutional_layer2.0", c, c / 2, 3);
  detr_batch_norm(t, p + "convolutional_layer2.1", c / 2, false);
  blocks::conv2d(t, p + "convolutional_layer3", c / 2, 2, 3);
}

}  // namespace

void build_glpn(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "GLPNModel");
  const std::string task = supported_task(cfg, cls, "GLPN", {"Model", "ForDepthEstimation"});
  // GLPNConfig's stage defaults are MiT-b0's (SegFormer's); the KITTI / NYU checkpoints use MiT-b4's.
  const MixStages s = read_mix_stages(cfg, {4, 4, 4, 4});
  const std::string p = task == "Model" ? "" : "glpn.";
  record_mix_stages(t, s, cls, p + "encoder.block");
  segformer_encoder(t, s, p + "encoder.");
  if (task != "ForDepthEstimation") return;
  const uint64_t d = cfg.dim_or("decoder_hidden_size", 64);
  if (d < 2) cfg.fail("decoder_hidden_size", "must be at least 2 (the fusion halves it)");
  // GLPNDecoder: one stage per encoder stage, last stage first.
  for (size_t i = 0; i < s.count(); ++i) {
    const uint64_t in = s.widths[s.count() - 1 - i];
    const std::string g = "decoder.stages." + std::to_string(i) + ".";
    if (in != d) blocks::conv2d(t, g + "convolution", in, d, 1);
    if (i > 0) glpn_fusion(t, g + "fusion.", d);  // stages[0].fusion is set to None
  }
  blocks::conv2d(t, "head.head.0", d, d, 3);
  blocks::conv2d(t, "head.head.2", d, 1, 3);
}

}  // namespace ma::families
