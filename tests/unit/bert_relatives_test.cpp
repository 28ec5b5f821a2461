// ALBERT, ELECTRA and DeBERTa (model/families/encoders_bert_relatives.cpp, encoders_deberta.cpp), counted on
// the configs their Hub repositories publish. Expected counts are worked out by hand from transformers'
// modules (the sums are in the comments) and agree with what the model cards, papers and file sizes state.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// albert/albert-base-v2's config.json (its class: AlbertForMaskedLM).
std::string albert(const std::string& cls, uint64_t hidden, uint64_t layers, uint64_t heads,
                   const std::string& extra = "") {
  return R"({"model_type":"albert","architectures":[")" + cls + R"("],"embedding_size":128,"hidden_size":)" +
         std::to_string(hidden) + R"(,"intermediate_size":)" + std::to_string(4 * hidden) +
         R"(,"num_attention_heads":)" + std::to_string(heads) + R"(,"num_hidden_layers":)" +
         std::to_string(layers) + R"(,"num_hidden_groups":1,"inner_group_num":1,"type_vocab_size":2,)" +
         R"("vocab_size":30000,"max_position_embeddings":512)" + extra + "}";
}

// By hand, base: embeddings 30,000 x 128 + 512 x 128 + 2 x 128 + LayerNorm 256 = 3,906,048; the mapping
// 128 -> 768, 99,072; ONE shared layer, 7,087,872 (BERT-base's); the pooler 590,592 (AlbertModel 11,683,584,
// the card's "11M"); the MLM head instead of the pooler: 30,000 + 256 + 98,432 = 128,688, its decoder tied.
// Large: 16,795,824 (the card's "17M").
TEST(Albert, CountsWithOneSharedLayer) {
  EXPECT_EQ(parameters_of(albert("AlbertForMaskedLM", 768, 12, 12)), 11'221'680u);
  EXPECT_EQ(parameters_of(albert("AlbertModel", 768, 12, 12)), 11'683'584u);
  EXPECT_EQ(parameters_of(albert("AlbertForMaskedLM", 1024, 24, 16)), 16'795'824u);
  const ModelTemplate t = template_of(albert("AlbertForMaskedLM", 768, 12, 12));
  EXPECT_EQ(find_tensor(t, "albert.embeddings.word_embeddings.weight")->shape, Shape({30000, 128}));
  EXPECT_EQ(find_tensor(t, "albert.encoder.embedding_hidden_mapping_in.weight")->shape, Shape({768, 128}));
  EXPECT_EQ(find_tensor(t, "albert.encoder.albert_layer_groups.0.albert_layers.0.ffn.weight")->shape,
            Shape({3072, 768}));
  EXPECT_EQ(find_tensor(t, "albert.encoder.albert_layer_groups.1.albert_layers.0.ffn.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "albert.pooler.weight"), nullptr);  // token-level heads build without it
  EXPECT_EQ(find_tensor(t, "predictions.decoder.weight")->tied_to,
            "albert.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "predictions.decoder.bias")->tied_to, "predictions.bias");
  EXPECT_EQ(find_tensor(t, "predictions.dense.weight")->shape, Shape({128, 768}));
  // Twelve layers run, on one stored set of weights.
  ASSERT_EQ(t.arch.stacks.size(), 1u);
  EXPECT_TRUE(t.arch.stacks[0].shared_weights);
  EXPECT_EQ(t.arch.layers().size(), 12u);
  // The pooler is one Linear, not BERT's pooler.dense.
  EXPECT_NE(find_tensor(template_of(albert("AlbertModel", 768, 12, 12)), "pooler.weight"), nullptr);
}

TEST(Albert, GroupsHoldTheWeightsAndInnerLayersRunInEach) {
  const ModelTemplate t =
      template_of(albert("AlbertModel", 64, 4, 4, R"(,"num_hidden_groups":2,"inner_group_num":2)"));
  EXPECT_NE(find_tensor(t, "encoder.albert_layer_groups.1.albert_layers.1.ffn_output.weight"), nullptr);
  EXPECT_EQ(t.arch.layers().size(), 8u);  // 4 layers, each running its group's 2 inner layers
  EXPECT_THROW(template_of(albert("AlbertModel", 64, 2, 4, R"(,"num_hidden_groups":3)")), Error);
}

std::string electra(uint64_t embedding, uint64_t hidden, uint64_t heads, const std::string& cls) {
  return R"({"model_type":"electra","architectures":[")" + cls + R"("],"embedding_size":)" +
         std::to_string(embedding) + R"(,"hidden_size":)" + std::to_string(hidden) +
         R"(,"intermediate_size":)" + std::to_string(4 * hidden) + R"(,"num_attention_heads":)" +
         std::to_string(heads) +
         R"(,"num_hidden_layers":12,"max_position_embeddings":512,"type_vocab_size":2,"vocab_size":30522})";
}

// google/electra-small-discriminator (ElectraForPreTraining): embeddings 128 wide, 3,972,864; the projection
// to 256, 33,024; 12 layers of 789,760; the discriminator 65,792 + 257. x 4 bytes = 54,196,228 B, its
// pytorch_model.bin of 54.2 MB. Base: BERT-base without its pooler plus the discriminator, 109,483,009 (the
// paper's 110M).
TEST(Electra, DiscriminatorsCountAsTheirCheckpoints) {
  EXPECT_EQ(parameters_of(electra(128, 256, 4, "ElectraForPreTraining")), 13'549'057u);
  EXPECT_EQ(parameters_of(electra(768, 768, 12, "ElectraForPreTraining")), 109'483'009u);
  const ModelTemplate small = template_of(electra(128, 256, 4, "ElectraForPreTraining"));
  EXPECT_EQ(find_tensor(small, "electra.embeddings_project.weight")->shape, Shape({256, 128}));
  EXPECT_EQ(find_tensor(small, "discriminator_predictions.dense_prediction.weight")->shape, Shape({1, 256}));
  EXPECT_EQ(find_tensor(template_of(electra(768, 768, 12, "ElectraForPreTraining")),
                        "electra.embeddings_project.weight"),
            nullptr);
  const ModelTemplate generator = template_of(electra(128, 256, 4, "ElectraForMaskedLM"));
  EXPECT_EQ(find_tensor(generator, "generator_lm_head.weight")->tied_to,
            "electra.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(generator, "generator_lm_head.bias")->shape, Shape({30522}));
  EXPECT_EQ(find_tensor(generator, "generator_predictions.dense.weight")->shape, Shape({128, 256}));
}

// microsoft/deberta-v3-base's config.json, which names no class (DebertaV2Model).
constexpr const char* kDebertaV3Base = R"({"model_type":"deberta-v2","hidden_size":768,
    "intermediate_size":3072,"max_position_embeddings":512,"relative_attention":true,"position_buckets":256,
    "norm_rel_ebd":"layer_norm","share_att_key":true,"pos_att_type":"p2c|c2p","max_relative_positions":-1,
    "position_biased_input":false,"num_attention_heads":12,"num_hidden_layers":12,"type_vocab_size":0,
    "vocab_size":128100})";

// By hand: word embeddings 128,100 x 768 = 98,380,800 (the card's "98M parameters in the Embedding layer"),
// their LayerNorm 1,536; 12 BERT-base layers of 7,087,872 (share_att_key: no position projections); 512
// bucketed relative positions x 768 = 393,216 and their LayerNorm 1,536: 183,831,552.
TEST(DebertaV2, V3BaseCounts) {
  const ParameterCounts c = counts_of(kDebertaV3Base);
  EXPECT_EQ(c.total, 183'831'552u);
  EXPECT_EQ(c.total - c.non_embedding, 98'380'800u + 393'216u);  // nn.Embedding tables, as transformers
  const ModelTemplate t = template_of(kDebertaV3Base);
  EXPECT_EQ(t.arch.architecture, "DebertaV2Model");
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings.weight"), nullptr);  // position_biased_input
  EXPECT_EQ(find_tensor(t, "encoder.rel_embeddings.weight")->shape, Shape({512, 768}));
  EXPECT_NE(find_tensor(t, "encoder.LayerNorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "encoder.layer.0.attention.self.query_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.attention.self.pos_key_proj.weight"), nullptr);
  // A sequence classifier adds the ContextPooler beside the model (590,592) and its classifier (1,538).
  std::string cls = kDebertaV3Base;
  cls.insert(1, R"("architectures":["DebertaV2ForSequenceClassification"],)");
  EXPECT_EQ(parameters_of(cls), 183'831'552u + 590'592u + 1'538u);
  EXPECT_NE(find_tensor(template_of(cls), "pooler.dense.weight"), nullptr);
}

TEST(DebertaV2, UndeclaredFieldsShapeTheModel) {
  // share_att_key false: position projections for each kind listed, as a list or a '|' string alike.
  const std::string base = R"({"model_type":"deberta-v2","hidden_size":64,"intermediate_size":128,
      "num_attention_heads":4,"num_hidden_layers":1,"vocab_size":100,"relative_attention":true,
      "max_relative_positions":16,"position_biased_input":false,)";
  const ModelTemplate listed = template_of(base + R"("pos_att_type":["c2p","p2c"],"conv_kernel_size":3})");
  const ModelTemplate joined = template_of(base + R"("pos_att_type":"C2P | p2c","conv_kernel_size":3})");
  for (const ModelTemplate* t : {&listed, &joined}) {
    EXPECT_NE(find_tensor(*t, "encoder.layer.0.attention.self.pos_key_proj.weight"), nullptr);
    EXPECT_NE(find_tensor(*t, "encoder.layer.0.attention.self.pos_query_proj.weight"), nullptr);
    EXPECT_EQ(find_tensor(*t, "encoder.rel_embeddings.weight")->shape, Shape({32, 64}));  // 2 x 16
    EXPECT_EQ(find_tensor(*t, "encoder.conv.conv.weight")->shape, Shape({64, 64, 3}));
    EXPECT_EQ(find_tensor(*t, "encoder.LayerNorm.weight"), nullptr);  // norm_rel_ebd "none"
  }
  EXPECT_THROW(template_of(base + R"("pos_att_type":7})"), Error);
  EXPECT_THROW(template_of(base + R"("max_relative_positions":1.5})"), Error);
}

// microsoft/deberta-base (v1): one bias-free in_proj with separate q and v biases, pos_proj without a bias,
// pos_q_proj with one; 1,024 relative positions. By hand: embeddings 38,605,056, 12 layers of 8,267,520,
// the relative table 786,432: 138,601,728.
TEST(Deberta, BaseCounts) {
  const std::string config = R"({"model_type":"deberta","hidden_size":768,"intermediate_size":3072,
      "num_attention_heads":12,"num_hidden_layers":12,"max_position_embeddings":512,"vocab_size":50265,
      "relative_attention":true,"pos_att_type":"c2p|p2c","max_relative_positions":-1,
      "position_biased_input":false,"type_vocab_size":0})";
  EXPECT_EQ(parameters_of(config), 138'601'728u);
  const ModelTemplate t = template_of(config);
  const std::string self = "encoder.layer.0.attention.self.";
  EXPECT_EQ(find_tensor(t, self + "in_proj.weight")->shape, Shape({2304, 768}));
  EXPECT_EQ(find_tensor(t, self + "in_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, self + "q_bias")->shape, Shape({768}));
  EXPECT_EQ(find_tensor(t, self + "pos_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, self + "pos_q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.rel_embeddings.weight")->shape, Shape({1024, 768}));
  // What pre-training left in the checkpoints is known, not unexpected.
  bool discriminator = false;
  for (const ModelTemplate::KnownExtra& e : t.known_extras) discriminator |= e.prefix == "mask_predictions.";
  EXPECT_TRUE(discriminator);
}

// CamemBERT is RoBERTa's code under its own classes: camembert-base's sizes build the same tensors under
// both.
TEST(Camembert, IsRobertaUnderItsOwnClasses) {
  const std::string sizes = R"("vocab_size":32005,"max_position_embeddings":514,"type_vocab_size":1})";
  const ModelTemplate camembert =
      template_of(R"({"model_type":"camembert","architectures":["CamembertForMaskedLM"],)" + sizes);
  const ModelTemplate roberta =
      template_of(R"({"model_type":"roberta","architectures":["RobertaForMaskedLM"],)" + sizes);
  ASSERT_EQ(camembert.tensors.size(), roberta.tensors.size());
  for (size_t i = 0; i < roberta.tensors.size(); ++i) {
    EXPECT_EQ(camembert.tensors[i].name, roberta.tensors[i].name);
    EXPECT_EQ(camembert.tensors[i].shape, roberta.tensors[i].shape);
  }
  EXPECT_EQ(camembert.arch.architecture, "CamembertForMaskedLM");
  EXPECT_EQ(parameters_of(R"({"model_type":"camembert","architectures":["CamembertForMaskedLM"],)" + sizes),
            110'655'493u);  // camembert-base: RoBERTa-base's layers over a 32,005-token vocabulary
}

// sentence-transformers/all-mpnet-base-v2: 109,486,464, as three public sources print it (its weights are an
// MPNetModel's, pooler included). By hand: word embeddings 30,527 x 768, 514 positions (no token types),
// 12 BERT-base layers, one 32 x 12 table of relative-position biases for the whole encoder, the pooler.
TEST(MPNet, AllMpnetBaseCountsAsPublished) {
  const std::string sizes =
      R"("vocab_size":30527,"max_position_embeddings":514,"relative_attention_num_buckets":32})";
  EXPECT_EQ(parameters_of(R"({"model_type":"mpnet","architectures":["MPNetModel"],)" + sizes), 109'486'464u);
  const ModelTemplate mlm =
      template_of(R"({"model_type":"mpnet","architectures":["MPNetForMaskedLM"],)" + sizes);
  EXPECT_EQ(find_tensor(mlm, "mpnet.encoder.layer.0.attention.attn.q.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(mlm, "mpnet.encoder.relative_attention_bias.weight")->shape, Shape({32, 12}));
  EXPECT_EQ(find_tensor(mlm, "mpnet.embeddings.token_type_embeddings.weight"), nullptr);
  EXPECT_EQ(find_tensor(mlm, "mpnet.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(mlm, "lm_head.decoder.weight")->tied_to, "mpnet.embeddings.word_embeddings.weight");
  // The head instead of the pooler: dense 590,592, layer_norm 1,536, output bias 30,527.
  EXPECT_EQ(parameters_of(R"({"model_type":"mpnet","architectures":["MPNetForMaskedLM"],)" + sizes),
            109'486'464u - 590'592u + 590'592u + 1'536u + 30'527u);
}

}  // namespace
}  // namespace ma::test
