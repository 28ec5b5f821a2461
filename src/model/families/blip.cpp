// BLIP and the Q-Former models built on it (BLIP-2, InstructBLIP, InstructBLIP-Video). A ViT turns the image
// into patch features (EVA's ViT-g for the Q-Former models, with q and v biases but none on k). BLIP reads
// them through cross-attention in every layer of a BERT-like text model (MED). The Q-Former models distil
// them into num_query_tokens learned queries: a BERT-sized Q-Former whose every cross_attention_frequency-th
// layer attends to the patches, with a feed-forward of its own for the queries (and one for text, which
// BLIP-2's retrieval model and every InstructBLIP feed it), then a projection into a frozen language model
// (OPT, Flan-T5, Vicuna) built as transformers builds text_config alone.
#include <array>
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/qformer.h"

namespace ma::families {
namespace {

// ---- the vision tower: BlipVisionModel, Blip2VisionModel ----

struct VisionDefaults {
  uint64_t hidden, intermediate, layers, heads, image, patch;
};
constexpr VisionDefaults kBlipVision{768, 3072, 12, 12, 384, 16};
constexpr VisionDefaults kBlip2Vision{1408, 6144, 39, 16, 224, 14};  // EVA ViT-g/14

// Under `p`: a class token and a position for it and each patch, a biased patch convolution, pre-LN layers
// with one fused qkv (its bias one [3H] parameter: BLIP's linear bias, or the Q-Former models' q and v biases
// around a zero k), and a final LayerNorm. Records the tower; returns its width.
uint64_t vision_tower(const ModelConfig& v, const std::string& p, const VisionDefaults& d, ModelTemplate& t) {
  const uint64_t h = v.dim_or("hidden_size", d.hidden), inter = v.dim_or("intermediate_size", d.intermediate);
  const uint64_t layers = v.layers_or("num_hidden_layers", d.layers),
                 heads = v.dim_or("num_attention_heads", d.heads);
  const uint64_t image = v.dim_or("image_size", d.image), patch = v.dim_or("patch_size", d.patch);
  if (patch > image) v.fail("patch_size", "must not exceed image_size (" + std::to_string(image) + ")");
  const uint64_t side = image / patch;
  const bool qkv_bias = v.flag_or("qkv_bias", true);
  t.add(p + "embeddings.class_embedding", {1, 1, h});
  t.add(p + "embeddings.position_embedding", {1, side * side + 1, h});
  t.add(p + "embeddings.patch_embedding.weight", {h, 3, patch, patch});
  t.add(p + "embeddings.patch_embedding.bias", {h});
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "encoder.layers." + std::to_string(i) + ".";
    blocks::linear(t, l + "self_attn.qkv", h, 3 * h, qkv_bias);
    blocks::linear(t, l + "self_attn.projection", h, h, true);
    blocks::norm(t, l + "layer_norm1", h, true);
    blocks::linear(t, l + "mlp.fc1", h, inter, true);
    blocks::linear(t, l + "mlp.fc2", inter, h, true);
    blocks::norm(t, l + "layer_norm2", h, true);
  }
  blocks::norm(t, p + "post_layernorm", h, true);
  record_vision_tower(t, p + "encoder.layers", h, layers, heads,
                      split_heads(v, "num_attention_heads", h, heads), inter, patch, image);
  return h;
}

// ---- BERT-style attention of the text models and the Q-Former ----

// `a` = query/key/value under `qkv` (keys and values read `kv_in`-wide states), then output.dense and
// output.LayerNorm: BERT's attention block, BLIP spelling its projections self.*, the Q-Former attention.*.
void bert_attention(ModelTemplate& t, const std::string& a, const std::string& qkv, uint64_t h,
                    uint64_t kv_in) {
  blocks::linear(t, a + qkv + ".query", h, h, true);
  blocks::linear(t, a + qkv + ".key", kv_in, h, true);
  blocks::linear(t, a + qkv + ".value", kv_in, h, true);
  blocks::linear(t, a + "output.dense", h, h, true);
  blocks::norm(t, a + "output.LayerNorm", h, true);
}

// A feed-forward as BERT names it: `up`.dense, then `down`.dense and its LayerNorm.
void bert_feed_forward(ModelTemplate& t, const std::string& l, const std::string& up, const std::string& down,
                       uint64_t h, uint64_t inter) {
  blocks::linear(t, l + up + ".dense", h, inter, true);
  blocks::linear(t, l + down + ".dense", inter, h, true);
  blocks::norm(t, l + down + ".LayerNorm", h, true);
}

// ---- the Q-Former ----

// The record's view of a BERT-sized text stack (the Q-Former, BLIP's text model).
TextEncoderDims text_dims(uint64_t vocab, uint64_t positions, uint64_t layers, uint64_t hidden,
                          uint64_t heads, uint64_t inter) {
  TextEncoderDims d;
  d.vocab = vocab;
  d.max_positions = positions;
  d.layers = layers;
  d.layer.hidden = hidden;
  d.layer.heads = heads;
  d.layer.ffn = inter;
  return d;
}

}  // namespace

TextEncoderDims QFormer::dims() const {
  return text_dims(vocab, positions, layers, hidden, heads, inter);
}

QFormer read_qformer(const ModelConfig& q, bool text_input) {
  QFormer f;
  f.hidden = q.dim_or("hidden_size", f.hidden);
  f.inter = q.dim_or("intermediate_size", f.inter);
  f.layers = q.layers_or("num_hidden_layers", f.layers);
  f.heads = q.dim_or("num_attention_heads", f.heads);
  split_heads(q, "num_attention_heads", f.hidden, f.heads);
  f.vocab = q.dim_or("vocab_size", f.vocab);
  f.positions = q.dim_or("max_position_embeddings", f.positions);
  f.cross_every = q.dim_or("cross_attention_frequency", f.cross_every);
  f.text_input = text_input;
  return f;
}

void qformer_layers(ModelTemplate& t, const std::string& p, const QFormer& f, uint64_t vision) {
  StackSpec& stack = t.arch.add_stack(StackRole::Projector, p + "encoder.layer", f.hidden);
  for (uint64_t j = 0; j < f.layers; ++j) {
    const std::string l = p + "encoder.layer." + std::to_string(j) + ".";
    bert_attention(t, l + "attention.", "attention", f.hidden, f.hidden);
    if (j % f.cross_every == 0) bert_attention(t, l + "crossattention.", "attention", f.hidden, vision);
    if (f.text_input) bert_feed_forward(t, l, "intermediate", "output", f.hidden, f.inter);
    bert_feed_forward(t, l, "intermediate_query", "output_query", f.hidden, f.inter);
    LayerSpec s = attention_dense_layer();
    s.attention.heads = s.attention.kv_heads = f.heads;
    s.attention.head_dim = f.hidden / f.heads;
    s.ffn.intermediate = f.inter;
    stack.layers.push_back(s);
  }
}

// ---- the language model ----

ModelTemplate qformer_language_model(const ModelConfig& cfg, std::string_view family,
                                     std::string_view default_type) {
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string type = text.string_or("model_type", default_type);
  BuildFn build = nullptr;
  if (type == "t5") {
    build = build_t5_for_generation;
  } else if (const FamilyBuilder* f = find_family_builder(type)) {
    build = f->build;
  }
  if (!build) unsupported(cfg, std::string(family) + " with a " + printable(type) + " language model");
  ModelTemplate lm = nested_model(text, build, type, "language_model.");
  const bool generates = lm.arch.architecture.ends_with("ForCausalLM") ||
                         lm.arch.architecture.ends_with("ForConditionalGeneration");
  if (!generates) unsupported(cfg, std::string(family) + " with a " + printable(type) + " language model");
  return lm;
}

namespace {

// ---- BLIP-2, InstructBLIP, InstructBLIP-Video ----

enum class QFormerModel : uint8_t { Blip2, InstructBlip };

void build_qformer_model(const ModelConfig& cfg, ModelTemplate& t, QFormerModel kind, std::string_view prefix,
                         std::string_view family) {
  const bool instruct = kind == QFormerModel::InstructBlip;
  const std::string cls = architecture_of(cfg, std::string(prefix) + "ForConditionalGeneration");
  // InstructBlipModel (the language model without its head) is not modelled.
  const std::string task =
      instruct
          ? supported_task(cfg, cls, prefix, {"ForConditionalGeneration"})
          : supported_task(cfg, cls, prefix, {"ForConditionalGeneration", "Model", "ForImageTextRetrieval"});
  const ModelConfig qc = sub_or_empty(cfg, "qformer_config");
  // InstructBLIP always feeds the instruction to its Q-Former; BLIP-2's retrieval checkpoints say so.
  const QFormer q = read_qformer(qc, instruct || qc.flag_or("use_qformer_text_input", false));
  const uint64_t queries = cfg.dim_or("num_query_tokens", 32);
  const bool retrieval = task == "ForImageTextRetrieval";
  ModelTemplate lm;
  if (!retrieval) {
    lm = qformer_language_model(cfg, family, "opt");
    t.arch = std::move(lm.arch);  // the record describes the language model; the towers join it below
  }
  t.arch.architecture = cls;
  // query_tokens, a parameter of the model itself, is first in its state_dict.
  t.add("query_tokens", {1, queries, q.hidden});
  const uint64_t vision = vision_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", kBlip2Vision, t);
  if (retrieval) {  // Blip2TextEmbeddings: no LayerNorm of their own; the Q-Former's is applied
    blocks::embedding(t, "embeddings.word_embeddings.weight", q.vocab, q.hidden);
    blocks::embedding(t, "embeddings.position_embeddings.weight", q.positions, q.hidden);
  }
  if (instruct) {
    blocks::embedding(t, "qformer.embeddings.word_embeddings.weight", q.vocab, q.hidden);
    blocks::embedding(t, "qformer.embeddings.position_embeddings.weight", q.positions, q.hidden);
    blocks::norm(t, "qformer.embeddings.layernorm", q.hidden, true);
  } else {
    blocks::norm(t, "qformer.layernorm", q.hidden, true);
  }
  qformer_layers(t, "qformer.", q, vision);
  if (retrieval) {
    // Contrastive projections of both sides and the image-text matching head: nothing generates. The
    // record's encoder is the Q-Former.
    const uint64_t out = cfg.dim_or("image_text_hidden_size", 256);
    blocks::linear(t, "vision_projection", q.hidden, out, true);
    blocks::linear(t, "text_projection", q.hidden, out, true);
    blocks::linear(t, "itm_head", q.hidden, 2, true);
    fill_encoder_record(t, cls, q.dims());
    t.arch.model_type = instruct ? "instructblip_qformer" : "blip_2_qformer";
    t.arch.stack(StackRole::Projector)->role = StackRole::Encoder;
    return;
  }
  blocks::linear(t, "language_projection", q.hidden, t.arch.hidden_size, true);
  record_projector(t, "language_projection");
  append_model(t, std::move(lm));
}

void build_blip_2(const ModelConfig& cfg, ModelTemplate& t) {
  build_qformer_model(cfg, t, QFormerModel::Blip2, "Blip2", "BLIP-2");
}
void build_instructblip(const ModelConfig& cfg, ModelTemplate& t) {
  build_qformer_model(cfg, t, QFormerModel::InstructBlip, "InstructBlip", "InstructBLIP");
}
// Its classes are InstructBLIP's, frames of a video passing the tower one by one.
void build_instructblipvideo(const ModelConfig& cfg, ModelTemplate& t) {
  build_qformer_model(cfg, t, QFormerModel::InstructBlip, "InstructBlipVideo", "InstructBLIP-Video");
}

// ---- BLIP ----

struct BlipText {
  uint64_t vocab = 30524, hidden = 768, inter = 3072, layers = 12, heads = 8, positions = 512;
  uint64_t vision = 768;  // the cross-attention's key/value width: the vision tower's
  bool cross = true;      // is_decoder: every layer attends to the image, in the encoders too
  TextEncoderDims dims() const { return text_dims(vocab, positions, layers, hidden, heads, inter); }
};

// BlipTextModel under `p`: BERT's embeddings without token types, layers with cross-attention to the image
// when is_decoder, and the pooler when asked. Records it as a stack of `role`.
void blip_text_model(ModelTemplate& t, const std::string& p, const BlipText& x, bool pooler, StackRole role) {
  blocks::embedding(t, p + "embeddings.word_embeddings.weight", x.vocab, x.hidden);
  blocks::embedding(t, p + "embeddings.position_embeddings.weight", x.positions, x.hidden);
  blocks::norm(t, p + "embeddings.LayerNorm", x.hidden, true);
  StackSpec& stack = t.arch.add_stack(role, p + "encoder.layer", x.hidden);
  for (uint64_t k = 0; k < x.layers; ++k) {
    const std::string l = p + "encoder.layer." + std::to_string(k) + ".";
    bert_attention(t, l + "attention.", "self", x.hidden, x.hidden);
    if (x.cross) bert_attention(t, l + "crossattention.", "self", x.hidden, x.vision);
    bert_feed_forward(t, l, "intermediate", "output", x.hidden, x.inter);
    LayerSpec s = attention_dense_layer();
    s.attention.heads = s.attention.kv_heads = x.heads;
    s.attention.head_dim = x.hidden / x.heads;
    s.ffn.intermediate = x.inter;
    if (x.cross) s.cross_attention = s.attention;
    stack.layers.push_back(s);
  }
  if (pooler) blocks::linear(t, p + "pooler.dense", x.hidden, x.hidden, true);
}

// BlipTextLMHeadModel under `p`: the text model without pooler as bert.*, then BERT's prediction head whose
// decoder is the word embedding and the head's own bias (tied as the configs say, which both default to).
void blip_lm_head_model(ModelTemplate& t, const std::string& p, const BlipText& x, bool tied) {
  blip_text_model(t, p + "bert.", x, false, StackRole::Decoder);
  const std::string c = p + "cls.predictions.";
  t.add(c + "bias", {x.vocab});
  blocks::linear(t, c + "transform.dense", x.hidden, x.hidden, true);
  blocks::norm(t, c + "transform.LayerNorm", x.hidden, true);
  tied_or_own(t, c + "decoder.weight", p + "bert.embeddings.word_embeddings.weight", tied);
  tied_or_own(t, c + "decoder.bias", c + "bias", tied);
}

void build_blip(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BlipModel");
  const std::string task =
      supported_task(cfg, cls, "Blip",
                     {"ForConditionalGeneration", "ForQuestionAnswering", "ForImageTextRetrieval", "Model"});
  t.arch.architecture = cls;
  const ModelConfig tc = sub_or_empty(cfg, "text_config"), vc = sub_or_empty(cfg, "vision_config");
  BlipText x;
  x.vocab = tc.dim_or("vocab_size", x.vocab);
  x.hidden = tc.dim_or("hidden_size", x.hidden);
  x.inter = tc.dim_or("intermediate_size", x.inter);
  x.layers = tc.layers_or("num_hidden_layers", x.layers);
  x.heads = tc.dim_or("num_attention_heads", x.heads);
  split_heads(tc, "num_attention_heads", x.hidden, x.heads);
  x.positions = tc.dim_or("max_position_embeddings", x.positions);
  x.cross = tc.flag_or("is_decoder", true);
  // The outer class ties by BlipConfig's flag, the inner text model by its own: tied when either does.
  const bool tied = cfg.flag_or("tie_word_embeddings", true) || tc.flag_or("tie_word_embeddings", true);
  if (task == "Model") {  // CLIP-like: both towers projected for contrast, and a learned temperature
    t.add("logit_scale", {});
    blip_text_model(t, "text_model.", x, true, StackRole::Encoder);
  }
  x.vision = vision_tower(vc, "vision_model.", kBlipVision, t);
  if (task == "Model") {
    const uint64_t projection = cfg.dim_or("projection_dim", 512);
    blocks::linear(t, "visual_projection", x.vision, projection, false);
    blocks::linear(t, "text_projection", x.hidden, projection, false);
  } else if (task == "ForConditionalGeneration") {
    blip_lm_head_model(t, "text_decoder.", x, tied);
  } else if (task == "ForQuestionAnswering") {
    blip_text_model(t, "text_encoder.", x, false, StackRole::Encoder);
    blip_lm_head_model(t, "text_decoder.", x, tied);
  } else {
    blip_text_model(t, "text_encoder.", x, false, StackRole::Encoder);
    const uint64_t out = cfg.dim_or("image_text_hidden_size", 256);
    blocks::linear(t, "vision_proj", x.vision, out, true);
    blocks::linear(t, "text_proj", x.hidden, out, true);
    blocks::linear(t, "itm_head", x.hidden, 2, true);
  }
  // The record describes the text model that runs per token: the decoder where there is one.
  fill_encoder_record(t, cls, x.dims());
  t.arch.tie_word_embeddings = tied;
}

constexpr std::array kBlipFamilies{
    FamilyBuilder{"blip", build_blip},
    FamilyBuilder{"blip-2", build_blip_2},
    FamilyBuilder{"instructblip", build_instructblip},
    FamilyBuilder{"instructblipvideo", build_instructblipvideo},
};

}  // namespace

std::span<const FamilyBuilder> blip() {
  return kBlipFamilies;
}

}  // namespace ma::families
