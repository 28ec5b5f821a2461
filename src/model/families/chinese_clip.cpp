// Chinese-CLIP (OFA-Sys/chinese-clip-vit-*): CLIP's vision transformer beside a BERT text encoder
// (ChineseCLIPTextModel, BERT's modules under BERT's names, built without its pooler inside the contrastive
// model: its pooled text is the [CLS] state), both projected bias-free to projection_dim.
#include "model/blocks.h"
#include "model/families/clip_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// ChineseCLIPVisionTransformer is CLIP's (class token, bias-free patch conv, pre_layrnorm, k/v/q/out layers,
// post_layernorm); ChineseCLIPVisionConfig's defaults are CLIPVisionConfig's (patch 32).
uint64_t chinese_clip_vision(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  VitDefaults d = clip_vision_defaults();
  d.model_type = "clip_vision_model";
  d.model_type_fixed = true;  // chinese_clip_vision_model: CLIP's tower under another class name
  return vit_tower(v, prefix, d, t);
}

}  // namespace

void build_chinese_clip(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ChineseCLIPModel");
  supported_task(cfg, cls, "ChineseCLIP", {"Model"});
  t.add("logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  // ChineseCLIPTextConfig's defaults are BERT-base's (vocab 30522, 512 positions, 2 token types).
  const TextEncoderDims text = read_bert_dims(sub_or_empty(cfg, "text_config"), BertDefaults{});
  fill_encoder_record(t, cls, text);
  t.arch.post_norm = true;
  text_encoder_body(t, "text_model.", "encoder.layer", bert_layer_names(), text);
  const uint64_t vision = chinese_clip_vision(sub_or_empty(cfg, "vision_config"), "vision_model.", t);
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  blocks::linear(t, "visual_projection", vision, projection, false);
  blocks::linear(t, "text_projection", text.layer.hidden, projection, false);
}

void build_chinese_clip_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ChineseCLIPVisionModel");
  supported_task(cfg, cls, "ChineseCLIPVision", {"Model"});
  t.arch.architecture = cls;
  // Built flat, as CLIPVisionModel; checkpoints keep the vision_model. prefix transformers strips on load.
  chinese_clip_vision(cfg, "", t);
  t.rename_on_disk("", "vision_model.");
}

}  // namespace ma::families
