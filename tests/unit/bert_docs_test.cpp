// LayoutLMv3, DPR, Splinter, CANINE, LiLT, MarkupLM, ImageGPT and the Decision Transformer
// (model/families/bert_docs.h). Expected
// counts are those of transformers' own classes, rebuilt module for module in torch from
// modeling_layoutlmv3.py (transformers 008f5c8), modeling_dpr.py + modeling_bert.py (0337a89),
// modeling_splinter.py (014873b), modeling_canine.py (004edfe), modeling_lilt.py (01ae98a),
// modeling_markuplm.py (014873b) and modeling_imagegpt.py (00607d4): sum(p.numel() for p in
// model.parameters()), state_dict names, shapes and order all equal to the templates' (the reconstruction and
// its output are kept with the integration notes). Published sizes (model cards, the Hub's parameter counts)
// are checked where they exist.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/model_template.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

std::string docs_config(const std::string& type, const std::string& cls, const std::string& fields) {
  return R"({"model_type":")" + type + R"(","architectures":[")" + cls + R"("])" +
         (fields.empty() ? "" : "," + fields) + "}";
}

// ---- LayoutLMv3 ----

// microsoft/layoutlmv3-base's config.json (the sizes are LayoutLMv3Config's defaults but for these two).
const std::string kLayoutLmv3Base = R"("max_position_embeddings":514,"type_vocab_size":1)";

// transformers: 125,326,976. The Hub's 125.9M for the checkpoint is that plus a 768 x 768 Linear with bias
// (590,592): the original model's pooler, which transformers does not build and the template lists as a
// known extra. LayoutLMv3Model's own parameters (cls_token, pos_embed) come first in state_dict.
TEST(LayoutLmv3, BaseCountsAsTransformers) {
  const std::string base = docs_config("layoutlmv3", "LayoutLMv3Model", kLayoutLmv3Base);
  EXPECT_EQ(parameters_of(base), 125'326'976u);
  EXPECT_EQ(parameters_of(base) + 768u * 768u + 768u, 125'917'568u);  // the published 125.9M
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(t.tensors.size(), 212u);
  EXPECT_EQ(t.tensors[0].name, "cls_token");
  EXPECT_EQ(t.tensors[1].name, "pos_embed");
  EXPECT_EQ(t.tensors[1].shape, Shape({1, 197, 768}));  // (224 / 16)^2 patches and [CLS]
  EXPECT_EQ(find_tensor(t, "embeddings.x_position_embeddings.weight")->shape, Shape({1024, 128}));
  EXPECT_EQ(find_tensor(t, "embeddings.token_type_embeddings.weight")->shape, Shape({1, 768}));
  // RoBERTa's order: the position table after the LayerNorm.
  EXPECT_EQ(tensor_index(t, "embeddings.LayerNorm.bias") + 1,
            tensor_index(t, "embeddings.position_embeddings.weight"));
  EXPECT_EQ(find_tensor(t, "patch_embed.proj.weight")->shape, Shape({768, 3, 16, 16}));
  EXPECT_EQ(find_tensor(t, "encoder.rel_pos_bias.weight")->shape, Shape({12, 32}));
  EXPECT_EQ(find_tensor(t, "encoder.rel_pos_y_bias.weight")->shape, Shape({12, 64}));
  EXPECT_EQ(t.tensors.back().name, "encoder.rel_pos_y_bias.weight");
  EXPECT_EQ(find_tensor(t, "encoder.rel_pos_bias.bias"), nullptr);
  ASSERT_FALSE(t.known_extras.empty());
  EXPECT_EQ(t.known_extras[0].prefix, "pooler.");
  EXPECT_TRUE(t.arch.post_norm);
  expect_every_tensor_placed(t);
}

// The token classifier is one Linear under ten labels (FUNSD's 7: transformers 125,332,359) and RoBERTa's
// two-layer head from ten on (13 labels on LayoutLMv3-large's sizes: 356,894,221).
TEST(LayoutLmv3, TokenClassifierGrowsAHeadFromTenLabels) {
  const ModelTemplate seven = template_of(
      docs_config("layoutlmv3", "LayoutLMv3ForTokenClassification", kLayoutLmv3Base + R"(,"num_labels":7)"));
  EXPECT_EQ(find_tensor(seven, "classifier.weight")->shape, Shape({7, 768}));
  EXPECT_EQ(find_tensor(seven, "layoutlmv3.cls_token")->shape, Shape({1, 1, 768}));
  EXPECT_EQ(parameters_of(docs_config("layoutlmv3", "LayoutLMv3ForTokenClassification",
                                      kLayoutLmv3Base + R"(,"num_labels":7)")),
            125'332'359u);
  const std::string large =
      docs_config("layoutlmv3", "LayoutLMv3ForTokenClassification",
                  kLayoutLmv3Base + R"(,"hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
      "intermediate_size":4096,"id2label":{"0":"a","1":"b","2":"c","3":"d","4":"e","5":"f","6":"g","7":"h",
      "8":"i","9":"j","10":"k","11":"l","12":"m"})");
  EXPECT_EQ(parameters_of(large), 356'894'221u);
  const ModelTemplate t = template_of(large);
  EXPECT_EQ(find_tensor(t, "classifier.dense.weight")->shape, Shape({1024, 1024}));
  EXPECT_EQ(find_tensor(t, "classifier.out_proj.weight")->shape, Shape({13, 1024}));
  expect_every_tensor_placed(t);
}

// Without visual_embed no patch path is built (nor cls_token and pos_embed); the QA head is the two-layer
// head with num_labels outputs, not a forced pair (transformers: 125,171,843 for 3 labels, text only, no
// spatial bias).
TEST(LayoutLmv3, TextOnlyQuestionAnswering) {
  const std::string qa =
      docs_config("layoutlmv3", "LayoutLMv3ForQuestionAnswering",
                  R"("visual_embed":false,"has_spatial_attention_bias":false,"num_labels":3)");
  EXPECT_EQ(parameters_of(qa), 125'171'843u);
  const ModelTemplate t = template_of(qa);
  EXPECT_EQ(find_tensor(t, "layoutlmv3.patch_embed.proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "layoutlmv3.pos_embed"), nullptr);
  EXPECT_EQ(find_tensor(t, "layoutlmv3.encoder.rel_pos_x_bias.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "qa_outputs.out_proj.weight")->shape, Shape({3, 768}));
  EXPECT_EQ(t.tensors[0].name, "layoutlmv3.embeddings.word_embeddings.weight");
  expect_every_tensor_placed(t);
}

// input_size and patch_size size the patch grid (256 / 32: 64 patches); 16 labels on the sequence classifier
// (transformers: 127,596,816 with no 1-D relative bias).
TEST(LayoutLmv3, PatchGridFollowsInputAndPatchSize) {
  const std::string seq = docs_config("layoutlmv3", "LayoutLMv3ForSequenceClassification",
                                      R"("num_labels":16,"input_size":256,"patch_size":32,
                                      "has_relative_attention_bias":false)");
  EXPECT_EQ(parameters_of(seq), 127'596'816u);
  const ModelTemplate t = template_of(seq);
  EXPECT_EQ(find_tensor(t, "layoutlmv3.pos_embed")->shape, Shape({1, 65, 768}));
  EXPECT_EQ(find_tensor(t, "layoutlmv3.patch_embed.proj.weight")->shape, Shape({768, 3, 32, 32}));
  EXPECT_EQ(find_tensor(t, "layoutlmv3.encoder.rel_pos_bias.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "classifier.out_proj.weight")->shape, Shape({16, 768}));
}

// ---- DPR ----

// facebook/dpr-question_encoder-single-nq-base: BERT-base with its pooler, 109,482,240 in transformers. The
// published 108.9M (108,891,648) is the checkpoint, which stores no pooler: 590,592 fewer.
TEST(Dpr, QuestionEncoderIsBertBaseWithItsPooler) {
  const std::string q = docs_config("dpr", "DPRQuestionEncoder", R"("projection_dim":0)");
  EXPECT_EQ(parameters_of(q), 109'482'240u);
  EXPECT_EQ(parameters_of(q) - (768u * 768u + 768u), 108'891'648u);
  const ModelTemplate t = template_of(q);
  EXPECT_EQ(t.tensors.size(), 199u);
  EXPECT_EQ(t.tensors[0].name, "question_encoder.bert_model.embeddings.word_embeddings.weight");
  EXPECT_EQ(t.tensors.back().name, "question_encoder.bert_model.pooler.dense.bias");
  expect_every_tensor_placed(t);
}

// projection_dim > 0 adds encode_proj after the BertModel (ctx: 109,580,672 for 128); the reader's span
// logits and relevance score read its output width (2 layers, 256: 38,801,155).
TEST(Dpr, ProjectionAndReader) {
  const ModelTemplate ctx = template_of(docs_config("dpr", "DPRContextEncoder", R"("projection_dim":128)"));
  EXPECT_EQ(find_tensor(ctx, "ctx_encoder.encode_proj.weight")->shape, Shape({128, 768}));
  EXPECT_EQ(parameters_of(docs_config("dpr", "DPRContextEncoder", R"("projection_dim":128)")), 109'580'672u);
  EXPECT_EQ(parameters_of(docs_config("dpr", "DPRReader", "")), 109'484'547u);
  const std::string reader = docs_config("dpr", "DPRReader", R"("projection_dim":256,"num_hidden_layers":2)");
  EXPECT_EQ(parameters_of(reader), 38'801'155u);
  const ModelTemplate t = template_of(reader);
  EXPECT_EQ(find_tensor(t, "span_predictor.qa_outputs.weight")->shape, Shape({2, 256}));
  EXPECT_EQ(find_tensor(t, "span_predictor.qa_classifier.weight")->shape, Shape({1, 256}));
  EXPECT_EQ(tensor_index(t, "span_predictor.encoder.encode_proj.bias") + 1,
            tensor_index(t, "span_predictor.qa_outputs.weight"));
  expect_every_tensor_placed(ctx);
  expect_every_tensor_placed(t);
}

// ---- Splinter ----

// tau/splinter-base (bert-base-cased's 28,996 tokens): no pooler; the QASS head adds four dense + LayerNorm
// transforms and two bias-free classifiers (transformers: 107,719,680 bare, 111,267,840 for QA).
TEST(Splinter, BaseAndItsSpanSelectionHead) {
  EXPECT_EQ(parameters_of(R"({"model_type":"splinter","vocab_size":28996})"), 107'719'680u);
  const std::string qa = docs_config("splinter", "SplinterForQuestionAnswering", R"("vocab_size":28996)");
  EXPECT_EQ(parameters_of(qa), 111'267'840u);
  const ModelTemplate t = template_of(qa);
  EXPECT_EQ(t.tensors.size(), 215u);
  EXPECT_EQ(find_tensor(t, "splinter.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "splinter_qass.query_start_transform.LayerNorm.weight")->shape, Shape({768}));
  EXPECT_EQ(find_tensor(t, "splinter_qass.start_classifier.bias"), nullptr);
  EXPECT_EQ(t.tensors.back().name, "splinter_qass.end_classifier.weight");
  expect_every_tensor_placed(t);
  EXPECT_EQ(parameters_of(docs_config("splinter", "SplinterForPreTraining",
                                      R"("hidden_size":256,"num_attention_heads":4,"intermediate_size":1024,
                                      "num_hidden_layers":4)")),
            11'501'056u);
}

// ---- CANINE ----

// google/canine-s: 132M on its model card; transformers 132,082,944. Eight 16,384 x 96 hash tables, a
// position table of num_hash_buckets rows, one-layer character encoders around the 12-layer molecule stack.
TEST(Canine, CanineSCountsAsPublished) {
  const std::string s = R"({"model_type":"canine","architectures":["CanineModel"]})";
  EXPECT_EQ(parameters_of(s), 132'082'944u);
  const ModelTemplate t = template_of(s);
  EXPECT_EQ(t.tensors.size(), 246u);
  EXPECT_EQ(find_tensor(t, "char_embeddings.HashBucketCodepointEmbedder_7.weight")->shape,
            Shape({16384, 96}));
  EXPECT_EQ(find_tensor(t, "char_embeddings.char_position_embeddings.weight")->shape, Shape({16384, 768}));
  EXPECT_EQ(find_tensor(t, "char_embeddings.token_type_embeddings.weight")->shape, Shape({16, 768}));
  EXPECT_EQ(find_tensor(t, "chars_to_molecules.conv.weight")->shape, Shape({768, 768, 4}));
  EXPECT_EQ(find_tensor(t, "projection.conv.weight")->shape, Shape({768, 1536, 4}));
  EXPECT_NE(find_tensor(t, "initial_char_encoder.layer.0.output.LayerNorm.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "final_char_encoder.layer.1.output.dense.weight"), nullptr);
  EXPECT_EQ(t.tensors.back().name, "pooler.dense.bias");
  EXPECT_EQ(t.arch.stacks.size(), 3u);
  expect_every_tensor_placed(t);
}

// Every head keeps the pooler (transformers: 3,741,957 for a small sequence classifier, 61,204,993 for the
// two-layer multiple-choice class, 5,977,454 for QA at width 100, whose tables are 100 // 8 = 12 wide).
TEST(Canine, HeadsAndSmallConfigs) {
  EXPECT_EQ(parameters_of(docs_config("canine", "CanineForSequenceClassification",
                                      R"("num_labels":5,"hidden_size":256,"num_attention_heads":4,
                                      "intermediate_size":512,"num_hidden_layers":3,"num_hash_functions":4,
                                      "num_hash_buckets":1000,"downsampling_rate":2,"upsampling_kernel_size":3,
                                      "type_vocab_size":4)")),
            3'741'957u);
  EXPECT_EQ(parameters_of(docs_config("canine", "CanineForMultipleChoice", R"("num_hidden_layers":2)")),
            61'204'993u);
  const std::string qa = docs_config("canine", "CanineForQuestionAnswering",
                                     R"("num_hidden_layers":2,"hidden_size":100,"num_attention_heads":4)");
  EXPECT_EQ(parameters_of(qa), 5'977'454u);
  const ModelTemplate t = template_of(qa);
  EXPECT_EQ(find_tensor(t, "canine.char_embeddings.HashBucketCodepointEmbedder_0.weight")->shape,
            Shape({16384, 12}));
  EXPECT_EQ(find_tensor(t, "qa_outputs.weight")->shape, Shape({2, 100}));
  expect_every_tensor_placed(t);
}

// ---- LiLT ----

// SCUT-DLVCLab/lilt-roberta-en-base: RoBERTa-base's text stream and a 192-wide layout stream
// (channel_shrink_ratio 4); transformers: 130,755,008 with the pooler LiltModel builds.
TEST(Lilt, RobertaBaseWithALayoutStream) {
  const std::string base = docs_config(
      "lilt", "LiltModel", R"("vocab_size":50265,"max_position_embeddings":514,"type_vocab_size":1)");
  EXPECT_EQ(parameters_of(base), 130'755'008u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(t.tensors.size(), 400u);
  EXPECT_EQ(find_tensor(t, "layout_embeddings.x_position_embeddings.weight")->shape, Shape({1024, 128}));
  EXPECT_EQ(find_tensor(t, "layout_embeddings.box_position_embeddings.weight")->shape, Shape({514, 192}));
  EXPECT_EQ(find_tensor(t, "layout_embeddings.box_linear_embeddings.weight")->shape, Shape({192, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.attention.self.layout_query.weight")->shape, Shape({192, 192}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.11.layout_intermediate.dense.weight")->shape, Shape({768, 192}));
  EXPECT_EQ(tensor_index(t, "encoder.layer.0.attention.self.value.bias") + 1,
            tensor_index(t, "encoder.layer.0.attention.self.layout_query.weight"));
  EXPECT_EQ(t.tensors.back().name, "pooler.dense.bias");
  expect_every_tensor_placed(t);
}

// The heads drop the pooler (transformers: 283,567,815 for 7 token labels over lilt-infoxlm-base's 250,002
// tokens; 23,611,671 for a small sequence classifier with shrink ratio 3; 39,674,818 for 2-layer QA).
TEST(Lilt, HeadsDropThePooler) {
  const std::string tokens =
      docs_config("lilt", "LiltForTokenClassification",
                  R"("num_labels":7,"vocab_size":250002,"max_position_embeddings":514,"type_vocab_size":1)");
  EXPECT_EQ(parameters_of(tokens), 283'567'815u);
  EXPECT_EQ(find_tensor(template_of(tokens), "lilt.pooler.dense.weight"), nullptr);
  const std::string seq = docs_config("lilt", "LiltForSequenceClassification",
                                      R"("num_labels":16,"hidden_size":512,"num_attention_heads":8,
                                      "intermediate_size":1000,"num_hidden_layers":3,"channel_shrink_ratio":3)");
  EXPECT_EQ(parameters_of(seq), 23'611'671u);
  const ModelTemplate t = template_of(seq);
  EXPECT_EQ(find_tensor(t, "lilt.encoder.layer.0.layout_output.dense.weight")->shape, Shape({170, 333}));
  EXPECT_EQ(find_tensor(t, "classifier.out_proj.weight")->shape, Shape({16, 512}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(parameters_of(docs_config("lilt", "LiltForQuestionAnswering", R"("num_hidden_layers":2)")),
            39'674'818u);
}

// ---- MarkupLM ----

// microsoft/markuplm-base names MarkupLMForPretraining, which transformers lacks: AutoModel builds
// MarkupLMModel (transformers: 135,203,072). 50 depths of tag (256 x 32) and subscript (1024 x 32) tables;
// the XPath MLP reads their 1,600-wide concatenation.
TEST(MarkupLm, BaseBuildsTheBareModel) {
  const std::string base =
      docs_config("markuplm", "MarkupLMForPretraining",
                  R"("vocab_size":50267,"max_position_embeddings":514,"type_vocab_size":1)");
  EXPECT_EQ(parameters_of(base), 135'203'072u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(t.arch.architecture, "MarkupLMModel");
  EXPECT_EQ(t.tensors.size(), 305u);
  EXPECT_EQ(find_tensor(t, "embeddings.xpath_embeddings.xpath_unitseq2_inner.weight")->shape,
            Shape({3072, 1600}));
  EXPECT_EQ(find_tensor(t, "embeddings.xpath_embeddings.xpath_subs_sub_embeddings.49.weight")->shape,
            Shape({1024, 32}));
  // The XPath embeddings sit between the position and the token-type tables.
  EXPECT_EQ(tensor_index(t, "embeddings.position_embeddings.weight") + 1,
            tensor_index(t, "embeddings.xpath_embeddings.xpath_unitseq2_embeddings.weight"));
  EXPECT_EQ(t.tensors.back().name, "pooler.dense.bias");
  expect_every_tensor_placed(t);
  // The tables' indices are no layers.
  EXPECT_FALSE(
      place_tensor("embeddings.xpath_embeddings.xpath_tag_sub_embeddings.7.weight").layer.has_value());
}

// Only the sequence classifier keeps the pooler (transformers: 41,789,700 with depth 10 and 16-wide units;
// 55,734,025 for 9 token labels, 3 layers; 368,754,690 for QA at markuplm-large's sizes).
TEST(MarkupLm, Heads) {
  const std::string seq = docs_config("markuplm", "MarkupLMForSequenceClassification",
                                      R"("num_labels":4,"max_depth":10,"xpath_unit_hidden_size":16,
                                      "num_hidden_layers":2)");
  EXPECT_EQ(parameters_of(seq), 41'789'700u);
  EXPECT_NE(find_tensor(template_of(seq), "markuplm.pooler.dense.weight"), nullptr);
  const std::string tokens =
      docs_config("markuplm", "MarkupLMForTokenClassification",
                  R"("num_labels":9,"num_hidden_layers":3,"max_xpath_tag_unit_embeddings":300)");
  EXPECT_EQ(parameters_of(tokens), 55'734'025u);
  EXPECT_EQ(find_tensor(template_of(tokens), "markuplm.pooler.dense.weight"), nullptr);
  const std::string large =
      docs_config("markuplm", "MarkupLMForQuestionAnswering",
                  R"("vocab_size":50267,"max_position_embeddings":514,"type_vocab_size":1,"hidden_size":1024,
      "num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096)");
  EXPECT_EQ(parameters_of(large), 368'754'690u);
  expect_every_tensor_placed(template_of(large));
}

// ---- ImageGPT ----

// openai/imagegpt-small and -medium: 76M and 455M in the iGPT paper (Chen et al. 2020, table of model sizes);
// transformers: 76,682,240 and 455,489,536. The head is its own 512 x 512 matrix (the 512 clusters, not the
// start token); every norm is a weight alone.
TEST(ImageGpt, SmallAndMediumCountAsPublished) {
  const std::string small = docs_config("imagegpt", "ImageGPTForCausalImageModeling",
                                        R"("vocab_size":513,"n_positions":1024,"n_embd":512,"n_layer":24,
                                        "n_head":8,"n_inner":null,"tie_word_embeddings":false)");
  EXPECT_EQ(parameters_of(small), 76'682'240u);
  const ModelTemplate t = template_of(small);
  EXPECT_EQ(t.tensors.size(), 244u);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({512, 512}));
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(t, "transformer.wte.weight")->shape, Shape({513, 512}));
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.c_attn.weight")->shape, Shape({512, 1536}));  // Conv1D
  EXPECT_EQ(find_tensor(t, "transformer.h.0.ln_1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "transformer.ln_f.bias"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(parameters_of(docs_config("imagegpt", "ImageGPTForCausalImageModeling",
                                      R"("n_embd":1024,"n_layer":36,"n_head":8)")),
            455'489'536u);
}

// The classifier scores without a bias (transformers: 4,946,896 for 10 labels, 2 layers, n_inner 1000); the
// cross-attention blocks add a weight-only norm (9,192,448 for the bare model, 2 layers). Tying the head is
// refused.
TEST(ImageGpt, ClassifierCrossAttentionAndTying) {
  const ModelTemplate cls = template_of(docs_config("imagegpt", "ImageGPTForImageClassification",
                                                    R"("num_labels":10,"n_layer":2,"n_inner":1000)"));
  EXPECT_EQ(find_tensor(cls, "score.weight")->shape, Shape({10, 512}));
  EXPECT_EQ(find_tensor(cls, "score.bias"), nullptr);
  EXPECT_EQ(parameters_of(docs_config("imagegpt", "ImageGPTForImageClassification",
                                      R"("num_labels":10,"n_layer":2,"n_inner":1000)")),
            4'946'896u);
  const std::string cross =
      docs_config("imagegpt", "ImageGPTModel", R"("n_layer":2,"add_cross_attention":true)");
  EXPECT_EQ(parameters_of(cross), 9'192'448u);
  const ModelTemplate t = template_of(cross);
  EXPECT_EQ(find_tensor(t, "h.1.crossattention.q_attn.weight")->shape, Shape({512, 512}));
  EXPECT_EQ(tensor_index(t, "h.0.ln_2.weight") + 1, tensor_index(t, "h.0.crossattention.c_attn.weight"));
  EXPECT_EQ(find_tensor(t, "h.0.ln_cross_attn.bias"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(
      refusal_of(docs_config("imagegpt", "ImageGPTForCausalImageModeling", R"("tie_word_embeddings":true)"))
          .field,
      "tie_word_embeddings");
}

// ---- Decision Transformer ----

// edbeeching/decision-transformer-gym-hopper-medium's sizes (11 state and 3 action dimensions, 1,000-step
// episodes; transformers: 858,767): GPT-2's blocks under encoder., a one-row token table, then the model's
// embeddings and predictors.
TEST(DecisionTransformer, HopperCountsAsTransformers) {
  const std::string hopper = docs_config("decision_transformer", "DecisionTransformerModel",
                                         R"("state_dim":11,"act_dim":3,"hidden_size":128,"max_ep_len":1000,
                                         "n_layer":3,"n_head":1,"n_positions":1024,"vocab_size":1)");
  EXPECT_EQ(parameters_of(hopper), 858'767u);
  const ModelTemplate t = template_of(hopper);
  EXPECT_EQ(t.tensors.size(), 55u);
  EXPECT_EQ(find_tensor(t, "encoder.wte.weight")->shape, Shape({1, 128}));
  EXPECT_EQ(find_tensor(t, "encoder.h.2.mlp.c_fc.weight")->shape, Shape({128, 512}));  // Conv1D
  EXPECT_EQ(find_tensor(t, "embed_timestep.weight")->shape, Shape({1000, 128}));
  EXPECT_EQ(find_tensor(t, "embed_state.weight")->shape, Shape({128, 11}));
  EXPECT_EQ(find_tensor(t, "predict_action.0.weight")->shape, Shape({3, 128}));
  EXPECT_EQ(t.tensors.back().name, "predict_return.bias");
  expect_every_tensor_placed(t);
}

// The attribute_map's aliases set the GPT-2 fields (transformers: 2,751,686 for 4 layers of width 256,
// n_inner 300, 64 positions); the class defaults give 1,256,854.
TEST(DecisionTransformer, AliasesAndDefaults) {
  EXPECT_EQ(parameters_of(R"({"model_type":"decision_transformer"})"), 1'256'854u);
  const std::string wide = R"({"model_type":"decision_transformer","hidden_size":256,"num_hidden_layers":4,
      "num_attention_heads":4,"n_inner":300,"action_tanh":false,"max_position_embeddings":64})";
  EXPECT_EQ(parameters_of(wide), 2'751'686u);
  EXPECT_EQ(find_tensor(template_of(wide), "encoder.wpe.weight")->shape, Shape({64, 256}));
  // Its blocks copy GPT2Block's, cross-attention included: per layer c_attn 128 x 256 + 256, q_attn and
  // c_proj 128 x 128 + 128 each, ln_cross_attn 2 x 128: 66,304, three layers.
  EXPECT_EQ(parameters_of(R"({"model_type":"decision_transformer","add_cross_attention":true})"),
            1'256'854u + 3 * 66'304u);
}

// What transformers cannot build, or builds in a way these templates do not model, fails naming the field.
TEST(BertDocs, RefusalsNameTheField) {
  const auto field = [](const std::string& type, const std::string& fields) {
    return refusal_of(R"({"model_type":")" + type + R"(",)" + fields + "}").field;
  };
  // LayoutLMv3Model divides input_size by patch_size: a [height, width] pair raises there.
  EXPECT_EQ(field("layoutlmv3", R"("patch_size":[16,16])"), "patch_size");
  EXPECT_EQ(field("layoutlmv3", R"("input_size":0)"), "input_size");
  EXPECT_EQ(field("splinter", R"("position_embedding_type":"relative_key")"), "position_embedding_type");
  EXPECT_EQ(field("dpr", R"("num_attention_heads":7)"), "num_attention_heads");
  EXPECT_EQ(field("canine", R"("num_hash_functions":1000)"), "num_hash_functions");
  EXPECT_EQ(field("lilt", R"("channel_shrink_ratio":5000)"), "channel_shrink_ratio");
  EXPECT_EQ(field("markuplm", R"("max_depth":0)"), "max_depth");
  EXPECT_EQ(field("markuplm", R"("is_decoder":true,"add_cross_attention":true)"), "add_cross_attention");
  EXPECT_EQ(field("lilt", R"("position_embedding_type":"relative_key_query")"), "position_embedding_type");
  const Refusal unknown = refusal_of(R"({"model_type":"dpr","architectures":["DPRForSomething"]})");
  EXPECT_EQ(unknown.kind, ErrorKind::Unsupported);
  EXPECT_EQ(unknown.field, "architectures");
}

}  // namespace
}  // namespace ma::test
