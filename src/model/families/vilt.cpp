// ViLT (vilt; dandelin/vilt-b32-*): one transformer over BERT's text embeddings and ViT's patch embeddings,
// told apart by a modality-type embedding, with its task heads.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_b.h"

namespace ma::families {
namespace {

// ViltEmbeddings registers cls_token and position_embeddings (its own parameters, listed first), then its
// children: text_embeddings (BERT's), patch_embeddings.projection (a Conv2d) and token_type_embeddings, the
// modality types (modality_type_vocab_size: text, image, a second image for NLVR2).
void vilt_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                     const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 384);
  const auto [patch_h, patch_w] = vit_pair(cfg, "patch_size", 32);
  if (patch_h > image_h || patch_w > image_w) cfg.fail("patch_size", "must not exceed image_size");
  const uint64_t patches = (image_h / patch_h) * (image_w / patch_w);
  t.add(p + "cls_token", {1, 1, h});
  t.add(p + "position_embeddings", {1, patches + 1, h});
  text_embeddings(t, p + "text_embeddings.", d);
  const std::string conv = p + "patch_embeddings.projection.";
  t.add(conv + "weight", {h, cfg.dim_or("num_channels", 3), patch_h, patch_w});
  t.add(conv + "bias", {h});
  blocks::embedding(t, p + "token_type_embeddings.weight", cfg.dim_or("modality_type_vocab_size", 2), h);
}

// ViltLayer: attention (ViltSelfAttention's query/key/value, biased by qkv_bias; its output.dense), then
// intermediate, output, layernorm_before and layernorm_after - ViT's transformers 4 names, pre-norm.
void vilt_layers(ModelTemplate& t, const std::string& p, const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  StackSpec& stack = t.arch.add_stack(StackRole::Encoder, p + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = stack.path + "." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"})
      blocks::linear(t, l + "attention.attention." + proj, h, h, d.layer.qkv_bias);
    blocks::linear(t, l + "attention.output.dense", h, h, true);
    blocks::linear(t, l + "intermediate.dense", h, d.layer.ffn, true);
    blocks::linear(t, l + "output.dense", d.layer.ffn, h, true);
    blocks::norm(t, l + "layernorm_before", h, true);
    blocks::norm(t, l + "layernorm_after", h, true);
    LayerSpec s = attention_dense_layer();
    s.attention.heads = s.attention.kv_heads = d.layer.heads;
    s.attention.head_dim = h / d.layer.heads;
    s.ffn.intermediate = d.layer.ffn;
    stack.layers.push_back(s);
  }
}

// The VQA and NLVR2 classifiers: Linear from `in` to `width`, LayerNorm, GELU, Linear to the labels.
void vilt_classifier(ModelTemplate& t, uint64_t in, uint64_t width, uint64_t labels) {
  blocks::linear(t, "classifier.0", in, width, true);
  blocks::norm(t, "classifier.1", width, true);
  blocks::linear(t, "classifier.3", width, labels, true);
}

}  // namespace

void build_vilt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ViltModel");
  const std::string task =
      supported_task(cfg, cls, "Vilt",
                     {"Model", "ForMaskedLM", "ForQuestionAnswering", "ForImageAndTextRetrieval",
                      "ForImagesAndTextClassification", "ForTokenClassification"});
  // ViltConfig's defaults are vilt-b32-mlm's: BERT-base with 40 text positions, 384-pixel images in 32-pixel
  // patches.
  BertDefaults defaults;
  defaults.positions = 40;
  TextEncoderDims d = read_bert_dims(cfg, defaults);
  d.layer.qkv_bias = cfg.flag_or("qkv_bias", true);
  const uint64_t h = d.layer.hidden;
  const std::string p = task == "Model" ? "" : "vilt.";
  vilt_embeddings(cfg, t, p + "embeddings.", d);
  vilt_layers(t, p, d);
  blocks::norm(t, p + "layernorm", h, true);
  // ViltForTokenClassification builds ViltModel(config, add_pooling_layer=False); every other class pools.
  if (task != "ForTokenClassification") blocks::linear(t, p + "pooler.dense", h, h, true);
  if (task == "ForMaskedLM") {
    // ViltMLMHead: its bias (its own parameter, first), transform, decoder. decoder.bias is that bias
    // always; decoder.weight is the word embedding only when tie_word_embeddings (ViltConfig: false).
    const bool tied = cfg.flag_or("tie_word_embeddings", false);
    t.arch.tie_word_embeddings = tied;
    t.add("mlm_score.bias", {d.vocab});
    blocks::linear(t, "mlm_score.transform.dense", h, h, true);
    blocks::norm(t, "mlm_score.transform.LayerNorm", h, true);
    tied_or_own(t, "mlm_score.decoder.weight", p + "embeddings.text_embeddings.word_embeddings.weight", tied);
    t.tie("mlm_score.decoder.bias", "mlm_score.bias");
  } else if (task == "ForQuestionAnswering") {
    vilt_classifier(t, h, 2 * h, num_labels(cfg));
  } else if (task == "ForImagesAndTextClassification") {
    // num_images (default -1) sizes the classifier over the pooled outputs of every image.
    if (!cfg.has("num_images")) cfg.fail("num_images", "is required by ViltForImagesAndTextClassification");
    const uint64_t images = cfg.dim_or("num_images", 1);
    vilt_classifier(t, h * images, h * images, num_labels(cfg));
  } else if (task == "ForImageAndTextRetrieval") {
    blocks::linear(t, "rank_output", h, 1, true);
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  }
  fill_encoder_record(t, cls, d);
}

}  // namespace ma::families
