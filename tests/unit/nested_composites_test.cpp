// VisionTextDualEncoderModel and RAG (model/families/vision_text_dual_encoder.cpp, rag.cpp): composites of
// whole models built by their own families' builders. Expected totals are the sums of the nested classes'
// published or hand-counted sizes (named per test) plus the composite's own parameters, counted from
// transformers' modeling_vision_text_dual_encoder.py and modeling_rag.py.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// The docs' example (VisionTextDualEncoderConfig.from_vision_text_configs(ViTConfig(), BertConfig())), the
// sub-configs as a ViT classifier's and a BERT masked LM's config.json spell them: AutoModel ignores their
// architectures.
constexpr const char* kVtdeVitBert =
    R"({"model_type":"vision-text-dual-encoder","projection_dim":512,"logit_scale_init_value":2.6592,
    "vision_config":{"model_type":"vit","architectures":["ViTForImageClassification"],"hidden_size":768,
    "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"image_size":224,"patch_size":16},
    "text_config":{"model_type":"bert","architectures":["BertForMaskedLM"],"vocab_size":30522}})";

// clip-italian/clip-italian's layout: vision_config is a whole CLIPConfig (ViT-B/32 vision), text_config an
// Italian BERT (dbmdz/bert-base-italian-xxl-uncased, 32,102 tokens).
constexpr const char* kVtdeClipItalian =
    R"({"architectures":["VisionTextDualEncoderModel"],"model_type":"vision-text-dual-encoder",
    "projection_dim":512,
    "vision_config":{"model_type":"clip","projection_dim":512,"text_config":{},
    "vision_config":{"hidden_size":768,"intermediate_size":3072,"num_attention_heads":12,
    "num_hidden_layers":12,"patch_size":32,"image_size":224}},
    "text_config":{"model_type":"bert","vocab_size":32102,"architectures":["BertForMaskedLM"]}})";

// facebook/rag-token-nq's config.json, its shape fields: DPR's BERT-base question encoder and BART-large.
constexpr const char* kRagTokenNq =
    R"({"architectures":["RagTokenForGeneration"],"model_type":"rag","is_encoder_decoder":true,"n_docs":5,
    "question_encoder":{"model_type":"dpr","architectures":["DPRQuestionEncoder"],"vocab_size":30522,
    "hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,
    "max_position_embeddings":512,"type_vocab_size":2,"projection_dim":0},
    "generator":{"model_type":"bart","architectures":["BartForConditionalGeneration"],"vocab_size":50265,
    "d_model":1024,"encoder_layers":12,"decoder_layers":12,"encoder_attention_heads":16,
    "decoder_attention_heads":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,"max_position_embeddings":1024,
    "scale_embedding":false,"add_bias_logits":false,"add_final_layer_norm":false,"normalize_before":false}})";

// microsoft/udop-large's config.json, its shape fields.
constexpr const char* kUdopLarge =
    R"({"architectures":["UdopForConditionalGeneration"],"model_type":"udop","d_ff":4096,"d_kv":64,
    "d_model":1024,"num_layers":24,"num_decoder_layers":24,"num_heads":16,"vocab_size":33201,
    "feed_forward_proj":"relu","relative_attention_num_buckets":32,"relative_attention_max_distance":128,
    "relative_bias_args":[{"type":"1d"},{"type":"horizontal"},{"type":"vertical"}],
    "max_2d_position_embeddings":1024,"image_size":224,"patch_size":16,"num_channels":3})";

// ---- VisionTextDualEncoderModel ----

// ViTModel (pooler included: google/vit-base-patch16-224-in21k, 86,389,248) + BertModel (bert-base-uncased,
// 109,482,240) + two bias-free 768 -> 512 projections + logit_scale: 196,657,921.
TEST(NestedComposites, VtdeVitBertCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kVtdeVitBert), 196'657'921u);
  const ModelTemplate t = template_of(kVtdeVitBert);
  EXPECT_EQ(t.arch.architecture, "VisionTextDualEncoderModel");
  // The root's own parameter first, then vision_model, text_model and the projections.
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  EXPECT_EQ(t.tensors.front().shape, Shape{});
  EXPECT_EQ(t.tensors.back().name, "text_projection.weight");
  EXPECT_EQ(find_tensor(t, "visual_projection.weight")->shape, (Shape{512, 768}));
  EXPECT_LT(tensor_index(t, "vision_model.pooler.dense.weight"),
            tensor_index(t, "text_model.embeddings.word_embeddings.weight"));
  ASSERT_NE(find_tensor(t, "text_model.pooler.dense.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 12u);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(kVtdeVitBert);
}

// A CLIPConfig as vision_config gives its CLIPVisionModel (ViT-B/32: 87,456,000, i.e. the 87,849,216 of
// CLIPVisionModelWithProjection less its 768 x 512 projection) beside BERT with 32,102 tokens
// (109,482,240 + 1,580 x 768 = 110,695,680): 198,938,113 with the projections and logit_scale.
TEST(NestedComposites, VtdeClipItalianBuildsClipsVisionModel) {
  EXPECT_EQ(parameters_of(kVtdeClipItalian), 198'938'113u);
  const ModelTemplate t = template_of(kVtdeClipItalian);
  const TemplateTensor* patch = find_tensor(t, "vision_model.embeddings.patch_embedding.weight");
  ASSERT_NE(patch, nullptr);
  EXPECT_EQ(patch->shape, (Shape{768, 3, 32, 32}));
  // Checkpoints keep CLIPVisionModel's own vision_model. inside the composite's.
  EXPECT_EQ(stored_name(*patch), "vision_model.vision_model.embeddings.patch_embedding.weight");
  EXPECT_EQ(find_tensor(t, "visual_projection.weight")->shape, (Shape{512, 768}));
  expect_every_tensor_placed(t);
}

// CLIPVisionConfig's and RobertaConfig's class defaults (patch 16 set; RobertaConfig() keeps 512 positions
// and 2 token types): 85,799,424 + 124,644,864 + 786,432 + 1.
TEST(NestedComposites, VtdeReadsTheSubConfigClassesDefaults) {
  EXPECT_EQ(parameters_of(R"({"model_type":"vision-text-dual-encoder",
      "vision_config":{"model_type":"clip_vision_model","patch_size":16},"text_config":{"model_type":"roberta"}})"),
            211'230'721u);
}

// The config class raises without text_config or vision_config, and pops each one's model_type.
TEST(NestedComposites, VtdeRefusesAConfigWithoutASubConfig) {
  EXPECT_EQ(
      refusal_of(R"({"model_type":"vision-text-dual-encoder","vision_config":{"model_type":"vit"}})").field,
      "text_config.model_type");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"vision-text-dual-encoder","text_config":{"model_type":"bert"}})").field,
      "vision_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kVtdeVitBert, R"("model_type":"vit",)", "")).field,
            "vision_config.model_type");
  // A vision_config whose type builds a generative model is no tower.
  EXPECT_EQ(refusal_of(replaced(kVtdeVitBert, R"("model_type":"bert")", R"("model_type":"gpt2")")).kind,
            ErrorKind::Unsupported);
}

// ---- RAG ----

// DPRQuestionEncoder (BertModel with its pooler, 109,482,240) + BartForConditionalGeneration (bart-large,
// 406,291,456; final_logits_bias is a buffer): 515,773,696 = the "516M" of rag-token-nq's model card.
TEST(NestedComposites, RagTokenNqCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kRagTokenNq), 515'773'696u);
  EXPECT_EQ(parameters_of(replaced(kRagTokenNq, "RagTokenForGeneration", "RagSequenceForGeneration")),
            515'773'696u);
  EXPECT_EQ(parameters_of(replaced(kRagTokenNq, "RagTokenForGeneration", "RagModel")), 515'773'696u);
  const ModelTemplate t = template_of(kRagTokenNq);
  EXPECT_EQ(t.arch.architecture, "RagTokenForGeneration");
  EXPECT_EQ(t.tensors.front().name,
            "rag.question_encoder.question_encoder.bert_model.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "rag.generator.lm_head.weight")->tied_to, "rag.generator.model.shared.weight");
  // RagModel holds the two models itself.
  EXPECT_NE(find_tensor(template_of(replaced(kRagTokenNq, "RagTokenForGeneration", "RagModel")),
                        "generator.model.shared.weight"),
            nullptr);
  // The record is the generator's: BART's encoder stack first, its decoder, then DPR's BERT.
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->path, "rag.generator.model.encoder.layers");
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 12u);
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(kRagTokenNq);
}

// A T5 generator (t5-small's shape: T5ForConditionalGeneration, 60,506,624) under RagSequenceForGeneration,
// with DPRConfig's BERT-base defaults: 109,482,240 + 60,506,624.
TEST(NestedComposites, RagWithAT5Generator) {
  EXPECT_EQ(parameters_of(R"({"model_type":"rag","architectures":["RagSequenceForGeneration"],
      "question_encoder":{"model_type":"dpr"},
      "generator":{"model_type":"t5","d_model":512,"d_ff":2048,"num_layers":6,"num_heads":8,"d_kv":64,
      "vocab_size":32128}})"),
            169'988'864u);
}

// RagConfig asserts both sub-configs are given; AutoModelForSeq2SeqLM builds no GPT-2.
TEST(NestedComposites, RagRefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"rag","generator":{"model_type":"bart"}})").field,
            "question_encoder.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"rag","question_encoder":{"model_type":"dpr"}})").field,
            "generator.model_type");
  EXPECT_EQ(refusal_of(replaced(kRagTokenNq, R"("model_type":"bart")", R"("model_type":"gpt2")")).kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(replaced(kRagTokenNq, "RagTokenForGeneration", "RagForCausalLM")).kind,
            ErrorKind::Unsupported);
}

// ---- UDOP ----

// UdopForConditionalGeneration as modeling_udop.py builds udop-large, counted by module: shared 33,201 x
// 1,024 (33,997,824); patch_embed's 16 x 16 conv (787,456); the encoder's 24 T5 blocks (12,584,960 each),
// block 0's 32 x 16 bias, final norm, two 1,024 x 1,024 cell tables and the horizontal and vertical biases
// (the 1-D one is block 0's): 304,138,752; the decoder's 24 blocks with cross-attention (16,780,288 each) and
// its three biases (402,729,472); lm_head tied. 741,653,504: the 742M of the model card.
TEST(NestedComposites, UdopLargeCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kUdopLarge), 741'653'504u);
  EXPECT_EQ(parameters_of(replaced(kUdopLarge, "UdopForConditionalGeneration", "UdopModel")), 741'653'504u);
  // UdopEncoderModel: shared, patch_embed and the encoder.
  EXPECT_EQ(parameters_of(replaced(kUdopLarge, "UdopForConditionalGeneration", "UdopEncoderModel")),
            338'924'032u);
  // The config class's defaults are udop-large's.
  EXPECT_EQ(parameters_of(R"({"model_type":"udop"})"), 741'653'504u);
  const ModelTemplate t = template_of(kUdopLarge);
  EXPECT_EQ(find_tensor(t, "encoder.embed_patches.proj.weight")->tied_to, "patch_embed.proj.weight");
  EXPECT_EQ(find_tensor(t, "decoder.relative_bias.biases.0.relative_attention_bias.weight")->tied_to,
            "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  EXPECT_EQ(find_tensor(t, "encoder.relative_bias.biases.2.relative_attention_bias.weight")->shape,
            (Shape{32, 16}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "shared.weight");
  EXPECT_EQ(find_tensor(t, "decoder.cell_2d_embedding.x_position_embeddings.weight"), nullptr);
  // UdopStack registers its blocks, final norm, cell embeddings, then the biases.
  EXPECT_LT(tensor_index(t, "encoder.final_layer_norm.weight"),
            tensor_index(t, "encoder.cell_2d_embedding.x_position_embeddings.weight"));
  EXPECT_LT(tensor_index(t, "encoder.cell_2d_embedding.y_position_embeddings.weight"),
            tensor_index(t, "encoder.relative_bias.biases.1.relative_attention_bias.weight"));
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 24u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 24u);
  // The bias tables are no layers: biases.N indexes the 1-D, horizontal and vertical tables.
  EXPECT_FALSE(place_tensor("encoder.relative_bias.biases.2.relative_attention_bias.weight").layer);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(kUdopLarge);
}

// A bias with prefix_bucket gets two more rows; a gated feed-forward adds wi_1 (24 + 24 x 1,024 x 4,096).
TEST(NestedComposites, UdopReadsItsBiasArgumentsAndFeedForward) {
  EXPECT_EQ(parameters_of(replaced(kUdopLarge, R"({"type":"vertical"})",
                                   R"({"type":"vertical","prefix_bucket":true})")),
            741'653'504u + 2 * 2 * 16);
  EXPECT_EQ(parameters_of(replaced(kUdopLarge, R"("relu")", R"("gated-gelu")")),
            741'653'504u + 48u * 1024 * 4096);
}

// create_relative_bias raises on an unknown type (KeyError) and on a bias with other heads; the 1-D bias must
// take block 0's table; feed_forward_proj as T5Config validates it.
TEST(NestedComposites, UdopRefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kUdopLarge, R"("horizontal")", R"("diagonal")")).field,
            "relative_bias_args[1].type");
  EXPECT_EQ(refusal_of(replaced(kUdopLarge, R"({"type":"vertical"})", R"({"type":"vertical","num_heads":8})"))
                .field,
            "relative_bias_args[2].num_heads");
  EXPECT_EQ(
      refusal_of(replaced(kUdopLarge, R"({"type":"1d"})", R"({"type":"1d","prefix_bucket":true})")).field,
      "relative_bias_args[0].relative_attention_num_buckets");
  EXPECT_EQ(refusal_of(replaced(kUdopLarge, R"("relu")", R"("gelu-new-x")")).field, "feed_forward_proj");
  EXPECT_EQ(refusal_of(replaced(kUdopLarge, "UdopForConditionalGeneration", "UdopForCausalLM")).kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
