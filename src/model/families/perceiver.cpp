// Perceiver IO (model_type perceiver; deepmind/language-perceiver, deepmind/vision-perceiver-learned,
// -fourier, -conv, deepmind/optical-flow-perceiver). PerceiverConfig has no field saying which inputs the
// model reads: each task class hard-codes its preprocessor and decoder around the same latent encoder, so
// config.json's architectures entry decides the tensors. A config naming none builds PerceiverModel,
// transformers' base class, with neither (its encoder reads inputs d_model wide).
#include "model/families/perceiver.h"

#include <array>
#include <span>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// Width of the Fourier position features PerceiverFourierPositionEncoding concatenates (num_bands 64,
// sin and cos, concat_pos): 2 * 64 per input dimension plus the dimension's own coordinate.
uint64_t perceiver_fourier_width(uint64_t dimensions) {
  return dimensions * (2 * 64 + 1);
}

// PerceiverTextPreprocessor: token and position embeddings d_model wide. Returns d_model.
uint64_t perceiver_text_preprocessor(const ModelConfig& cfg, ModelTemplate& t) {
  const uint64_t d_model = cfg.dim_or("d_model", 768);
  const uint64_t vocab = cfg.dim_or("vocab_size", 262),
                 positions = cfg.dim_or("max_position_embeddings", 2048);
  blocks::embedding(t, "perceiver.input_preprocessor.embeddings.weight", vocab, d_model);
  blocks::embedding(t, "perceiver.input_preprocessor.position_embeddings.weight", positions, d_model);
  t.arch.vocab_size = vocab;
  t.arch.max_position_embeddings = positions;
  t.arch.position = PositionKind::Learned;
  return d_model;
}

// PerceiverClassificationDecoder: one trainable query d_latents wide cross-attending the latents (one head,
// query residual), projected to the labels.
void perceiver_classification_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  const uint64_t width = cfg.dim_or("d_latents", 1280);
  perceiver_basic_decoder(cfg, t, "perceiver.decoder.decoder.", {.positions = 1, .channels = width});
  blocks::linear(t, "perceiver.decoder.decoder.final_layer", width, num_labels(cfg), true);
}

// The PerceiverImagePreprocessor each image classifier builds; returns its output width (num_channels).
uint64_t perceiver_image_preprocessor(const ModelConfig& cfg, ModelTemplate& t, const std::string& task) {
  const std::string p = "perceiver.input_preprocessor.";
  if (task == "ForImageClassificationLearned") {
    // conv1x1 to 256 channels, a trainable position table of image_size^2 rows, projected to 256
    // (project_pos_dim) and concatenated: 512 channels.
    const uint64_t side = cfg.dim_or("image_size", 56);
    blocks::conv2d(t, p + "convnet_1x1", 3, 256, 1);
    t.add(p + "position_embeddings.position_embeddings", {side * side, 256});
    blocks::linear(t, p + "positions_projection", 256, 256, true);
    t.arch.position = PositionKind::Learned;
    return 256 + 256;
  }
  if (task == "ForImageClassificationFourier")  // raw pixels (3 channels) and 2-D Fourier features
    return 3 + perceiver_fourier_width(2);
  // ForImageClassificationConvProcessing: Conv2DDownsample (a bias-free 7x7 conv to 64 channels and its
  // BatchNorm2d), then 2-D Fourier features.
  cnn_conv_norm(t, p + "convnet.conv", p + "convnet.batchnorm", 3, 64, 7);
  return 64 + perceiver_fourier_width(2);
}

}  // namespace

void build_perceiver(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "PerceiverModel");
  // PerceiverForMultimodalAutoencoding (its video, audio and label preprocessors and decoders) is not
  // modelled: supported_task refuses it by name.
  const std::string task = supported_task(
      cfg, cls, "Perceiver",
      {"Model", "ForMaskedLM", "ForSequenceClassification", "ForImageClassificationLearned",
       "ForImageClassificationFourier", "ForImageClassificationConvProcessing", "ForOpticalFlow"});
  t.arch.architecture = cls;
  if (task == "Model") {  // no preprocessor, no decoder: inputs arrive d_model wide
    perceiver_latent_encoder(cfg, t, "", cfg.dim_or("d_model", 768));
    return;
  }
  if (task == "ForMaskedLM") {
    const uint64_t d_model = perceiver_text_preprocessor(cfg, t);
    perceiver_latent_encoder(cfg, t, "perceiver.", d_model);
    // PerceiverBasicDecoder with arguments the class hard-codes: queries max_position_embeddings x d_model,
    // 8 heads over a 256-wide (8 * 32) query-key space, values d_model wide, no final projection.
    perceiver_basic_decoder(cfg, t, "perceiver.decoder.",
                            {.positions = t.arch.max_position_embeddings,
                             .channels = d_model,
                             .qk_channels = 256,
                             .v_channels = d_model,
                             .heads = 8});
    // PerceiverEmbeddingDecoder multiplies by the input embeddings' weight (no tied copy): its bias only.
    t.add("embedding_decoder.bias", {t.arch.vocab_size});
    return;
  }
  if (task == "ForSequenceClassification") {
    perceiver_latent_encoder(cfg, t, "perceiver.", perceiver_text_preprocessor(cfg, t));
    perceiver_classification_decoder(cfg, t);
    return;
  }
  if (task == "ForOpticalFlow") {
    // Patches of two frames (54 values per pixel) projected to 64 channels (conv_after_patches), plus
    // Fourier features over train_size's dimensions; the decoder queries with those same inputs.
    const std::vector<uint64_t> train_size = cfg.dims_or("train_size", {368, 496});
    if (train_size.empty()) cfg.fail("train_size", "must list the image's dimensions");
    const uint64_t inputs = 64 + perceiver_fourier_width(train_size.size());
    blocks::linear(t, "perceiver.input_preprocessor.conv_after_patches", 54, 64, true);
    perceiver_latent_encoder(cfg, t, "perceiver.", inputs);
    perceiver_basic_decoder(cfg, t, "perceiver.decoder.decoder.", {.channels = inputs});
    blocks::linear(t, "perceiver.decoder.decoder.final_layer", inputs, 2, true);  // the flow's (dx, dy)
    return;
  }
  perceiver_latent_encoder(cfg, t, "perceiver.", perceiver_image_preprocessor(cfg, t, task));
  perceiver_classification_decoder(cfg, t);
}

namespace {

constexpr std::array kPerceiverFamilies{
    FamilyBuilder{"perceiver", build_perceiver},
};

}  // namespace

std::span<const FamilyBuilder> perceiver() {
  return kPerceiverFamilies;
}

}  // namespace ma::families
