// LeViT, CvT, FocalNet, PVT and GLPN (group vision_hier_b): templates against what transformers builds.
// Totals were counted by torch mirrors of each transformers class's module construction (same module names
// and registration order; /tmp/impl/vision_hier_b/verify: torch_levit.py, torch_cvt.py, torch_focalnet.py,
// torch_pvt.py, torch_glpn.py), their state_dict keys and shapes compared in order with the templates', and
// against the model cards' sizes. Configs are the Hub repositories' fields that size the model.
#include <gtest/gtest.h>

#include <string>

#include "core/dtype.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/levit-128S: LevitForImageClassificationWithTeacher over 224-pixel images.
const std::string kLevit128S =
    R"({"model_type":"levit","architectures":["LevitForImageClassificationWithTeacher"],)"
    R"("hidden_sizes":[128,256,384],"num_attention_heads":[4,6,8],"depths":[2,3,4],"key_dim":[16,16,16],)"
    R"("mlp_ratio":[2,2,2],"attention_ratio":[2,2,2],"image_size":224,"num_labels":1000})";

// The LeViT paper's (and model card's) 7.8M for LeViT-128S; the transformers class has 7,777,058.
TEST(Levit, Levit128SMatchesThePaper) {
  EXPECT_EQ(parameters_of(kLevit128S), 7'777'058u);
  // facebook/levit-256 (the paper's 18.9M).
  EXPECT_EQ(
      parameters_of(R"({"model_type":"levit","architectures":["LevitForImageClassificationWithTeacher"],)"
                    R"("hidden_sizes":[256,384,512],"num_attention_heads":[4,6,8],"depths":[4,4,4],)"
                    R"("key_dim":[32,32,32],"num_labels":1000})"),
      18'893'876u);
  // LevitConfig's defaults as a bare LevitModel.
  EXPECT_EQ(total_of(template_of(R"({"model_type":"levit"})")), 8'442'400u);
}

TEST(Levit, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kLevit128S);
  EXPECT_EQ(t.arch.architecture, "LevitForImageClassificationWithTeacher");
  EXPECT_EQ(t.arch.num_layers, 9u);
  EXPECT_EQ(t.arch.hidden_size, 384u);
  // The stem: four strided convs to 1/8, 1/4, 1/2 and all of hidden_sizes[0], each with a BatchNorm.
  EXPECT_EQ(find_tensor(t, "levit.patch_embeddings.embedding_layer_1.convolution.weight")->shape,
            (Shape{16, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "levit.patch_embeddings.embedding_layer_4.batch_norm.running_var")->kind,
            TensorKind::Buffer);
  // An attention layer's own bias table and its int64 index come before its linears (state_dict order);
  // 14 x 14 tokens make 196 offsets.
  const std::string a = "levit.encoder.stages.0.layers.0.module.";
  EXPECT_EQ(find_tensor(t, a + "attention_biases")->shape, (Shape{4, 196}));
  const TemplateTensor* index = find_tensor(t, a + "attention_bias_idxs");
  EXPECT_EQ(index->kind, TensorKind::Buffer);
  EXPECT_EQ(index->shape, (Shape{196, 196}));
  ASSERT_EQ(index->disk.size(), 1u);
  EXPECT_EQ(index->disk[0].dtype, DType::I64);
  EXPECT_LT(tensor_index(t, a + "attention_bias_idxs"),
            tensor_index(t, a + "queries_keys_values.linear.weight"));
  // qkv: key_dim * heads for queries and keys, attention_ratio times that for values; no bias, a BatchNorm.
  EXPECT_EQ(find_tensor(t, a + "queries_keys_values.linear.weight")->shape, (Shape{256, 128}));
  EXPECT_EQ(find_tensor(t, a + "queries_keys_values.linear.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, a + "projection.linear.weight")->shape, (Shape{128, 128}));
  // After stage 0's two attention + MLP pairs, the subsampling attention (not residual: no `module.`):
  // 128 // 16 = 8 heads, attention ratio 4, queries on the 7 x 7 grid, keys on the 14 x 14 one.
  const std::string s = "levit.encoder.stages.0.layers.4.";
  EXPECT_EQ(find_tensor(t, s + "attention_biases")->shape, (Shape{8, 196}));
  EXPECT_EQ(find_tensor(t, s + "attention_bias_idxs")->shape, (Shape{49, 196}));
  EXPECT_EQ(find_tensor(t, s + "keys_values.linear.weight")->shape, (Shape{640, 128}));
  EXPECT_EQ(find_tensor(t, s + "queries.linear.weight")->shape, (Shape{128, 128}));
  EXPECT_EQ(find_tensor(t, s + "projection.linear.weight")->shape, (Shape{256, 512}));
  EXPECT_EQ(find_tensor(t, "levit.encoder.stages.0.layers.5.module.linear_up.linear.weight")->shape,
            (Shape{512, 256}));
  // Stage 1 subsamples 7 x 7 to 4 x 4 with stride 2: the offsets |2q - k| take 7 values a side.
  EXPECT_EQ(find_tensor(t, "levit.encoder.stages.1.layers.6.attention_biases")->shape, (Shape{16, 49}));
  EXPECT_EQ(find_tensor(t, "levit.encoder.stages.2.layers.0.module.attention_biases")->shape, (Shape{8, 16}));
  // The last stage does not subsample.
  EXPECT_EQ(find_tensor(t, "levit.encoder.stages.2.layers.8"), nullptr);
  EXPECT_EQ(find_tensor(t, "levit.encoder.stages.2.layers.7.module.linear_down.linear.weight")->shape,
            (Shape{384, 768}));
  // Two classifiers, each a BatchNorm1d then a Linear.
  EXPECT_EQ(find_tensor(t, "classifier.linear.weight")->shape, (Shape{1000, 384}));
  EXPECT_EQ(find_tensor(t, "classifier_distill.batch_norm.num_batches_tracked")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "classifier_distill.linear.bias")->shape, (Shape{1000}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(a + "attention_biases").block, Block::Attention);
  EXPECT_EQ(place_tensor("classifier_distill.linear.weight").block, Block::LmHead);
}

TEST(Levit, ZeroMlpRatioDropsTheStageMlps) {
  const ModelTemplate t =
      template_of(replaced(kLevit128S, R"("mlp_ratio":[2,2,2])", R"("mlp_ratio":[0,2,2])"));
  // Stage 0: two attention layers, then the subsampling attention and its MLP (down_ops' ratio 2 stays).
  EXPECT_NE(find_tensor(t, "levit.encoder.stages.0.layers.1.module.attention_biases"), nullptr);
  EXPECT_NE(find_tensor(t, "levit.encoder.stages.0.layers.2.keys_values.linear.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "levit.encoder.stages.0.layers.3.module.linear_up.linear.weight"), nullptr);
}

TEST(Levit, Refusals) {
  // LevitConfig defines two subsamplings; the encoder indexes them by stage (IndexError for a fourth).
  EXPECT_EQ(refusal_of(R"({"model_type":"levit","depths":[1,1,1,1],"hidden_sizes":[8,16,24,32],)"
                       R"("num_attention_heads":[1,1,1,1],"key_dim":[8,8,8,8],"mlp_ratio":[2,2,2,2],)"
                       R"("attention_ratio":[2,2,2,2]})")
                .field,
            "depths");
  EXPECT_EQ(refusal_of(R"({"model_type":"levit","num_attention_heads":[4,8]})").field, "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"levit","architectures":["LevitForMaskedImageModeling"]})").kind,
            ErrorKind::Unsupported);
}

// microsoft/cvt-13: CvtConfig's defaults.
const std::string kCvt13 =
    R"({"model_type":"cvt","architectures":["CvtForImageClassification"],"num_labels":1000})";

// The CvT paper's 20M for CvT-13 (transformers: 19,997,480); CvT-21 32M (31,622,696); CvT-W24 277M.
TEST(Cvt, SizesMatchThePaper) {
  EXPECT_EQ(parameters_of(kCvt13), 19'997'480u);
  EXPECT_EQ(parameters_of(replaced(kCvt13, R"("num_labels")", R"("depth":[1,4,16],"num_labels")")),
            31'622'696u);
  EXPECT_EQ(parameters_of(replaced(kCvt13, R"("num_labels")",
                                   R"("depth":[2,2,20],"embed_dim":[192,768,1024],"num_heads":[3,12,16],)"
                                   R"("num_labels")")),
            277'196'392u);
}

TEST(Cvt, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kCvt13);
  EXPECT_EQ(t.arch.num_layers, 13u);
  EXPECT_EQ(t.arch.hidden_size, 384u);
  // Only the last stage has a class token, shaped by the last stage's width, before its embedding.
  EXPECT_EQ(find_tensor(t, "cvt.encoder.stages.0.cls_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "cvt.encoder.stages.2.cls_token")->shape, (Shape{1, 1, 384}));
  EXPECT_LT(tensor_index(t, "cvt.encoder.stages.2.cls_token"),
            tensor_index(t, "cvt.encoder.stages.2.embedding.convolution_embeddings.projection.weight"));
  EXPECT_EQ(find_tensor(t, "cvt.encoder.stages.1.embedding.convolution_embeddings.projection.weight")->shape,
            (Shape{192, 64, 3, 3}));
  // dw_bn: a depthwise, bias-free conv and a BatchNorm ahead of each of the query, key and value linears.
  const std::string a = "cvt.encoder.stages.2.layers.9.attention.attention.";
  EXPECT_EQ(find_tensor(t, a + "convolution_projection_key.convolution_projection.convolution.weight")->shape,
            (Shape{384, 1, 3, 3}));
  EXPECT_EQ(
      find_tensor(t, a + "convolution_projection_value.convolution_projection.normalization.running_mean")
          ->kind,
      TensorKind::Buffer);
  EXPECT_LT(tensor_index(t, a + "convolution_projection_value.convolution_projection.convolution.weight"),
            tensor_index(t, a + "projection_query.weight"));
  EXPECT_EQ(find_tensor(t, a + "projection_value.bias")->shape, (Shape{384}));
  EXPECT_EQ(find_tensor(t, "cvt.encoder.stages.2.layers.9.intermediate.dense.weight")->shape,
            (Shape{1536, 384}));
  EXPECT_EQ(find_tensor(t, "layernorm.weight")->shape, (Shape{384}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 384}));
  expect_every_tensor_placed(t);
}

TEST(Cvt, VariantsOfTheProjections) {
  // "avg" has no conv projections; qkv_bias false drops the linears' biases.
  const ModelTemplate t = template_of(
      R"({"model_type":"cvt","architectures":["CvtModel"],"qkv_projection_method":["avg","dw_bn","dw_bn"],)"
      R"("qkv_bias":[false,true,true]})");
  const std::string a = "encoder.stages.0.layers.0.attention.attention.";
  EXPECT_EQ(find_tensor(t, a + "convolution_projection_query.convolution_projection.convolution.weight"),
            nullptr);
  EXPECT_EQ(find_tensor(t, a + "projection_key.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "encoder.stages.1.layers.0.attention.attention.projection_key.bias"), nullptr);
}

TEST(Cvt, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"cvt","embed_dim":[64,192]})").field, "embed_dim");
  EXPECT_EQ(refusal_of(R"({"model_type":"cvt","qkv_bias":[true,"yes",true]})").field, "qkv_bias");
  // CvtStage indexes its drop-path rates by the stage: stage 1 needs two layers (IndexError otherwise).
  EXPECT_EQ(refusal_of(R"({"model_type":"cvt","depth":[1,1,10]})").field, "depth");
}

// microsoft/focalnet-tiny: FocalNetConfig's defaults.
const std::string kFocalnetTiny =
    R"({"model_type":"focalnet","architectures":["FocalNetForImageClassification"],"num_labels":1000})";

// The FocalNet paper's 28.4M for FocalNet-T (SRF) and 88.7M for FocalNet-B (LRF); transformers' classes have
// 28,427,116 and 88,749,768.
TEST(Focalnet, SizesMatchThePaper) {
  EXPECT_EQ(parameters_of(kFocalnetTiny), 28'427'116u);
  EXPECT_EQ(
      parameters_of(replaced(kFocalnetTiny, R"("num_labels")",
                             R"("embed_dim":128,"depths":[2,2,18,2],"focal_levels":[3,3,3,3],"num_labels")")),
      88'749'768u);
}

// microsoft/focalnet-large-fl4: conv embeddings, layer scale, post layer norm, 21,841 + 1 labels.
TEST(Focalnet, LargeFl4ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(
      R"({"model_type":"focalnet","architectures":["FocalNetForImageClassification"],"embed_dim":192,)"
      R"("depths":[2,2,18,2],"focal_levels":[4,4,4,4],"focal_windows":[3,3,3,3],"use_conv_embed":true,)"
      R"("use_layerscale":true,"use_post_layernorm":true,"num_labels":21842})");
  EXPECT_EQ(total_of(t), 239'315'402u);
  EXPECT_EQ(t.arch.num_layers, 24u);
  EXPECT_EQ(t.arch.hidden_size, 1536u);
  EXPECT_EQ(find_tensor(t, "focalnet.embeddings.patch_embeddings.projection.weight")->shape,
            (Shape{192, 3, 7, 7}));
  const std::string l = "focalnet.encoder.stages.2.layers.17.";
  // The layer's own gamma_1 / gamma_2 come before its modules.
  EXPECT_LT(tensor_index(t, l + "gamma_2"), tensor_index(t, l + "norm1.weight"));
  EXPECT_EQ(find_tensor(t, l + "modulation.projection_in.weight")->shape, (Shape{2 * 768 + 5, 768}));
  EXPECT_EQ(find_tensor(t, l + "modulation.projection_context.weight")->shape, (Shape{768, 768, 1, 1}));
  // Kernels 2k + focal_window: 3, 5, 7, 9.
  EXPECT_EQ(find_tensor(t, l + "modulation.focal_layers.3.0.weight")->shape, (Shape{768, 1, 9, 9}));
  EXPECT_EQ(find_tensor(t, l + "modulation.focal_layers.3.0.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "modulation.layernorm.weight"), nullptr);
  // Downsampling with use_conv_embed: a 3 x 3 conv and a LayerNorm; none after the last stage.
  EXPECT_EQ(find_tensor(t, "focalnet.encoder.stages.2.downsample.projection.weight")->shape,
            (Shape{1536, 768, 3, 3}));
  EXPECT_EQ(find_tensor(t, "focalnet.encoder.stages.3.downsample.projection.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{21842, 1536}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(l + "modulation.focal_layers.0.0.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("focalnet.encoder.stages.0.downsample.projection.weight").block, Block::Embedding);
}

TEST(Focalnet, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"focalnet","focal_levels":[2,2,2]})").field, "focal_levels");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"focalnet","architectures":["FocalNetForMaskedImageModeling"]})").kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"focalnet","architectures":["FocalNetBackbone"]})").kind,
            ErrorKind::Unsupported);
}

// Xrenya/pvt-tiny-224: PvtConfig's defaults (its config.json leaves num_labels out: PvtConfig's own default
// is 1000).
const std::string kPvtTiny = R"({"model_type":"pvt","architectures":["PvtForImageClassification"]})";

// The PVT paper's 13.2M for PVT-Tiny and 61.4M for PVT-Large; transformers' classes have 13,229,288 and
// 61,369,320.
TEST(Pvt, SizesMatchThePaper) {
  EXPECT_EQ(parameters_of(kPvtTiny), 13'229'288u);
  EXPECT_EQ(parameters_of(R"({"model_type":"pvt","architectures":["PvtForImageClassification"],)"
                          R"("depths":[3,8,27,3],"num_labels":1000})"),
            61'369'320u);
}

TEST(Pvt, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kPvtTiny);
  EXPECT_EQ(t.arch.num_layers, 8u);
  EXPECT_EQ(t.arch.hidden_size, 512u);
  // Each stage's position table covers its grid: 56 x 56 patches of 4 pixels, then 224 // 2^(i+1) pixels in
  // patches of 2; the last stage adds its class token's row and the class token.
  EXPECT_EQ(find_tensor(t, "pvt.encoder.patch_embeddings.0.position_embeddings")->shape,
            (Shape{1, 3136, 64}));
  EXPECT_EQ(find_tensor(t, "pvt.encoder.patch_embeddings.1.position_embeddings")->shape,
            (Shape{1, 784, 128}));
  EXPECT_EQ(find_tensor(t, "pvt.encoder.patch_embeddings.3.position_embeddings")->shape, (Shape{1, 50, 512}));
  EXPECT_EQ(find_tensor(t, "pvt.encoder.patch_embeddings.3.cls_token")->shape, (Shape{1, 1, 512}));
  EXPECT_EQ(find_tensor(t, "pvt.encoder.patch_embeddings.2.cls_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "pvt.encoder.patch_embeddings.1.projection.weight")->shape,
            (Shape{128, 64, 2, 2}));
  // All patch embeddings, then all blocks, then the one LayerNorm.
  EXPECT_LT(tensor_index(t, "pvt.encoder.patch_embeddings.3.layer_norm.bias"),
            tensor_index(t, "pvt.encoder.block.0.0.layer_norm_1.weight"));
  // The reduction conv (kernel and stride sr) and its norm, only where sr > 1.
  EXPECT_EQ(find_tensor(t, "pvt.encoder.block.0.1.attention.self.sr.weight")->shape, (Shape{64, 64, 8, 8}));
  EXPECT_EQ(find_tensor(t, "pvt.encoder.block.3.1.attention.self.sr.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "pvt.encoder.block.0.1.mlp.dense1.weight")->shape, (Shape{512, 64}));
  EXPECT_EQ(find_tensor(t, "pvt.encoder.layer_norm.weight")->shape, (Shape{512}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 512}));
  expect_every_tensor_placed(t);
}

TEST(Pvt, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"pvt","hidden_sizes":[64,128,320]})").field, "hidden_sizes");
  // PvtEfficientSelfAttention raises unless the heads divide the stage's width.
  EXPECT_EQ(refusal_of(R"({"model_type":"pvt","num_attention_heads":[3,2,5,8]})").field,
            "num_attention_heads");
}

// vinvino02/glpn-kitti: MiT-b4's stages, a 64-channel decoder.
const std::string kGlpnKitti =
    R"({"model_type":"glpn","architectures":["GLPNForDepthEstimation"],"depths":[3,8,27,3],)"
    R"("hidden_sizes":[64,128,320,512],"num_attention_heads":[1,2,5,8],"mlp_ratios":[4,4,4,4],)"
    R"("sr_ratios":[8,4,2,1],"decoder_hidden_size":64,"max_depth":80})";

// The GLPN paper's 61M for the KITTI model; transformers' GLPNForDepthEstimation has 61,220,903.
TEST(Glpn, KittiMatchesThePaper) {
  EXPECT_EQ(parameters_of(kGlpnKitti), 61'220'903u);
  // GLPNConfig's defaults (MiT-b0's stages) as a bare GLPNModel: SegFormer's encoder alone.
  EXPECT_EQ(total_of(template_of(R"({"model_type":"glpn"})")), 3'319'392u);
}

TEST(Glpn, DecoderAsTransformersRegistersIt) {
  const ModelTemplate t = template_of(kGlpnKitti);
  EXPECT_EQ(t.arch.num_layers, 41u);
  // SegFormer's encoder under glpn.
  EXPECT_EQ(find_tensor(t, "glpn.encoder.patch_embeddings.0.proj.weight")->shape, (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "glpn.encoder.block.3.2.mlp.dwconv.dwconv.weight")->shape, (Shape{2048, 1, 3, 3}));
  // Decoder stages run from the last encoder stage; the first has no fusion, and a stage whose width is
  // decoder_hidden_size no 1 x 1 conv.
  EXPECT_EQ(find_tensor(t, "decoder.stages.0.convolution.weight")->shape, (Shape{64, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, "decoder.stages.0.fusion.convolutional_layer1.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.stages.3.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.stages.1.fusion.convolutional_layer1.0.weight")->shape,
            (Shape{64, 128, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decoder.stages.1.fusion.convolutional_layer2.1.running_var")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "decoder.stages.3.fusion.convolutional_layer3.weight")->shape,
            (Shape{2, 32, 3, 3}));
  EXPECT_EQ(find_tensor(t, "head.head.2.weight")->shape, (Shape{1, 64, 3, 3}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("decoder.stages.2.fusion.convolutional_layer1.1.weight").block, Block::LmHead);
}

TEST(Glpn, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"glpn","hidden_sizes":[32,64,160]})").field, "hidden_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"glpn","architectures":["GLPNForImageClassification"]})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
