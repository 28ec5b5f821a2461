// GIT (microsoft/git-base, git-large and their COCO / TextCaps / VQA / VATEX fine-tunes): a CLIP ViT
// (GitVisionModel) whose patch features, projected and normalised to the text width, are prepended to the
// tokens of a BERT-shaped stack that attends bidirectionally among image tokens and causally among text
// tokens: one decoder, no cross-attention. Video checkpoints add a learned temporal embedding per frame.
#include <string>

#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vlm_classics.h"

namespace ma::families {
namespace {

// GitVisionConfig's defaults (a ViT-B/16).
constexpr ClipLikeVision kGitVision{};

// GitModel under `p`.
void git_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  const BertDefaults b{.vocab = 30522, .positions = 1024, .type_vocab = 0, .layers = 6};
  TextEncoderDims d = read_bert_dims(cfg, b);
  const ClipLikeVision v = read_clip_like_vision(sub_or_empty(cfg, "vision_config"), kGitVision);
  fill_encoder_record(t, t.arch.architecture, d);
  text_embeddings(t, p + "embeddings.", d);
  clip_like_vision_tower(t, p + "image_encoder.vision_model.", v);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, p + "encoder.layer", d.layer.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, p + "encoder.layer." + std::to_string(i), bert_layer_names(), d.layer);
    stack.layers.push_back(attention_dense_layer());
  }
  // GitProjection: a Sequential of a biased linear and a LayerNorm.
  blocks::linear(t, p + "visual_projection.visual_projection.0", v.hidden, d.layer.hidden, true);
  blocks::norm(t, p + "visual_projection.visual_projection.1", d.layer.hidden, true);
  record_projector(t, p + "visual_projection");
  // One learned [1, 1, vision width] offset per frame of a video (git-base-vatex: 6).
  if (cfg.has("num_image_with_embedding")) {
    const uint64_t frames = cfg.count_or("num_image_with_embedding", 0);
    for (uint64_t f = 0; f < frames; ++f)
      t.add(p + "img_temporal_embedding." + std::to_string(f), {1, 1, v.hidden});
  }
}

}  // namespace

void build_git(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "GitForCausalLM");
  const std::string task = supported_task(cfg, cls, "Git", {"ForCausalLM", "Model"});
  t.arch.architecture = cls;
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  if (task == "Model") {
    git_model(cfg, t, "");
    return;
  }
  git_model(cfg, t, "git.");
  // The head is a biased Linear named output; its weight tied to the word embeddings when the config says so.
  tied_or_own(t, "output.weight", "git.embeddings.word_embeddings.weight", t.arch.tie_word_embeddings);
  t.add("output.bias", {t.arch.vocab_size});
}

// GitVisionModel: the tower alone, from a git_vision_model config.
void build_git_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "GitVisionModel");
  supported_task(cfg, cls, "Git", {"VisionModel"});
  t.arch.architecture = cls;
  const ClipLikeVision v = read_clip_like_vision(cfg, kGitVision);
  clip_like_vision_tower(t, "vision_model.", v);
}

}  // namespace ma::families
