// CANINE: a tokenizer-free encoder over Unicode characters. Each codepoint is embedded by num_hash_functions
// hashed tables (hidden_size / num_hash_functions wide each, concatenated); a one-layer local transformer
// encodes the characters, a strided conv downsamples them into molecules for the deep BERT stack, and a conv
// over [characters, repeated molecules] projects back to characters for a last one-layer transformer. All
// three stacks are BERT's layers.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// CanineEmbeddings: the hash tables, then the positions - num_hash_buckets rows, not
// max_position_embeddings (transformers sizes the table so) - token types and the LayerNorm.
void canine_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& e, uint64_t h,
                       uint64_t type_vocab) {
  const uint64_t hashes = cfg.dim_or("num_hash_functions", 8),
                 buckets = cfg.dim_or("num_hash_buckets", 16384);
  if (hashes > h)
    cfg.fail("num_hash_functions", "must not exceed hidden_size: each table is hidden_size / it wide");
  for (uint64_t i = 0; i < hashes; ++i)
    blocks::embedding(t, e + "HashBucketCodepointEmbedder_" + std::to_string(i) + ".weight", buckets,
                      h / hashes);
  blocks::embedding(t, e + "char_position_embeddings.weight", buckets, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
}

// CanineModel under `p`: the shallow encoders are copies of the config with num_hidden_layers 1.
void canine_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  canine_embeddings(cfg, t, p + "char_embeddings.", h, d.type_vocab);
  TextEncoderDims shallow = d;
  shallow.layers = 1;
  bert_docs_encoder(t, p + "initial_char_", shallow);
  blocks::conv1d(t, p + "chars_to_molecules.conv", h, h, cfg.dim_or("downsampling_rate", 4));
  blocks::norm(t, p + "chars_to_molecules.LayerNorm", h, true);
  bert_docs_encoder(t, p, d);
  blocks::conv1d(t, p + "projection.conv", 2 * h, h, cfg.dim_or("upsampling_kernel_size", 4));
  blocks::norm(t, p + "projection.LayerNorm", h, true);
  bert_docs_encoder(t, p + "final_char_", shallow);
  blocks::linear(t, p + "pooler.dense", h, h, true);  // every class builds CanineModel with its pooler
}

}  // namespace

// CanineConfig's defaults are google/canine-s's and canine-c's sizes. There is no vocabulary: the record's
// vocab_size stays 0.
void build_canine(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "CanineModel");
  const std::string task = supported_task(cfg, cls, "Canine",
                                          {"Model", "ForSequenceClassification", "ForMultipleChoice",
                                           "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d = read_bert_dims(cfg, {.positions = 16384, .type_vocab = 16});
  d.vocab = 0;
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "canine.";
  canine_model(cfg, t, prefix, d);
  const uint64_t h = d.layer.hidden;
  if (task == "ForSequenceClassification" || task == "ForTokenClassification")
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  else if (task == "ForMultipleChoice")
    blocks::linear(t, "classifier", h, 1, true);
  else if (task == "ForQuestionAnswering")
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
}

}  // namespace ma::families
