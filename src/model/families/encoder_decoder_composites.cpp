// The generic encoder-decoder composites of transformers (EncoderDecoderModel, VisionEncoderDecoderModel,
// SpeechEncoderDecoderModel) and the pieces their best-known checkpoints add: TrOCR's decoder
// (TrOCRForCausalLM) and DeiT's image encoder (DeiTModel). A composite nests two whole models: the encoder
// as AutoModel.from_config(config.encoder) builds it (the base class of its model_type) and the decoder as
// AutoModelForCausalLM.from_config(config.decoder) builds it (the causal-LM class of its model_type), each
// built here by its own family's builder under encoder. / decoder., then a projection when the widths differ.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"

namespace ma::families {
namespace {

// ---- TrOCR (TrOCRForCausalLM) ----

// TrOCRForCausalLM under its own names: the decoder sits in model.decoder (TrOCRDecoderWrapper), its layers
// always carry encoder_attn (the class sets is_decoder before building them), and the head is
// output_projection, tied to the word embedding by tie_word_embeddings.
void build_trocr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TrOCRForCausalLM");
  supported_task(cfg, cls, "TrOCR", {"ForCausalLM"});  // TrOCRConfig has no other auto class
  const uint64_t d = cfg.dim_or("d_model", cfg.dim_or("hidden_size", 1024));
  const uint64_t layers = cfg.layers_or("decoder_layers", cfg.layers_or("num_hidden_layers", 12));
  const uint64_t heads = cfg.dim_or("decoder_attention_heads", cfg.dim_or("num_attention_heads", 16));
  const uint64_t ffn = cfg.dim_or("decoder_ffn_dim", 4096), vocab = cfg.dim_or("vocab_size", 50265);
  const uint64_t positions = cfg.dim_or("max_position_embeddings", 512);
  // TrOCRAttention raises unless the heads divide d_model; keys and values of the cross-attention read
  // cross_attention_hidden_size-wide encoder states (d_model when null).
  const uint64_t head_dim = split_heads(cfg, "decoder_attention_heads", d, heads);
  const uint64_t kv = cfg.has("cross_attention_hidden_size") ? cfg.dim("cross_attention_hidden_size") : d;
  const bool learned = cfg.flag_or("use_learned_position_embeddings", true);
  // The sinusoidal table is a plain attribute (no state_dict entry), sized with pad_token_id: without one
  // TrOCRDecoder cannot be built.
  if (!learned && cfg.raw("pad_token_id") && !cfg.has("pad_token_id"))
    cfg.fail("pad_token_id", "must not be null when use_learned_position_embeddings is false");

  t.arch.architecture = cls;
  t.arch.hidden_size = d;
  t.arch.num_layers = layers;
  t.arch.vocab_size = vocab;
  t.arch.num_attention_heads = t.arch.num_key_value_heads = heads;
  t.arch.head_dim = head_dim;
  t.arch.intermediate_size = ffn;
  t.arch.max_position_embeddings = positions;
  t.arch.post_norm = true;  // fairseq's post-LayerNorm decoder layers
  const bool tied = read_tie(cfg, t);

  const std::string p = "model.decoder.";
  blocks::embedding(t, p + "embed_tokens.weight", vocab, d);
  // TrOCRLearnedPositionalEmbedding keeps two rows before the first position (fairseq's offset).
  if (learned) blocks::embedding(t, p + "embed_positions.weight", positions + 2, d);
  if (cfg.flag_or("layernorm_embedding", true)) blocks::norm(t, p + "layernorm_embedding", d, true);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, p + "layers", d);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = heads;
  spec.attention.head_dim = head_dim;
  spec.ffn.intermediate = ffn;
  spec.cross_attention = spec.attention;
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    // TrOCRAttention registers k, v, q, then out.
    for (const char* a : {"self_attn.", "encoder_attn."}) {
      const uint64_t in = std::string_view(a) == "self_attn." ? d : kv;
      blocks::linear(t, l + a + "k_proj", in, d, true);
      blocks::linear(t, l + a + "v_proj", in, d, true);
      blocks::linear(t, l + a + "q_proj", d, d, true);
      blocks::linear(t, l + a + "out_proj", d, d, true);
      blocks::norm(
          t, l + (std::string_view(a) == "self_attn." ? "self_attn_layer_norm" : "encoder_attn_layer_norm"),
          d, true);
    }
    blocks::linear(t, l + "fc1", d, ffn, true);
    blocks::linear(t, l + "fc2", ffn, d, true);
    blocks::norm(t, l + "final_layer_norm", d, true);
    stack.layers.push_back(spec);
  }
  tied_or_own(t, "output_projection.weight", p + "embed_tokens.weight", tied);
}

// ---- DeiT (DeiTModel) ----

// DeiTModel (with its pooler, as AutoModel builds it) and the image-classification classes. ViT's layers
// after a class token, a distillation token and a position for each of them and every patch; the teacher
// class adds a distillation classifier beside the class-token one.
void build_deit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DeiTModel");
  const std::string task = supported_task(
      cfg, cls, "DeiT", {"Model", "ForImageClassification", "ForImageClassificationWithTeacher"});
  const std::string prefix = task == "Model" ? "" : "deit.";
  const uint64_t h = vit_body(cfg, t, cls, prefix, true);
  if (task == "Model") {
    blocks::linear(t, "pooler.dense", h, cfg.dim_or("pooler_output_size", h), true);
  } else {
    const uint64_t labels = num_labels(cfg);
    blocks::linear(t, task == "ForImageClassification" ? "classifier" : "cls_classifier", h, labels, true);
    if (task == "ForImageClassificationWithTeacher")
      blocks::linear(t, "distillation_classifier", h, labels, true);
  }
}

// ---- the composites ----

// The class AutoModelForCausalLM builds for the decoder types whose builders model it with cross-attention.
std::string_view causal_lm_class(std::string_view type) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kCausal{{
      {"bert", "BertLMHeadModel"},
      {"roberta", "RobertaForCausalLM"},
      {"xlm-roberta", "XLMRobertaForCausalLM"},
      {"camembert", "CamembertForCausalLM"},
      {"gpt2", "GPT2LMHeadModel"},
      {"trocr", "TrOCRForCausalLM"},
      {"bart", "BartForCausalLM"},
      {"mbart", "MBartForCausalLM"},
      {"xglm", "XGLMForCausalLM"},
      {"marian", "MarianForCausalLM"},
  }};
  for (const auto& [model_type, cls] : kCausal)
    if (model_type == type) return cls;
  return {};
}

struct Composite {
  std::string_view cls;     // "VisionEncoderDecoderModel"
  std::string_view family;  // for messages: "vision-encoder-decoder"
  StackRole encoder_role;   // the encoder's stacks in the record: Vision, Audio or Encoder
  bool output_hidden_size;  // SpeechEncoderDecoderModel reads the encoder's output_hidden_size
};

BuildFn own_builder(std::string_view type);

// The nested model of `type` built by its family's builder from `sub` under `prefix` (this file's own
// first: TrOCR and DeiT are mostly met inside these composites).
ModelTemplate nested(const ModelConfig& cfg, const ModelConfig& sub, std::string_view type,
                     std::string_view role, const Composite& c, const std::string& prefix) {
  if (BuildFn own = own_builder(type)) return nested_model(sub, own, type, prefix);
  const FamilyBuilder* f = find_family_builder(type);
  if (!f)
    unsupported(cfg,
                std::string(c.family) + " with a " + printable(std::string(type)) + " " + std::string(role));
  return nested_model(sub, f->build, type, prefix);
}

bool has_tensor_containing(const ModelTemplate& t, std::string_view piece) {
  for (const TemplateTensor& x : t.tensors)
    if (x.name.find(piece) != std::string::npos) return true;
  return false;
}

void build_composite(const ModelConfig& cfg, ModelTemplate& t, const Composite& c) {
  const std::string cls = architecture_of(cfg, std::string(c.cls));
  if (cls != c.cls) unsupported(cfg, cls);  // one class per composite config
  const std::string enc_type = sub_model_type(cfg, "encoder"), dec_type = sub_model_type(cfg, "decoder");
  const std::string_view dec_cls = causal_lm_class(dec_type);
  if (dec_cls.empty())
    unsupported(cfg, std::string(c.family) + " with a " + printable(dec_type) + " decoder");

  ModelTemplate enc = nested(cfg, as_auto_class(cfg, "encoder", ""), enc_type, "encoder", c, "encoder.");
  // The encoder must be a base model: EncoderDecoderModel raises when it has an LM head.
  if (enc.arch.architecture.find("For") != std::string::npos || !enc.arch.architecture.ends_with("Model"))
    unsupported(cfg, std::string(c.family) + " with a " + printable(enc_type) + " encoder");
  const ModelConfig dec_cfg = as_auto_class(cfg, "decoder", dec_cls);
  ModelTemplate dec = nested(cfg, dec_cfg, dec_type, "decoder", c, "decoder.");

  const ModelConfig enc_cfg = sub_or_empty(cfg, "encoder");
  const uint64_t enc_hidden = enc.arch.hidden_size;
  // SpeechEncoderDecoderModel: the encoder's output_hidden_size (wav2vec2's adapter width; hidden_size
  // when null), which Wav2Vec2Config always defines.
  const uint64_t enc_out = c.output_hidden_size && enc_cfg.has("output_hidden_size")
                               ? enc_cfg.dim("output_hidden_size")
                               : enc_hidden;
  const uint64_t dec_hidden = dec.arch.hidden_size;
  bool project = enc_out != dec_hidden;
  if (dec_cfg.has("cross_attention_hidden_size")) {
    // transformers raises unless it is the encoder's hidden_size; then it projects nothing.
    if (dec_cfg.dim("cross_attention_hidden_size") != enc_hidden)
      dec_cfg.fail("cross_attention_hidden_size",
                   "must equal the encoder's hidden_size (" + std::to_string(enc_hidden) + ")");
    project = false;
  }

  // The record is the decoder's (it generates); the encoder joins it as a tower or an encoder stack.
  const bool cross =
      has_tensor_containing(dec, "crossattention.") || has_tensor_containing(dec, "encoder_attn.");
  t.arch = std::move(dec.arch);
  t.arch.architecture = cls;
  if (StackSpec* d = t.arch.stack(StackRole::Decoder); d && cross)
    for (LayerSpec& l : d->layers)
      if (!l.cross_attention) l.cross_attention = l.attention;
  for (StackSpec& s : enc.arch.stacks) {
    if (s.role == StackRole::Encoder) s.role = c.encoder_role;
    // The decoder's cross-attention reads an image's features, as many as the tower outputs.
    if (s.role == StackRole::Vision && !s.positions) s.positions = s.output_positions;
    t.arch.stacks.push_back(std::move(s));
  }
  append_model(t, std::move(enc));
  append_model(t, std::move(dec));
  if (project) {
    blocks::linear(t, "enc_to_dec_proj", enc_out, dec_hidden, true);
    record_projector(t, "enc_to_dec_proj");
  }
}

void build_encoder_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  build_composite(cfg, t, {"EncoderDecoderModel", "encoder-decoder", StackRole::Encoder, false});
}
void build_vision_encoder_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  build_composite(cfg, t, {"VisionEncoderDecoderModel", "vision-encoder-decoder", StackRole::Vision, false});
}
void build_speech_encoder_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  build_composite(cfg, t, {"SpeechEncoderDecoderModel", "speech-encoder-decoder", StackRole::Audio, true});
}

constexpr std::array kCompositeFamilies{
    FamilyBuilder{"trocr", build_trocr},
    FamilyBuilder{"deit", build_deit},
    FamilyBuilder{"encoder-decoder", build_encoder_decoder},
    FamilyBuilder{"vision-encoder-decoder", build_vision_encoder_decoder},
    FamilyBuilder{"nougat", build_vision_encoder_decoder},
    FamilyBuilder{"speech-encoder-decoder", build_speech_encoder_decoder},
};

BuildFn own_builder(std::string_view type) {
  for (const FamilyBuilder& f : kCompositeFamilies)
    if (f.model_type == type) return f.build;
  return nullptr;
}

}  // namespace

std::span<const FamilyBuilder> composites() {
  return kCompositeFamilies;
}

}  // namespace ma::families
