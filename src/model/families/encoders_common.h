// Shared pieces of the encoder and encoder-decoder families (BERT, RoBERTa, DistilBERT, ViT, BART, T5,
// Whisper): which task class config.json asks for, the post-LayerNorm transformer layer they all spell with
// different module names, and the one-or-two-copies rule of tied embeddings.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/blocks.h"
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// The class transformers builds: config.json's first `architectures` entry, else the family's base model.
std::string architecture_of(const ModelConfig& cfg, std::string_view base_class);
// The task part of `cls` after the family's class prefix ("BertForMaskedLM" - "Bert" = "ForMaskedLM"), when
// it is one of the `modelled` tasks; otherwise Error(Unsupported, "unsupported architecture: <cls>").
std::string supported_task(const ModelConfig& cfg, const std::string& cls, std::string_view family_prefix,
                           std::initializer_list<std::string_view> modelled);
std::string supported_task(const ModelConfig& cfg, const std::string& cls, std::string_view family_prefix,
                           std::span<const std::string_view> modelled);
// Classification heads size: len(id2label) when given, else num_labels, else transformers' default 2.
uint64_t num_labels(const ModelConfig& cfg);
// hidden / heads, failing through cfg when heads do not divide hidden.
uint64_t split_heads(const ModelConfig& cfg, std::string_view heads_key, uint64_t hidden, uint64_t heads);

// Module names of one transformer layer, relative to the layer prefix. Empty cross: no cross-attention.
struct LayerNames {
  std::string q, k, v, o;
  std::string attn_norm;
  std::string fc1, fc2;
  std::string ffn_norm;
  std::string cross_q, cross_k, cross_v, cross_o, cross_norm;
  bool key_first = false;  // BartAttention and its copies (Whisper, wav2vec2) register k, v, q, out
};
struct LayerDims {
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t ffn = 0;
  bool qkv_bias = true;  // ViT's qkv_bias=false drops q/k/v biases (never o's)
  bool k_bias = true;    // Whisper's k_proj has none
  bool o_bias = true;    // PEGASUS-X's attention has no bias at all
};
// BERT's module names: attention.self.{query,key,value}, attention.output.dense, intermediate/output.dense
// and their LayerNorms.
LayerNames bert_layer_names();

// The sizes of a BERT-like text encoder.
struct TextEncoderDims {
  uint64_t vocab = 0;
  uint64_t max_positions = 0;
  uint64_t type_vocab = 0;      // 0: no token-type embeddings (DistilBERT)
  uint64_t embedding = 0;       // width of the embedding tables (ALBERT, ELECTRA); 0: the hidden size
  bool embedding_norm = true;   // false: no LayerNorm after the embeddings (XLM-RoBERTa-XL, Megatron-BERT)
  bool positions_last = false;  // RobertaEmbeddings registers position_embeddings after its LayerNorm
  uint64_t layers = 0;
  LayerDims layer;
  uint64_t embedding_width() const { return embedding ? embedding : layer.hidden; }
};
// `prefix`word_embeddings, position_embeddings, token_type_embeddings (when type_vocab) and their LayerNorm
// (when embedding_norm), all embedding_width() wide, in BERT's order or RoBERTa's (positions_last).
void text_embeddings(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d);
// Embeddings + layer stack of BERT, RoBERTa and DistilBERT under `prefix` ("" for the base model class):
// text_embeddings, then `stack`.N transformer layers, recorded as the Encoder stack.
void text_encoder_body(ModelTemplate& t, const std::string& prefix, const std::string& stack,
                       const LayerNames& names, const TextEncoderDims& d);
// A BERT-like config class's defaults: BERT-base's unless the class has its own. type_vocab 0: the class has
// no type_vocab_size (bert-generation, TAPAS), and none is read.
struct BertDefaults {
  uint64_t vocab = 30522, positions = 512, type_vocab = 2, layers = 12, hidden = 768, heads = 12, ffn = 3072;
};
// BertConfig's fields, and those of the classes that keep BERT's names for them; heads must divide the
// hidden size.
TextEncoderDims read_bert_dims(const ModelConfig& cfg, const BertDefaults& b);
// The class and the width, depth and heads of an encoder whose config class defaults them to BERT-base's
// (768 wide, 12 layers of 12 heads), under hidden_size / num_hidden_layers / num_attention_heads.
void read_base_encoder_record(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t);
// The record's generic dimensions and class of an encoder-only model.
void fill_encoder_record(ModelTemplate& t, const std::string& cls, const TextEncoderDims& d);

// Biased q/k/v/o (+ cross-attention), biased fc1/fc2 and LayerNorms (weight and bias) under `prefix`.
void transformer_layer(ModelTemplate& t, const std::string& prefix, const LayerNames& n, const LayerDims& d);

// Longformer's query_global, key_global and value_global (its and LED's encoder self-attention under
// `attention`, e.g. "...attention.self."), which LongformerSelfAttention registers right after value: they
// are moved to just after the layer's query, key and value (the six tensors from t.tensors[layer_first] on).
void longformer_global_projections(ModelTemplate& t, size_t layer_first, const std::string& attention,
                                   uint64_t hidden);

// ViT's layers (and DeiT's, its copy): one ViTLayer under `p` in the order it registers its modules, and the
// on-disk names of the layer's tensors from t.tensors[first] on (Hub checkpoints keep the BERT-like names
// transformers 4 used, under `disk`, "encoder.layer.N").
void vit_layer(ModelTemplate& t, const std::string& p, const LayerDims& d);
void vit_layer_on_disk(ModelTemplate& t, size_t first, const std::string& memory, const std::string& disk);
// num_hidden_layers, hidden_size, num_attention_heads, intermediate_size and qkv_bias of a config class that
// defaults them to ViT-base's (12 layers of 768, 12 heads, 3,072, biased q/k/v): ViT's and the
// config classes copied from it (DPT's, YOLOS's, VideoMAE's, ViViT's, TimeSformer's). The heads must divide
// the width.
TextEncoderDims vit_base_dims(const ModelConfig& cfg);
// ViT's encoder under `prefix` in transformers 5's names (`prefix`layers.N, stored as
// `prefix`encoder.layer.N): d.layers ViTLayers of d.layer, one encoder stack recording `patch` and `image`
// sizes, then the final LayerNorm (`prefix`layernorm).
void vit_encoder(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d, uint64_t patch,
                 uint64_t image);
// image_size / patch_size: an int, or a [height, width] pair.
std::pair<uint64_t, uint64_t> vit_pair(const ModelConfig& cfg, std::string_view key, uint64_t dflt);
// ViTModel's body, and DeiT's (ViT's copy with a distillation token beside [CLS]): the embeddings, the
// layers and the final LayerNorm under `prefix`, the record filled for `cls`. Returns the width.
uint64_t vit_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& cls, const std::string& prefix,
                  bool distillation_token);
// ModernBERT's body, which ModernBERT-decoder keeps (its config class has the same fields and defaults): the
// record's sizes; under `prefix`, the token embeddings and their norm, the layers (pre-norm attention, layer
// 0 without attn_norm as the embedding norm stands in for it, and a GeGLU MLP whose mlp.Wi holds input and
// gate; rotary positions only) and the final norm. The encoder fuses q, k and v (attn.Wqkv) and attends both
// ways; the decoder keeps q_proj, k_proj and v_proj apart, under a causal mask. Sliding layers: layer_types
// when listed, else all but every global_attn_every_n_layers-th from the first (0, 3, 6 ...). The encoder's
// window is local_attention, the decoder's half of it (it looks back only), none when null. Returns
// norm_bias, which the task heads' norms follow.
enum class ModernBertKind { Encoder, Decoder };
bool modernbert_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                     ModernBertKind kind);
// The "attention+dense" MHA layer every stack of these families is made of.
LayerSpec attention_dense_layer();

// `name` as a tied copy of `target` when tied, else its own parameter of the same shape.
TemplateTensor& tied_or_own(ModelTemplate& t, const std::string& name, const std::string& target, bool tied);
// Reads tie_word_embeddings (transformers' default true) into t.arch and returns it.
bool read_tie(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
