// Hiera, V-JEPA 2 and SwiftFormer (group vision_d): templates against what transformers builds. Totals were
// counted by torch mirrors of each transformers class's module construction (same module names and
// registration order; /tmp/impl/vision_d/verify/replica.py, read from modeling_hiera.py @01ae98ae,
// modeling_vjepa2.py @51631f00, modeling_swiftformer.py @7d303f3b), their state_dict keys, shapes and order
// compared with the templates', and against the papers' and model cards' sizes.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// MBZUAI/swiftformer-xs: SwiftFormerConfig's defaults, with the ImageNet head.
const std::string kSwiftFormerXs =
    R"({"model_type":"swiftformer","architectures":["SwiftFormerForImageClassification"],)"
    R"("depths":[3,3,6,4],"embed_dims":[48,56,112,220],"num_labels":1000})";

std::string vision_d_swiftformer(const std::string& depths, const std::string& dims) {
  return R"({"model_type":"swiftformer","architectures":["SwiftFormerForImageClassification"],"depths":)" +
         depths + R"(,"embed_dims":)" + dims + R"(,"num_labels":1000})";
}

// The SwiftFormer paper's (Shaker et al., 2023, Table 2) 3.5M, 6.1M, 12.1M and 28.5M, with both heads.
TEST(SwiftFormer, SizesMatchThePaper) {
  EXPECT_EQ(parameters_of(kSwiftFormerXs), 3'475'360u);
  EXPECT_EQ(parameters_of(vision_d_swiftformer("[3,3,9,6]", "[48,64,168,224]")), 6'092'128u);
  EXPECT_EQ(parameters_of(vision_d_swiftformer("[4,3,10,5]", "[48,96,192,384]")), 12'057'920u);
  EXPECT_EQ(parameters_of(vision_d_swiftformer("[4,4,12,6]", "[64,128,320,512]")), 28'494'736u);
  // The bare SwiftFormerModel of the defaults: no norm, head or dist_head.
  EXPECT_EQ(total_of(template_of(R"({"model_type":"swiftformer"})")), 3'032'920u);
}

TEST(SwiftFormer, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kSwiftFormerXs);
  EXPECT_EQ(t.arch.architecture, "SwiftFormerForImageClassification");
  EXPECT_EQ(t.arch.num_layers, 16u);
  EXPECT_EQ(t.arch.hidden_size, 220u);
  // The stem: a conv to half the first width, its BatchNorm (statistics as buffers), a ReLU, a conv, a norm.
  EXPECT_EQ(find_tensor(t, "swiftformer.patch_embed.patch_embedding.0.weight")->shape, (Shape{24, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "swiftformer.patch_embed.patch_embedding.1.running_var")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "swiftformer.patch_embed.patch_embedding.3.weight")->shape, (Shape{48, 24, 3, 3}));
  // network: stage 0, downsampling, stage 1, ...: the stages sit at even entries.
  const std::string conv = "swiftformer.encoder.network.0.blocks.0.";
  EXPECT_EQ(find_tensor(t, conv + "layer_scale")->shape, (Shape{48, 1, 1}));
  EXPECT_LT(tensor_index(t, conv + "layer_scale"), tensor_index(t, conv + "depth_wise_conv.weight"));
  EXPECT_EQ(find_tensor(t, conv + "depth_wise_conv.weight")->shape, (Shape{48, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, conv + "point_wise_conv1.weight")->shape, (Shape{192, 48, 1, 1}));
  // A stage's last block attends: the layer scales, the local representation (no expansion), w_g first.
  const std::string attn = "swiftformer.encoder.network.6.blocks.3.";
  EXPECT_EQ(find_tensor(t, attn + "layer_scale_1")->shape, (Shape{220, 1, 1}));
  EXPECT_EQ(find_tensor(t, attn + "local_representation.point_wise_conv1.weight")->shape,
            (Shape{220, 220, 1, 1}));
  EXPECT_EQ(find_tensor(t, attn + "attn.w_g")->shape, (Shape{220, 1}));
  EXPECT_LT(tensor_index(t, attn + "attn.w_g"), tensor_index(t, attn + "attn.to_query.weight"));
  EXPECT_EQ(find_tensor(t, attn + "linear.fc1.weight")->shape, (Shape{880, 220, 1, 1}));
  EXPECT_EQ(find_tensor(t, "swiftformer.encoder.network.5.proj.weight")->shape, (Shape{220, 112, 3, 3}));
  EXPECT_EQ(find_tensor(t, "swiftformer.encoder.network.7"), nullptr);
  EXPECT_EQ(find_tensor(t, "dist_head.weight")->shape, (Shape{1000, 220}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("dist_head.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("swiftformer.patch_embed.patch_embedding.0.weight").block, Block::Embedding);
  EXPECT_FALSE(place_tensor("swiftformer.patch_embed.patch_embedding.4.running_mean").layer.has_value());
  EXPECT_EQ(place_tensor("swiftformer.encoder.network.5.proj.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor(conv + "point_wise_conv2.weight").block, Block::Mlp);
  expect_reads_cleanly(kSwiftFormerXs);
}

TEST(SwiftFormer, NoDownsamplingBetweenEqualWidths) {
  // SwiftFormerEncoder adds the embeddings between two stages only when asked to or when the width changes:
  // here after stage 1 alone (56 -> 112).
  const ModelTemplate t = template_of(
      R"({"model_type":"swiftformer","downsamples":[false,false,false,false],"embed_dims":[56,56,112,112]})");
  EXPECT_NE(find_tensor(t, "encoder.network.1.blocks.0.layer_scale"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.network.2.proj.weight")->shape, (Shape{112, 56, 3, 3}));
  EXPECT_NE(find_tensor(t, "encoder.network.4.blocks.3.attn.w_g"), nullptr);
}

TEST(SwiftFormer, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"swiftformer","embed_dims":[48,56]})").field, "embed_dims");
  EXPECT_EQ(refusal_of(R"({"model_type":"swiftformer","downsamples":[true,true]})").field, "downsamples");
  EXPECT_EQ(refusal_of(R"({"model_type":"swiftformer","downsamples":[true,1,true]})").field, "downsamples");
}

// facebook/hiera-tiny-224-in1k-hf: HieraConfig's defaults but [1, 2, 7, 2] layers, with the ImageNet head.
const std::string kHieraTiny =
    R"({"model_type":"hiera","architectures":["HieraForImageClassification"],"embed_dim":96,)"
    R"("depths":[1,2,7,2],"num_heads":[1,2,4,8],"num_labels":1000})";

// The model cards' 27.9M (Hiera-T) and 51.5M (Hiera-B, HieraConfig's defaults).
TEST(Hiera, SizesMatchTheModelCards) {
  EXPECT_EQ(parameters_of(kHieraTiny), 27'910'216u);
  EXPECT_EQ(parameters_of(replaced(kHieraTiny, "[1,2,7,2]", "[2,3,16,3]")), 51'524'968u);
  // HieraModel: the pooler's LayerNorm, no classifier.
  EXPECT_EQ(total_of(template_of(R"({"model_type":"hiera","depths":[1,2,7,2]})")), 27'141'216u);
}

TEST(Hiera, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kHieraTiny);
  EXPECT_EQ(t.arch.num_layers, 12u);
  EXPECT_EQ(t.arch.hidden_size, 768u);
  // The embeddings' own position table (56 x 56 tokens) precedes the 7 x 7 patch conv.
  EXPECT_EQ(find_tensor(t, "hiera.embeddings.position_embeddings")->shape, (Shape{1, 3136, 96}));
  EXPECT_EQ(tensor_index(t, "hiera.embeddings.position_embeddings"), 0u);
  EXPECT_EQ(find_tensor(t, "hiera.embeddings.patch_embeddings.projection.weight")->shape,
            (Shape{96, 3, 7, 7}));
  // A stage's first layer widens in its attention; its residual projection is registered last.
  const std::string l = "hiera.encoder.stages.1.layers.0.";
  EXPECT_EQ(find_tensor(t, l + "layernorm_before.weight")->shape, (Shape{96}));
  EXPECT_EQ(find_tensor(t, l + "attn.qkv.weight")->shape, (Shape{576, 96}));
  EXPECT_EQ(find_tensor(t, l + "attn.proj.weight")->shape, (Shape{192, 192}));
  EXPECT_EQ(find_tensor(t, l + "proj.weight")->shape, (Shape{192, 96}));
  EXPECT_LT(tensor_index(t, l + "mlp.fc2.bias"), tensor_index(t, l + "proj.weight"));
  EXPECT_EQ(find_tensor(t, "hiera.encoder.stages.1.layers.1.proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "hiera.encoder.stages.0.layers.0.proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "hiera.pooler.layernorm.weight")->shape, (Shape{768}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 768}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(l + "proj.weight").block, Block::Attention);
  expect_reads_cleanly(kHieraTiny);
}

TEST(Hiera, Refusals) {
  // HieraConfig raises unless num_query_pool is below the number of stages.
  EXPECT_EQ(refusal_of(R"({"model_type":"hiera","num_query_pool":4})").field, "num_query_pool");
  EXPECT_EQ(refusal_of(R"({"model_type":"hiera","num_heads":[1,2]})").field, "num_heads");
  // The MAE pre-training model (decoder and multi-scale fusion) is not modelled.
  EXPECT_EQ(refusal_of(R"({"model_type":"hiera","architectures":["HieraForPreTraining"]})").kind,
            ErrorKind::Unsupported);
}

// facebook/vjepa2-vitl-fpc64-256: VJEPA2Config's defaults.
const std::string kVjepa2Large = R"({"model_type":"vjepa2","architectures":["VJEPA2Model"]})";

// The V-JEPA 2 paper's ViT-L (300M: 303,885,312 in the encoder) and its predictor (22,086,016): VJEPA2Model
// builds both. The paper's ViT-g layout (40 layers of 1,408 with 22 heads, mlp_ratio 48/11) makes its 1B.
TEST(Vjepa2, EncoderAndPredictor) {
  EXPECT_EQ(parameters_of(kVjepa2Large), 325'971'328u);
  EXPECT_EQ(parameters_of(R"({"model_type":"vjepa2","hidden_size":1408,"num_attention_heads":22,)"
                          R"("num_hidden_layers":40,"mlp_ratio":4.363636363636363})"),
            1'034'555'264u);
  const ModelTemplate t = template_of(kVjepa2Large);
  uint64_t encoder = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.name.starts_with("encoder.")) encoder += numel(x.shape);
  EXPECT_EQ(encoder, 303'885'312u);
  EXPECT_EQ(find_tensor(t, "encoder.embeddings.patch_embeddings.proj.weight")->shape,
            (Shape{1024, 3, 2, 16, 16}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.23.attention.query.bias")->shape, (Shape{1024}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.mlp.fc1.weight")->shape, (Shape{4096, 1024}));
  // The predictor's mask tokens (its embeddings' own parameter) come before its Linear into 384.
  EXPECT_EQ(find_tensor(t, "predictor.embeddings.mask_tokens")->shape, (Shape{10, 1, 1, 384}));
  EXPECT_LT(tensor_index(t, "predictor.embeddings.mask_tokens"),
            tensor_index(t, "predictor.embeddings.predictor_embeddings.weight"));
  EXPECT_EQ(find_tensor(t, "predictor.layer.11.mlp.fc2.weight")->shape, (Shape{384, 1536}));
  EXPECT_EQ(find_tensor(t, "predictor.proj.weight")->shape, (Shape{1024, 384}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("predictor.proj.weight").block, Block::LmHead);
  // qkv_bias false drops the query, key and value biases of both stacks, never proj's.
  const ModelTemplate nb = template_of(R"({"model_type":"vjepa2","qkv_bias":false})");
  EXPECT_EQ(find_tensor(nb, "predictor.layer.0.attention.key.bias"), nullptr);
  EXPECT_NE(find_tensor(nb, "predictor.layer.0.attention.proj.bias"), nullptr);
}

// facebook/vjepa2-vitl-fpc16-256-ssv2: the attentive probe over Something-Something v2's 174 classes.
TEST(Vjepa2, VideoClassifier) {
  const std::string ssv2 = R"({"model_type":"vjepa2","architectures":["VJEPA2ForVideoClassification"],)"
                           R"("frames_per_clip":16,"num_labels":174})";
  EXPECT_EQ(parameters_of(ssv2), 375'485'998u);
  const ModelTemplate t = template_of(ssv2);
  EXPECT_NE(find_tensor(t, "vjepa2.predictor.proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "pooler.query_tokens")->shape, (Shape{1, 1, 1024}));
  // The cross-attention layer has no output projection; keys and values are registered before queries.
  EXPECT_EQ(find_tensor(t, "pooler.cross_attention_layer.cross_attn.out_proj.weight"), nullptr);
  EXPECT_LT(tensor_index(t, "pooler.cross_attention_layer.cross_attn.v_proj.weight"),
            tensor_index(t, "pooler.cross_attention_layer.cross_attn.q_proj.weight"));
  EXPECT_NE(find_tensor(t, "pooler.self_attention_layers.2.self_attn.out_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{174, 1024}));
  expect_every_tensor_placed(t);
  expect_reads_cleanly(ssv2);
}

TEST(Vjepa2, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"vjepa2","hidden_size":1000})").field, "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"vjepa2","pred_num_attention_heads":7})").field,
            "pred_num_attention_heads");
}

}  // namespace
}  // namespace ma::test
