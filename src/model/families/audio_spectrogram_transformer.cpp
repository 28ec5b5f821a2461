// Audio Spectrogram Transformer (ASTModel / ASTForAudioClassification): ViT over a log-mel spectrogram.
// transformers 5's modular_audio_spectrogram_transformer.py builds ViT's layers (layers.N with q/k/v/o_proj
// and mlp.fc1/fc2; Hub checkpoints keep transformers 4's encoder.layer.N names) over DeiT-style embeddings: a
// [CLS] and a distillation token, then one-channel patch_size x patch_size patches taken every
// frequency_stride mel bins and time_stride frames, so the patches overlap. ASTConfig's defaults are
// MIT/ast-finetuned-audioset-10-10-0.4593's: 1,024 frames of 128 mel bins, 16 x 16 patches every 10.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_c.h"

namespace ma::families {
namespace {

// Patches along one axis of `length`: ASTEmbeddings.get_shape's (length - patch) // stride + 1.
uint64_t ast_patches_along(const ModelConfig& cfg, std::string_view length_key, uint64_t length,
                           std::string_view stride_key, uint64_t patch) {
  if (patch > length) cfg.fail(length_key, "must be at least patch_size (" + std::to_string(patch) + ")");
  return (length - patch) / cfg.dim_or(stride_key, 10) + 1;
}

}  // namespace

void build_audio_spectrogram_transformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ASTModel");
  const std::string task = supported_task(cfg, cls, "AST", {"Model", "ForAudioClassification"});
  const std::string prefix = task == "Model" ? "" : "audio_spectrogram_transformer.";
  TextEncoderDims d = vit_base_dims(cfg);
  // ASTPatchEmbeddings' kernel is (patch_size, patch_size): a pair would not build.
  const uint64_t patch = cfg.dim_or("patch_size", 16);
  const uint64_t mel_bins = cfg.dim_or("num_mel_bins", 128);
  const uint64_t frames = cfg.dim_or("max_length", 1024);
  const uint64_t patches = ast_patches_along(cfg, "num_mel_bins", mel_bins, "frequency_stride", patch) *
                           ast_patches_along(cfg, "max_length", frames, "time_stride", patch);
  d.max_positions = patches + 2;  // [CLS] and the distillation token
  fill_encoder_record(t, cls, d);
  const uint64_t h = d.layer.hidden;
  // The embeddings' own parameters come before their patch_embeddings module's.
  t.add(prefix + "embeddings.cls_token", {1, 1, h});
  t.add(prefix + "embeddings.distillation_token", {1, 1, h});
  t.add(prefix + "embeddings.position_embeddings", {1, d.max_positions, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight", {h, 1, patch, patch});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  vit_encoder(t, prefix, d, patch, 0);  // 0: a spectrogram, not an image
  StackSpec& encoder = *t.arch.stack(StackRole::Encoder);
  encoder.mel_bins = mel_bins;
  encoder.positions = d.max_positions;
  if (task == "Model") return;  // ASTModel pools [CLS] and the distillation token without parameters
  // ASTMLPHead: a LayerNorm, then the classifier. transformers puts an Identity there for num_labels 0, which
  // num_labels() refuses, as it does for every classification head.
  blocks::norm(t, "classifier.layernorm", h, true);
  blocks::linear(t, "classifier.dense", h, num_labels(cfg), true);
}

}  // namespace ma::families
