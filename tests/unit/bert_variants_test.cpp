// BERT's and RoBERTa's relatives that keep their module tree (model/families/encoders.cpp): Data2Vec-Text and
// ERNIE, and the pre-norm ones, RoBERTa-PreLayerNorm, XLM-RoBERTa-XL and Megatron-BERT. Against the sizes
// their papers give and transformers' classes instantiated at full size (the reference counter of this work).
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

std::string encoder(const std::string& type, const std::string& cls, const std::string& dims) {
  return R"({"model_type":")" + type + R"(","architectures":[")" + cls + R"("],)" + dims + "}";
}

// "XL (3.5B) and XXL (10.7B)" (Goyal et al. 2021, Larger-Scale Transformers for Multilingual Masked Language
// Modeling). No embedding norm, a norm before attention and before the MLP, one after the encoder: the same
// count as RoBERTa's for the same sizes.
TEST(BertVariants, XlmRobertaXlIsPreNormRoberta) {
  const std::string xl = encoder("xlm-roberta-xl", "XLMRobertaXLForMaskedLM",
                                 R"("vocab_size":250880,"hidden_size":2560,"num_hidden_layers":36,
      "num_attention_heads":32,"intermediate_size":10240,"max_position_embeddings":514,"type_vocab_size":1)");
  EXPECT_EQ(parameters_of(xl), 3'482'741'760u);
  EXPECT_EQ(parameters_of(xl), parameters_of(replaced(replaced(xl, "xlm-roberta-xl", "xlm-roberta"),
                                                      "XLMRobertaXL", "XLMRoberta")));
  const std::string xxl = replaced(replaced(replaced(xl, R"("hidden_size":2560)", R"("hidden_size":4096)"),
                                            R"("num_hidden_layers":36)", R"("num_hidden_layers":48)"),
                                   R"("intermediate_size":10240)", R"("intermediate_size":16384)");
  EXPECT_EQ(parameters_of(xxl), 10'712'994'816u);
  // The XXL's upload names xlm-roberta with the XL class.
  EXPECT_EQ(parameters_of(replaced(xxl, R"("xlm-roberta-xl")", R"("xlm-roberta")")), 10'712'994'816u);
  const ModelTemplate t = template_of(xl);
  EXPECT_EQ(find_tensor(t, "roberta.embeddings.LayerNorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "roberta.encoder.layer.35.attention.self_attn_layer_norm.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "roberta.encoder.layer.35.LayerNorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "roberta.encoder.LayerNorm.weight"), nullptr);
  EXPECT_FALSE(t.arch.post_norm);
}

// RoBERTa-large's 355M (andreasmadsen/efficient_mlm_m0.40, the pre-LN RoBERTa of Wettig et al. 2023): its
// norms moved before the blocks, one more after the encoder.
TEST(BertVariants, RobertaPreLayerNormMovesItsNorms) {
  const std::string m = encoder("roberta-prelayernorm", "RobertaPreLayerNormForMaskedLM",
                                R"("vocab_size":50265,"hidden_size":1024,"num_hidden_layers":24,
      "num_attention_heads":16,"intermediate_size":4096,"max_position_embeddings":514,"type_vocab_size":1)");
  EXPECT_EQ(parameters_of(m), 355'414'105u);
  const ModelTemplate t = template_of(m);
  EXPECT_NE(find_tensor(t, "roberta_prelayernorm.encoder.layer.0.attention.LayerNorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "roberta_prelayernorm.encoder.layer.0.intermediate.LayerNorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "roberta_prelayernorm.LayerNorm.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "roberta_prelayernorm.encoder.layer.0.output.LayerNorm.weight"), nullptr);
}

// NVIDIA's Megatron-BERT 345M as its converter writes it (MegatronBertForPreTraining, the vocabulary of each
// NGC checkpoint): BERT-large's count, its norms pre-LN.
TEST(BertVariants, MegatronBertIsPreNormBert) {
  const std::string cased = encoder("megatron-bert", "MegatronBertForPreTraining", R"("vocab_size":29056)");
  EXPECT_EQ(parameters_of(cased), 334'723'458u);
  EXPECT_EQ(parameters_of(replaced(cased, "29056", "30592")), 336'297'858u);
  // The embedding norm it drops is the encoder norm it adds: BERT-large's count for the same sizes.
  EXPECT_EQ(parameters_of(cased), parameters_of(encoder("bert", "BertForPreTraining", R"("vocab_size":29056,
      "hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096)")));
  const ModelTemplate t = template_of(cased);
  EXPECT_NE(find_tensor(t, "bert.encoder.layer.3.attention.ln.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "bert.encoder.ln.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "bert.embeddings.LayerNorm.weight"), nullptr);
}

// facebook/data2vec-text-base (RoBERTa-base under its own prefix: 124,645,632 with the pooler) and
// nghuyong's ERNIE ports: 3.0 adds a table of task types (use_task_id).
TEST(BertVariants, Data2VecTextAndErnieAreBertUnderTheirPrefixes) {
  const std::string d2v = encoder("data2vec-text", "Data2VecTextModel",
                                  R"("vocab_size":50265,"max_position_embeddings":514,"type_vocab_size":1)");
  EXPECT_EQ(parameters_of(d2v), 124'645'632u);
  EXPECT_EQ(parameters_of(d2v),
            parameters_of(replaced(replaced(d2v, "data2vec-text", "roberta"), "Data2VecText", "Roberta")));
  const std::string ernie3 = encoder("ernie", "ErnieForMaskedLM",
                                     R"("vocab_size":40000,"max_position_embeddings":2048,"type_vocab_size":4,
      "use_task_id":true,"task_type_vocab_size":3)");
  EXPECT_EQ(parameters_of(ernie3), 117'986'368u);
  EXPECT_EQ(find_tensor(template_of(ernie3), "ernie.embeddings.task_type_embeddings.weight")->shape,
            Shape({3, 768}));
  EXPECT_EQ(parameters_of(encoder("ernie", "ErnieModel",
                                  R"("vocab_size":30522,"max_position_embeddings":512,"type_vocab_size":4)")),
            109'483'776u);
}

std::string esm2(const std::string& hidden, const std::string& layers, const std::string& heads) {
  return encoder("esm", "EsmForMaskedLM",
                 R"("vocab_size":33,"position_embedding_type":"rotary",
      "emb_layer_norm_before":false,"hidden_size":)" +
                     hidden + R"(,"num_hidden_layers":)" + layers + R"(,"num_attention_heads":)" + heads +
                     R"(,"intermediate_size":)" + std::to_string(4 * std::stoull(hidden)));
}

// ESM-2's six sizes (Lin et al. 2023: 8M, 35M, 150M, 650M, 3B, 15B); ESM-1b learns its positions and
// normalises its embeddings.
TEST(BertVariants, EsmTwoMatchesItsPaperAndItsFiles) {
  EXPECT_EQ(parameters_of(esm2("320", "6", "20")), 7'512'474u);
  EXPECT_EQ(parameters_of(esm2("480", "12", "20")), 33'501'394u);
  EXPECT_EQ(parameters_of(esm2("640", "30", "20")), 148'140'154u);
  EXPECT_EQ(parameters_of(esm2("1280", "33", "20")), 651'043'254u);
  EXPECT_EQ(parameters_of(esm2("2560", "36", "40")), 2'839'005'634u);
  EXPECT_EQ(parameters_of(esm2("5120", "48", "40")), 15'129'100'194u);
  EXPECT_EQ(parameters_of(replaced(replaced(esm2("1280", "33", "20"), R"("rotary")", R"("absolute")"),
                                   R"("emb_layer_norm_before":false)", R"("emb_layer_norm_before":true)")),
            652'359'094u);
  // facebook/esm2_t33_650M_UR50D's model.safetensors sums to 652,358,616 elements: the parameters less the
  // tied decoder, plus what transformers 4.2x saved beside them (a 1,026 x 1,280 position table rotary models
  // never read, the position ids, each layer's 32 rotary frequencies).
  const ModelTemplate t = template_of(esm2("1280", "33", "20"));
  EXPECT_EQ(find_tensor(t, "esm.rotary_embeddings.inv_freq")->shape, Shape({32}));
  EXPECT_EQ(find_tensor(t, "esm.contact_head.regression.weight")->shape, Shape({1, 33 * 20}));
  EXPECT_EQ(disk_totals(t).elements - 32 + 1026u * 1280 + 1026 + 33 * 32, 652'358'616u);
  EXPECT_EQ(refusal_of(R"({"model_type":"esm"})").field, "vocab_size");
}

// junnyu/roformer_chinese_base (RoFormerConfig's defaults) and roformer_chinese_char_small: the frozen
// sinusoidal table (1,536 x 64) is a parameter transformers counts and fills at load.
TEST(BertVariants, RoformerCountsItsFrozenRotaryTable) {
  EXPECT_EQ(parameters_of(encoder("roformer", "RoFormerForMaskedLM", R"("vocab_size":50000)")), 124'197'968u);
  const std::string small =
      encoder("roformer", "RoFormerForMaskedLM", R"("vocab_size":12000,"embedding_size":384,
      "hidden_size":384,"num_hidden_layers":6,"num_attention_heads":6,"intermediate_size":1536,
      "max_position_embeddings":512)");
  EXPECT_EQ(parameters_of(small), 15'449'696u);
  const ModelTemplate t = template_of(encoder("roformer", "RoFormerModel", R"("embedding_size":128)"));
  EXPECT_TRUE(find_tensor(t, "encoder.embed_positions.weight")->rebuilt_on_load);
  EXPECT_EQ(find_tensor(t, "encoder.embed_positions.weight")->shape, Shape({1536, 64}));
  EXPECT_EQ(find_tensor(t, "embeddings_project.weight")->shape, Shape({768, 128}));
  EXPECT_EQ(find_tensor(t, "pooler.dense.weight"), nullptr);
}

// facebook/xmod-base-30-125k and xmod-base (81 languages): XLM-R base plus 7,091,712 adapter parameters per
// language (12 layers of 768 -> 384 -> 768).
TEST(BertVariants, XmodAddsAnAdapterPerLanguage) {
  const auto xmod = [](const std::string& languages) {
    return encoder("xmod", "XmodForMaskedLM",
                   R"("vocab_size":250002,"max_position_embeddings":514,
        "type_vocab_size":1,"languages":[)" +
                       languages + "]");
  };
  std::string thirty, eighty_one;
  for (int i = 0; i < 81; ++i) {
    const std::string code = "\"l" + std::to_string(i) + "\"";
    if (i < 30) thirty += (i ? "," : "") + code;
    eighty_one += (i ? "," : "") + code;
  }
  EXPECT_EQ(parameters_of(xmod(thirty)), 491'046'546u);
  EXPECT_EQ(parameters_of(xmod(eighty_one)), 852'723'858u);
  EXPECT_EQ(parameters_of(xmod(eighty_one)) - parameters_of(xmod(thirty)), 51u * 7'091'712);
  const ModelTemplate t = template_of(xmod(R"("en_XX","de_DE")"));
  EXPECT_EQ(find_tensor(t, "roberta.encoder.layer.11.output.adapter_modules.de_DE.dense1.weight")->shape,
            Shape({384, 768}));
  EXPECT_EQ(refusal_of(xmod(R"("en_XX","../x")")).field, "languages");
}

// Small checkpoints in the Hub files' names load with nothing unexplained.
TEST(BertVariants, SmallCheckpointsMatch) {
  const std::string dims = R"("vocab_size":50,"hidden_size":16,"num_hidden_layers":2,"num_attention_heads":2,
      "intermediate_size":24,"max_position_embeddings":20)";
  for (const std::string& c :
       {encoder("xlm-roberta-xl", "XLMRobertaXLForMaskedLM", dims),
        encoder("roberta-prelayernorm", "RobertaPreLayerNormForMaskedLM", dims),
        encoder("megatron-bert", "MegatronBertForPreTraining", dims),
        encoder("data2vec-text", "Data2VecTextModel", dims),
        encoder("ernie", "ErnieForMaskedLM", dims + R"(,"use_task_id":true)"),
        encoder("roformer", "RoFormerForMaskedLM", dims + R"(,"embedding_size":8)"),
        encoder("xmod", "XmodForMaskedLM", dims + R"(,"languages":["en_XX","fr_XX"])")}) {
    expect_reads_cleanly(c);
  }
  // An ESM-2 file of transformers 4.2x: the unused position table and ids, rotary frequencies per layer.
  const Inventory esm =
      stored_checkpoint(
          replaced(esm2("16", "2", "2"), R"("vocab_size":33,)",
                   R"("vocab_size":33,"max_position_embeddings":20,)"),
          {{"esm.embeddings.position_embeddings.weight", DType::F16, {20, 16}, {}},
           {"esm.embeddings.position_ids", DType::I64, {1, 20}, {}},
           {"esm.encoder.layer.0.attention.self.rotary_embeddings.inv_freq", DType::F32, {4}, {}},
           {"esm.encoder.layer.1.attention.self.rotary_embeddings.inv_freq", DType::F32, {4}, {}}},
          DType::F16)
          .inventory;
  EXPECT_TRUE(esm.warnings.empty()) << esm.warnings.front();
}

}  // namespace
}  // namespace ma::test
