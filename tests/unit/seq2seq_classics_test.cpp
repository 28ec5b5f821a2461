// NLLB-MoE, BigBird-Pegasus, FSMT, Speech2Text, ProphetNet and Reformer (model/families/seq2seq_classics.cpp)
// on their Hub checkpoints' configs. The counts are those transformers' own classes give when instantiated
// (cut from modeling_*.py at the mirror's HEAD, every state_dict entry's name, shape and order compared:
// /tmp/impl/seq2seq_classics/verify/verify.py, 152 checks), and the NLLB paper's 54.5B.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// ---- NLLB-MoE ----

// facebook/nllb-moe-54b's shape fields: 24 + 24 layers of 2048, every 4th layer 128 experts of 8192.
constexpr const char* kNllbMoe54b =
    R"({"model_type":"nllb-moe","architectures":["NllbMoeForConditionalGeneration"],"d_model":2048,
    "encoder_layers":24,"decoder_layers":24,"encoder_ffn_dim":8192,"decoder_ffn_dim":8192,
    "encoder_attention_heads":16,"decoder_attention_heads":16,"num_experts":128,"encoder_sparse_step":4,
    "decoder_sparse_step":4,"router_bias":false,"vocab_size":256206,"max_position_embeddings":1024,
    "tie_word_embeddings":true})";

// The NLLB-200 paper (NLLB Team, 2022) names the MoE model by its size, 54.5B; transformers' classes build
// 54,500,569,088 parameters.
TEST(NllbMoe, FiftyFourBillionAsThePaperSays) {
  EXPECT_EQ(parameters_of(kNllbMoe54b), 54'500'569'088u);
  const ModelTemplate t = template_of(kNllbMoe54b);
  EXPECT_EQ(t.tensors.size(), 7124u);  // state_dict entries, the three tied aliases among them
  EXPECT_EQ(disk_totals(t).tensors, 7121u);
  EXPECT_EQ(t.arch.num_experts, 128u);
  EXPECT_EQ(t.arch.experts_per_token, 2u);
}

TEST(NllbMoe, EveryFourthLayerIsSparse) {
  const ModelTemplate t = template_of(kNllbMoe54b);
  // Layers 3, 7, ..., 23 of each stack: (i + 1) % 4 == 0.
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.0.ffn.router.classifier.weight"), nullptr);
  ASSERT_NE(find_tensor(t, "model.encoder.layers.3.ffn.router.classifier.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.3.ffn.router.classifier.bias"), nullptr);
  const TemplateTensor* e = find_tensor(t, "model.decoder.layers.23.ffn.experts.expert_127.fc1.weight");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->shape, (Shape{8192, 2048}));
  EXPECT_TRUE(e->routed_expert);
  ASSERT_NE(find_tensor(t, "model.decoder.layers.22.ffn.fc1.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.decoder.layers.0.cross_attention.k_proj.weight"), nullptr);
  const StackSpec* enc = t.arch.stack(StackRole::Encoder);
  ASSERT_NE(enc, nullptr);
  EXPECT_EQ(enc->layers.at(3).ffn.kind, Ffn::Moe);
  EXPECT_EQ(enc->layers.at(3).ffn.top_k, 2u);
  EXPECT_EQ(enc->layers.at(4).ffn.kind, Ffn::Dense);
  // Sinusoidal positions are a buffer transformers never saves; lm_head is the shared table.
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weights"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.shared.weight");
}

TEST(NllbMoe, TheConfigClassDefaults) {
  // NllbMoeConfig(): 12 + 12 layers of 1024, 128 experts every 4th layer (transformers: 6,880,712,704).
  EXPECT_EQ(parameters_of(R"({"model_type":"nllb-moe"})"), 6'880'712'704u);
}

TEST(NllbMoe, RefusesHostileConfigs) {
  EXPECT_EQ(refusal_of(replaced(kNllbMoe54b, R"("num_experts":128)", R"("num_experts":0)")).field,
            "num_experts");
  EXPECT_EQ(
      refusal_of(replaced(kNllbMoe54b, R"("encoder_sparse_step":4)", R"("encoder_sparse_step":-4)")).field,
      "encoder_sparse_step");
  EXPECT_EQ(
      refusal_of(replaced(kNllbMoe54b, R"("decoder_attention_heads":16)", R"("decoder_attention_heads":15)"))
          .field,
      "decoder_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kNllbMoe54b, R"("encoder_layers":24)", R"("encoder_layers":100000)")).field,
            "encoder_layers");
  EXPECT_EQ(refusal_of(replaced(kNllbMoe54b, "NllbMoeForConditionalGeneration", "NllbMoeForCausalLM")).kind,
            ErrorKind::Unsupported);
}

// ---- BigBird-Pegasus ----

// google/bigbird-pegasus-large-arxiv (and -pubmed, -bigpatent): 16 + 16 layers of 1024, 4,096 positions.
constexpr const char* kBigBirdPegasus =
    R"({"model_type":"bigbird_pegasus","architectures":["BigBirdPegasusForConditionalGeneration"],
    "d_model":1024,"encoder_layers":16,"decoder_layers":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,
    "encoder_attention_heads":16,"decoder_attention_heads":16,"vocab_size":96103,
    "max_position_embeddings":4096,"attention_type":"block_sparse","use_bias":false})";

std::string bigbird(const std::string& cls) {
  return replaced(kBigBirdPegasus, "BigBirdPegasusForConditionalGeneration", cls);
}

TEST(BigBirdPegasus, LargeArxivAndItsTaskClasses) {
  EXPECT_EQ(parameters_of(kBigBirdPegasus), 576'891'904u);
  const ModelTemplate t = template_of(kBigBirdPegasus);
  EXPECT_EQ(t.tensors.size(), 491u);  // final_logits_bias and the three tied aliases included
  EXPECT_EQ(t.tensors.front().name, "final_logits_bias");  // the module's own buffer precedes its children
  EXPECT_EQ(t.tensors.front().kind, TensorKind::Buffer);
  EXPECT_EQ(parameters_of(bigbird("BigBirdPegasusModel")), 576'891'904u);
  EXPECT_EQ(parameters_of(bigbird("BigBirdPegasusForSequenceClassification")), 577'943'554u);
  EXPECT_EQ(parameters_of(bigbird("BigBirdPegasusForQuestionAnswering")), 576'893'954u);
  // The decoder alone, its lm_head untied: the class declares no tie.
  EXPECT_EQ(parameters_of(bigbird("BigBirdPegasusForCausalLM")), 469'630'976u);
  const ModelTemplate causal = template_of(bigbird("BigBirdPegasusForCausalLM"));
  EXPECT_TRUE(find_tensor(causal, "lm_head.weight")->tied_to.empty());
}

TEST(BigBirdPegasus, TheEncoderAttendsAsBigBird) {
  const ModelTemplate t = template_of(kBigBirdPegasus);
  EXPECT_NE(find_tensor(t, "model.encoder.layers.0.self_attn.self.query.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.0.self_attn.self.query.bias"), nullptr);  // use_bias false
  EXPECT_NE(find_tensor(t, "model.encoder.layers.15.self_attn.output.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.decoder.layers.15.encoder_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weight")->shape, (Shape{4096, 1024}));
  EXPECT_EQ(refusal_of(replaced(kBigBirdPegasus, R"("block_sparse")", R"("sparse")")).field,
            "attention_type");
  EXPECT_EQ(refusal_of(replaced(kBigBirdPegasus, R"("encoder_attention_heads":16)",
                                R"("encoder_attention_heads":7)"))
                .field,
            "encoder_attention_heads");
}

// ---- FSMT ----

// facebook/wmt19-en-de: 6 + 6 layers of 1024 with 8192-wide feed-forwards, 42,024 words each side, three
// untied tables (tie_word_embeddings false).
constexpr const char* kWmt19EnDe =
    R"({"model_type":"fsmt","architectures":["FSMTForConditionalGeneration"],"langs":["en","de"],
    "d_model":1024,"encoder_layers":6,"decoder_layers":6,"encoder_ffn_dim":8192,"decoder_ffn_dim":8192,
    "encoder_attention_heads":16,"decoder_attention_heads":16,"src_vocab_size":42024,"tgt_vocab_size":42024,
    "max_position_embeddings":1024,"pad_token_id":1,"tie_word_embeddings":false})";

TEST(Fsmt, Wmt19KeepsThreeTables) {
  EXPECT_EQ(parameters_of(kWmt19EnDe), 408'268'800u);
  const ModelTemplate t = template_of(kWmt19EnDe);
  EXPECT_EQ(t.tensors.size(), 257u);
  const TemplateTensor* positions = find_tensor(t, "model.encoder.embed_positions.weight");
  ASSERT_NE(positions, nullptr);
  EXPECT_EQ(positions->shape, (Shape{1026, 1024}));  // max_position_embeddings + pad_token_id + 1
  EXPECT_TRUE(positions->rebuilt_on_load);
  EXPECT_TRUE(find_tensor(t, "model.decoder.output_projection.weight")->tied_to.empty());
  // Tied, the source table and the output projection become the target table.
  const ModelTemplate tied =
      template_of(replaced(kWmt19EnDe, R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)"));
  EXPECT_EQ(find_tensor(tied, "model.encoder.embed_tokens.weight")->tied_to,
            "model.decoder.embed_tokens.weight");
  EXPECT_EQ(find_tensor(tied, "model.decoder.output_projection.weight")->tied_to,
            "model.decoder.embed_tokens.weight");
}

TEST(Fsmt, SeparateVocabulariesAndRefusals) {
  const std::string ru_en = replaced(kWmt19EnDe, R"("src_vocab_size":42024)", R"("src_vocab_size":31232)");
  EXPECT_EQ(find_tensor(template_of(ru_en), "model.encoder.embed_tokens.weight")->shape,
            (Shape{31232, 1024}));
  EXPECT_EQ(
      refusal_of(replaced(ru_en, R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)")).field,
      "tie_word_embeddings");
  EXPECT_EQ(refusal_of(replaced(kWmt19EnDe, R"("pad_token_id":1)", R"("pad_token_id":-1)")).field,
            "pad_token_id");
}

// ---- Speech2Text ----

// facebook/s2t-small-librispeech-asr: the config class's defaults (12 + 6 layers of 256, two convolutions).
constexpr const char* kS2tSmall =
    R"({"model_type":"speech_to_text","architectures":["Speech2TextForConditionalGeneration"],"d_model":256,
    "encoder_layers":12,"decoder_layers":6,"encoder_ffn_dim":2048,"decoder_ffn_dim":2048,
    "encoder_attention_heads":4,"decoder_attention_heads":4,"vocab_size":10000,"num_conv_layers":2,
    "conv_kernel_sizes":[5,5],"conv_channels":1024,"input_feat_per_channel":80,"input_channels":1,
    "max_source_positions":6000,"max_target_positions":1024})";

TEST(Speech2Text, SmallLibrispeech) {
  EXPECT_EQ(parameters_of(kS2tSmall), 29'536'256u);
  const ModelTemplate t = template_of(kS2tSmall);
  EXPECT_EQ(t.tensors.size(), 358u);
  EXPECT_EQ(find_tensor(t, "model.encoder.conv.conv_layers.0.weight")->shape, (Shape{1024, 80, 5}));
  // A GLU halves each convolution's channels; the last outputs 2 x d_model.
  EXPECT_EQ(find_tensor(t, "model.encoder.conv.conv_layers.1.weight")->shape, (Shape{512, 512, 5}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.decoder.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "model.decoder.embed_positions.weights"), nullptr);  // non-persistent buffer
  EXPECT_EQ(refusal_of(replaced(kS2tSmall, "[5,5]", "[5]")).field, "conv_kernel_sizes");
  EXPECT_EQ(refusal_of(replaced(kS2tSmall, "[5,5]", "[5,0]")).field, "conv_kernel_sizes");
}

// ---- ProphetNet ----

// microsoft/prophetnet-large-uncased: 12 + 12 layers of 1024, 2 predicted streams, 32 buckets.
constexpr const char* kProphetNet =
    R"({"model_type":"prophetnet","architectures":["ProphetNetForConditionalGeneration"],"hidden_size":1024,
    "num_encoder_layers":12,"num_decoder_layers":12,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,
    "num_encoder_attention_heads":16,"num_decoder_attention_heads":16,"vocab_size":30522,
    "max_position_embeddings":512,"ngram":2,"num_buckets":32})";

std::string prophetnet(const std::string& cls) {
  return replaced(kProphetNet, "ProphetNetForConditionalGeneration", cls);
}

TEST(ProphetNet, LargeUncasedAndItsClasses) {
  EXPECT_EQ(parameters_of(kProphetNet), 391'321'600u);
  EXPECT_EQ(parameters_of(prophetnet("ProphetNetForCausalLM")), 239'640'576u);
  EXPECT_EQ(parameters_of(prophetnet("ProphetNetEncoder")), 182'935'552u);
  EXPECT_EQ(parameters_of(prophetnet("ProphetNetDecoder")), 239'640'576u);
  const ModelTemplate t = template_of(kProphetNet);
  EXPECT_EQ(t.tensors.size(), 539u);
  EXPECT_EQ(find_tensor(t, "prophetnet.decoder.layers.0.self_attn.relative_pos_embeddings.weight")->shape,
            (Shape{32 * 16, 1024}));
  EXPECT_EQ(find_tensor(t, "prophetnet.decoder.ngram_embeddings.weight")->shape, (Shape{2, 1024}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "prophetnet.word_embeddings.weight");
  const ModelTemplate encoder = template_of(prophetnet("ProphetNetEncoder"));
  EXPECT_EQ(encoder.tensors.front().name, "word_embeddings.weight");
  EXPECT_EQ(refusal_of(replaced(kProphetNet, R"("ngram":2)", R"("ngram":0)")).field, "ngram");
}

// ---- Reformer ----

// google/reformer-crime-and-punishment: 6 layers of 256 (local and LSH alternating), axial positions 512 x
// 1024 split 64 + 192.
constexpr const char* kReformerCrime =
    R"({"model_type":"reformer","architectures":["ReformerModelWithLMHead"],"attention_head_size":64,
    "attn_layers":["local","lsh","local","lsh","local","lsh"],"axial_pos_embds":true,
    "axial_pos_shape":[512,1024],"axial_pos_embds_dim":[64,192],"feed_forward_size":512,"hidden_size":256,
    "num_attention_heads":2,"vocab_size":320,"max_position_embeddings":524288,"is_decoder":true,
    "local_attn_chunk_length":64,"local_num_chunks_before":1,"local_num_chunks_after":0,
    "lsh_num_chunks_after":0})";

TEST(Reformer, CrimeAndPunishment) {
  EXPECT_EQ(parameters_of(kReformerCrime), 2'748'224u);
  const ModelTemplate t = template_of(kReformerCrime);
  EXPECT_EQ(t.tensors.size(), 76u);
  EXPECT_EQ(find_tensor(t, "reformer.embeddings.position_embeddings.weights.0")->shape, (Shape{512, 1, 64}));
  EXPECT_EQ(find_tensor(t, "reformer.embeddings.position_embeddings.weights.1")->shape,
            (Shape{1, 1024, 192}));
  // LSH layers share one projection for queries and keys; local layers have both.
  EXPECT_NE(find_tensor(t, "reformer.encoder.layers.1.attention.self_attention.query_key.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "reformer.encoder.layers.0.attention.self_attention.key.weight"), nullptr);
  // Two residual streams: the final norm and the head read 2 x 256.
  EXPECT_EQ(find_tensor(t, "lm_head.decoder.weight")->shape, (Shape{320, 512}));
  EXPECT_TRUE(find_tensor(t, "lm_head.decoder.weight")->tied_to.empty());
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.at(0).attention.span, Span::Sliding);
  EXPECT_EQ(
      parameters_of(replaced(kReformerCrime, "ReformerModelWithLMHead", "ReformerForQuestionAnswering")),
      2'585'090u);
}

TEST(Reformer, RefusesWhatTransformersRefuses) {
  EXPECT_EQ(
      refusal_of(replaced(kReformerCrime, R"("local","lsh","local")", R"("local","global","local")")).field,
      "attn_layers");
  EXPECT_EQ(refusal_of(replaced(kReformerCrime, "[64,192]", "[64,193]")).field, "axial_pos_embds_dim");
  EXPECT_EQ(refusal_of(replaced(kReformerCrime, R"("is_decoder":true)", R"("is_decoder":false)")).field,
            "is_decoder");
  EXPECT_EQ(refusal_of(replaced(kReformerCrime, "ReformerModelWithLMHead", "ReformerForMaskedLM")).field,
            "is_decoder");
  EXPECT_EQ(refusal_of(replaced(kReformerCrime, "[512,1024]", "[512,0]")).field, "axial_pos_shape");
}

}  // namespace
}  // namespace ma::test
