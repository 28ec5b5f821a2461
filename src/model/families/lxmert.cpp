// LXMERT (lxmert; unc-nlp/lxmert-base-uncased): BERT's embeddings and post-LayerNorm layers in three stacks.
// Language layers (encoder.layer, named so to load BERT weights) read the text; relational layers
// (encoder.r_layers) read detector region features that a visual feature encoder (encoder.visn_fc) projects
// with their boxes; cross-modality layers (encoder.x_layers) then attend each stream to the other through one
// cross-attention module shared by both directions, before each stream's own self-attention and feed-forward.
// LxmertForPreTraining adds BERT's masked-LM and matching heads, an object/attribute/feature head over the
// regions and a question-answering head; LxmertForQuestionAnswering only the last.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/text_d.h"

namespace ma::families {
namespace {

// LxmertAttention (query, key, value) under `att`, and the LxmertAttentionOutput (dense, LayerNorm) under
// `out`: self-attention names them self / output, the cross-attention att / output.
void lxmert_attention(ModelTemplate& t, const std::string& att, const std::string& out, uint64_t h) {
  for (const char* m : {".query", ".key", ".value"}) blocks::linear(t, att + m, h, h, true);
  blocks::linear(t, out + ".dense", h, h, true);
  blocks::norm(t, out + ".LayerNorm", h, true);
}

// LxmertIntermediate under `inter` and LxmertOutput under `out`.
void lxmert_feed_forward(ModelTemplate& t, const std::string& inter, const std::string& out,
                         const LayerDims& d) {
  blocks::linear(t, inter + ".dense", d.hidden, d.ffn, true);
  blocks::linear(t, out + ".dense", d.ffn, d.hidden, true);
  blocks::norm(t, out + ".LayerNorm", d.hidden, true);
}

// LxmertXLayer: visual_attention (run language -> vision and vision -> language with the same weights), each
// stream's self-attention, then lang_inter, lang_output, visn_inter, visn_output in that order.
void lxmert_cross_layer(ModelTemplate& t, const std::string& p, const LayerDims& d) {
  lxmert_attention(t, p + ".visual_attention.att", p + ".visual_attention.output", d.hidden);
  lxmert_attention(t, p + ".lang_self_att.self", p + ".lang_self_att.output", d.hidden);
  lxmert_attention(t, p + ".visn_self_att.self", p + ".visn_self_att.output", d.hidden);
  lxmert_feed_forward(t, p + ".lang_inter", p + ".lang_output", d);
  lxmert_feed_forward(t, p + ".visn_inter", p + ".visn_output", d);
}

// `count` BERT layers under `path`, recorded as a stack of `role`.
void lxmert_bert_stack(ModelTemplate& t, StackRole role, const std::string& path, uint64_t count,
                       const LayerDims& d) {
  StackSpec& s = t.arch.add_stack(role, path, d.hidden);
  for (uint64_t i = 0; i < count; ++i) {
    transformer_layer(t, path + "." + std::to_string(i), bert_layer_names(), d);
    s.layers.push_back(attention_dense_layer());
  }
}

// LxmertVisualAnswerHead: logit_fc = Sequential(Linear(H, 2H), GeLU, LayerNorm(2H), Linear(2H, labels)).
void lxmert_answer_head(ModelTemplate& t, uint64_t h, uint64_t labels) {
  blocks::linear(t, "answer_head.logit_fc.0", h, 2 * h, true);
  blocks::norm(t, "answer_head.logit_fc.2", 2 * h, true);
  blocks::linear(t, "answer_head.logit_fc.3", 2 * h, labels, true);
}

// LxmertPreTrainingHeads under cls: the LM head's own bias first (a module's parameters precede its
// children's), its transform, then the decoder whose weight is the word embedding (a tied copy);
// seq_relationship.
void lxmert_pretraining_heads(ModelTemplate& t, const TextEncoderDims& d, bool tied) {
  const uint64_t h = d.layer.hidden;
  t.add("cls.predictions.bias", {d.vocab});
  blocks::linear(t, "cls.predictions.transform.dense", h, h, true);
  blocks::norm(t, "cls.predictions.transform.LayerNorm", h, true);
  tied_or_own(t, "cls.predictions.decoder.weight", "lxmert.embeddings.word_embeddings.weight", tied);
  blocks::linear(t, "cls.seq_relationship", h, 2, true);
}

// LxmertVisualObjHead: a transform, then decoder_dict's obj (num_object_labels), attr (num_attr_labels) and
// feat (visual_feat_dim) linears. transformers adds feat when visual_obj_loss is set, not visual_feat_loss.
void lxmert_object_head(const ModelConfig& cfg, ModelTemplate& t, uint64_t h, uint64_t feat_dim) {
  blocks::linear(t, "obj_predict_head.transform.dense", h, h, true);
  blocks::norm(t, "obj_predict_head.transform.LayerNorm", h, true);
  const bool obj = cfg.flag_or("visual_obj_loss", true);
  if (obj)
    blocks::linear(t, "obj_predict_head.decoder_dict.obj", h, cfg.dim_or("num_object_labels", 1600), true);
  if (cfg.flag_or("visual_attr_loss", true))
    blocks::linear(t, "obj_predict_head.decoder_dict.attr", h, cfg.dim_or("num_attr_labels", 400), true);
  if (obj) blocks::linear(t, "obj_predict_head.decoder_dict.feat", h, feat_dim, true);
}

}  // namespace

void build_lxmert(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "LxmertModel");
  const std::string task =
      supported_task(cfg, cls, "Lxmert", {"Model", "ForPreTraining", "ForQuestionAnswering"});
  // LxmertConfig's defaults are lxmert-base-uncased's. Its num_hidden_layers is a dict of the three depths
  // (saved so in config.json): the depths are read from l_layers, r_layers and x_layers.
  TextEncoderDims d;
  d.vocab = cfg.dim_or("vocab_size", 30522);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.type_vocab = cfg.dim_or("type_vocab_size", 2);
  d.layer.hidden = cfg.dim_or("hidden_size", 768);
  d.layer.heads = cfg.dim_or("num_attention_heads", 12);
  d.layer.ffn = cfg.dim_or("intermediate_size", 3072);
  split_heads(cfg, "num_attention_heads", d.layer.hidden, d.layer.heads);
  d.layers = cfg.layers_or("l_layers", 9, 0);
  const uint64_t r_layers = cfg.layers_or("r_layers", 5, 0);
  const uint64_t x_layers = cfg.layers_or("x_layers", 5, 0);
  const uint64_t h = d.layer.hidden;
  const uint64_t feat_dim = cfg.dim_or("visual_feat_dim", 2048);
  const uint64_t qa_labels = cfg.dim_or("num_qa_labels", 9500);

  const std::string p = task == "Model" ? "" : "lxmert.";
  text_embeddings(t, p + "embeddings.", d);
  // LxmertVisualFeatureEncoder: region features and boxes each projected and normed, then averaged.
  blocks::linear(t, p + "encoder.visn_fc.visn_fc", feat_dim, h, true);
  blocks::norm(t, p + "encoder.visn_fc.visn_layer_norm", h, true);
  blocks::linear(t, p + "encoder.visn_fc.box_fc", cfg.dim_or("visual_pos_dim", 4), h, true);
  blocks::norm(t, p + "encoder.visn_fc.box_layer_norm", h, true);
  lxmert_bert_stack(t, StackRole::Encoder, p + "encoder.layer", d.layers, d.layer);
  // Registered before r_layers though they run after them.
  StackSpec& cross = t.arch.add_stack(StackRole::Encoder, p + "encoder.x_layers", h);
  for (uint64_t i = 0; i < x_layers; ++i) {
    lxmert_cross_layer(t, cross.path + "." + std::to_string(i), d.layer);
    LayerSpec layer = attention_dense_layer();
    layer.cross_attention = AttentionShape{};
    cross.layers.push_back(layer);
  }
  lxmert_bert_stack(t, StackRole::Vision, p + "encoder.r_layers", r_layers, d.layer);
  blocks::linear(t, p + "pooler.dense", h, h, true);

  if (task == "ForPreTraining") {
    // cls is always built; the object and answer heads only for the tasks the config enables.
    lxmert_pretraining_heads(t, d, read_tie(cfg, t));
    if (cfg.flag_or("task_obj_predict", true)) lxmert_object_head(cfg, t, h, feat_dim);
    if (cfg.flag_or("task_qa", true)) lxmert_answer_head(t, h, qa_labels);
  } else if (task == "ForQuestionAnswering") {
    lxmert_answer_head(t, h, qa_labels);
  }
  fill_encoder_record(t, cls, d);
  t.arch.num_layers =
      d.layers + x_layers;  // the language stream's depth: its own layers, then the cross ones
}

}  // namespace ma::families
