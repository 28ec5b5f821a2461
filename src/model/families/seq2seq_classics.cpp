// The BART-lineage encoder-decoders of group seq2seq_classics: BigBird-Pegasus (Pegasus with a block-sparse
// encoder), FSMT (fairseq's WMT19 translators with separate source and target vocabularies) and Speech2Text
// (a convolutional subsampler before a transformer encoder-decoder); their shared layer; and the group's
// table (NLLB-MoE, ProphetNet and Reformer build in their own files).
#include "model/families/seq2seq_classics.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/family_groups.h"

namespace ma::families {

void kvq_attention(ModelTemplate& t, const std::string& prefix, uint64_t d, bool bias) {
  for (const char* proj : {".k_proj", ".v_proj", ".q_proj", ".out_proj"})
    blocks::linear(t, prefix + proj, d, d, bias);
}

void bart_lineage_layer(ModelTemplate& t, const std::string& layer, uint64_t d, uint64_t ffn,
                        const std::string& cross, bool attention_bias) {
  kvq_attention(t, layer + ".self_attn", d, attention_bias);
  blocks::norm(t, layer + ".self_attn_layer_norm", d, true);
  if (!cross.empty()) {
    kvq_attention(t, layer + "." + cross, d, attention_bias);
    blocks::norm(t, layer + "." + cross + "_layer_norm", d, true);
  }
  blocks::linear(t, layer + ".fc1", d, ffn, true);
  blocks::linear(t, layer + ".fc2", ffn, d, true);
  blocks::norm(t, layer + ".final_layer_norm", d, true);
}

std::string numbered_layer(const std::string& stack, uint64_t i) {
  return stack + ".layers." + std::to_string(i);
}

namespace {

// BigBirdPegasusConfig's defaults are bigbird-pegasus-large's: 16 + 16 layers of 1024, 96,103 words, 4,096
// learned positions, no bias in any attention projection (use_bias).
void bigbird_pegasus_stack(ModelTemplate& t, const std::string& stack, const StackDims& s, uint64_t vocab,
                           uint64_t positions, const std::string& shared, bool tied, bool bias,
                           bool decoder) {
  const uint64_t d = s.layer.hidden;
  if (shared.empty())
    blocks::embedding(t, stack + ".embed_tokens.weight", vocab, d);
  else
    tied_or_own(t, stack + ".embed_tokens.weight", shared, tied).embedding = true;
  // A learned table of exactly max_position_embeddings rows (no BART offset).
  blocks::embedding(t, stack + ".embed_positions.weight", positions, d);
  for (uint64_t i = 0; i < s.layers; ++i) {
    const std::string layer = numbered_layer(stack, i);
    if (decoder) {
      bart_lineage_layer(t, layer, d, s.layer.ffn, "encoder_attn", bias);
      continue;
    }
    // The encoder's BigBird attention (block-sparse or full): query, key, value under self_attn.self, the
    // output projection beside them.
    for (const char* proj :
         {".self_attn.self.query", ".self_attn.self.key", ".self_attn.self.value", ".self_attn.output"})
      blocks::linear(t, layer + proj, d, d, bias);
    blocks::norm(t, layer + ".self_attn_layer_norm", d, true);
    blocks::linear(t, layer + ".fc1", d, s.layer.ffn, true);
    blocks::linear(t, layer + ".fc2", s.layer.ffn, d, true);
    blocks::norm(t, layer + ".final_layer_norm", d, true);
  }
  // Named layernorm_embedding, but it normalises each stack's output (Pegasus' final norm).
  blocks::norm(t, stack + ".layernorm_embedding", d, true);
}

// FSMTConfig's defaults: 12 + 12 layers of 1024 (16 heads, 4096-wide feed-forward), 42,024 words on each
// side. Each stack embeds its own vocabulary (src_vocab_size, tgt_vocab_size); the decoder's
// output_projection holds the target logits. The sinusoidal positions are an nn.Embedding of
// max_position_embeddings + pad_token_id + 1 rows that transformers recomputes at initialisation.
void fsmt_stack(ModelTemplate& t, const std::string& stack, const StackDims& s, uint64_t vocab,
                uint64_t position_rows, bool decoder) {
  const uint64_t d = s.layer.hidden;
  blocks::embedding(t, stack + ".embed_tokens.weight", vocab, d);
  blocks::embedding(t, stack + ".embed_positions.weight", position_rows, d).rebuilt_on_load = true;
  for (uint64_t i = 0; i < s.layers; ++i)
    bart_lineage_layer(t, numbered_layer(stack, i), d, s.layer.ffn, decoder ? "encoder_attn" : "");
}

}  // namespace

void build_bigbird_pegasus(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BigBirdPegasusModel");
  const std::string task = supported_task(cfg, cls, "BigBirdPegasus",
                                          {"Model", "ForConditionalGeneration", "ForSequenceClassification",
                                           "ForQuestionAnswering", "ForCausalLM"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 1024), vocab = cfg.dim_or("vocab_size", 96103);
  const uint64_t positions = cfg.dim_or("max_position_embeddings", 4096);
  const StackDims enc = read_stack(cfg, "encoder", d, 16, 16, 4096);
  const StackDims dec = read_stack(cfg, "decoder", d, 16, 16, 4096);
  const std::string attention = cfg.string_or("attention_type", "block_sparse");
  if (attention != "block_sparse" && attention != "original_full")
    cfg.fail("attention_type", "must be block_sparse or original_full, found '" + attention + "'");
  const bool bias = cfg.flag_or("use_bias", false);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = vocab;
  t.arch.position = PositionKind::Learned;
  describe_main(t, dec, positions);

  if (task == "ForCausalLM") {
    // The decoder alone with its own embeddings; the class declares no tie, so lm_head is its own.
    bigbird_pegasus_stack(t, "model.decoder", dec, vocab, positions, "", tied, bias, true);
    blocks::linear(t, "lm_head", d, vocab, false);
    describe_stack(t, StackRole::Decoder, "model.decoder.layers", dec, t.arch.head_dim);
    for (LayerSpec& l : t.arch.stacks.back().layers) l.cross_attention.reset();
    return;
  }
  const std::string prefix = task == "Model" ? "" : "model.";
  // The module's own buffer comes before its children in the state_dict.
  if (task == "ForConditionalGeneration") t.add("final_logits_bias", {1, vocab}).kind = TensorKind::Buffer;
  const std::string shared = prefix + "shared.weight";
  blocks::embedding(t, shared, vocab, d);
  bigbird_pegasus_stack(t, prefix + "encoder", enc, vocab, positions, shared, tied, bias, false);
  bigbird_pegasus_stack(t, prefix + "decoder", dec, vocab, positions, shared, tied, bias, true);
  if (task == "ForConditionalGeneration") {
    tied_or_own(t, "lm_head.weight", shared, tied);
  } else if (task == "ForSequenceClassification") {
    blocks::linear(t, "classification_head.dense", d, d, true);
    blocks::linear(t, "classification_head.out_proj", d, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", d, 2, true);  // the class sets num_labels to 2
  }
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", enc, t.arch.head_dim, positions);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, t.arch.head_dim);
}

void build_fsmt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "FSMTModel");
  const std::string task = supported_task(cfg, cls, "FSMT", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 1024);
  const uint64_t src_vocab = cfg.dim_or("src_vocab_size", 42024);
  // vocab_size is FSMTConfig's alias of tgt_vocab_size.
  const std::string tgt_key =
      cfg.has("tgt_vocab_size") || !cfg.has("vocab_size") ? "tgt_vocab_size" : "vocab_size";
  const uint64_t tgt_vocab = cfg.dim_or(tgt_key, 42024);
  const uint64_t positions = cfg.dim_or("max_position_embeddings", 1024);
  const uint64_t pad = cfg.count_or("pad_token_id", 1);
  const StackDims enc = read_stack(cfg, "encoder", d, 12, 16, 4096);
  const StackDims dec = read_stack(cfg, "decoder", d, 12, 16, 4096);
  // FSMTConfig defaults tie_word_embeddings to false: the WMT19 models keep three tables.
  const bool tied = cfg.flag_or("tie_word_embeddings", false);
  t.arch.tie_word_embeddings = tied;
  if (tied && src_vocab != tgt_vocab)
    cfg.fail("tie_word_embeddings", "ties the source embedding to the target one, but src_vocab_size (" +
                                        std::to_string(src_vocab) + ") differs from tgt_vocab_size (" +
                                        std::to_string(tgt_vocab) + ")");
  t.arch.vocab_size = tgt_vocab;
  t.arch.position = PositionKind::Sinusoidal;

  const std::string prefix = task == "Model" ? "" : "model.";
  const uint64_t rows = positions + pad + 1;
  fsmt_stack(t, prefix + "encoder", enc, src_vocab, rows, false);
  fsmt_stack(t, prefix + "decoder", dec, tgt_vocab, rows, true);
  const std::string target = prefix + "decoder.embed_tokens.weight";
  tied_or_own(t, prefix + "decoder.output_projection.weight", target, tied);
  // The tie makes the encoder's table the target one (registered first, it is the alias).
  if (tied) {
    for (TemplateTensor& x : t.tensors)
      if (x.name == prefix + "encoder.embed_tokens.weight") {
        x.tied_to = target;
        x.stored = false;
      }
  }
  describe_main(t, dec, positions);
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", enc, t.arch.head_dim, positions);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, t.arch.head_dim);
}

// Speech2TextConfig's defaults are s2t-small's: 12 encoder and 6 decoder layers of 256, 4 heads, a
// two-convolution subsampler (kernels 5, 5; 1024 channels) over 80 filterbank features.
void build_speech_to_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Speech2TextModel");
  const std::string task = supported_task(cfg, cls, "Speech2Text", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 256), vocab = cfg.dim_or("vocab_size", 10000);
  const StackDims enc = read_stack(cfg, "encoder", d, 12, 4, 2048);
  const StackDims dec = read_stack(cfg, "decoder", d, 6, 4, 2048);
  const uint64_t conv_layers = cfg.dim_or("num_conv_layers", 2);
  std::vector<int64_t> kernels = cfg.ints("conv_kernel_sizes");
  if (!cfg.has("conv_kernel_sizes")) kernels = {5, 5};
  if (kernels.size() != conv_layers)
    cfg.fail("conv_kernel_sizes",
             "must list num_conv_layers (" + std::to_string(conv_layers) + ") kernel sizes");
  for (const int64_t k : kernels)
    if (k < 1 || static_cast<uint64_t>(k) > ModelConfig::kMaxValue)
      cfg.fail("conv_kernel_sizes", "kernel sizes must be positive integers");
  const uint64_t channels = cfg.dim_or("conv_channels", 1024);
  if (conv_layers > 1 && channels < 2)
    cfg.fail("conv_channels", "must be at least 2: each later convolution reads half of them");
  const uint64_t features = cfg.dim_or("input_feat_per_channel", 80) * cfg.dim_or("input_channels", 1);
  const uint64_t src_pos = cfg.dim_or("max_source_positions", 6000);
  const uint64_t tgt_pos = cfg.dim_or("max_target_positions", 1024);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = vocab;
  t.arch.position = PositionKind::Sinusoidal;

  const std::string prefix = task == "Model" ? "" : "model.";
  const std::string encoder = prefix + "encoder", decoder = prefix + "decoder";
  // Each convolution (stride 2) is followed by a GLU that halves its channels; the last one outputs 2 x d.
  for (uint64_t i = 0; i < conv_layers; ++i) {
    const uint64_t in = i == 0 ? features : channels / 2, out = i + 1 < conv_layers ? channels : 2 * d;
    const std::string conv = encoder + ".conv.conv_layers." + std::to_string(i);
    t.add(conv + ".weight", {out, in, static_cast<uint64_t>(kernels[i])});
    t.add(conv + ".bias", {out});
  }
  // Both stacks' sinusoidal positions are non-persistent buffers: nothing stored.
  for (uint64_t i = 0; i < enc.layers; ++i)
    bart_lineage_layer(t, numbered_layer(encoder, i), d, enc.layer.ffn, "");
  blocks::norm(t, encoder + ".layer_norm", d, true);
  blocks::embedding(t, decoder + ".embed_tokens.weight", vocab, d);
  for (uint64_t i = 0; i < dec.layers; ++i)
    bart_lineage_layer(t, numbered_layer(decoder, i), d, dec.layer.ffn, "encoder_attn");
  blocks::norm(t, decoder + ".layer_norm", d, true);
  if (task == "ForConditionalGeneration")
    tied_or_own(t, "lm_head.weight", decoder + ".embed_tokens.weight", tied);

  describe_main(t, dec, tgt_pos);
  describe_stack(t, StackRole::Encoder, encoder + ".layers", enc, t.arch.head_dim, src_pos);
  t.arch.stack(StackRole::Encoder)->mel_bins = features;
  describe_stack(t, StackRole::Decoder, decoder + ".layers", dec, t.arch.head_dim);
}

constexpr std::array kSeq2SeqClassics{
    FamilyBuilder{"nllb-moe", build_nllb_moe},
    FamilyBuilder{"bigbird_pegasus", build_bigbird_pegasus},
    FamilyBuilder{"fsmt", build_fsmt},
    FamilyBuilder{"speech_to_text", build_speech_to_text},
    FamilyBuilder{"prophetnet", build_prophetnet},
    FamilyBuilder{"reformer", build_reformer},
};

std::span<const FamilyBuilder> seq2seq_classics() {
  return kSeq2SeqClassics;
}

}  // namespace ma::families
