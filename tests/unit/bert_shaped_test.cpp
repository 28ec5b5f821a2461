// bert-generation, RemBERT, LayoutLM, BigBird, Longformer, I-BERT, TAPAS and RoCBert
// (model/families/encoders_bert_shaped.cpp), counted on the configs of their reference checkpoints. Each
// test names the figure it checks: the Hub's file sizes (displayed rounded: "472 MB"; LayoutLM's safetensors
// byte for byte), the model cards, and the counts of transformers' own classes instantiated at full size on
// the meta device (transformers main decba1d2; every class, every switch), which are independent of this
// code. Configs whose Hub file was not retrievable are rebuilt from configs derived from them (said where).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

std::string shaped_config(const std::string& type, const std::string& cls, const std::string& fields) {
  return R"({"model_type":")" + type + R"(","architectures":[")" + cls + R"("],)" + fields + "}";
}

// How the Hub displays a file size: to the nearest `unit` bytes (472 MB: unit 1,000,000).
uint64_t rounded(uint64_t bytes, uint64_t unit) {
  return (bytes + unit / 2) / unit;
}

// What the template's parameters take stored in float32, plus `int64_values` of position ids.
uint64_t float32_bytes(const std::string& json, uint64_t int64_values = 0) {
  return 4 * parameters_of(json) + 8 * int64_values;
}

// ---- bert-generation ----

// google/bert_for_seq_generation_L-24_bbc_encoder: its config.json rebuilt from one derived from it
// (Zlovoblachko/testik_L1_sent_generator); the sizes are BertGenerationConfig's defaults.
const std::string kBbcSizes = R"("vocab_size":50358,"hidden_size":1024,"num_hidden_layers":24,
    "num_attention_heads":16,"intermediate_size":4096,"max_position_embeddings":512)";

// The Hub's pytorch_model.bin, "1.42 GB", is the encoder in float32 with its int64 position ids (1 x 512).
// The decoder (transformers' BertGenerationDecoder) adds only the output bias, 50,358.
TEST(BertGeneration, BbcEncoderCountsAsItsFile) {
  const std::string encoder = shaped_config("bert-generation", "BertGenerationEncoder", kBbcSizes);
  EXPECT_EQ(parameters_of(encoder), 354'402'304u);
  EXPECT_EQ(rounded(float32_bytes(encoder, 512), 10'000'000), 142u);
  const ModelTemplate t = template_of(encoder);
  EXPECT_EQ(t.tensors.size(), 388u);
  EXPECT_EQ(find_tensor(t, "embeddings.token_type_embeddings.weight"), nullptr);  // no token types
  EXPECT_EQ(find_tensor(t, "pooler.dense.weight"), nullptr);                      // and no pooler
  EXPECT_EQ(find_tensor(t, "encoder.layer.23.output.dense.weight")->shape, Shape({1024, 4096}));
  EXPECT_TRUE(t.arch.post_norm);
  EXPECT_EQ(parameters_of(shaped_config("bert-generation", "BertGenerationDecoder", kBbcSizes)),
            354'402'304u + 50'358u);
}

// BertGenerationDecoder's lm_head is the tied decoder and its output bias, no transform; untied it holds
// its own 50,358 x 1024 table (406,069,612, transformers' count).
TEST(BertGeneration, DecoderTiesItsBareHead) {
  const std::string decoder = shaped_config("bert-generation", "BertGenerationDecoder", kBbcSizes);
  const ModelTemplate t = template_of(decoder);
  EXPECT_EQ(find_tensor(t, "lm_head.decoder.weight")->tied_to, "bert.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.decoder.bias")->tied_to, "lm_head.bias");
  EXPECT_EQ(find_tensor(t, "lm_head.dense.weight"), nullptr);
  EXPECT_EQ(tensor_index(t, "lm_head.bias") + 1, tensor_index(t, "lm_head.decoder.weight"));  // saved first
  EXPECT_EQ(disk_totals(t).tensors, 389u);
  EXPECT_EQ(parameters_of(replaced(decoder, "{", R"({"tie_word_embeddings":false,)")), 406'069'612u);
}

// is_decoder with add_cross_attention: every layer attends the encoder's states too, 4H^2 + 6H more per
// layer (transformers: 455,213,056 for the encoder class, 455,263,414 for the decoder).
TEST(BertGeneration, CrossAttentionMakesADecoder) {
  const std::string cross = R"(,"is_decoder":true,"add_cross_attention":true)";
  EXPECT_EQ(parameters_of(shaped_config("bert-generation", "BertGenerationEncoder", kBbcSizes + cross)),
            455'213'056u);
  const ModelTemplate t =
      template_of(shaped_config("bert-generation", "BertGenerationDecoder", kBbcSizes + cross));
  EXPECT_EQ(parameters_of(shaped_config("bert-generation", "BertGenerationDecoder", kBbcSizes + cross)),
            455'263'414u);
  EXPECT_EQ(find_tensor(t, "bert.encoder.layer.0.crossattention.self.key.weight")->shape,
            Shape({1024, 1024}));
  EXPECT_TRUE(t.arch.layers().front().cross_attention.has_value());
  // Without is_decoder transformers' layers raise.
  EXPECT_EQ(refusal_of(shaped_config("bert-generation", "BertGenerationEncoder",
                                     kBbcSizes + R"(,"add_cross_attention":true)"))
                .field,
            "add_cross_attention");
}

// ---- RemBERT ----

// google/rembert's config.json (no class: RemBertModel).
const std::string kRembert = R"({"model_type":"rembert","vocab_size":250300,"hidden_size":1152,
    "num_hidden_layers":32,"num_attention_heads":18,"input_embedding_size":256,"embedding_size":256,
    "output_embedding_size":1664,"intermediate_size":4608,"max_position_embeddings":512,"type_vocab_size":2,
    "tie_word_embeddings":false})";

// Its pytorch_model.bin is 2,303,882,157 bytes: RemBertModel's parameters in float32 and the int64 position
// ids (1 x 512), plus torch's zip and pickle records, under 400 bytes for each of its 522 tensors (the output
// embedding, 416M more, is not published). svalabs/rembert-german-question-answering's, 2,298,586,861
// bytes, holds RemBertForQuestionAnswering (no pooler, 2 span logits) the same way. The masked-LM count is
// transformers'.
TEST(RemBert, CountsAsGoogleRembertFiles) {
  EXPECT_EQ(parameters_of(kRembert), 575'920'384u);
  const uint64_t records = 2'303'882'157u - float32_bytes(kRembert, 512);
  EXPECT_GT(records, 0u);
  EXPECT_LT(records, 522u * 400);
  const std::string qa = replaced(kRembert, "{", R"({"architectures":["RemBertForQuestionAnswering"],)");
  EXPECT_EQ(parameters_of(qa), 574'594'434u);
  EXPECT_LT(2'298'586'861u - float32_bytes(qa, 512), 522u * 400);
  EXPECT_EQ(parameters_of(replaced(kRembert, "{", R"({"architectures":["RemBertForMaskedLM"],)")),
            993'263'548u);
  EXPECT_EQ(
      parameters_of(replaced(kRembert, "{", R"({"architectures":["RemBertForSequenceClassification"],)")),
      575'922'690u);
  EXPECT_EQ(parameters_of(replaced(kRembert, "{", R"({"architectures":["RemBertForMultipleChoice"],)")),
            575'921'537u);
}

// The input tables are 256 wide and projected to 1,152; the LM head projects to 1,664 and decodes with its
// own table: RemBERT declares no tied weights, so tie_word_embeddings true changes nothing.
TEST(RemBert, OutputEmbeddingIsNeverTied) {
  const std::string mlm = replaced(replaced(kRembert, "{", R"({"architectures":["RemBertForMaskedLM"],)"),
                                   R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)");
  const ModelTemplate t = template_of(mlm);
  EXPECT_EQ(find_tensor(t, "rembert.embeddings.word_embeddings.weight")->shape, Shape({250300, 256}));
  EXPECT_EQ(find_tensor(t, "rembert.encoder.embedding_hidden_mapping_in.weight")->shape, Shape({1152, 256}));
  EXPECT_EQ(find_tensor(t, "cls.predictions.dense.weight")->shape, Shape({1664, 1152}));
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.weight")->shape, Shape({250300, 1664}));
  EXPECT_TRUE(find_tensor(t, "cls.predictions.decoder.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(t, "rembert.pooler.dense.weight"), nullptr);
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_EQ(parameters_of(mlm), 993'263'548u);
}

// ---- LayoutLM ----

// microsoft/layoutlm-base-uncased's config.json (no class: LayoutLMModel); -large-uncased's sizes.
const std::string kLayoutlmBase = R"({"model_type":"layoutlm","vocab_size":30522,"hidden_size":768,
    "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":512,
    "max_2d_position_embeddings":1024,"type_vocab_size":2})";

// microsoft/layoutlm-base-uncased's model.safetensors is 450,536,528 bytes: the base model's 203 tensors in
// float32 under the task classes' "layoutlm." prefix, with safetensors' header (names, shapes and offsets
// in name order, padded to 8 bytes) — every name and shape of the template, byte for byte. The card says
// "113M parameters".
TEST(LayoutLM, BaseSafetensorsIsTheTemplateByteForByte) {
  EXPECT_EQ(parameters_of(kLayoutlmBase), 112'627'968u);
  std::vector<TensorToWrite> file;
  for (const DiskTensor& x : disk_form(template_of(kLayoutlmBase)))
    file.push_back({"layoutlm." + x.name, DType::F32, x.shape, {}});
  std::sort(file.begin(), file.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  uint64_t data = 0;
  for (const TensorToWrite& x : file) data += data_bytes(x);
  const uint64_t header = safetensors_header_json(file, {{"format", "pt"}}).size();
  EXPECT_EQ(8 + (header + 7) / 8 * 8 + data, 450'536'528u);
}

// That file holds the base model's tensors under the task classes' "layoutlm." prefix while its config names
// no class: transformers strips the prefix when it loads them into LayoutLMModel, and so does the matcher.
TEST(LayoutLM, BaseModelReadsItsPrefixedFile) {
  const std::string small =
      R"({"model_type":"layoutlm","vocab_size":40,"hidden_size":16,"num_hidden_layers":2,
      "num_attention_heads":2,"intermediate_size":24,"max_position_embeddings":20,"max_2d_position_embeddings":32})";
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << small;
  std::vector<TensorToWrite> file;
  for (const DiskTensor& x : disk_form(template_of(small)))
    file.push_back({"layoutlm." + x.name, DType::F16, x.shape, {}});
  write_safetensors(dir.path() / "model.safetensors", file);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(extras_in(inv), 0u);
  EXPECT_EQ(inv.arch.architecture, "LayoutLMModel");
}

// LayoutLMModel always builds its pooler, so every head keeps it. The masked-LM class is what the 2020
// pytorch_model.bin holds: with its int64 position ids, 453,006,568 bytes of data, those of the repository's
// first model.safetensors. Large: transformers' counts (its card's "343M" is nominal).
TEST(LayoutLM, EveryHeadKeepsThePooler) {
  const std::string mlm = replaced(kLayoutlmBase, "{", R"({"architectures":["LayoutLMForMaskedLM"],)");
  EXPECT_EQ(parameters_of(mlm), 113'250'618u);
  EXPECT_EQ(float32_bytes(mlm, 512), 453'006'568u);
  const ModelTemplate t = template_of(mlm);
  EXPECT_NE(find_tensor(t, "layoutlm.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.weight")->tied_to,
            "layoutlm.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "layoutlm.embeddings.h_position_embeddings.weight")->shape, Shape({1024, 768}));
  EXPECT_TRUE(find_tensor(t, "layoutlm.embeddings.w_position_embeddings.weight")->embedding);
  for (const char* head : {"LayoutLMForTokenClassification", "LayoutLMForSequenceClassification",
                           "LayoutLMForQuestionAnswering"})
    EXPECT_EQ(
        parameters_of(replaced(kLayoutlmBase, "{", R"({"architectures":[")" + std::string(head) + R"("],)")),
        112'629'506u)
        << head;
  const std::string large =
      replaced(replaced(replaced(replaced(kLayoutlmBase, R"("hidden_size":768)", R"("hidden_size":1024)"),
                                 R"("num_hidden_layers":12)", R"("num_hidden_layers":24)"),
                        R"("num_attention_heads":12)", R"("num_attention_heads":16)"),
               R"("intermediate_size":3072)", R"("intermediate_size":4096)");
  EXPECT_EQ(parameters_of(large), 339'336'192u);
  EXPECT_EQ(parameters_of(replaced(large, "{", R"({"architectures":["LayoutLMForMaskedLM"],)")),
            340'418'362u);
}

// ---- BigBird ----

// google/bigbird-roberta-base and -large (BigBirdForPreTraining): their config.json rebuilt from the configs
// derived from them; attention_type, block_size and num_random_blocks change no weight.
std::string bigbird(const std::string& cls, bool large, const std::string& extra = "") {
  return shaped_config(
      "big_bird", cls,
      std::string(large ? R"("hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
                                       "intermediate_size":4096,)"
                        : R"("hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,
                                       "intermediate_size":3072,)") +
          R"("vocab_size":50358,"max_position_embeddings":4096,"type_vocab_size":2,
                       "attention_type":"block_sparse","block_size":64,"num_random_blocks":3)" +
          extra);
}

// Large's model.safetensors "1.44 GB" (with the base's file's int64 position ids, 1 x 4096); fine-tunes of
// the base: l-yohai/bigbird-roberta-base-mnli (three labels) "512 MB", daze-unlv/google-bigbird-roberta-base
// (multiple choice) "510 MB". The base's pre-training, QA and large QA counts are transformers'.
TEST(BigBird, RobertaCheckpointsCount) {
  EXPECT_EQ(parameters_of(bigbird("BigBirdForPreTraining", false)), 128'112'824u);
  EXPECT_EQ(parameters_of(bigbird("BigBirdForPreTraining", true)), 360'228'024u);
  EXPECT_EQ(rounded(float32_bytes(bigbird("BigBirdForPreTraining", true), 4096), 10'000'000), 144u);
  const std::string mnli = bigbird("BigBirdForSequenceClassification", false, R"(,"num_labels":3)");
  EXPECT_EQ(parameters_of(mnli), 128'061'699u);
  EXPECT_EQ(rounded(float32_bytes(mnli), 1'000'000), 512u);
  const std::string choice = bigbird("BigBirdForMultipleChoice", false);
  EXPECT_EQ(parameters_of(choice), 127'469'569u);
  EXPECT_EQ(rounded(float32_bytes(choice), 1'000'000), 510u);
  EXPECT_EQ(parameters_of(bigbird("BigBirdForQuestionAnswering", false)), 131'603'714u);
  EXPECT_EQ(parameters_of(bigbird("BigBirdForQuestionAnswering", true)), 366'472'194u);
}

// The pooler is a bare Linear every class but the QA one builds (BERT's masked-LM class drops it); the QA
// head forces two labels behind a feed-forward block. use_bias false drops query, key and value biases:
// 3 x 768 per layer, by hand.
TEST(BigBird, PoolerAndQuestionAnsweringHead) {
  const ModelTemplate mlm = template_of(bigbird("BigBirdForMaskedLM", false));
  EXPECT_EQ(find_tensor(mlm, "bert.pooler.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(mlm, "bert.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(mlm, "cls.predictions.decoder.bias")->tied_to, "cls.predictions.bias");
  const ModelTemplate qa = template_of(bigbird("BigBirdForQuestionAnswering", false, R"(,"num_labels":5)"));
  EXPECT_EQ(find_tensor(qa, "bert.pooler.weight"), nullptr);
  EXPECT_EQ(find_tensor(qa, "qa_classifier.intermediate.dense.weight")->shape, Shape({3072, 768}));
  EXPECT_EQ(find_tensor(qa, "qa_classifier.qa_outputs.weight")->shape, Shape({2, 768}));
  const ModelTemplate pre = template_of(bigbird("BigBirdForPreTraining", false));
  EXPECT_EQ(find_tensor(pre, "cls.seq_relationship.weight")->shape, Shape({2, 768}));
  EXPECT_EQ(parameters_of(bigbird("BigBirdModel", false)) -
                parameters_of(bigbird("BigBirdModel", false, R"(,"use_bias":false)")),
            12u * 3 * 768);
  EXPECT_EQ(find_tensor(template_of(bigbird("BigBirdModel", false, R"(,"use_bias":false)")),
                        "encoder.layer.0.attention.self.key.bias"),
            nullptr);
}

// ---- Longformer ----

// allenai/longformer-base-4096 and -large-4096 (no class: LongformerModel): their config.json rebuilt from
// configs derived from them; LongformerConfig's own defaults are BERT-base's, not these.
std::string longformer(const std::string& cls, bool large, const std::string& extra = "") {
  return shaped_config(
      "longformer", cls,
      std::string(large ? R"("hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
                                       "intermediate_size":4096,)"
                        : R"("hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,
                                       "intermediate_size":3072,)") +
          R"("vocab_size":50265,"max_position_embeddings":4098,"type_vocab_size":1,
                       "attention_window":512,"pad_token_id":1)" +
          extra);
}

// allenai's pytorch_model.bin files, "597 MB" and "1.74 GB", are the masked-LM class plus RoBERTa's pooler,
// which they still store (the class alone would be 594.8 MB). The base model's count is transformers'.
TEST(Longformer, AllenaiFilesCount) {
  EXPECT_EQ(parameters_of(longformer("LongformerModel", false)), 148'659'456u);
  const std::string base = longformer("LongformerForMaskedLM", false);
  EXPECT_EQ(parameters_of(base), 148'711'257u);
  EXPECT_EQ(rounded(4 * (parameters_of(base) + 768 * 768 + 768), 1'000'000), 597u);
  const std::string large = longformer("LongformerForMaskedLM", true);
  EXPECT_EQ(parameters_of(large), 434'653'273u);
  EXPECT_EQ(rounded(4 * (parameters_of(large) + 1024 * 1024 + 1024), 10'000'000), 174u);
  EXPECT_EQ(parameters_of(longformer("LongformerForQuestionAnswering", false)), 148'070'402u);
  EXPECT_EQ(parameters_of(longformer("LongformerForMultipleChoice", false)), 148'660'225u);
  // That pooler is labelled, not unexplained.
  const ModelTemplate t = template_of(base);
  EXPECT_TRUE(std::any_of(t.known_extras.begin(), t.known_extras.end(),
                          [](const auto& e) { return e.prefix == "longformer.pooler."; }));
}

// Global query, key and value follow the windowed ones inside attention.self (22 tensors a layer), and the
// position table comes last among RoBERTa's embeddings. The windows slide in the record.
TEST(Longformer, GlobalProjectionsAndWindows) {
  const ModelTemplate t = template_of(longformer("LongformerModel", false));
  const std::string self = "encoder.layer.3.attention.self.";
  EXPECT_EQ(tensor_index(t, self + "value.bias") + 1, tensor_index(t, self + "query_global.weight"));
  EXPECT_EQ(tensor_index(t, self + "value_global.bias") + 1,
            tensor_index(t, "encoder.layer.3.attention.output.dense.weight"));
  EXPECT_EQ(tensor_index(t, "embeddings.LayerNorm.bias") + 1,
            tensor_index(t, "embeddings.position_embeddings.weight"));
  EXPECT_EQ(find_tensor(t, self + "key_global.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(t.tensors.size(), 5u + 22 * 12 + 2);
  EXPECT_EQ(t.arch.layers().at(0).attention.span, Span::Sliding);
  EXPECT_EQ(t.arch.layers().at(0).attention.window, 512u);
  const ModelTemplate listed = template_of(shaped_config(
      "longformer", "LongformerModel", R"("num_hidden_layers":2,"attention_window":[256,128])"));
  EXPECT_EQ(listed.arch.layers().at(1).attention.window, 128u);
}

// ---- I-BERT ----

// kssteven/ibert-roberta-base's and -large's config.json (IBertForMaskedLM).
std::string ibert(const std::string& cls, bool large) {
  return shaped_config(
      "ibert", cls,
      std::string(large ? R"("hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
                                       "intermediate_size":4096,)"
                        : R"("hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,
                                       "intermediate_size":3072,)") +
          R"("vocab_size":50265,"max_position_embeddings":514,"type_vocab_size":1,
                       "hidden_act":"gelu","quant_mode":false,"pad_token_id":1)");
}

// Its integer-only modules keep RoBERTa's parameters: RobertaForMaskedLM's count for roberta-base and -large,
// and the Hub's .bin, "501 MB", is roberta-base's weights renamed, pooler included. The persistent buffers
// beside them (transformers': 763 holding 124,100,128 values, 1,507 holding 354,432,048 for large) are no
// parameters.
TEST(IBert, CountsRobertaWithBuffers) {
  const std::string base = ibert("IBertForMaskedLM", false);
  EXPECT_EQ(parameters_of(base), 124'697'433u);
  EXPECT_EQ(rounded(4 * (parameters_of(base) + 768 * 768 + 768), 1'000'000), 501u);
  EXPECT_EQ(parameters_of(ibert("IBertForMaskedLM", true)), 355'412'057u);
  EXPECT_EQ(parameters_of(ibert("IBertModel", false)), 124'645'632u);
  for (const auto& [large, tensors, values] :
       {std::tuple{false, 763u, 124'100'128u}, std::tuple{true, 1507u, 354'432'048u}}) {
    uint64_t n = 0, elements = 0;
    for (const TemplateTensor& x : template_of(ibert("IBertForMaskedLM", large)).tensors)
      if (x.kind == TensorKind::Buffer) {
        ++n;
        elements += numel(x.shape);
      }
    EXPECT_EQ(n, tensors);
    EXPECT_EQ(elements, values);
  }
  const ModelTemplate t = template_of(base);
  const std::string q = "ibert.encoder.layer.0.attention.self.query.";
  EXPECT_EQ(find_tensor(t, q + "weight_integer")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(t, q + "weight_integer")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "ibert.embeddings.LayerNorm.activation.act_scaling_factor")->shape, Shape({1}));
  EXPECT_EQ(find_tensor(t, "lm_head.decoder.weight")->tied_to, "ibert.embeddings.word_embeddings.weight");
  // QuantEmbedding is no nn.Embedding: transformers' num_parameters(exclude_embeddings=True) keeps its
  // weights.
  EXPECT_EQ(counts_of(base).embedding, 0u);
  // kssteven's configs of February 2021 named a class that does not exist.
  EXPECT_EQ(template_of(replaced(base, "IBertForMaskedLM", "IBertRobertaForMaskedLM")).arch.architecture,
            "IBertForMaskedLM");
}

// kssteven's files hold no buffer (loading initialises them) and RoBERTa's pooler: they read with nothing
// missing, the pooler a labelled extra.
TEST(IBert, KsstevenFilesReadWithoutBuffers) {
  const std::string small = shaped_config("ibert", "IBertForMaskedLM", R"("vocab_size":50,"hidden_size":16,
      "num_hidden_layers":2,"num_attention_heads":2,"intermediate_size":24,"max_position_embeddings":20)");
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << small;
  const ModelTemplate t = template_of(small);
  std::vector<TensorToWrite> file;
  for (const DiskTensor& x : disk_form(t))
    if (t.tensors[x.template_index].kind != TensorKind::Buffer)
      file.push_back({x.name, DType::F32, x.shape, {}});
  file.push_back({"ibert.pooler.dense.weight", DType::F32, {16, 16}, {}});
  file.push_back({"ibert.pooler.dense.bias", DType::F32, {16}, {}});
  write_safetensors(dir.path() / "model.safetensors", file);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(extras_in(inv), 2u);
}

// ---- TAPAS ----

// google/tapas-*-finetuned-wtq (TapasForQuestionAnswering, four aggregation labels): their config.json
// rebuilt from the blames of the tiny, medium and large ones and a config derived from the base one.
std::string tapas(const std::string& cls, uint64_t hidden, uint64_t layers, uint64_t heads,
                  uint64_t positions, uint64_t aggregations) {
  return shaped_config("tapas", cls,
                       R"("vocab_size":30522,"hidden_size":)" + std::to_string(hidden) +
                           R"(,"num_hidden_layers":)" + std::to_string(layers) +
                           R"(,"num_attention_heads":)" + std::to_string(heads) + R"(,"intermediate_size":)" +
                           std::to_string(4 * hidden) + R"(,"max_position_embeddings":)" +
                           std::to_string(positions) + R"(,"type_vocab_sizes":[3,256,256,2,256,256,10],)" +
                           R"("num_aggregation_labels":)" + std::to_string(aggregations));
}

// The base's pytorch_model.bin, "443 MB", and the tiny one's, "18.1 MB" (float32, no int64 tensor: TAPAS
// never had position-id buffers). Large and TapasModel: transformers' counts.
TEST(Tapas, WtqCheckpointsCount) {
  const std::string base = tapas("TapasForQuestionAnswering", 768, 12, 12, 1024, 4);
  EXPECT_EQ(parameters_of(base), 110'676'486u);
  EXPECT_EQ(rounded(float32_bytes(base), 1'000'000), 443u);
  const std::string tiny = tapas("TapasForQuestionAnswering", 128, 2, 2, 512, 4);
  EXPECT_EQ(parameters_of(tiny), 4'519'430u);
  EXPECT_EQ(rounded(float32_bytes(tiny), 100'000), 181u);
  EXPECT_EQ(parameters_of(tapas("TapasForQuestionAnswering", 1024, 24, 16, 1024, 4)), 336'734'214u);
  EXPECT_EQ(parameters_of(tapas("TapasModel", 768, 12, 12, 1024, 0)), 110'671'872u);
  EXPECT_EQ(parameters_of(tapas("TapasForMaskedLM", 768, 12, 12, 1024, 0)), 110'703'930u);
}

// The cell-selection parameters sit on the head module itself, so state_dict lists them before tapas.*;
// the biases are scalars. One token-type table per entry of type_vocab_sizes.
TEST(Tapas, CellSelectionHeadComesFirst) {
  const ModelTemplate t = template_of(tapas("TapasForQuestionAnswering", 768, 12, 12, 1024, 4));
  EXPECT_EQ(t.tensors.at(0).name, "output_weights");
  EXPECT_EQ(t.tensors.at(3).name, "column_output_bias");
  EXPECT_EQ(find_tensor(t, "output_bias")->shape, Shape{});
  EXPECT_EQ(find_tensor(t, "tapas.embeddings.token_type_embeddings_6.weight")->shape, Shape({10, 768}));
  EXPECT_EQ(find_tensor(t, "tapas.embeddings.token_type_embeddings_7.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "tapas.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "aggregation_classifier.weight")->shape, Shape({4, 768}));
  EXPECT_EQ(find_tensor(template_of(tapas("TapasForQuestionAnswering", 768, 12, 12, 1024, 0)),
                        "aggregation_classifier.weight"),
            nullptr);
  const ModelTemplate mlm = template_of(tapas("TapasForMaskedLM", 768, 12, 12, 1024, 0));
  EXPECT_EQ(find_tensor(mlm, "cls.predictions.decoder.weight")->tied_to,
            "tapas.embeddings.word_embeddings.weight");
}

// ---- RoCBert ----

// weiweishi/roc-bert-base-zh's config.json (RoCBertForPreTraining).
const std::string kRocBert = R"({"model_type":"roc_bert","architectures":["RoCBertForPreTraining"],
    "vocab_size":21128,"hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,
    "intermediate_size":3072,"max_position_embeddings":512,"type_vocab_size":2,"concat_input":true,
    "enable_pronunciation":true,"enable_shape":true,"pronunciation_embed_dim":768,
    "pronunciation_vocab_size":910,"shape_embed_dim":512,"shape_vocab_size":24858})";

// Its pytorch_model.bin and model.safetensors, "472 MB" (with the int64 position ids of transformers 4.24);
// the repository's first upload, an RoCBertModel, "469 MB"; daze-unlv/weiweishi-roc-bert-base-zh (multiple
// choice) "469 MB". The pre-training class keeps the pooler and has no next-sentence head.
TEST(RocBert, BaseZhCounts) {
  EXPECT_EQ(parameters_of(kRocBert), 117'880'712u);
  EXPECT_EQ(rounded(float32_bytes(kRocBert, 512), 1'000'000), 472u);
  const std::string model = replaced(kRocBert, "RoCBertForPreTraining", "RoCBertModel");
  EXPECT_EQ(parameters_of(model), 117'267'456u);
  EXPECT_EQ(rounded(float32_bytes(model, 512), 1'000'000), 469u);
  const std::string choice = replaced(kRocBert, "RoCBertForPreTraining", "RoCBertForMultipleChoice");
  EXPECT_EQ(parameters_of(choice), 117'268'225u);
  EXPECT_EQ(rounded(float32_bytes(choice), 1'000'000), 469u);
  const ModelTemplate t = template_of(kRocBert);
  EXPECT_NE(find_tensor(t, "roc_bert.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "cls.seq_relationship.weight"), nullptr);
  // word 768 + pronunciation 768 + shape 512 concatenated, projected back to 768.
  EXPECT_EQ(find_tensor(t, "roc_bert.embeddings.map_inputs_layer.weight")->shape, Shape({768, 2048}));
  EXPECT_EQ(find_tensor(t, "roc_bert.embeddings.shape_embed.weight")->shape, Shape({24858, 512}));
  // Without concat_input the embeddings are averaged: no projection (transformers' count).
  EXPECT_EQ(parameters_of(replaced(model, R"("concat_input":true)", R"("concat_input":false)")),
            115'693'824u);
}

// ---- All eight ----

// Small checkpoints in the Hub's layout read with nothing missing and nothing unexplained, with the int64
// position ids that files saved before transformers 4.31 hold (a buffer, not an extra), and Longformer's
// allenai layout with RoBERTa's pooler (labelled).
TEST(BertShaped, SmallCheckpointsInHubLayoutReadCleanly) {
  const std::string dims = R"("vocab_size":50,"hidden_size":16,"num_hidden_layers":2,"num_attention_heads":2,
      "intermediate_size":24,"max_position_embeddings":20)";
  const auto ids = [](const std::string& prefix) {
    return std::vector<TensorToWrite>{{prefix + "embeddings.position_ids", DType::I64, {1, 20}, {}}};
  };
  expect_reads_cleanly(shaped_config("bert-generation", "BertGenerationEncoder", dims), ids(""));
  expect_reads_cleanly(shaped_config("bert-generation", "BertGenerationDecoder", dims), ids("bert."));
  expect_reads_cleanly(shaped_config("rembert", "RemBertModel", dims + R"(,"input_embedding_size":8)"),
                       ids(""));
  expect_reads_cleanly(
      shaped_config("rembert", "RemBertForMaskedLM", dims + R"(,"output_embedding_size":24)"),
      ids("rembert."));
  expect_reads_cleanly(
      shaped_config("layoutlm", "LayoutLMForMaskedLM", dims + R"(,"max_2d_position_embeddings":30)"),
      ids("layoutlm."));
  expect_reads_cleanly(shaped_config("big_bird", "BigBirdForPreTraining", dims), ids("bert."));
  expect_reads_cleanly(
      shaped_config("big_bird", "BigBirdForQuestionAnswering", dims + R"(,"use_bias":false)"));
  expect_reads_cleanly(shaped_config("longformer", "LongformerForSequenceClassification", dims),
                       ids("longformer."));
  expect_reads_cleanly(shaped_config("ibert", "IBertForSequenceClassification", dims));
  expect_reads_cleanly(
      shaped_config("tapas", "TapasForQuestionAnswering", dims + R"(,"num_aggregation_labels":4)"));
  expect_reads_cleanly(shaped_config("tapas", "TapasForMaskedLM", dims + R"(,"type_vocab_sizes":[3,7])"));
  expect_reads_cleanly(shaped_config("roc_bert", "RoCBertForPreTraining", dims + R"(,"shape_embed_dim":8)"),
                       ids("roc_bert."));
  expect_reads_cleanly(shaped_config("roc_bert", "RoCBertForCausalLM",
                                     dims + R"(,"is_decoder":true,"add_cross_attention":true)"));
  const Inventory allenai = stored_checkpoint(shaped_config("longformer", "LongformerForMaskedLM", dims),
                                              {{"longformer.pooler.dense.weight", DType::F16, {16, 16}, {}},
                                               {"longformer.pooler.dense.bias", DType::F16, {16}, {}}},
                                              DType::F16)
                                .inventory;
  EXPECT_TRUE(allenai.warnings.empty()) << allenai.warnings.front();
  EXPECT_EQ(extras_in(allenai), 2u);
}

// Hostile or impossible values fail naming the field; unknown classes are unsupported.
TEST(BertShaped, HostileValuesFailNamingTheField) {
  const auto field = [](const std::string& type, const std::string& fields) {
    return refusal_of(R"({"model_type":")" + type + R"(",)" + fields + "}").field;
  };
  EXPECT_EQ(field("rembert", R"("num_attention_heads":7)"), "num_attention_heads");  // 1,152 / 7
  EXPECT_EQ(field("rembert", R"("input_embedding_size":0)"), "input_embedding_size");
  EXPECT_EQ(field("bert-generation", R"("hidden_size":100000000)"), "hidden_size");
  EXPECT_EQ(field("layoutlm", R"("max_2d_position_embeddings":0)"), "max_2d_position_embeddings");
  EXPECT_EQ(field("big_bird", R"("attention_type":"dense")"), "attention_type");
  EXPECT_EQ(field("big_bird", R"("use_bias":"yes")"), "use_bias");
  EXPECT_EQ(field("longformer", R"("attention_window":511)"), "attention_window");
  EXPECT_EQ(field("longformer", R"("num_hidden_layers":2,"attention_window":[512])"), "attention_window");
  EXPECT_EQ(field("longformer", R"("num_hidden_layers":2,"attention_window":[512,-2])"), "attention_window");
  EXPECT_EQ(field("ibert", R"("hidden_act":"relu")"), "hidden_act");
  EXPECT_EQ(field("tapas", R"("type_vocab_sizes":[])"), "type_vocab_sizes");
  EXPECT_EQ(field("tapas", R"("type_vocab_sizes":[3,0])"), "type_vocab_sizes");
  EXPECT_EQ(field("tapas", R"("num_aggregation_labels":-1)"), "num_aggregation_labels");
  EXPECT_EQ(field("roc_bert", R"("shape_vocab_size":0)"), "shape_vocab_size");
  EXPECT_EQ(field("roc_bert", R"("num_hidden_layers":5000)"), "num_hidden_layers");
  EXPECT_EQ(field("tapas", R"("add_cross_attention":true)"), "add_cross_attention");
  const Refusal unknown =
      refusal_of(shaped_config("tapas", "TapasForTokenClassification", R"("vocab_size":50)"));
  EXPECT_EQ(unknown.kind, ErrorKind::Unsupported);
  EXPECT_EQ(unknown.field, "architectures");
  EXPECT_EQ(refusal_of(shaped_config("layoutlm", "LayoutLMForCausalLM", R"("vocab_size":50)")).kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
