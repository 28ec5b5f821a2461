// DPT, YOLOS, VideoMAE, ViViT and TimeSformer (model/families/vit_relatives.h). Expected totals are the
// published sizes where a model card or paper gives one, checked against a count of the transformers classes
// (their module construction mirrored on torch's meta device, helper verification video_vit/verify), else
// that count alone.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Intel/dpt-large's shape: ViT-large at 384 pixels, neck_hidden_sizes [256, 512, 1024, 1024].
const std::string kDptLarge =
    R"({"model_type":"dpt","architectures":["DPTForDepthEstimation"],"hidden_size":1024,)"
    R"("num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096,"image_size":384,)"
    R"("patch_size":16,"neck_hidden_sizes":[256,512,1024,1024],"fusion_hidden_size":256})";

// 343,030,465: the model card's 343M (DPT-Large); the same count by the mirrored DPTForDepthEstimation.
TEST(VideoVitDpt, LargeDepthEstimatorCountAndNames) {
  EXPECT_EQ(parameters_of(kDptLarge), 343'030'465u);
  const ModelTemplate t = template_of(kDptLarge);
  // modeling_dpt.py keeps transformers 4's ViT modules in memory: checkpoints' names are its own.
  const TemplateTensor* query = find_tensor(t, "dpt.encoder.layer.23.attention.attention.query.weight");
  ASSERT_NE(query, nullptr);
  EXPECT_EQ(stored_name(*query), query->name);
  EXPECT_EQ(find_tensor(t, "dpt.pooler.dense.weight"), nullptr);  // DPTModel(add_pooling_layer=False)
  EXPECT_EQ(find_tensor(t, "dpt.embeddings.position_embeddings")->shape, Shape({1, 577, 1024}));
  // readout_type "project": a Linear(2H, H) per neck size; factor 4 a ConvTranspose2d, 0.5 a strided conv.
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.readout_projects.3.0.weight")->shape, Shape({1024, 2048}));
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.0.resize.weight")->shape, Shape({256, 256, 4, 4}));
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.3.resize.weight")->shape, Shape({1024, 1024, 3, 3}));
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.2.resize.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "head.head.4.weight")->shape, Shape({1, 32, 1, 1}));
  // ViT's layer order in transformers 4: attention, intermediate, output, then the two LayerNorms.
  EXPECT_EQ(tensor_index(t, "dpt.encoder.layer.0.output.dense.bias") + 1,
            tensor_index(t, "dpt.encoder.layer.0.layernorm_before.weight"));
  expect_every_tensor_placed(t);
}

// Intel/dpt-large-ade's shape: batch-normed, bias-free fusion residual units, 150 classes and the auxiliary
// head; 343,960,364 parameters by the mirrored DPTForSemanticSegmentation, BatchNorm statistics as buffers.
TEST(VideoVitDpt, SegmentationHeads) {
  const std::string ade =
      replaced(kDptLarge, R"(["DPTForDepthEstimation"])", R"(["DPTForSemanticSegmentation"])");
  const std::string cfg =
      replaced(ade, R"("fusion_hidden_size":256)",
               R"("fusion_hidden_size":256,"use_batch_norm_in_fusion_residual":true,)" + id2label_of(150));
  EXPECT_EQ(parameters_of(cfg), 343'960'364u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(find_tensor(t, "neck.fusion_stage.layers.0.residual_layer1.convolution1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "neck.fusion_stage.layers.0.residual_layer1.batch_norm1.running_mean")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "head.head.0.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "head.head.4.weight")->shape, Shape({150, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "auxiliary_head.head.4.weight")->shape, Shape({150, 256, 1, 1}));
  expect_every_tensor_placed(t);
}

// DPTConfig's defaults (ViT-base at 384 pixels) as DPTModel, with its pooler: 86,681,088 by the mirrored
// class. DPT-Hybrid and a separate backbone are refused, naming the field.
TEST(VideoVitDpt, BaseModelAndRefusals) {
  EXPECT_EQ(parameters_of(R"({"model_type":"dpt"})"), 86'681'088u);
  EXPECT_EQ(refusal_of(R"({"model_type":"dpt","is_hybrid":true})").field, "is_hybrid");
  EXPECT_EQ(refusal_of(R"({"model_type":"dpt","architectures":["DPTForDepthEstimation"],)"
                       R"("backbone_config":{"model_type":"beit"}})")
                .field,
            "backbone_config");
  EXPECT_EQ(refusal_of(R"({"model_type":"dpt","readout_type":"mean"})").field, "readout_type");
}

// MCG-NJU/videomae-base (pre-training, no mean pooling): 94,210,944, the card's 94M for ForPreTraining;
// VideoMAE's q_bias / v_bias precede the bias-free query / key / value, and the sine-cosine positions are
// no parameter.
TEST(VideoVitVideoMae, BasePreTraining) {
  const std::string cfg =
      R"({"model_type":"videomae","architectures":["VideoMAEForPreTraining"],"use_mean_pooling":false})";
  EXPECT_EQ(parameters_of(cfg), 94'210'944u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(tensor_index(t, "mask_token"), 0u);  // the class's own parameter, before its modules
  EXPECT_EQ(find_tensor(t, "videomae.embeddings.patch_embeddings.projection.weight")->shape,
            Shape({768, 3, 2, 16, 16}));
  EXPECT_EQ(tensor_index(t, "videomae.encoder.layer.0.attention.attention.v_bias") + 1,
            tensor_index(t, "videomae.encoder.layer.0.attention.attention.query.weight"));
  EXPECT_EQ(find_tensor(t, "videomae.encoder.layer.0.attention.attention.key.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "videomae.embeddings.position_embeddings"), nullptr);
  EXPECT_NE(find_tensor(t, "videomae.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.head.weight")->shape, Shape({1536, 384}));  // 3 x 2 x 16 x 16 pixels
  expect_every_tensor_placed(t);
}

// MCG-NJU/videomae-base-finetuned-kinetics: mean pooling (fc_norm, no final LayerNorm), 400 classes;
// 86,534,800 by the mirrored class. The bare model: 86,225,664, the card's 86M (videomae-base).
TEST(VideoVitVideoMae, ClassifierAndBase) {
  const std::string cfg = R"({"model_type":"videomae","architectures":["VideoMAEForVideoClassification"],)" +
                          id2label_of(400) + "}";
  EXPECT_EQ(parameters_of(cfg), 86'534'800u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(find_tensor(t, "videomae.layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "fc_norm.weight"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(parameters_of(R"({"model_type":"videomae"})"), 86'225'664u);
  EXPECT_EQ(refusal_of(R"({"model_type":"videomae","architectures":["VideoMAEForPreTraining"],)"
                       R"("patch_size":[16,16]})")
                .field,
            "patch_size");
}

// hustvl/yolos-small (YolosConfig's 512 x 864 and mid-layer positions, ViT-small's sizes, 91 COCO labels):
// 30,684,768, the paper's 30.7M; hustvl/yolos-tiny (800 x 1333, no mid-layer positions): 6,488,736, the
// paper's 6.5M.
TEST(VideoVitYolos, SmallAndTinyDetectors) {
  const std::string small =
      R"({"model_type":"yolos","architectures":["YolosForObjectDetection"],"hidden_size":384,)"
      R"("num_attention_heads":6,"intermediate_size":1536,)" +
      id2label_of(91) + "}";
  EXPECT_EQ(parameters_of(small), 30'684'768u);
  const ModelTemplate t = template_of(small);
  // [CLS], 32 x 54 patches, 100 detection tokens; the mid-layer table for all layers but the last.
  EXPECT_EQ(find_tensor(t, "vit.embeddings.position_embeddings")->shape, Shape({1, 1829, 384}));
  EXPECT_EQ(find_tensor(t, "vit.encoder.mid_position_embeddings")->shape, Shape({11, 1, 1829, 384}));
  EXPECT_EQ(tensor_index(t, "vit.encoder.mid_position_embeddings") + 1,
            tensor_index(t, "vit.encoder.layer.0.attention.attention.query.weight"));
  EXPECT_EQ(find_tensor(t, "class_labels_classifier.layers.2.weight")->shape,
            Shape({92, 384}));  // + no object
  EXPECT_EQ(find_tensor(t, "bbox_predictor.layers.2.weight")->shape, Shape({4, 384}));
  expect_every_tensor_placed(t);
  const std::string tiny =
      replaced(replaced(replaced(small, R"("hidden_size":384)", R"("hidden_size":192)"),
                        R"("num_attention_heads":6,"intermediate_size":1536)",
                        R"("num_attention_heads":3,"intermediate_size":768)"),
               R"("id2label")", R"("image_size":[800,1333],"use_mid_position_embeddings":false,"id2label")");
  EXPECT_EQ(parameters_of(tiny), 6'488'736u);
  // YolosEncoder indexes image_size while it is built: an integer is refused.
  EXPECT_EQ(refusal_of(R"({"model_type":"yolos","image_size":800})").field, "image_size");
}

// google/vivit-b-16x2-kinetics400: 88,954,000 (the card's 89M), by the mirrored classes. modular_vivit.py
// builds ViT's transformers 5 layers; checkpoints keep transformers 4's encoder.layer names.
TEST(VideoVitVivit, Kinetics400Classifier) {
  const std::string cfg =
      R"({"model_type":"vivit","architectures":["VivitForVideoClassification"],)" + id2label_of(400) + "}";
  EXPECT_EQ(parameters_of(cfg), 88'954'000u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(find_tensor(t, "vivit.embeddings.patch_embeddings.projection.weight")->shape,
            Shape({768, 3, 2, 16, 16}));
  EXPECT_EQ(find_tensor(t, "vivit.embeddings.position_embeddings")->shape, Shape({1, 3137, 768}));
  EXPECT_EQ(stored_name(*find_tensor(t, "vivit.layers.11.attention.q_proj.weight")),
            "vivit.encoder.layer.11.attention.attention.query.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "vivit.layers.11.mlp.fc2.weight")),
            "vivit.encoder.layer.11.output.dense.weight");
  EXPECT_EQ(find_tensor(t, "vivit.pooler.dense.weight"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(parameters_of(R"({"model_type":"vivit"})"), 89'236'992u);  // with ViT's pooler
  EXPECT_EQ(refusal_of(R"({"model_type":"vivit","tubelet_size":[16,16]})").field, "tubelet_size");
}

// facebook/timesformer-base-finetuned-k400: 121,566,352 (the card's 121M), by the mirrored class; divided
// space-time attention adds a temporal LayerNorm, attention and output Linear to every layer.
TEST(VideoVitTimesformer, Kinetics400Classifier) {
  const std::string cfg =
      R"({"model_type":"timesformer","architectures":["TimesformerForVideoClassification"],)" +
      id2label_of(400) + "}";
  EXPECT_EQ(parameters_of(cfg), 121'566'352u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(find_tensor(t, "timesformer.embeddings.time_embeddings")->shape, Shape({1, 8, 768}));
  EXPECT_EQ(find_tensor(t, "timesformer.encoder.layer.0.attention.attention.qkv.weight")->shape,
            Shape({2304, 768}));
  EXPECT_EQ(tensor_index(t, "timesformer.encoder.layer.0.layernorm_after.bias") + 1,
            tensor_index(t, "timesformer.encoder.layer.0.temporal_layernorm.weight"));
  EXPECT_EQ(find_tensor(t, "timesformer.encoder.layer.0.temporal_dense.weight")->shape, Shape({768, 768}));
  expect_every_tensor_placed(t);
  // space_only: no time embeddings nor temporal modules; 85,778,698 for 10 classes, bias-free qkv.
  EXPECT_EQ(
      parameters_of(R"({"model_type":"timesformer","architectures":["TimesformerForVideoClassification"],)"
                    R"("attention_type":"space_only","num_labels":10,"qkv_bias":false})"),
      85'778'698u);
  EXPECT_EQ(refusal_of(R"({"model_type":"timesformer","attention_type":"axial"})").field, "attention_type");
}

}  // namespace
}  // namespace ma::test
