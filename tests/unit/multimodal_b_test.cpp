// ColPali (colpali), ColQwen2 (colqwen2), BLIP-2's Q-Former configured alone (blip_2_qformer) and ViLT
// (vilt): templates against what transformers builds. Totals, names, shapes and order were compared with an
// independent reconstruction of the transformers classes (/tmp/impl/multimodal_b/verify/expected.py):
// ColPaliForRetrieval and ColQwen2ForRetrieval build `self.vlm = AutoModel.from_config(vlm_config)` (the base
// model, no LM head) and `embedding_proj_layer`, a biased Linear(text hidden, embedding_dim).
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// vidore/colpali-v1.3-hf's config.json (its vlm_config is PaliGemma-3B at 448 px).
std::string mmb_colpali_v13() {
  return R"({"model_type":"colpali","architectures":["ColPaliForRetrieval"],"embedding_dim":128,
    "vlm_config":{"model_type":"paligemma","architectures":["PaliGemmaForConditionalGeneration"],
    "hidden_size":2048,"projection_dim":2048,"num_hidden_layers":26,
    "text_config":{"model_type":"gemma","hidden_size":2048,"intermediate_size":16384,"num_attention_heads":8,
    "num_hidden_layers":18,"num_key_value_heads":1,"vocab_size":257216},
    "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"image_size":448,
    "intermediate_size":4304,"num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,
    "projection_dim":2048,"vision_use_head":false}}})";
}

// vidore/colqwen2-v1.0-hf's config.json: its vlm_config is Qwen2-VL-2B-Instruct's.
std::string mmb_colqwen2_v10() {
  return R"({"model_type":"colqwen2","architectures":["ColQwen2ForRetrieval"],"embedding_dim":128,
    "vlm_config":{"model_type":"qwen2_vl","architectures":["Qwen2VLForConditionalGeneration"],
    "hidden_size":1536,"intermediate_size":8960,"num_attention_heads":12,"num_hidden_layers":28,
    "num_key_value_heads":2,"vocab_size":151936,"tie_word_embeddings":true,"rope_theta":1000000.0,
    "rope_scaling":{"type":"mrope","mrope_section":[16,24,24]},
    "vision_config":{"depth":32,"embed_dim":1280,"mlp_ratio":4,"num_heads":16,"in_chans":3,"hidden_size":1536,
    "patch_size":14,"spatial_merge_size":2,"temporal_patch_size":2}}})";
}

// 2,924,613,488 as transformers' classes add up (PaliGemma-3B-448's 2,924,351,216 without a separate head,
// + 2048 x 128 + 128); the model card of vidore/colpali-v1.3-hf says 2.92B.
TEST(MultimodalB, ColPaliIsPaliGemmasBaseModelAndAProjection) {
  const ModelTemplate t = template_of(mmb_colpali_v13());
  EXPECT_EQ(total_of(t), 2924613488u);
  EXPECT_EQ(t.arch.architecture, "ColPaliForRetrieval");
  EXPECT_EQ(t.tensors.front().name, "vlm.vision_tower.embeddings.patch_embedding.weight");
  EXPECT_EQ(t.tensors.back().name, "embedding_proj_layer.bias");
  EXPECT_EQ(find_tensor(t, "embedding_proj_layer.weight")->shape, (Shape{128, 2048}));
  // AutoModel builds PaliGemmaModel: no lm_head, tied or not.
  EXPECT_EQ(find_tensor(t, "vlm.lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "vlm.language_model.layers.17.self_attn.k_proj.weight")->shape,
            (Shape{256, 2048}));
  // The Hub checkpoint keeps transformers 4's PaliGemmaForConditionalGeneration layout under vlm.
  EXPECT_EQ(stored_name(*find_tensor(t, "vlm.language_model.embed_tokens.weight")),
            "vlm.language_model.model.embed_tokens.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "vlm.vision_tower.post_layernorm.weight")),
            "vlm.vision_tower.vision_model.post_layernorm.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "vlm.multi_modal_projector.linear.bias")),
            "vlm.multi_modal_projector.linear.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, "embedding_proj_layer.weight")), "embedding_proj_layer.weight");
  expect_every_tensor_placed(t);
  expect_reads_cleanly(mmb_colpali_v13());
}

// 2,209,182,336 as transformers' classes add up (Qwen2-VL-2B's 2,208,985,600 + 1536 x 128 + 128); the model
// card of vidore/colqwen2-v1.0-hf says 2.21B.
TEST(MultimodalB, ColQwen2IsQwen2VLsBaseModelAndAProjection) {
  const ModelTemplate t = template_of(mmb_colqwen2_v10());
  EXPECT_EQ(total_of(t), 2209182336u);
  EXPECT_EQ(t.arch.architecture, "ColQwen2ForRetrieval");
  EXPECT_EQ(t.tensors.front().name, "vlm.visual.patch_embed.proj.weight");
  EXPECT_EQ(t.tensors.back().name, "embedding_proj_layer.bias");
  EXPECT_EQ(find_tensor(t, "vlm.lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "embedding_proj_layer.weight")->shape, (Shape{128, 1536}));
  // Converted from Qwen2VLForConditionalGeneration (its conversion script): vlm.model.* on disk.
  EXPECT_EQ(stored_name(*find_tensor(t, "vlm.visual.merger.mlp.2.weight")),
            "vlm.model.visual.merger.mlp.2.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "vlm.language_model.norm.weight")),
            "vlm.model.language_model.norm.weight");
  expect_every_tensor_placed(t);
  expect_reads_cleanly(mmb_colqwen2_v10());
}

TEST(MultimodalB, ColVisionRefusals) {
  // ColPaliConfig raises KeyError for a vlm_config dict without model_type.
  EXPECT_EQ(refusal_of(R"({"model_type":"colpali","vlm_config":{"hidden_size":2048}})").field,
            "vlm_config.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"colqwen2","vlm_config":{"hidden_size":1536}})").field,
            "vlm_config.model_type");
  // Another backbone than the ones modelled is refused, not guessed.
  EXPECT_EQ(refusal_of(R"({"model_type":"colpali","vlm_config":{"model_type":"llava"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(
      refusal_of(R"({"model_type":"colpali","architectures":["ColPaliForConditionalGeneration"]})").kind,
      ErrorKind::Unsupported);
  // Fields the nested builders read keep their full path.
  EXPECT_EQ(refusal_of(R"({"model_type":"colpali","vlm_config":{"model_type":"paligemma","text_config":
    {"model_type":"gemma","hidden_size":2048,"num_attention_heads":0}}})")
                .field,
            "vlm_config.text_config.num_attention_heads");
}

// No vlm_config: ColPaliConfig() takes PaliGemmaConfig() (PaliGemma-3B at 224 px, vocabulary 257,152):
// 2,910,390,528 + 262,272.
TEST(MultimodalB, ColPaliDefaults) {
  EXPECT_EQ(parameters_of(R"({"model_type":"colpali"})"), 2910652800u);
}

// Blip2QFormerModel at Blip2QFormerConfig's defaults: layernorm and 12 layers (self-attention;
// cross-attention to 1408-wide features every 2nd layer; the query feed-forward): 105,137,664 by the class's
// modules.
TEST(MultimodalB, Blip2QFormerAlone) {
  const ModelTemplate t = template_of(R"({"model_type":"blip_2_qformer"})");
  EXPECT_EQ(total_of(t), 105137664u);
  EXPECT_EQ(t.arch.architecture, "Blip2QFormerModel");
  EXPECT_EQ(t.tensors.front().name, "layernorm.weight");
  EXPECT_EQ(find_tensor(t, "encoder.layer.10.crossattention.attention.key.weight")->shape,
            (Shape{768, 1408}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.11.crossattention.attention.key.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.intermediate.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "query_tokens"), nullptr);
  expect_every_tensor_placed(t);
  // use_qformer_text_input adds the text feed-forward (intermediate / output) to every layer: 12 x 4,723,968.
  EXPECT_EQ(parameters_of(R"({"model_type":"blip_2_qformer","use_qformer_text_input":true})"),
            105137664u + 12u * 4723968u);
  EXPECT_EQ(refusal_of(R"({"model_type":"blip_2_qformer","num_attention_heads":5})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"blip_2_qformer","position_embedding_type":"relative_key"})").field,
            "position_embedding_type");
}

// dandelin/vilt-b32-mlm (ViltConfig's defaults; tie_word_embeddings false, ViltConfig's own default):
// 135,658,554 by ViltForMaskedLM's modules - ViltModel's 111,595,008, the head's bias, transform and its own
// decoder weight; decoder.bias is the head's bias (one Parameter).
TEST(MultimodalB, ViltMaskedLm) {
  const std::string mlm = R"({"model_type":"vilt","architectures":["ViltForMaskedLM"]})";
  const ModelTemplate t = template_of(mlm);
  EXPECT_EQ(total_of(t), 135658554u);
  EXPECT_EQ(t.arch.architecture, "ViltForMaskedLM");
  // ViltEmbeddings' own parameters come before its children's.
  EXPECT_EQ(t.tensors[0].name, "vilt.embeddings.cls_token");
  EXPECT_EQ(t.tensors[1].shape, (Shape{1, 145, 768}));  // (384 / 32)^2 patches + [CLS]
  EXPECT_EQ(find_tensor(t, "vilt.embeddings.text_embeddings.position_embeddings.weight")->shape,
            (Shape{40, 768}));
  EXPECT_EQ(find_tensor(t, "vilt.embeddings.patch_embeddings.projection.weight")->shape,
            (Shape{768, 3, 32, 32}));
  EXPECT_EQ(find_tensor(t, "mlm_score.decoder.bias")->tied_to, "mlm_score.bias");
  EXPECT_TRUE(find_tensor(t, "mlm_score.decoder.weight")->tied_to.empty());
  expect_every_tensor_placed(t);
  // ViltModel alone: no prefix, with its pooler.
  EXPECT_EQ(parameters_of(R"({"model_type":"vilt"})"), 111595008u);
  // tie_word_embeddings true: the decoder reads the word embeddings.
  EXPECT_EQ(parameters_of(replaced(mlm, "}", R"(,"tie_word_embeddings":true})")), 135658554u - 30522u * 768u);
}

// dandelin/vilt-b32-finetuned-vqa (3,129 answers): 117,588,537 by ViltForQuestionAnswering's modules (the
// model page: 118M). NLVR2 (two images, three modality types): a classifier over both pooled outputs.
TEST(MultimodalB, ViltTaskHeads) {
  std::string answers;
  for (int i = 0; i < 3129; ++i) answers += (i ? "," : "") + ("\"" + std::to_string(i) + "\":\"a\"");
  const ModelTemplate vqa = template_of(
      R"({"model_type":"vilt","architectures":["ViltForQuestionAnswering"],"id2label":{)" + answers + "}}");
  EXPECT_EQ(total_of(vqa), 117588537u);
  EXPECT_EQ(find_tensor(vqa, "classifier.0.weight")->shape, (Shape{1536, 768}));
  EXPECT_EQ(find_tensor(vqa, "classifier.3.weight")->shape, (Shape{3129, 1536}));
  expect_every_tensor_placed(vqa);
  const ModelTemplate nlvr2 = template_of(
      R"({"model_type":"vilt","architectures":["ViltForImagesAndTextClassification"],"num_images":2,
      "modality_type_vocab_size":3,"id2label":{"0":"False","1":"True"}})");
  EXPECT_EQ(total_of(nlvr2), 113962754u);
  EXPECT_EQ(find_tensor(nlvr2, "vilt.embeddings.token_type_embeddings.weight")->shape, (Shape{3, 768}));
  const ModelTemplate coco =
      template_of(R"({"model_type":"vilt","architectures":["ViltForImageAndTextRetrieval"]})");
  EXPECT_EQ(total_of(coco), 111595777u);
  expect_every_tensor_placed(coco);
  // ViltForTokenClassification has no pooler.
  const ModelTemplate tokens =
      template_of(R"({"model_type":"vilt","architectures":["ViltForTokenClassification"],"num_labels":5})");
  EXPECT_EQ(total_of(tokens), 111008261u);
  EXPECT_EQ(find_tensor(tokens, "vilt.pooler.dense.weight"), nullptr);
  // ViltConfig's num_images defaults to -1, which ViltForImagesAndTextClassification cannot size.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"vilt","architectures":["ViltForImagesAndTextClassification"]})").field,
      "num_images");
  EXPECT_EQ(refusal_of(R"({"model_type":"vilt","num_attention_heads":7})").field, "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"vilt","architectures":["ViltForPreTraining"]})").kind,
            ErrorKind::Unsupported);
}

// uclanlp/visualbert-vqa-coco-pre (VisualBertForPreTraining, 2048-wide detector features): 112,074,812 by
// the class's modules (BERT-base + the visual tables and projection + the pre-training heads, the decoder
// tied to the word embeddings); the model page says 112M.
TEST(MultimodalB, VisualBertPreTraining) {
  const ModelTemplate t = template_of(
      R"({"model_type":"visual_bert","architectures":["VisualBertForPreTraining"],"visual_embedding_dim":2048})");
  EXPECT_EQ(total_of(t), 112074812u);
  EXPECT_EQ(find_tensor(t, "visual_bert.embeddings.visual_projection.weight")->shape, (Shape{768, 2048}));
  EXPECT_EQ(tensor_index(t, "visual_bert.embeddings.visual_token_type_embeddings.weight"),
            tensor_index(t, "visual_bert.embeddings.LayerNorm.bias") + 1);
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.weight")->tied_to,
            "visual_bert.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.bias")->tied_to, "cls.predictions.bias");
  expect_every_tensor_placed(t);
  // VisualBertModel at VisualBertConfig's defaults (512-wide features); the VCR multiple-choice head adds one
  // score, the VQA head one per answer.
  EXPECT_EQ(parameters_of(R"({"model_type":"visual_bert"})"), 110270976u);
  EXPECT_EQ(parameters_of(R"({"model_type":"visual_bert","architectures":["VisualBertForMultipleChoice"]})"),
            110270976u + 769u);
  EXPECT_EQ(parameters_of(R"({"model_type":"visual_bert","architectures":["VisualBertForVisualReasoning"],
      "visual_embedding_dim":1024})"),
            110665730u);
  EXPECT_EQ(refusal_of(R"({"model_type":"visual_bert","bypass_transformer":true})").field,
            "bypass_transformer");
  EXPECT_EQ(refusal_of(R"({"model_type":"visual_bert","visual_embedding_dim":0})").field,
            "visual_embedding_dim");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"visual_bert","architectures":["VisualBertForRegionToPhraseAlignment"]})")
          .kind,
      ErrorKind::Unsupported);
}

// jinho8345/bros-base-uncased (BrosModel at BrosConfig's defaults): 109,494,528 by the class's modules -
// BERT-base
// + the box projection (one head's 64 from hidden / 4 = 192 sinusoids, no bias); the model page says 110M.
TEST(MultimodalB, BrosModelAndHeads) {
  const ModelTemplate t = template_of(R"({"model_type":"bros","architectures":["BrosModel"]})");
  EXPECT_EQ(total_of(t), 109494528u);
  EXPECT_EQ(find_tensor(t, "bbox_embeddings.bbox_projection.weight")->shape, (Shape{64, 192}));
  EXPECT_EQ(find_tensor(t, "bbox_embeddings.bbox_projection.bias"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(
      parameters_of(R"({"model_type":"bros","architectures":["BrosForTokenClassification"],"num_labels":7})"),
      109494528u + 768u * 7u + 7u);
  // SPADE entity extraction: a two-linear initial-token classifier and a relation extractor (its dummy node,
  // query and key).
  const ModelTemplate ee = template_of(
      R"({"model_type":"bros","architectures":["BrosSpadeEEForTokenClassification"],"num_labels":7})");
  EXPECT_EQ(total_of(ee), 111272455u);
  EXPECT_EQ(tensor_index(ee, "subsequent_token_classifier.dummy_node") + 1,
            tensor_index(ee, "subsequent_token_classifier.query.weight"));
  expect_every_tensor_placed(ee);
  const ModelTemplate el =
      template_of(R"({"model_type":"bros","architectures":["BrosSpadeELForTokenClassification"]})");
  EXPECT_EQ(total_of(el), 110676480u);
  expect_every_tensor_placed(el);
  EXPECT_EQ(refusal_of(R"({"model_type":"bros","add_cross_attention":true})").field, "add_cross_attention");
  EXPECT_EQ(refusal_of(R"({"model_type":"bros","num_attention_heads":5})").field, "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
