// MobileBERT, ConvBERT, SqueezeBERT and the Funnel Transformer (model/families/encoders_compact.cpp), on the
// configs their Hub repositories publish, against the sizes of their checkpoint files and papers. Counts of
// other task classes are those transformers' own classes give when instantiated (the reference counter of
// this work: every tensor's name, shape and order compared), an independent figure too.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// float32 bytes in whole megabytes, as the Hub shows file sizes.
uint64_t float32_mb(uint64_t parameters) {
  return (4 * parameters + 500'000) / 1'000'000;
}

// ---- MobileBERT ----

// google/mobilebert-uncased's config.json, its shape fields (its class: MobileBertForPreTraining). It stores
// true_hidden_size, which the config class derives again from intra_bottleneck_size.
constexpr const char* kMobileBert =
    R"({"model_type":"mobilebert","architectures":["MobileBertForPreTraining"],
    "vocab_size":30522,"embedding_size":128,"hidden_size":512,"num_hidden_layers":24,"num_attention_heads":4,
    "intermediate_size":512,"intra_bottleneck_size":128,"true_hidden_size":128,"use_bottleneck":true,
    "use_bottleneck_attention":false,"key_query_shared_bottleneck":true,"num_feedforward_networks":4,
    "normalization_type":"no_norm","trigram_input":true,"classifier_activation":false,
    "max_position_embeddings":512,"type_vocab_size":2})";

std::string mobilebert(const std::string& cls) {
  return replaced(kMobileBert, "MobileBertForPreTraining", cls);
}

// Its pytorch_model.bin is 147 MB: 36,597,564 float32 values (146.39 MB) and the pickle and zip entries of
// its 1,121 state_dict keys, the two tied ones (the decoder's weight and bias) sharing storage. Transformers'
// classes give the masked-LM class 1,026 fewer (no pooler, which has no dense without
// classifier_activation, and no next-sentence head) and the base model 24,581,888: the pre-training head's
// 11.7M untied `dense` rows make most of the difference.
TEST(MobileBert, UncasedCountsAsItsCheckpoint) {
  const uint64_t n = parameters_of(kMobileBert);
  EXPECT_EQ(n, 36'597'564u);
  EXPECT_EQ(float32_mb(n), 146u);  // + ~0.45 MB of entries: the Hub's 147 MB
  const ModelTemplate t = template_of(kMobileBert);
  EXPECT_EQ(t.tensors.size(), 1121u);
  EXPECT_EQ(disk_totals(t).tensors, 1119u);
  EXPECT_EQ(parameters_of(mobilebert("MobileBertForMaskedLM")), 36'596'538u);
  EXPECT_EQ(parameters_of(mobilebert("MobileBertModel")), 24'581'888u);
  // The config class's defaults build a pooler dense (classifier_activation true): 512 x 512 + 512 more.
  EXPECT_EQ(parameters_of(R"({"model_type":"mobilebert"})"), 24'581'888u + 262'656u);
  // One layer by hand: queries and keys 2 x 16,512 over the bottleneck, values 65,664 from the 512-wide
  // input, the output 16,512 + 256 (NoNorm); four FFNs of 66,048 + 65,664 + 256; the bottleneck back up
  // 66,048 + 1,024 and the two down 2 x (65,664 + 256): 842,240.
  EXPECT_EQ(counts_of(kMobileBert).by_layer.at(0), 842'240u);
}

TEST(MobileBert, BottlenecksAndTheWideHead) {
  const ModelTemplate t = template_of(kMobileBert);
  const std::string layer = "mobilebert.encoder.layer.0.";
  EXPECT_EQ(find_tensor(t, "mobilebert.embeddings.word_embeddings.weight")->shape, Shape({30522, 128}));
  EXPECT_EQ(find_tensor(t, "mobilebert.embeddings.position_embeddings.weight")->shape, Shape({512, 512}));
  // The trigram input: a token beside its two neighbours, 3 x 128, projected to 512.
  EXPECT_EQ(find_tensor(t, "mobilebert.embeddings.embedding_transformation.weight")->shape,
            Shape({512, 384}));
  EXPECT_EQ(find_tensor(t, layer + "attention.self.query.weight")->shape, Shape({128, 128}));
  EXPECT_EQ(find_tensor(t, layer + "attention.self.value.weight")->shape, Shape({128, 512}));
  EXPECT_EQ(find_tensor(t, layer + "bottleneck.attention.dense.weight")->shape, Shape({128, 512}));
  EXPECT_EQ(find_tensor(t, layer + "output.bottleneck.dense.weight")->shape, Shape({512, 128}));
  EXPECT_EQ(find_tensor(t, layer + "ffn.2.intermediate.dense.weight")->shape, Shape({512, 128}));
  EXPECT_EQ(find_tensor(t, layer + "ffn.3.intermediate.dense.weight"), nullptr);  // 4 networks: 3 extra
  // NoNorm registers its bias before its weight.
  EXPECT_EQ(t.tensors[5].name, "mobilebert.embeddings.LayerNorm.bias");
  EXPECT_EQ(t.tensors[6].name, "mobilebert.embeddings.LayerNorm.weight");
  EXPECT_EQ(find_tensor(t, "mobilebert.pooler.dense.weight"), nullptr);  // classifier_activation false
  // The decoder is 128 wide; an untied dense supplies the other 384 rows of the output projection.
  EXPECT_EQ(find_tensor(t, "cls.predictions.dense.weight")->shape, Shape({384, 30522}));
  EXPECT_TRUE(find_tensor(t, "cls.predictions.dense.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.weight")->tied_to,
            "mobilebert.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.bias")->tied_to, "cls.predictions.bias");
  EXPECT_EQ(t.arch.head_dim, 32u);  // four heads over the 128-wide bottleneck
  // Untied: the decoder's weight (30,522 x 128) and bias become parameters.
  EXPECT_EQ(
      parameters_of(replaced(kMobileBert, R"("vocab_size")", R"("tie_word_embeddings":false,"vocab_size")")),
      36'597'564u + 30'522u * 128 + 30'522u);
}

// A small checkpoint in the Hub's names, and a fine-tune saved by transformers 4.x (2020-07 to 2023-06),
// whose file also holds the position ids, a buffer transformers no longer saves.
TEST(MobileBert, SmallCheckpointsReadCleanly) {
  const std::string small = R"({"model_type":"mobilebert","architectures":["MobileBertForPreTraining"],
      "vocab_size":50,"embedding_size":8,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":24,"intra_bottleneck_size":16,"max_position_embeddings":20})";
  expect_reads_cleanly(small);
  expect_reads_cleanly(replaced(small, "MobileBertForPreTraining", "MobileBertForSequenceClassification"),
                       {{"mobilebert.embeddings.position_ids", DType::I64, {1, 20}, {}}});
}

TEST(MobileBert, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kMobileBert, R"("no_norm")", R"("batch_norm")")).field, "normalization_type");
  EXPECT_EQ(
      refusal_of(replaced(kMobileBert, R"("num_attention_heads":4)", R"("num_attention_heads":129)")).field,
      "num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kMobileBert, R"("num_feedforward_networks":4)",
                                R"("num_feedforward_networks":1000000)"))
                .field,
            "num_feedforward_networks");
  // The prediction head's dense would have hidden_size - embedding_size < 0 rows.
  EXPECT_EQ(refusal_of(replaced(kMobileBert, R"("embedding_size":128)", R"("embedding_size":1024)")).field,
            "embedding_size");
}

// ---- ConvBERT ----

std::string convbert(uint64_t embedding, uint64_t hidden, uint64_t heads, uint64_t groups,
                     const std::string& cls = "ConvBertModel", const std::string& model_type = "convbert") {
  return R"({"model_type":")" + model_type + R"(","architectures":[")" + cls + R"("],"embedding_size":)" +
         std::to_string(embedding) + R"(,"hidden_size":)" + std::to_string(hidden) +
         R"(,"intermediate_size":)" + std::to_string(4 * hidden) + R"(,"num_attention_heads":)" +
         std::to_string(heads) + R"(,"num_groups":)" + std::to_string(groups) +
         R"(,"head_ratio":2,"conv_kernel_size":9,"num_hidden_layers":12,"max_position_embeddings":512,)"
         R"("type_vocab_size":2,"vocab_size":30522})";
}

// YituTech's three checkpoints (ConvBertModel, Feb 2021): each pytorch_model.bin holds the float32
// parameters, the int64 position ids transformers then saved (1 x 512: 4,096 bytes) and some 404 bytes of
// pickle and zip entry per tensor. Their LFS sizes: base 422,840,281, medium-small 70,022,379, small
// 52,693,739 bytes (conv-bert-small's config of the time spells the type conv_bert).
TEST(ConvBert, YituTechCheckpointsMatchTheirFileSizes) {
  struct Checkpoint {
    std::string config;
    uint64_t parameters, lfs_bytes;
  };
  for (const Checkpoint& c :
       {Checkpoint{convbert(768, 768, 12, 1), 105'680'520u, 422'840'281u},
        Checkpoint{convbert(128, 384, 8, 2), 17'475'888u, 70'022'379u},
        Checkpoint{convbert(128, 256, 4, 1, "ConvBertModel", "conv_bert"), 13'143'768u, 52'693'739u}}) {
    const uint64_t n = parameters_of(c.config);
    EXPECT_EQ(n, c.parameters) << c.config;
    const uint64_t entries = disk_totals(template_of(c.config)).tensors + 1;  // + position_ids
    const uint64_t data = 4 * n + 4'096;
    EXPECT_GT(c.lfs_bytes, data + entries * 350) << c.config;
    EXPECT_LT(c.lfs_bytes, data + entries * 450) << c.config;
  }
}

TEST(ConvBert, HalfOfEachHeadConvolves) {
  const ModelTemplate base = template_of(convbert(768, 768, 12, 1));
  const std::string self = "encoder.layer.0.attention.self.";
  // 12 heads / head_ratio 2 = 6 heads of (768 / 6) / 2 = 64: queries, keys and values 384 wide.
  EXPECT_EQ(find_tensor(base, self + "query.weight")->shape, Shape({384, 768}));
  EXPECT_EQ(find_tensor(base, self + "key_conv_attn_layer.bias")->shape, Shape({384, 1}));
  EXPECT_EQ(find_tensor(base, self + "key_conv_attn_layer.depthwise.weight")->shape, Shape({768, 1, 9}));
  EXPECT_EQ(find_tensor(base, self + "key_conv_attn_layer.pointwise.weight")->shape, Shape({384, 768, 1}));
  EXPECT_EQ(find_tensor(base, self + "conv_kernel_layer.weight")->shape, Shape({54, 384}));  // 6 x 9
  EXPECT_EQ(find_tensor(base, "encoder.layer.0.attention.output.dense.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(base, "embeddings_project.weight"), nullptr);  // embedding_size = hidden_size
  EXPECT_EQ(base.arch.layers().at(0).attention.heads, 6u);
  EXPECT_EQ(base.arch.layers().at(0).attention.head_dim, 64u);
  // medium-small: 128-wide tables projected to 384; num_groups 2 makes the FFN two [in/2, out/2] blocks.
  const ModelTemplate medium = template_of(convbert(128, 384, 8, 2));
  EXPECT_EQ(find_tensor(medium, "embeddings_project.weight")->shape, Shape({384, 128}));
  EXPECT_EQ(find_tensor(medium, "encoder.layer.0.intermediate.dense.weight")->shape, Shape({2, 192, 768}));
  EXPECT_EQ(find_tensor(medium, "encoder.layer.0.output.dense.weight")->shape, Shape({2, 768, 192}));
  EXPECT_EQ(find_tensor(medium, "encoder.layer.0.output.dense.bias")->shape, Shape({384}));
}

// The generator head: LayerNorm and dense down to the embedding width (2,304 + 589,824), the decoder tied to
// the word embedding with its own bias (30,522). Transformers' classes: 106,303,170 for the base sizes.
TEST(ConvBert, MaskedLmTiesItsDecoderNotItsBias) {
  const std::string mlm = convbert(768, 768, 12, 1, "ConvBertForMaskedLM");
  EXPECT_EQ(parameters_of(mlm), 105'680'520u + 2'304u + 589'824u + 30'522u);
  const ModelTemplate t = template_of(mlm);
  EXPECT_EQ(find_tensor(t, "generator_lm_head.weight")->tied_to,
            "convbert.embeddings.word_embeddings.weight");
  EXPECT_TRUE(find_tensor(t, "generator_lm_head.bias")->tied_to.empty());
  EXPECT_EQ(t.tensors[t.tensors.size() - 6].name, "generator_predictions.LayerNorm.weight");  // before dense
  // Multiple choice pools through SequenceSummary only when config.json asks for its projection.
  const std::string choice = convbert(768, 768, 12, 1, "ConvBertForMultipleChoice");
  EXPECT_EQ(parameters_of(choice), 105'680'520u + 769u);
  EXPECT_EQ(parameters_of(replaced(choice, R"("num_groups")", R"("summary_use_proj":true,"num_groups")")),
            105'680'520u + 769u + 590'592u);
}

// YituTech's files hold embeddings.position_ids beside the weights: a buffer, read as one.
TEST(ConvBert, YituTechLayoutReadsCleanly) {
  const std::string small = R"({"model_type":"convbert","embedding_size":8,"hidden_size":16,
      "intermediate_size":32,"num_attention_heads":4,"num_groups":2,"num_hidden_layers":2,
      "max_position_embeddings":20,"vocab_size":50})";
  expect_reads_cleanly(small, {{"embeddings.position_ids", DType::I64, {1, 20}, {}}});
  expect_reads_cleanly(replaced(small, R"("model_type":"convbert")",
                                R"("model_type":"convbert","architectures":["ConvBertForMaskedLM"])"));
}

TEST(ConvBert, RefusesWhatTransformersCannotBuild) {
  const std::string base = convbert(768, 768, 12, 1);
  EXPECT_EQ(refusal_of(replaced(base, R"("head_ratio":2)", R"("head_ratio":0)")).field, "head_ratio");
  EXPECT_EQ(refusal_of(replaced(base, R"("num_groups":1)", R"("num_groups":5)")).field, "num_groups");
  // 10 heads / head_ratio 2 = 5, which does not divide 768.
  EXPECT_EQ(refusal_of(replaced(base, R"("num_attention_heads":12)", R"("num_attention_heads":10)")).field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(base, R"("head_ratio")", R"("add_cross_attention":true,"head_ratio")")).field,
            "add_cross_attention");
}

// ---- SqueezeBERT ----

// squeezebert/squeezebert-uncased's config.json (no class named: SqueezeBertModel).
constexpr const char* kSqueezeBert = R"({"model_type":"squeezebert","vocab_size":30528,"embedding_size":768,
    "hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,
    "max_position_embeddings":512,"type_vocab_size":2,"q_groups":4,"k_groups":4,"v_groups":4,
    "post_attention_groups":1,"intermediate_groups":4,"output_groups":4})";

std::string squeezebert(const std::string& cls) {
  return replaced(kSqueezeBert, R"("model_type":"squeezebert")",
                  R"("model_type":"squeezebert","architectures":[")" + cls + R"("])");
}

// Iandola et al. 2020, Table 1: SqueezeBERT 51.1M parameters. mrm8488/squeezebert-finetuned-squadv1, a
// float32 SqueezeBertForQuestionAnswering, is 204 MB (the pooler is built in every class).
TEST(SqueezeBert, UncasedMatchesThePaper) {
  const uint64_t n = parameters_of(kSqueezeBert);
  EXPECT_EQ(n, 51'094'272u);
  EXPECT_EQ((n + 50'000) / 100'000, 511u);
  EXPECT_EQ(float32_mb(parameters_of(squeezebert("SqueezeBertForQuestionAnswering"))), 204u);
  const ModelTemplate t = template_of(kSqueezeBert);
  const std::string layer = "encoder.layers.0.";
  // Grouped 1x1 convolutions: [out, in / groups, 1].
  EXPECT_EQ(find_tensor(t, layer + "attention.query.weight")->shape, Shape({768, 192, 1}));
  EXPECT_EQ(find_tensor(t, layer + "post_attention.conv1d.weight")->shape, Shape({768, 768, 1}));
  EXPECT_EQ(find_tensor(t, layer + "intermediate.conv1d.weight")->shape, Shape({3072, 192, 1}));
  EXPECT_EQ(find_tensor(t, layer + "output.conv1d.weight")->shape, Shape({768, 768, 1}));
  EXPECT_NE(find_tensor(t, layer + "output.layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(template_of(squeezebert("SqueezeBertForTokenClassification")),
                        "transformer.pooler.dense.weight"),
            nullptr);
}

// BERT's masked-LM head, its decoder's weight and bias tied (transformers' classes: 51,716,928).
TEST(SqueezeBert, MaskedLmHeadIsBerts) {
  const std::string mlm = squeezebert("SqueezeBertForMaskedLM");
  EXPECT_EQ(parameters_of(mlm), 51'094'272u + 30'528u + 590'592u + 1'536u);
  const ModelTemplate t = template_of(mlm);
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.weight")->tied_to,
            "transformer.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.bias")->tied_to, "cls.predictions.bias");
  // Fine-tunes saved by transformers 4.x also store the position ids.
  expect_reads_cleanly(
      R"({"model_type":"squeezebert","architectures":["SqueezeBertForSequenceClassification"],
      "vocab_size":50,"embedding_size":16,"hidden_size":16,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":32,"max_position_embeddings":20})",
      {{"transformer.embeddings.position_ids", DType::I64, {1, 20}, {}}});
}

TEST(SqueezeBert, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kSqueezeBert, R"("embedding_size":768)", R"("embedding_size":128)")).field,
            "embedding_size");
  EXPECT_EQ(refusal_of(replaced(kSqueezeBert, R"("q_groups":4)", R"("q_groups":5)")).field, "q_groups");
  EXPECT_EQ(refusal_of(replaced(kSqueezeBert, R"("output_groups":4)", R"("output_groups":0)")).field,
            "output_groups");
}

// ---- Funnel Transformer ----

// funnel-transformer/X's config.json: X and X-base share it but for the class.
std::string funnel(const std::string& blocks, const std::string& repeats, uint64_t d_model, uint64_t heads,
                   const std::string& cls) {
  return R"({"model_type":"funnel","architectures":[")" + cls + R"("],"block_sizes":[)" + blocks +
         R"(],"block_repeats":[)" + repeats + R"(],"d_model":)" + std::to_string(d_model) + R"(,"n_head":)" +
         std::to_string(heads) + R"(,"d_head":64,"d_inner":)" + std::to_string(4 * d_model) +
         R"(,"num_decoder_layers":2,"vocab_size":30522,"max_position_embeddings":512,"type_vocab_size":3,)"
         R"("attention_type":"relative_shift","rel_attn_type":"factorized","pooling_type":"mean"})";
}

// The Hub's pytorch_model.bin sizes (float32): small 524 MB, small-base 462 MB, intermediate 708 MB, large
// 1.54 GB, large-base 1.44 GB, xlarge 1.87 GB, xlarge-base 1.76 GB.
TEST(Funnel, HubCheckpointsMatchTheirFileSizes) {
  EXPECT_EQ(parameters_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelModel")), 130'973'184u);
  EXPECT_EQ(float32_mb(130'973'184u), 524u);
  EXPECT_EQ(parameters_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelBaseModel")), 115'611'648u);
  EXPECT_EQ(float32_mb(115'611'648u), 462u);
  EXPECT_EQ(parameters_of(funnel("6,6,6", "1,1,1", 768, 12, "FunnelModel")), 177'057'792u);
  EXPECT_EQ(float32_mb(177'057'792u), 708u);
  const auto gb = [](uint64_t n) { return (4 * n + 5'000'000) / 10'000'000; };  // hundredths of a GB
  EXPECT_EQ(gb(parameters_of(funnel("8,8,8", "1,1,1", 1024, 16, "FunnelModel"))), 154u);
  EXPECT_EQ(gb(parameters_of(funnel("8,8,8", "1,1,1", 1024, 16, "FunnelBaseModel"))), 144u);
  EXPECT_EQ(gb(parameters_of(funnel("10,10,10", "1,1,1", 1024, 16, "FunnelModel"))), 187u);
  EXPECT_EQ(gb(parameters_of(funnel("10,10,10", "1,1,1", 1024, 16, "FunnelBaseModel"))), 176u);
}

// block_repeats runs layers again on the same weights: medium ([6,3,3] x [1,2,2]) stores small's 12 layers
// (its files are small's size) and runs 18.
TEST(Funnel, MediumRepeatsItsBlocksOnTheSameWeights) {
  const std::string medium = funnel("6,3,3", "1,2,2", 768, 12, "FunnelModel");
  EXPECT_EQ(parameters_of(medium), parameters_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelModel")));
  const ModelTemplate t = template_of(medium);
  EXPECT_EQ(t.arch.num_layers, 12u);
  ASSERT_EQ(t.arch.stacks.size(), 2u);
  EXPECT_EQ(t.arch.stacks[0].path, "encoder.blocks");
  EXPECT_EQ(t.arch.stacks[0].layers.size(), 18u);
  EXPECT_EQ(t.arch.stacks[1].path, "decoder.layers");
  EXPECT_EQ(t.arch.stacks[1].layers.size(), 2u);
  EXPECT_NE(find_tensor(t, "encoder.blocks.2.2.ffn.linear_2.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.blocks.2.3.ffn.linear_2.weight"), nullptr);
}

// The relative attention's own parameters; the sequence-level heads sit on FunnelBaseModel (no decoder), the
// token-level ones on FunnelModel (transformers' classes: 116,203,778 and 130,974,722 for small's sizes).
TEST(Funnel, SequenceHeadsLeaveTheDecoderOut) {
  const ModelTemplate t = template_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelForSequenceClassification"));
  const std::string a = "funnel.encoder.blocks.1.2.attention.";
  EXPECT_EQ(find_tensor(t, a + "r_kernel")->shape, Shape({768, 12, 64}));
  EXPECT_EQ(find_tensor(t, a + "seg_embed")->shape, Shape({2, 12, 64}));
  EXPECT_EQ(find_tensor(t, a + "r_w_bias")->shape, Shape({12, 64}));
  EXPECT_EQ(find_tensor(t, a + "q_head.bias"), nullptr);
  EXPECT_NE(find_tensor(t, a + "k_head.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "funnel.decoder.layers.0.ffn.linear_1.weight"), nullptr);
  EXPECT_EQ(parameters_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelForSequenceClassification")),
            115'611'648u + 590'592u + 1'538u);
  EXPECT_EQ(parameters_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelForTokenClassification")),
            130'973'184u + 1'538u);
  const ModelTemplate mlm = template_of(funnel("4,4,4", "1,1,1", 768, 12, "FunnelForMaskedLM"));
  EXPECT_EQ(find_tensor(mlm, "lm_head.weight")->tied_to, "funnel.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(mlm, "lm_head.bias")->shape, Shape({30522}));
  EXPECT_EQ(mlm.arch.position, PositionKind::Relative);
}

TEST(Funnel, SmallCheckpointsReadCleanly) {
  const std::string small = R"({"model_type":"funnel","architectures":["FunnelForPreTraining"],
      "block_sizes":[1,2],"d_model":16,"n_head":2,"d_head":4,"d_inner":24,"num_decoder_layers":1,
      "vocab_size":50})";
  expect_reads_cleanly(small);
  expect_reads_cleanly(replaced(small, "FunnelForPreTraining", "FunnelBaseModel"));
}

TEST(Funnel, RefusesWhatTheConfigClassRefuses) {
  const std::string small = funnel("4,4,4", "1,1,1", 768, 12, "FunnelModel");
  EXPECT_EQ(refusal_of(replaced(small, R"("block_repeats":[1,1,1])", R"("block_repeats":[1,1])")).field,
            "block_repeats");
  EXPECT_EQ(refusal_of(replaced(small, R"("block_sizes":[4,4,4])", R"("block_sizes":[])")).field,
            "block_sizes");
  EXPECT_EQ(refusal_of(replaced(small, R"("block_sizes":[4,4,4])", R"("block_sizes":[4,-4,4])")).field,
            "block_sizes");
  EXPECT_EQ(refusal_of(replaced(small, R"("block_sizes":[4,4,4])", R"("block_sizes":[900,900,4])")).field,
            "block_sizes");
  EXPECT_EQ(refusal_of(replaced(small, R"("mean")", R"("min")")).field, "pooling_type");
  // num_hidden_layers is the sum of block_sizes, which FunnelConfig refuses to set.
  EXPECT_EQ(refusal_of(replaced(small, R"("d_head")", R"("num_hidden_layers":12,"d_head")")).field,
            "num_hidden_layers");
}

// Where the tensors of these layouts sit (model/tensor_placement.cpp): Funnel's two indices (block, layer)
// put a layer at its block's index; MobileBERT's bottlenecks belong to attention and MLP, its extra FFNs'
// norms are norms; SqueezeBERT's conv1d projections are no Mamba convolutions.
TEST(CompactEncoders, TensorsPlaceInTheirBlocks) {
  const auto placed = [](const std::string& name) {
    const TensorPlacement p = place_tensor(name);
    return std::string(block_name(p.block)) + " " + p.role + " " +
           (p.layer ? std::to_string(*p.layer) : std::string("-"));
  };
  EXPECT_EQ(placed("funnel.encoder.blocks.1.2.attention.q_head.weight"), "attention q 1");
  EXPECT_EQ(placed("funnel.encoder.blocks.1.2.ffn.layer_norm.weight"), "norm norm 1");
  EXPECT_EQ(placed("funnel.encoder.blocks.1.2.ffn.linear_1.weight"), "mlp up 1");
  EXPECT_EQ(placed("mobilebert.encoder.layer.3.bottleneck.input.dense.weight"), "attention bottleneck 3");
  EXPECT_EQ(placed("mobilebert.encoder.layer.3.output.bottleneck.dense.weight"), "mlp bottleneck 3");
  EXPECT_EQ(placed("mobilebert.encoder.layer.3.ffn.0.output.dense.weight"), "mlp down 3");
  EXPECT_EQ(placed("mobilebert.encoder.layer.3.ffn.0.output.LayerNorm.bias"), "norm norm 3");
  EXPECT_EQ(placed("transformer.encoder.layers.5.post_attention.conv1d.weight"), "attention o 5");
  EXPECT_EQ(placed("transformer.encoder.layers.5.intermediate.conv1d.weight"), "mlp up 5");
  EXPECT_EQ(placed("transformer.encoder.layers.5.output.layernorm.weight"), "norm norm 5");
  EXPECT_EQ(placed("generator_predictions.dense.weight"), "lm-head lm-head -");
  EXPECT_EQ(placed("discriminator_predictions.dense_prediction.weight"), "lm-head lm-head -");
  EXPECT_EQ(placed("convbert.encoder.layer.0.attention.self.key_conv_attn_layer.depthwise.weight"),
            "attention depthwise 0");
}

}  // namespace
}  // namespace ma::test
