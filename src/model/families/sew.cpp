// SEW, "squeezed and efficient wav2vec" (SEWModel / ForCTC / ForSequenceClassification): wav2vec 2.0's body
// run at a lower frame rate. A LayerNorm over the features sits at the model's root, then a plain Linear
// (feature_projection) only when the features' width differs from the hidden size. The encoder's strided
// positional convolution and an average pool squeeze the frames by squeeze_factor before the post-norm layers
// (the convolution's stride changes no shape), and encoder.upsample.projection widens each frame
// squeeze_factor times to unfold them back. do_stable_layer_norm is read by no SEW module.
#include <array>

#include "model/blocks.h"
#include "model/families/sew_like.h"
#include "model/families/speech_w2v.h"

namespace ma::families {
namespace {

void sew_feature_projection(ModelTemplate& t, const std::string& model, uint64_t features, uint64_t hidden) {
  blocks::norm(t, model + "layer_norm", features, true);
  if (features != hidden) blocks::linear(t, model + "feature_projection", features, hidden, true);
}

void sew_upsampling(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder, uint64_t hidden) {
  blocks::linear(t, encoder + "upsample.projection", hidden, hidden * cfg.dim_or("squeeze_factor", 2), true);
}

constexpr std::array<std::string_view, 3> kSewTasks{"Model", "ForCTC", "ForSequenceClassification"};

}  // namespace

void build_sew_like(const ModelConfig& cfg, ModelTemplate& t, Wav2Vec2Flavour f) {
  // SEWConfig's default feature encoder (asapp/sew-tiny-100k's; SEWDConfig's is the same): 13 convolutions,
  // 64 to 512 channels.
  static const ConvStackDefaults sew_convs{{64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512, 512},
                                           {10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1},
                                           {5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1}};
  f.conv_defaults = &sew_convs;
  f.stable_layer_norm = false;
  f.projection = sew_feature_projection;
  f.after_layers = sew_upsampling;
  build_wav2vec2_like(cfg, t, f);
}

void build_sew(const ModelConfig& cfg, ModelTemplate& t) {
  build_sew_like(cfg, t, {.prefix = "SEW", .base = "sew", .tasks = kSewTasks});
}

}  // namespace ma::families
