// The ViT relatives (model/families/vit_relatives.h): BEiT in transformers 5's layout and data2vec-vision in
// transformers 4's, ViT-MAE with its pixel decoder, ViT-MSN, I-JEPA and DINOv2 with registers. Expected
// totals are the published sizes where a model card gives one, else a count of the transformers classes
// (their module construction mirrored on torch's meta device, helper verification, vit_relatives/verify).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// The field a refused config names; empty when the config builds.
std::string refused_field(const std::string& config_json) {
  try {
    template_of(config_json);
  } catch (const Error& e) {
    return e.field();
  }
  return "";
}

// microsoft/beit-base-patch16-224's shape: a relative position bias table per layer, layer scales, mean
// pooling, 1,000 ImageNet classes.
const std::string kBeitBase224 =
    R"({"model_type":"beit","architectures":["BeitForImageClassification"],"use_relative_position_bias":true,)"
    R"("use_mean_pooling":true,"layer_scale_init_value":0.1,"num_labels":1000})";

// 86,530,984: the model card's 86.5M. Per layer 12H^2 + 13H biases and norms less the key's bias, two layer
// scales and a 732 x 12 table ((2 x 14 - 1)^2 + 3 offsets); the pooler's LayerNorm; no final LayerNorm
// under mean pooling.
TEST(Beit, Base224ClassifierCountAndLayout) {
  EXPECT_EQ(parameters_of(kBeitBase224), 86'530'984u);
  const ModelTemplate t = template_of(kBeitBase224);
  EXPECT_EQ(find_tensor(t, "beit.encoder.layer.0.attention.k_proj.bias"), nullptr);  // a bias-free key
  EXPECT_EQ(find_tensor(t, "beit.layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "beit.pooler.layernorm.weight"), nullptr);
  const TemplateTensor* table =
      find_tensor(t, "beit.encoder.layer.3.relative_position_bias.relative_position_bias_table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->shape, Shape({732, 12}));
  // transformers 5 registers the table last in the layer; checkpoints keep it under the attention.
  EXPECT_EQ(tensor_index(t, "beit.encoder.layer.3.mlp.fc2.bias") + 1,
            tensor_index(t, "beit.encoder.layer.3.relative_position_bias.relative_position_bias_table"));
  EXPECT_EQ(stored_name(*table),
            "beit.encoder.layer.3.attention.attention.relative_position_bias.relative_position_bias_table");
  EXPECT_EQ(stored_name(*find_tensor(t, "beit.encoder.layer.0.attention.q_proj.weight")),
            "beit.encoder.layer.0.attention.attention.query.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "beit.encoder.layer.0.mlp.fc1.weight")),
            "beit.encoder.layer.0.intermediate.dense.weight");
  EXPECT_EQ(tensor_index(t, "beit.encoder.layer.0.lambda_1"),
            tensor_index(t, "beit.encoder.layer.0.lambda_2") - 1);
  EXPECT_EQ(tensor_index(t, "beit.encoder.layer.0.lambda_2") + 1,
            tensor_index(t, "beit.encoder.layer.0.attention.q_proj.weight"));
  expect_every_tensor_placed(t);
}

// The pre-training class: a mask token, one table shared by all layers, no pooler, the final LayerNorm
// (no mean pooling) and the head's own LayerNorm before an 8,192-token lm_head. 91,967,312 by the mirrored
// transformers classes.
TEST(Beit, MaskedImageModelingHead) {
  const std::string mim =
      R"({"model_type":"beit","architectures":["BeitForMaskedImageModeling"],"use_mask_token":true,)"
      R"("use_shared_relative_position_bias":true,"use_mean_pooling":false})";
  EXPECT_EQ(parameters_of(mim), 91'967'312u);
  const ModelTemplate t = template_of(mim);
  EXPECT_EQ(find_tensor(t, "beit.encoder.relative_position_bias.relative_position_bias_table")->shape,
            Shape({732, 12}));
  EXPECT_EQ(find_tensor(t, "beit.pooler.layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "beit.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({8192, 768}));
  expect_every_tensor_placed(t);
}

// microsoft/beit-base-finetuned-ade-640-640's shape: 640 pixels (a 2,503 x 12 table per layer), UperNet over
// a four-level pyramid and the FCN auxiliary head, 150 classes: 163,407,980 parameters by the mirrored
// classes; the BatchNorms' running statistics are buffers.
TEST(Beit, SemanticSegmentationHeads) {
  const std::string seg =
      R"({"model_type":"beit","architectures":["BeitForSemanticSegmentation"],"image_size":640,)"
      R"("use_relative_position_bias":true,"num_labels":150})";
  EXPECT_EQ(parameters_of(seg), 163'407'980u);
  const ModelTemplate t = template_of(seg);
  EXPECT_EQ(find_tensor(t, "fpn1.0.weight")->shape, Shape({768, 768, 2, 2}));  // ConvTranspose2d: [in, out]
  EXPECT_EQ(find_tensor(t, "fpn1.1.running_mean")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "decode_head.bottleneck.conv.weight")->shape, Shape({768, 5 * 768, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decode_head.fpn_bottleneck.conv.weight")->shape, Shape({768, 4 * 768, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decode_head.classifier.weight")->shape, Shape({150, 768, 1, 1}));
  EXPECT_EQ(find_tensor(t, "auxiliary_head.convs.0.conv.weight")->shape, Shape({256, 768, 3, 3}));
  EXPECT_EQ(tensor_index(t, "decode_head.classifier.bias") + 1,
            tensor_index(t, "decode_head.psp_modules.0.1.conv.weight"));
  expect_every_tensor_placed(t);
  // BeitForSemanticSegmentation reads exactly four feature maps.
  EXPECT_EQ(refused_field(replaced(seg, R"("num_labels")", R"("out_indices":[3,5,11],"num_labels")")),
            "out_indices");
}

// data2vec-vision kept transformers 4's BEiT modules: attention.attention.query, intermediate / output.dense
// and the table under the attention. facebook/data2vec-vision-base-ft1k's shape counts as BEiT-base's:
// 86,530,984.
TEST(Data2VecVision, KeepsTransformers4Layout) {
  const std::string ft1k =
      R"({"model_type":"data2vec-vision","architectures":["Data2VecVisionForImageClassification"],)"
      R"("use_relative_position_bias":true,"num_labels":1000})";
  EXPECT_EQ(parameters_of(ft1k), 86'530'984u);
  const ModelTemplate t = template_of(ft1k);
  EXPECT_NE(find_tensor(t, "data2vec_vision.encoder.layer.0.attention.attention.query.weight"), nullptr);
  EXPECT_NE(find_tensor(t,
                        "data2vec_vision.encoder.layer.0.attention.attention.relative_position_bias."
                        "relative_position_bias_table"),
            nullptr);
  EXPECT_NE(find_tensor(t, "data2vec_vision.pooler.layernorm.weight"), nullptr);
  expect_every_tensor_placed(t);
  // Data2VecVisionModel is built without a pooler, unlike BeitModel.
  const ModelTemplate bare = template_of(R"({"model_type":"data2vec-vision"})");
  EXPECT_EQ(find_tensor(bare, "pooler.layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(template_of(R"({"model_type":"beit"})"), "pooler.layernorm.weight"), nullptr);
  EXPECT_EQ(
      refused_field(
          R"({"model_type":"data2vec-vision","architectures":["Data2VecVisionForMaskedImageModeling"]})"),
      "architectures");
}

// facebook/vit-mae-base (ViTMAEConfig's defaults) with its decoder: 111,907,840, the 111.9M published for
// ViTMAEForPreTraining; the bare encoder is ViT-base without its pooler.
TEST(VitMae, PreTrainingDecoder) {
  const std::string pre = R"({"model_type":"vit_mae","architectures":["ViTMAEForPreTraining"]})";
  EXPECT_EQ(parameters_of(pre), 111'907'840u);
  EXPECT_EQ(parameters_of(R"({"model_type":"vit_mae"})"), 85'798'656u);
  const ModelTemplate t = template_of(pre);
  EXPECT_EQ(find_tensor(t, "decoder.decoder_pos_embed")->shape, Shape({1, 197, 512}));
  EXPECT_EQ(find_tensor(t, "decoder.decoder_pred.weight")->shape, Shape({768, 512}));  // 16 x 16 x 3 pixels
  EXPECT_EQ(tensor_index(t, "decoder.mask_token") + 2, tensor_index(t, "decoder.decoder_embed.weight"));
  EXPECT_EQ(stored_name(*find_tensor(t, "decoder.decoder_layers.7.attention.o_proj.weight")),
            "decoder.decoder_layers.7.attention.output.dense.weight");
  EXPECT_EQ(find_tensor(t, "vit.pooler.dense.weight"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(refused_field(replaced(pre, R"("architectures")", R"("patch_size":[16,16],"architectures")")),
            "patch_size");
}

// ViT-MSN: ViT without its pooler. facebook/vit-msn-small's widths under a 1,000-class head: 22,050,664 by
// the mirrored classes (21.7M of backbone, the small ViT's).
TEST(VitMsn, SmallClassifier) {
  const std::string small =
      R"({"model_type":"vit_msn","architectures":["ViTMSNForImageClassification"],"hidden_size":384,)"
      R"("num_attention_heads":6,"intermediate_size":1536,"num_labels":1000})";
  EXPECT_EQ(parameters_of(small), 22'050'664u);
  const ModelTemplate t = template_of(small);
  EXPECT_EQ(find_tensor(t, "vit.pooler.dense.weight"), nullptr);
  EXPECT_EQ(stored_name(*find_tensor(t, "vit.layers.0.attention.q_proj.weight")),
            "vit.encoder.layer.0.attention.attention.query.weight");
}

// facebook/ijepa_vith14_1k: ViT-H/14 at 224 pixels without a class token (256 positions) or a pooler:
// 630,762,240.
TEST(IJepa, NoClassTokenNoPooler) {
  const std::string huge =
      R"({"model_type":"ijepa","architectures":["IJepaModel"],"hidden_size":1280,"num_hidden_layers":32,)"
      R"("num_attention_heads":16,"intermediate_size":5120,"patch_size":14,"image_size":224})";
  EXPECT_EQ(parameters_of(huge), 630'762'240u);
  const ModelTemplate t = template_of(huge);
  EXPECT_EQ(find_tensor(t, "embeddings.cls_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings")->shape, Shape({1, 256, 1280}));
  EXPECT_EQ(find_tensor(t, "pooler.dense.weight"), nullptr);
  const ModelTemplate c =
      template_of(R"({"model_type":"ijepa","architectures":["IJepaForImageClassification"]})");
  EXPECT_EQ(find_tensor(c, "classifier.weight")->shape, Shape({2, 768}));  // over the mean patch token
}

// facebook/dinov2-with-registers-base: DINOv2-base (86,580,480) and four 768-wide register tokens,
// 86,583,552, registered after the mask token; the class default patch is 16 (196 patches at 224 pixels).
TEST(Dinov2WithRegisters, RegisterTokens) {
  const std::string base =
      R"({"model_type":"dinov2_with_registers","architectures":["Dinov2WithRegistersModel"],"image_size":518,)"
      R"("patch_size":14,"num_register_tokens":4})";
  EXPECT_EQ(parameters_of(base), 86'583'552u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(find_tensor(t, "embeddings.register_tokens")->shape, Shape({1, 4, 768}));
  EXPECT_EQ(tensor_index(t, "embeddings.mask_token") + 1, tensor_index(t, "embeddings.register_tokens"));
  const ModelTemplate d = template_of(R"({"model_type":"dinov2_with_registers"})");
  EXPECT_EQ(find_tensor(d, "embeddings.position_embeddings")->shape, Shape({1, 197, 768}));
  const ModelTemplate c = template_of(
      R"({"model_type":"dinov2_with_registers","architectures":["Dinov2WithRegistersForImageClassification"]})");
  EXPECT_EQ(find_tensor(c, "classifier.weight")->shape, Shape({2, 1536}));
  EXPECT_NE(find_tensor(c, "dinov2_with_registers.embeddings.register_tokens"), nullptr);
  expect_every_tensor_placed(t);
}

}  // namespace
}  // namespace ma::test
