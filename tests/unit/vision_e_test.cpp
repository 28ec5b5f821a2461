// DiNAT (dinat), Swin2SR (swin2sr), HGNetV2 (hgnet_v2) and TextNet (textnet): templates against what
// transformers builds. Totals were counted by an independent torch mirror of the classes' module construction
// on the meta device (modeling_dinat.py at 7e4ddcc; modular_swin2sr.py at bc21d08, whose layers are
// Swinv2Layer, written with transformers 4's module names; modeling_hgnet_v2.py at e780102;
// modeling_textnet.py at ae005ce;
// /tmp/impl/vision_e/verify/count_transformers.py, compare_out.txt: DiNAT's, HGNetV2's and TextNet's names,
// shapes and order identical, Swin2SR's stored names and shapes identical) and checked against the DiNAT
// paper's figures (Hassani & Shi, 2022, table 2: DiNAT-Mini 20M, Tiny 28M, Small 51M, Base 90M parameters).
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// shi-labs/dinat-mini-in1k-224's shape fields (1,000 ImageNet labels).
constexpr const char* kDinatMini =
    R"({"model_type":"dinat","architectures":["DinatForImageClassification"],"embed_dim":64,
    "depths":[3,4,6,5],"num_heads":[2,4,8,16],"kernel_size":7,"mlp_ratio":3.0,"patch_size":4,
    "dilations":[[1,8,1],[1,4,1,4],[1,2,1,2,1,2],[1,1,1,1,1]],"layer_scale_init_value":0.0,
    "num_labels":1000})";

// shi-labs/dinat-small-in1k-224's: 96 wide, 18 layers in the third stage, MLP ratio 2, layer scales.
constexpr const char* kDinatSmall =
    R"({"model_type":"dinat","architectures":["DinatForImageClassification"],"embed_dim":96,
    "depths":[3,4,18,5],"num_heads":[3,6,12,24],"kernel_size":7,"mlp_ratio":2.0,
    "dilations":[[1,8,1],[1,4,1,4],[1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2],[1,1,1,1,1]],
    "layer_scale_init_value":1e-5,"num_labels":1000})";

// caidas/swin2SR-classical-sr-x2-64's shape fields.
constexpr const char* kSwin2srClassicalX2 =
    R"({"model_type":"swin2sr","architectures":["Swin2SRForImageSuperResolution"],"embed_dim":180,
    "depths":[6,6,6,6,6,6],"num_heads":[6,6,6,6,6,6],"image_size":64,"patch_size":1,"window_size":8,
    "mlp_ratio":2.0,"upscale":2,"upsampler":"pixelshuffle","resi_connection":"1conv","num_channels":3})";

// D-FINE-N's backbone (ustc-community/dfine-nano-coco backbone_config): PP-HGNetV2-B0 with learnable affine
// blocks.
constexpr const char* kHgnetB0 =
    R"({"model_type":"hgnet_v2","architectures":["HGNetV2Backbone"],"stem_channels":[3,16,16],
    "stage_in_channels":[16,64,256,512],"stage_mid_channels":[16,32,64,128],
    "stage_out_channels":[64,256,512,1024],"stage_num_blocks":[1,1,2,1],
    "stage_downsample":[false,true,true,true],"stage_light_block":[false,false,true,true],
    "stage_kernel_size":[3,3,5,5],"stage_numb_of_layers":[3,3,3,3],"use_learnable_affine_block":true,
    "hidden_sizes":[64,256,512,1024]})";

}  // namespace

// transformers' DinatForImageClassification: mini 19,984,174 (the paper's 20M), small 50,743,297 (51M);
// DinatModel at DinatConfig's defaults (dinat-mini without its head) 19,471,174.
TEST(Dinat, TotalsMatchTransformersAndThePaper) {
  EXPECT_EQ(parameters_of(kDinatMini), 19'984'174u);
  EXPECT_EQ(parameters_of(kDinatSmall), 50'743'297u);
  EXPECT_EQ(parameters_of(R"({"model_type":"dinat"})"), 19'471'174u);
}

TEST(Dinat, NamesShapesAndOrder) {
  const ModelTemplate t = template_of(kDinatSmall);
  EXPECT_EQ(t.arch.architecture, "DinatForImageClassification");
  EXPECT_EQ(t.arch.num_layers, 30u);
  EXPECT_EQ(t.arch.hidden_size, 768u);
  // The stem: two strided 3 x 3 convs, the first to half the width.
  EXPECT_EQ(find_tensor(t, "dinat.embeddings.patch_embeddings.projection.0.weight")->shape,
            (Shape{48, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "dinat.embeddings.patch_embeddings.projection.1.weight")->shape,
            (Shape{96, 48, 3, 3}));
  // rpb: one (2k - 1) x (2k - 1) table per head, the attention's own parameter before its q/k/v.
  const std::string b = "dinat.encoder.levels.2.layers.17.";
  EXPECT_EQ(find_tensor(t, b + "attention.self.rpb")->shape, (Shape{12, 13, 13}));
  EXPECT_LT(tensor_index(t, b + "attention.self.rpb"), tensor_index(t, b + "attention.self.query.weight"));
  // The layer's own layer-scale pair comes before its modules.
  EXPECT_EQ(find_tensor(t, b + "layer_scale_parameters")->shape, (Shape{2, 384}));
  EXPECT_LT(tensor_index(t, b + "layer_scale_parameters"), tensor_index(t, b + "layernorm_before.weight"));
  EXPECT_EQ(find_tensor(t, b + "intermediate.dense.weight")->shape, (Shape{768, 384}));
  // The downsampler: a bias-free strided conv doubling the width, then a LayerNorm.
  EXPECT_EQ(find_tensor(t, "dinat.encoder.levels.2.downsample.reduction.weight")->shape,
            (Shape{768, 384, 3, 3}));
  EXPECT_EQ(find_tensor(t, "dinat.encoder.levels.2.downsample.reduction.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "dinat.encoder.levels.3.downsample.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 768}));
  // Without layer scale (dinat-mini) there is none.
  EXPECT_EQ(find_tensor(template_of(kDinatMini), "dinat.encoder.levels.0.layers.0.layer_scale_parameters"),
            nullptr);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(R"({"model_type":"dinat","embed_dim":8,"depths":[1,2],"num_heads":[2,4],
      "kernel_size":3,"dilations":[[1],[1,2]],"layer_scale_init_value":1e-5})");
}

TEST(Dinat, RefusesWhatTransformersCannotBuild) {
  // DinatPatchEmbeddings supports patch size 4 only.
  EXPECT_EQ(refusal_of(R"({"model_type":"dinat","patch_size":2})").field, "patch_size");
  // DinatEncoder reads num_heads[stage] and dilations[stage][layer] for every layer.
  EXPECT_EQ(refusal_of(R"({"model_type":"dinat","depths":[2,2],"num_heads":[2]})").field, "num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"dinat","depths":[3,4,7,5]})").field, "dilations");
  // NeighborhoodAttention raises unless the heads divide the width.
  EXPECT_EQ(refusal_of(R"({"model_type":"dinat","num_heads":[3,4,8,16]})").field, "num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"dinat","architectures":["DinatBackbone"]})").kind,
            ErrorKind::Unsupported);
}

// transformers' Swin2SRForImageSuperResolution: swin2SR-classical-sr-x2-64 12,091,571; the lightweight
// pixelshuffledirect x2 model (60 wide, 4 stages) 1,005,348; the real-world x4 model's nearest+conv head over
// "3conv" stages 11,192,533; denoising (no upsampler) 11,843,247; Swin2SRModel at the defaults 11,838,384.
TEST(Swin2SR, TotalsMatchTransformers) {
  EXPECT_EQ(parameters_of(kSwin2srClassicalX2), 12'091'571u);
  EXPECT_EQ(parameters_of(replaced(
                replaced(replaced(replaced(kSwin2srClassicalX2, "\"embed_dim\":180", "\"embed_dim\":60"),
                                  "\"depths\":[6,6,6,6,6,6]", "\"depths\":[6,6,6,6]"),
                         "\"num_heads\":[6,6,6,6,6,6]", "\"num_heads\":[6,6,6,6]"),
                "\"pixelshuffle\"", "\"pixelshuffledirect\"")),
            1'005'348u);
  EXPECT_EQ(parameters_of(replaced(replaced(replaced(kSwin2srClassicalX2, "\"upscale\":2", "\"upscale\":4"),
                                            "\"pixelshuffle\"", "\"nearest+conv\""),
                                   "\"1conv\"", "\"3conv\"")),
            11'192'533u);
  EXPECT_EQ(parameters_of(replaced(replaced(kSwin2srClassicalX2, "\"upscale\":2", "\"upscale\":1"),
                                   "\"pixelshuffle\"", "null")),
            11'843'247u);
  EXPECT_EQ(parameters_of(R"({"model_type":"swin2sr"})"), 11'838'384u);
}

TEST(Swin2SR, NamesStoredNamesAndHeads) {
  const ModelTemplate t = template_of(kSwin2srClassicalX2);
  EXPECT_EQ(t.arch.architecture, "Swin2SRForImageSuperResolution");
  EXPECT_EQ(t.arch.num_layers, 36u);
  // Every stage keeps embed_dim: Swin V2 layers, then a conv and an unnormed 1 x 1 re-embedding.
  const std::string s = "swin2sr.encoder.stages.5.";
  EXPECT_EQ(find_tensor(t, s + "layers.5.attention.k_proj.bias"), nullptr);
  EXPECT_EQ(stored_name(*find_tensor(t, s + "layers.5.attention.q_proj.weight")),
            s + "layers.5.attention.self.query.weight");
  EXPECT_EQ(find_tensor(t, s + "layers.5.mlp.fc1.weight")->shape, (Shape{360, 180}));
  EXPECT_EQ(find_tensor(t, s + "conv.weight")->shape, (Shape{180, 180, 3, 3}));
  EXPECT_EQ(find_tensor(t, s + "patch_embed.projection.weight")->shape, (Shape{180, 180, 1, 1}));
  EXPECT_EQ(find_tensor(t, s + "patch_embed.layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "swin2sr.embeddings.patch_embeddings.layernorm.weight"), nullptr);
  // The pixelshuffle head: 64 channels whatever embed_dim is, one 4x conv per factor 2.
  EXPECT_EQ(find_tensor(t, "upsample.conv_before_upsample.weight")->shape, (Shape{64, 180, 3, 3}));
  EXPECT_EQ(find_tensor(t, "upsample.upsample.convolution_0.weight")->shape, (Shape{256, 64, 3, 3}));
  EXPECT_EQ(find_tensor(t, "upsample.upsample.convolution_1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "upsample.final_convolution.weight")->shape, (Shape{3, 64, 3, 3}));
  expect_every_tensor_placed(t);
  // pixelshuffle_aux at x3 with absolute positions and one output channel: conv_after_aux reads 3 channels
  // whatever num_channels is; the position table has a row more than the patches.
  const ModelTemplate aux = template_of(replaced(
      replaced(replaced(kSwin2srClassicalX2, "\"upscale\":2", "\"upscale\":3,\"num_channels_out\":1"),
               "\"pixelshuffle\"", "\"pixelshuffle_aux\",\"use_absolute_embeddings\":true"),
      "\"num_channels\":3", "\"num_channels\":1"));
  EXPECT_EQ(find_tensor(aux, "upsample.conv_after_aux.0.weight")->shape, (Shape{64, 3, 3, 3}));
  EXPECT_EQ(find_tensor(aux, "upsample.upsample.convolution.weight")->shape, (Shape{576, 64, 3, 3}));
  EXPECT_EQ(find_tensor(aux, "swin2sr.embeddings.position_embeddings")->shape, (Shape{1, 4097, 180}));
  expect_every_tensor_placed(aux);
  expect_reads_cleanly(R"({"model_type":"swin2sr","architectures":["Swin2SRForImageSuperResolution"],
      "embed_dim":8,"depths":[2],"num_heads":[2],"image_size":8,"window_size":4,"resi_connection":"3conv"})");
}

TEST(Swin2SR, RefusesWhatTransformersCannotBuild) {
  // Swin2SRUpsample supports powers of 2 and 3; nearest+conv only 4.
  EXPECT_EQ(refusal_of(replaced(kSwin2srClassicalX2, "\"upscale\":2", "\"upscale\":5")).field, "upscale");
  EXPECT_EQ(refusal_of(replaced(kSwin2srClassicalX2, "\"pixelshuffle\"", "\"nearest+conv\"")).field,
            "upscale");
  // Swinv2Attention raises unless the heads divide the width.
  EXPECT_EQ(refusal_of(R"({"model_type":"swin2sr","num_heads":[7,6,6,6,6,6]})").field, "num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"swin2sr","depths":[6,6],"num_heads":[6]})").field, "num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"swin2sr","resi_connection":"2conv"})").field, "resi_connection");
}

// transformers' HGNetV2Backbone at HGNetV2Config's defaults (PP-HGNetV2-B4, D-FINE-L's backbone) 13,553,376;
// D-FINE-N's B0 1,850,396; HGNetV2ForImageClassification over B5's stages with 1,000 labels 35,374,760.
TEST(HGNetV2, TotalsMatchTransformers) {
  EXPECT_EQ(parameters_of(R"({"model_type":"hgnet_v2"})"), 13'553'376u);
  EXPECT_EQ(parameters_of(kHgnetB0), 1'850'396u);
  EXPECT_EQ(parameters_of(R"({"model_type":"hgnet_v2","architectures":["HGNetV2ForImageClassification"],
      "stem_channels":[3,32,64],"stage_in_channels":[64,128,512,1024],"stage_mid_channels":[64,128,256,512],
      "stage_out_channels":[128,512,1024,2048],"stage_num_blocks":[1,2,5,2],"num_labels":1000})"),
            35'374'760u);
}

TEST(HGNetV2, NamesShapesAndBuffers) {
  const ModelTemplate t = template_of(kHgnetB0);
  EXPECT_EQ(t.arch.architecture, "HGNetV2Backbone");
  // stem3 reads the pooled stem1 output beside stem2b's: twice stem_channels[1].
  EXPECT_EQ(find_tensor(t, "embedder.stem2a.convolution.weight")->shape, (Shape{8, 16, 2, 2}));
  EXPECT_EQ(find_tensor(t, "embedder.stem3.convolution.weight")->shape, (Shape{16, 32, 3, 3}));
  EXPECT_EQ(find_tensor(t, "embedder.stem1.normalization.running_mean")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "embedder.stem1.lab.scale")->shape, (Shape{1}));
  // A light block: a 1 x 1 conv without activation (so no affine block), then a depthwise conv with one.
  const std::string b = "encoder.stages.2.blocks.1.";
  EXPECT_EQ(find_tensor(t, b + "layers.0.conv1.convolution.weight")->shape, (Shape{64, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "layers.0.conv1.lab.scale"), nullptr);
  EXPECT_EQ(find_tensor(t, b + "layers.2.conv2.convolution.weight")->shape, (Shape{64, 1, 5, 5}));
  EXPECT_NE(find_tensor(t, b + "layers.2.conv2.lab.bias"), nullptr);
  // The aggregation squeezes the input and every layer's output (512 + 3 x 64) to half the output width.
  EXPECT_EQ(find_tensor(t, b + "aggregation.0.convolution.weight")->shape, (Shape{256, 704, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "aggregation.1.convolution.weight")->shape, (Shape{512, 256, 1, 1}));
  // The depthwise downsample has no activation, so no affine block; stage 0 has none.
  EXPECT_EQ(find_tensor(t, "encoder.stages.1.downsample.convolution.weight")->shape, (Shape{64, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "encoder.stages.1.downsample.lab.scale"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.stages.0.downsample.convolution.weight"), nullptr);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(R"({"model_type":"hgnet_v2","stem_channels":[3,8,8],"stage_in_channels":[8,16],
      "stage_mid_channels":[4,8],"stage_out_channels":[16,32],"stage_num_blocks":[1,2],
      "stage_downsample":[false,true],"stage_light_block":[false,true],"stage_kernel_size":[3,5],
      "stage_numb_of_layers":[2,2],"use_learnable_affine_block":true})");
}

TEST(HGNetV2, RefusesWhatTransformersCannotBuild) {
  // HGNetV2Config raises unless the eight stage lists have one length.
  EXPECT_EQ(refusal_of(R"({"model_type":"hgnet_v2","stage_mid_channels":[48,96,192]})").field,
            "stage_mid_channels");
  EXPECT_EQ(refusal_of(R"({"model_type":"hgnet_v2","stem_channels":[3,32]})").field, "stem_channels");
  // There is no HGNetV2Model.
  EXPECT_EQ(refusal_of(R"({"model_type":"hgnet_v2","architectures":["HGNetV2Model"]})").kind,
            ErrorKind::Unsupported);
}

// transformers' TextNetModel at TextNetConfig's defaults (czczup/textnet-base) 10,704,832, TextNetBackbone
// the same (it adds no module); a classifier over custom stages (zip() cuts a stage to its shorter list)
// 307,752.
TEST(TextNet, TotalsMatchTransformers) {
  EXPECT_EQ(parameters_of(R"({"model_type":"textnet"})"), 10'704'832u);
  EXPECT_EQ(parameters_of(R"({"model_type":"textnet","architectures":["TextNetBackbone"]})"), 10'704'832u);
  EXPECT_EQ(parameters_of(R"({"model_type":"textnet","architectures":["TextNetForImageClassification"],
      "num_labels":1000,"conv_layer_kernel_sizes":[[[3,3],[1,3]],[[3,3],[3,1],[1,1]]],
      "conv_layer_strides":[[1,1,2],[2,1]],"hidden_sizes":[64,64,96]})"),
            307'752u);
}

TEST(TextNet, RepConvBranches) {
  const ModelTemplate t = template_of(R"({"model_type":"textnet","architectures":["TextNetBackbone"]})");
  EXPECT_EQ(t.arch.architecture, "TextNetBackbone");
  const std::string p = "textnet.encoder.stages.";
  EXPECT_EQ(find_tensor(t, "textnet.stem.conv.weight")->shape, (Shape{64, 3, 3, 3}));
  // A 3 x 3 layer keeping its width at stride 1: all three convs and the identity BatchNorm.
  EXPECT_EQ(find_tensor(t, p + "0.stage.0.vertical_conv.weight")->shape, (Shape{64, 64, 3, 1}));
  EXPECT_EQ(find_tensor(t, p + "0.stage.0.horizontal_conv.weight")->shape, (Shape{64, 64, 1, 3}));
  EXPECT_EQ(find_tensor(t, p + "0.stage.0.rbr_identity.running_var")->kind, TensorKind::Buffer);
  // Stride 2: no identity branch.
  EXPECT_EQ(find_tensor(t, p + "0.stage.1.rbr_identity.weight"), nullptr);
  // A 1 x 3 kernel: its kh x 1 "vertical" branch is 1 x 1, and there is no horizontal one.
  EXPECT_EQ(find_tensor(t, p + "1.stage.1.main_conv.weight")->shape, (Shape{128, 128, 1, 3}));
  EXPECT_EQ(find_tensor(t, p + "1.stage.1.vertical_conv.weight")->shape, (Shape{128, 128, 1, 1}));
  EXPECT_EQ(find_tensor(t, p + "1.stage.1.horizontal_conv.weight"), nullptr);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(R"({"model_type":"textnet","stem_out_channels":8,
      "conv_layer_kernel_sizes":[[[3,3],[1,3]],[[3,1]]],"conv_layer_strides":[[1,1],[2]],"hidden_sizes":[8,8,16]})");
}

TEST(TextNet, RefusesWhatTransformersCannotBuild) {
  // TextNetEncoder reads each stage's strides and hidden_sizes[stage + 1].
  EXPECT_EQ(
      refusal_of(R"({"model_type":"textnet","conv_layer_strides":[[1,2,1],[2,1,1,1],[2,1,1,1]]})").field,
      "conv_layer_strides");
  EXPECT_EQ(refusal_of(R"({"model_type":"textnet","hidden_sizes":[64,64,128,256]})").field, "hidden_sizes");
  // A layer reads kernel_size[0] and kernel_size[1].
  EXPECT_EQ(
      refusal_of(R"({"model_type":"textnet","conv_layer_kernel_sizes":[[3,3]],"conv_layer_strides":[[1]]})")
          .field,
      "conv_layer_kernel_sizes");
}

}  // namespace ma::test
