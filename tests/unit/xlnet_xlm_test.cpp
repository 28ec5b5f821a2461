// XLNet, XLM and FlauBERT (model/families/encoders_xlnet_xlm.cpp), on the configs their Hub repositories
// publish, against the sizes of their checkpoint files, model cards and papers. Counts of other task classes
// are those transformers' own classes give when instantiated (the reference counter of this work: every
// tensor's name, shape and order compared), an independent figure too.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// Whole megabytes and hundredths of a gigabyte of `bytes`, as the Hub shows file sizes.
uint64_t mb(uint64_t bytes) {
  return (bytes + 500'000) / 1'000'000;
}
uint64_t centi_gb(uint64_t bytes) {
  return (bytes + 5'000'000) / 10'000'000;
}

// ---- XLNet ----

// xlnet/xlnet-base-cased's and xlnet-large-cased's config.json, their shape fields (XLNetLMHeadModel).
std::string xlnet(uint64_t d_model, uint64_t layers, uint64_t heads,
                  const std::string& cls = "XLNetLMHeadModel") {
  return R"({"model_type":"xlnet","architectures":[")" + cls + R"("],"vocab_size":32000,"d_model":)" +
         std::to_string(d_model) + R"(,"n_layer":)" + std::to_string(layers) + R"(,"n_head":)" +
         std::to_string(heads) + R"(,"d_head":64,"d_inner":)" + std::to_string(4 * d_model) +
         R"(,"untie_r":true,"summary_type":"last","summary_use_proj":true,"summary_activation":"tanh",)"
         R"("mem_len":null,"reuse_len":null,"attn_type":"bi"})";
}

// Their pytorch_model.bin (float32, the decoder sharing the word embedding's storage): base 467 MB, large
// 1.44 GB; fine-tuned base sequence classifiers (with the summary projection and logits_proj) 469 MB.
TEST(XLNet, CheckpointsMatchTheirFileSizes) {
  const uint64_t base = parameters_of(xlnet(768, 12, 12));
  EXPECT_EQ(base, 116'750'336u);
  EXPECT_EQ(mb(4 * base), 467u);
  EXPECT_EQ(centi_gb(4 * parameters_of(xlnet(1024, 24, 16))), 144u);
  EXPECT_EQ(parameters_of(xlnet(1024, 24, 16)), 360'300'800u);
  EXPECT_EQ(mb(4 * parameters_of(xlnet(768, 12, 12, "XLNetForSequenceClassification"))), 469u);
  // Transformers' classes: the model 116,718,336 (the LM head adds its 32,000 biases), the SQuAD head
  // 4 x 768^2 + 7 x 768 + 2 more.
  EXPECT_EQ(parameters_of(xlnet(768, 12, 12, "XLNetModel")), 116'718'336u);
  EXPECT_EQ(parameters_of(xlnet(768, 12, 12, "XLNetForQuestionAnswering")), 116'718'336u + 2'364'674u);
  // A layer by hand: q, k, v, o, r 5 x 768 x 12 x 64, three biases and the segment embedding 5 x 768, two
  // LayerNorms 3,072, the FFN 2 x 768 x 3,072 + 3,072 + 768 = 7,678,464.
  EXPECT_EQ(counts_of(xlnet(768, 12, 12)).by_layer.at(0), 7'678'464u);
}

TEST(XLNet, RelativeAttentionIsRawTensors) {
  const ModelTemplate t = template_of(xlnet(768, 12, 12));
  EXPECT_EQ(t.tensors[0].name, "transformer.mask_emb");  // XLNetModel's own Parameter, registered first
  EXPECT_EQ(t.tensors[0].shape, Shape({1, 1, 768}));
  EXPECT_EQ(find_tensor(t, "transformer.word_embedding.weight")->shape, Shape({32000, 768}));
  const std::string r = "transformer.layer.11.rel_attn.";
  for (const char* w : {"q", "k", "v", "o", "r"})
    EXPECT_EQ(find_tensor(t, r + w)->shape, Shape({768, 12, 64}));
  EXPECT_EQ(find_tensor(t, r + "r_w_bias")->shape, Shape({12, 64}));
  EXPECT_EQ(find_tensor(t, r + "seg_embed")->shape, Shape({2, 12, 64}));
  EXPECT_EQ(find_tensor(t, r + "q.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_loss.weight")->tied_to, "transformer.word_embedding.weight");
  EXPECT_EQ(find_tensor(t, "lm_loss.bias")->shape, Shape({32000}));
  EXPECT_EQ(t.arch.position, PositionKind::Relative);
  // 2019 configs name the vocabulary n_token; hidden_size is d_model's alias.
  EXPECT_EQ(parameters_of(replaced(replaced(xlnet(768, 12, 12), R"("vocab_size")", R"("n_token")"),
                                   R"("d_model")", R"("hidden_size")")),
            116'750'336u);
}

TEST(XLNet, SmallCheckpointReadsCleanly) {
  expect_reads_cleanly(R"({"model_type":"xlnet","architectures":["XLNetLMHeadModel"],"vocab_size":50,
      "d_model":16,"n_layer":2,"n_head":2,"d_inner":24})");
  expect_reads_cleanly(R"({"model_type":"xlnet","architectures":["XLNetForQuestionAnswering"],"vocab_size":50,
      "d_model":16,"n_layer":2,"n_head":2,"d_inner":24})");
}

TEST(XLNet, RefusesWhatTheConfigClassRefuses) {
  const std::string base = xlnet(768, 12, 12);
  EXPECT_EQ(refusal_of(replaced(base, R"("d_head":64)", R"("d_head":32)")).field, "d_head");
  EXPECT_EQ(refusal_of(replaced(base, R"("n_head":12)", R"("n_head":7)")).field, "n_head");
  EXPECT_EQ(
      refusal_of(replaced(xlnet(768, 12, 12, "XLNetForSequenceClassification"), R"("last")", R"("attn")"))
          .field,
      "summary_type");
}

// ---- XLM ----

// FacebookAI/xlm-mlm-en-2048's config.json; xlm-mlm-100-1280's and xlm-clm-enfr-1024's shape fields.
std::string xlm(uint64_t vocab, uint64_t emb_dim, uint64_t layers, uint64_t heads, uint64_t langs,
                bool lang_emb, const std::string& cls = "XLMWithLMHeadModel") {
  return R"({"model_type":"xlm","architectures":[")" + cls + R"("],"vocab_size":)" + std::to_string(vocab) +
         R"(,"emb_dim":)" + std::to_string(emb_dim) + R"(,"n_layers":)" + std::to_string(layers) +
         R"(,"n_heads":)" + std::to_string(heads) + R"(,"n_langs":)" + std::to_string(langs) +
         R"(,"use_lang_emb":)" + (lang_emb ? "true" : "false") +
         R"(,"max_position_embeddings":512,"asm":false,"causal":false,"sinusoidal_embeddings":false,)"
         R"("summary_type":"first","summary_use_proj":true,"summary_proj_to_labels":true,"is_encoder":true})";
}
const std::string kXlmEn2048 = xlm(30145, 2048, 12, 16, 1, true);
const std::string kXlm100 = xlm(200000, 1280, 16, 16, 100, false);
const std::string kXlmEnFr = xlm(64139, 1024, 6, 8, 2, true);

// xlm-mlm-en-2048's pytorch_model.bin is 2.67 GB of float32; xlm-mlm-100-1280's card says 570M parameters and
// its bin holds them in 1.14 GB of float16 (100 languages, but use_lang_emb false: no language table);
// xlm-clm-enfr-1024's 830 MB of float32 hold its 141,848,203 parameters and a second copy of the
// 64,139 x 1,024 decoder.
TEST(XLM, CheckpointsMatchTheirFileSizes) {
  EXPECT_EQ(parameters_of(kXlmEn2048), 667'119'041u);
  EXPECT_EQ(centi_gb(4 * 667'119'041u), 267u);
  EXPECT_EQ(parameters_of(kXlm100), 571'696'960u);
  EXPECT_EQ(centi_gb(2 * 571'696'960u), 114u);
  EXPECT_EQ((571'696'960u + 5'000'000) / 10'000'000, 57u);  // "570M"
  EXPECT_EQ(parameters_of(kXlmEnFr), 141'848'203u);
  EXPECT_EQ(mb(4 * (141'848'203u + 64'139u * 1024)), 830u);
  EXPECT_EQ(find_tensor(template_of(kXlmEnFr), "transformer.lang_embeddings.weight")->shape,
            Shape({2, 1024}));
  EXPECT_EQ(find_tensor(template_of(kXlm100), "transformer.lang_embeddings.weight"), nullptr);
  // The 2019 configs name the vocabulary n_words.
  EXPECT_EQ(parameters_of(replaced(kXlmEnFr, R"("vocab_size")", R"("n_words")")), 141'848'203u);
}

// Four parallel lists, so the state_dict runs through all attentions before any norm; the feed-forward width
// is 4 x emb_dim. The sequence classifier is the summary's projection to num_labels; multiple choice adds
// logits_proj from those num_labels to one score (transformers' classes: 667,092,994 and 667,092,997).
TEST(XLM, ParallelListsAndTheSummaryHeads) {
  const ModelTemplate t = template_of(kXlmEn2048);
  EXPECT_EQ(t.tensors[0].name, "transformer.position_embeddings.weight");
  EXPECT_EQ(t.tensors[4].name, "transformer.attentions.0.q_lin.weight");
  EXPECT_EQ(t.tensors[4 + 12 * 8].name, "transformer.layer_norm1.0.weight");
  EXPECT_EQ(find_tensor(t, "transformer.ffns.11.lin1.weight")->shape, Shape({8192, 2048}));
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.weight")->tied_to, "transformer.embeddings.weight");
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.bias")->shape, Shape({30145}));
  EXPECT_EQ(parameters_of(xlm(30145, 2048, 12, 16, 1, true, "XLMForSequenceClassification")),
            667'088'896u + 2 * 2048 + 2);
  const ModelTemplate choice = template_of(xlm(30145, 2048, 12, 16, 1, true, "XLMForMultipleChoice"));
  EXPECT_EQ(find_tensor(choice, "sequence_summary.summary.weight")->shape, Shape({2, 2048}));
  EXPECT_EQ(find_tensor(choice, "logits_proj.weight")->shape, Shape({1, 2}));
}

// xlm-clm-enfr-1024's file stores the decoder apart from the word embedding (a tied copy, read as such);
// files saved by transformers 4.x (2020-07 to 2023-06) hold transformer.position_ids, a buffer.
TEST(XLM, StoredCopiesAndOldBuffersReadCleanly) {
  const std::string small = R"({"model_type":"xlm","architectures":["XLMWithLMHeadModel"],"vocab_size":50,
      "emb_dim":16,"n_layers":2,"n_heads":2,"n_langs":2,"max_position_embeddings":20})";
  expect_reads_cleanly(small, {{"transformer.position_ids", DType::I64, {1, 20}, {}}});
  const Inventory inv =
      stored_checkpoint(small, {{"pred_layer.proj.weight", DType::F16, {50, 16}, {}}}).inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(extras_in(inv), 1u);
  expect_reads_cleanly(replaced(small, "XLMWithLMHeadModel", "XLMForQuestionAnswering"));
}

// asm: torch's AdaptiveLogSoftmaxWithLoss(32, 50, cutoffs [10, 30], div_value 4, head_bias) by hand: a head
// over the 10-token shortlist and the 2 clusters (12 x 32 + 12), cluster i down to 32 // 4^(i+1) (8, 2) and
// up to its 20 tokens, no biases; the tied word embedding set on it as `weight`, listed first.
TEST(XLM, AdaptiveSoftmaxHead) {
  const std::string config = R"({"model_type":"xlm","architectures":["XLMWithLMHeadModel"],"vocab_size":50,
      "emb_dim":32,"n_layers":1,"n_heads":2,"max_position_embeddings":20,"asm":true,"asm_cutoffs":[10,30],
      "asm_div_value":4.0})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.weight")->tied_to, "transformer.embeddings.weight");
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.head.weight")->shape, Shape({12, 32}));
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.tail.0.0.weight")->shape, Shape({8, 32}));
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.tail.0.1.weight")->shape, Shape({20, 8}));
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.tail.1.1.weight")->shape, Shape({20, 2}));
  EXPECT_EQ(find_tensor(t, "pred_layer.proj.bias"), nullptr);
  const std::string model = replaced(config, "XLMWithLMHeadModel", "XLMModel");
  EXPECT_EQ(parameters_of(config), parameters_of(model) + 396u + 416u + 104u);
  EXPECT_EQ(refusal_of(replaced(config, R"("asm_cutoffs":[10,30],)", "")).field, "asm_cutoffs");
  EXPECT_EQ(refusal_of(replaced(config, "[10,30]", "[30,10]")).field, "asm_cutoffs");
  EXPECT_EQ(refusal_of(replaced(config, "4.0", "0")).field, "asm_div_value");
}

TEST(XLM, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kXlmEn2048, R"("is_encoder":true)", R"("is_encoder":false)")).field,
            "is_encoder");
  EXPECT_EQ(refusal_of(replaced(kXlmEn2048, R"("n_heads":16)", R"("n_heads":15)")).field, "n_heads");
  EXPECT_EQ(refusal_of(replaced(kXlmEn2048, "XLMWithLMHeadModel", "XLMForCausalLM")).kind,
            ErrorKind::Unsupported);
}

// ---- FlauBERT ----

// flaubert/flaubert_*'s config.json, their shape fields (FlaubertWithLMHeadModel).
std::string flaubert(uint64_t vocab, uint64_t emb_dim, uint64_t layers, uint64_t heads, bool pre_norm) {
  return R"({"model_type":"flaubert","architectures":["FlaubertWithLMHeadModel"],"vocab_size":)" +
         std::to_string(vocab) + R"(,"emb_dim":)" + std::to_string(emb_dim) + R"(,"n_layers":)" +
         std::to_string(layers) + R"(,"n_heads":)" + std::to_string(heads) + R"(,"pre_norm":)" +
         (pre_norm ? "true" : "false") + R"(,"layerdrop":)" + (pre_norm ? "0.2" : "0.0") +
         R"(,"n_langs":1,"use_lang_emb":true,"max_position_embeddings":512,"asm":false})";
}

// Le et al. 2020: FlauBERT small 54M, base 138M, large 373M parameters; their pytorch_model.bin (float32):
// small 218 MB, base-uncased 550 MB, base-cased 553 MB, large 1.49 GB.
TEST(FlauBERT, CheckpointsMatchThePaperAndFiles) {
  const uint64_t small = parameters_of(flaubert(68729, 512, 6, 8, true));
  const uint64_t base_uncased = parameters_of(flaubert(67542, 768, 12, 12, false));
  const uint64_t base = parameters_of(flaubert(68729, 768, 12, 12, false));
  const uint64_t large = parameters_of(flaubert(68729, 1024, 24, 16, true));
  EXPECT_EQ(small, 54'435'449u);
  EXPECT_EQ(base_uncased, 137'389'014u);
  EXPECT_EQ(base, 138'301'817u);
  EXPECT_EQ(large, 373'282'937u);
  EXPECT_EQ((small + 500'000) / 1'000'000, 54u);
  EXPECT_EQ((base + 500'000) / 1'000'000, 138u);
  EXPECT_EQ((large + 500'000) / 1'000'000, 373u);
  EXPECT_EQ(mb(4 * small), 218u);
  EXPECT_EQ(mb(4 * base_uncased), 550u);
  EXPECT_EQ(mb(4 * base), 553u);
  EXPECT_EQ(centi_gb(4 * large), 149u);
}

// XLM's layout under FlauBERT's classes; pre_norm moves the same norms before the blocks.
TEST(FlauBERT, IsXlmUnderItsOwnClasses) {
  const ModelTemplate f = template_of(flaubert(68729, 512, 6, 8, true));
  const ModelTemplate x = template_of(xlm(68729, 512, 6, 8, 1, true));
  ASSERT_EQ(f.tensors.size(), x.tensors.size());
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    EXPECT_EQ(f.tensors[i].name, x.tensors[i].name);
    EXPECT_EQ(f.tensors[i].shape, x.tensors[i].shape);
  }
  EXPECT_FALSE(f.arch.post_norm);
  EXPECT_TRUE(template_of(flaubert(68729, 768, 12, 12, false)).arch.post_norm);
  // flaubert_small_cased's 2020 config names no model_type, only its class, and says n_words.
  EXPECT_EQ(parameters_of(R"({"architectures":["FlaubertWithLMHeadModel"],"n_words":68729,"emb_dim":512,
      "n_layers":6,"n_heads":8,"n_langs":1,"max_position_embeddings":512,"pre_norm":true})"),
            54'435'449u);
  expect_reads_cleanly(R"({"model_type":"flaubert","architectures":["FlaubertForQuestionAnsweringSimple"],
      "vocab_size":50,"emb_dim":16,"n_layers":2,"n_heads":2,"max_position_embeddings":20})");
  EXPECT_EQ(
      refusal_of(replaced(flaubert(68729, 512, 6, 8, true), R"("pre_norm":true)", R"("pre_norm":1)")).field,
      "pre_norm");
}

// Where the tensors of these layouts sit (model/tensor_placement.cpp): XLM's parallel lists give each
// tensor its layer; XLNet's rel_attn and ff are attention and MLP, its mask_emb an embedding; the task heads
// and an adaptive softmax's clusters are head, not layers.
TEST(XlnetXlm, TensorsPlaceInTheirBlocks) {
  const auto placed = [](const std::string& name) {
    const TensorPlacement p = place_tensor(name);
    return std::string(block_name(p.block)) + " " + p.role + " " +
           (p.layer ? std::to_string(*p.layer) : std::string("-"));
  };
  EXPECT_EQ(placed("transformer.attentions.5.q_lin.weight"), "attention q 5");
  EXPECT_EQ(placed("transformer.attentions.5.out_lin.bias"), "attention o 5");
  EXPECT_EQ(placed("transformer.layer_norm1.5.weight"), "norm norm 5");
  EXPECT_EQ(placed("transformer.ffns.5.lin2.weight"), "mlp down 5");
  EXPECT_EQ(placed("transformer.layer.3.rel_attn.r_w_bias"), "attention r_w_bias 3");
  EXPECT_EQ(placed("transformer.layer.3.rel_attn.q"), "attention q 3");
  EXPECT_EQ(placed("transformer.layer.3.ff.layer_1.weight"), "mlp up 3");
  EXPECT_EQ(placed("transformer.layer.3.ff.layer_norm.weight"), "norm norm 3");
  EXPECT_EQ(placed("transformer.mask_emb"), "embedding mask_emb -");
  EXPECT_EQ(placed("lm_loss.bias"), "lm-head lm-head -");
  EXPECT_EQ(placed("sequence_summary.summary.weight"), "lm-head lm-head -");
  EXPECT_EQ(placed("end_logits.LayerNorm.weight"), "lm-head lm-head -");
  EXPECT_EQ(placed("pred_layer.proj.tail.0.1.weight"), "lm-head lm-head -");
  EXPECT_EQ(placed("transformer.position_ids"), "buffer position-ids -");
}

}  // namespace
}  // namespace ma::test
