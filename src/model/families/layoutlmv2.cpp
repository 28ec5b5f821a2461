// LayoutLMv2 (and LayoutXLM, whose checkpoints and config class build the same LayoutLMv2 classes): BERT's
// layers over a document's words and a 7 x 7 grid of visual tokens pooled from a detectron2 ResNeXt-FPN's
// p2 map. The text embeddings add four box tables (x and y coordinate_size wide, h and w shape_size wide),
// concatenated to the hidden size; the visual tokens reuse the text's position and box tables. Relative
// position biases, 1-D over positions and 2-D over the boxes, are tables of one score per head shared by
// every layer. fast_qkv fuses q, k and v into one bias-free Linear with separate q and v biases.
#include <optional>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/detectron2_backbone.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// LayoutLMv2Config.get_default_detectron2_config(): the keys of microsoft/layoutlmv2-base-uncased's
// ResNeXt-101 32x8d FPN that shape the backbone (the RPN and ROI-head keys build modules LayoutLMv2 drops).
// A config.json that gives detectron2_config_args replaces this dict whole: its missing keys take
// detectron2's get_cfg() defaults, not these.
constexpr const char* kLayoutlmv2DefaultDetectron2Args = R"({
  "MODEL.PIXEL_STD": [57.375, 57.120, 58.395],
  "MODEL.BACKBONE.NAME": "build_resnet_fpn_backbone",
  "MODEL.FPN.IN_FEATURES": ["res2", "res3", "res4", "res5"],
  "MODEL.RESNETS.DEPTH": 101,
  "MODEL.RESNETS.OUT_FEATURES": ["res2", "res3", "res4", "res5"],
  "MODEL.RESNETS.NUM_GROUPS": 32,
  "MODEL.RESNETS.WIDTH_PER_GROUP": 8,
  "MODEL.RESNETS.STRIDE_IN_1X1": false
})";

// LayoutLMv2Embeddings in the order it registers them: BERT's tables with the box tables between the
// positions and the token types.
void layoutlmv2_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& e,
                           const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  layout_box_tables(cfg, t, e);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
}

// One LayoutLMv2Layer with fast_qkv: the self-attention's own q_bias and v_bias [1, 1, hidden] come
// before its qkv_linear child in state_dict; the rest is BERT's layer.
void layoutlmv2_fast_qkv_layer(ModelTemplate& t, const std::string& p, const LayerDims& d) {
  const uint64_t h = d.hidden;
  t.add(p + ".attention.self.q_bias", {1, 1, h});
  t.add(p + ".attention.self.v_bias", {1, 1, h});
  blocks::linear(t, p + ".attention.self.qkv_linear", h, 3 * h, false);
  blocks::linear(t, p + ".attention.output.dense", h, h, true);
  blocks::norm(t, p + ".attention.output.LayerNorm", h, true);
  blocks::linear(t, p + ".intermediate.dense", h, d.ffn, true);
  blocks::linear(t, p + ".output.dense", d.ffn, h, true);
  blocks::norm(t, p + ".output.LayerNorm", h, true);
}

// LayoutLMv2Encoder: the layers, then the relative-position tables (Linear(bins, heads) without bias).
void layoutlmv2_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                        const TextEncoderDims& d) {
  if (cfg.flag_or("fast_qkv", true)) {
    StackSpec& s = t.arch.add_stack(StackRole::Encoder, p + "encoder.layer", d.layer.hidden);
    for (uint64_t i = 0; i < d.layers; ++i) {
      layoutlmv2_fast_qkv_layer(t, s.path + "." + std::to_string(i), d.layer);
      s.layers.push_back(attention_dense_layer());
    }
  } else {
    bert_docs_encoder(t, p, d);
  }
  layout_relative_biases(cfg, t, p, d.layer.heads);
}

// The width of the pooled visual features visual_proj reads: image_feature_pool_shape[-1], which
// LayoutLMv2VisualBackbone appends (two entries) or asserts equal (three) to the FPN's p2 channels.
uint64_t layoutlmv2_visual_width(const ModelConfig& cfg, uint64_t fpn_width) {
  if (!cfg.has("image_feature_pool_shape")) return fpn_width;
  const std::vector<uint64_t> pool = cfg.dims_or("image_feature_pool_shape", {});
  if (pool.size() == 2) return fpn_width;
  if (pool.size() != 3 || pool[2] != fpn_width)
    cfg.fail("image_feature_pool_shape",
             "must be [rows, columns] or [rows, columns, the FPN's out channels] (LayoutLMv2 asserts it)");
  return pool[2];
}

// LayoutLMv2Model: its own visual_segment_embedding first (a Parameter, before every child in
// state_dict), then the text embeddings, the visual backbone (its pixel_mean / pixel_std buffers are not
// persistent), the projection and LayerNorm of the visual tokens, the encoder and the pooler.
void layoutlmv2_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                      const TextEncoderDims& d, bool visual_segment_embedding) {
  const uint64_t h = d.layer.hidden;
  if (visual_segment_embedding) t.add(p + "visual_segment_embedding", {h});
  layoutlmv2_embeddings(cfg, t, p + "embeddings.", d);
  const std::optional<ModelConfig> given = cfg.sub("detectron2_config_args");
  const ModelConfig args = given ? *given : cfg.derived(kLayoutlmv2DefaultDetectron2Args);
  const uint64_t fpn_width = detectron2_resnet_fpn(args, t, p + "visual.backbone.");
  blocks::linear(t, p + "visual_proj", layoutlmv2_visual_width(cfg, fpn_width), h, true);
  blocks::norm(t, p + "visual_LayerNorm", h, true);
  layoutlmv2_encoder(cfg, t, p, d);
  blocks::linear(t, p + "pooler.dense", h, h, true);
}

}  // namespace

// LayoutLMv2Config's defaults are microsoft/layoutlmv2-base-uncased's sizes (BERT-base's text encoder);
// microsoft/layoutxlm-base's config.json says model_type layoutlmv2 and builds the same classes with
// XLM-RoBERTa's 250,002-token vocabulary. LayoutLMv2ForQuestionAnswering forces
// has_visual_segment_embedding on (its constructor's own default), whatever the config says.
void build_layoutlmv2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "LayoutLMv2Model");
  const std::string task = supported_task(
      cfg, cls, "LayoutLMv2",
      {"Model", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"});
  const TextEncoderDims d = read_bert_dims(cfg, {});
  fill_encoder_record(t, cls, d);
  const bool segment = task == "ForQuestionAnswering" || cfg.flag_or("has_visual_segment_embedding", false);
  const std::string prefix = task == "Model" ? "" : "layoutlmv2.";
  layoutlmv2_model(cfg, t, prefix, d, segment);
  // Checkpoints saved before transformers made the pixel statistics non-persistent store them.
  for (const char* stat : {"visual.pixel_mean", "visual.pixel_std"})
    t.known_extras.push_back({prefix + stat, "the image normalisation LayoutLMv2 rebuilds from its config"});
  const uint64_t h = d.layer.hidden, labels = num_labels(cfg);
  // The sequence classifier reads [CLS], the mean initial visual embeddings and the mean final ones.
  if (task == "ForSequenceClassification") blocks::linear(t, "classifier", 3 * h, labels, true);
  if (task == "ForTokenClassification") blocks::linear(t, "classifier", h, labels, true);
  if (task == "ForQuestionAnswering") blocks::linear(t, "qa_outputs", h, labels, true);
}

}  // namespace ma::families
