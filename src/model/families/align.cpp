// ALIGN (kakaobrain/align-base): a BERT text encoder beside an EfficientNet image encoder. Only the text is
// projected (a biased linear into projection_dim 640, which must equal the image tower's output channels);
// the image's pooled map is compared as it is, the logits divided by a learned temperature.
#include <string>

#include "model/blocks.h"
#include "model/families/dual_encoders.h"
#include "model/families/efficientnet.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// AlignTextModel: BERT's embeddings, layers and pooler (AlignTextConfig's defaults are BERT-base's).
// Returns its width.
uint64_t align_text_tower(const ModelConfig& text, const std::string& prefix, ModelTemplate& t) {
  // Relative position types add a distance table per layer's attention, which is not modelled here.
  if (text.string_or("position_embedding_type", "absolute") != "absolute")
    text.fail("position_embedding_type", "only \"absolute\" is modelled");
  const TextEncoderDims d = read_bert_dims(text, BertDefaults{});
  text_encoder_body(t, prefix, "encoder.layer", bert_layer_names(), d);
  blocks::linear(t, prefix + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
  return d.layer.hidden;
}

// AlignVisionModel: EfficientNet's stem and blocks; its encoder has no top conv, and its pooler (an
// nn.AvgPool2d or nn.MaxPool2d) no weights. Recorded as the vision stack.
void align_vision_tower(const ModelConfig& vision, const std::string& prefix, ModelTemplate& t) {
  const std::string pooling = vision.string_or("pooling_type", "mean");
  if (pooling != "mean" && pooling != "max") vision.fail("pooling_type", "must be mean or max");
  const EfficientNetBlocks body = efficientnet_stem_and_blocks(vision, t, prefix);
  t.arch.add_stack(StackRole::Vision, prefix + "encoder.blocks", body.width).image_size =
      vision.dim_or("image_size", 600);
}

}  // namespace

void build_align(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "AlignModel");
  supported_task(cfg, cls, "Align", {"Model"});
  t.add("temperature", {});  // the model's own 0-dimensional parameter, listed before its modules'
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  fill_encoder_record(t, cls, read_bert_dims(text, BertDefaults{}));
  t.arch.post_norm = true;
  const uint64_t width = align_text_tower(text, "text_model.", t);
  align_vision_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", t);
  blocks::linear(t, "text_projection", width, cfg.dim_or("projection_dim", 640), true);
}

// The towers alone (align_text_model, align_vision_model): both classes are flat, their modules at the root,
// as inside AlignModel without its text_model. / vision_model. prefix.
void build_align_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = sub_config_class(cfg, "AlignTextModel");
  fill_encoder_record(t, cls, read_bert_dims(cfg, BertDefaults{}));
  t.arch.post_norm = true;
  align_text_tower(cfg, "", t);
}

void build_align_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "AlignVisionModel");
  align_vision_tower(cfg, "", t);
  standalone_tower_dims(t, StackRole::Vision);
}

}  // namespace ma::families
