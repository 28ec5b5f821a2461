// Swin V2 (swin.cpp, group ocr_vlms), SegFormer, PVTv2, MobileViT, MobileViTV2 and
// PoolFormer (group vision_hier): templates against
// what transformers builds. Totals were counted by a mirror of each transformers class's module construction
// on the meta device, its state_dict keys compared in order with the templates'
// (/tmp/impl/vision_hier/verify: count_transformers.py, compare_out.txt), and against the sizes the model
// cards publish. Configs are the Hub repositories' fields that size the model.
#include <gtest/gtest.h>

#include <string>

#include "core/dtype.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/swinv2-tiny-patch4-window8-256: Swin-T's stages, 8 x 8 windows over a 256-pixel image.
const std::string kSwinv2Tiny =
    R"({"model_type":"swinv2","architectures":["Swinv2ForImageClassification"],"embed_dim":96,)"
    R"("depths":[2,2,6,2],"num_heads":[3,6,12,24],"window_size":8,"image_size":256,"patch_size":4,)"
    R"("pretrained_window_sizes":[0,0,0,0],"num_labels":1000})";

// The model card's 28.3M; transformers' Swinv2ForImageClassification has 28,347,154 parameters.
TEST(Swinv2, TinyMatchesTheModelCard) {
  EXPECT_EQ(parameters_of(kSwinv2Tiny), 28'347'154u);
  // Swinv2Config's defaults (Swin-T, 7 x 7 windows) as a bare Swinv2Model: no parameter depends on the
  // window size, only the head differs.
  EXPECT_EQ(total_of(template_of(R"({"model_type":"swinv2"})")), 27'578'154u);
}

TEST(Swinv2, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kSwinv2Tiny);
  EXPECT_EQ(t.arch.architecture, "Swinv2ForImageClassification");
  EXPECT_EQ(t.arch.num_layers, 12u);
  EXPECT_EQ(t.arch.hidden_size, 768u);
  const std::string b = "swinv2.encoder.layers.0.blocks.1.";
  // Swinv2Layer deletes and sets again SwinLayer's attention: it comes after the norms and the MLP, its own
  // logit_scale before its linears.
  EXPECT_LT(tensor_index(t, b + "mlp.fc2.bias"), tensor_index(t, b + "attention.logit_scale"));
  EXPECT_LT(tensor_index(t, b + "attention.logit_scale"), tensor_index(t, b + "attention.q_proj.weight"));
  EXPECT_EQ(find_tensor(t, b + "attention.logit_scale")->shape, (Shape{3, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "attention.k_proj.bias"), nullptr);  // the key never has a bias
  EXPECT_EQ(find_tensor(t, b + "attention.continuous_position_bias_mlp.0.weight")->shape, (Shape{512, 2}));
  EXPECT_EQ(find_tensor(t, b + "attention.continuous_position_bias_mlp.2.weight")->shape, (Shape{3, 512}));
  EXPECT_EQ(find_tensor(t, b + "attention.continuous_position_bias_mlp.2.bias"), nullptr);
  // No bias table: the biases come from the MLP.
  EXPECT_EQ(find_tensor(t, b + "attention.relative_position_bias.relative_position_bias_table"), nullptr);
  // The patch merging norms its 2 x width output (Swin's, its 4 x width input).
  EXPECT_EQ(find_tensor(t, "swinv2.encoder.layers.0.downsample.norm.weight")->shape, (Shape{192}));
  EXPECT_EQ(find_tensor(t, "swinv2.encoder.layers.0.downsample.reduction.weight")->shape, (Shape{192, 384}));
  EXPECT_EQ(find_tensor(t, "swinv2.layernorm.weight")->shape, (Shape{768}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 768}));
  // Hub checkpoints keep transformers 4's names.
  EXPECT_EQ(stored_name(*find_tensor(t, b + "attention.q_proj.weight")), b + "attention.self.query.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, b + "attention.o_proj.bias")), b + "attention.output.dense.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, b + "attention.logit_scale")), b + "attention.self.logit_scale");
  EXPECT_EQ(stored_name(*find_tensor(t, b + "attention.continuous_position_bias_mlp.0.bias")),
            b + "attention.self.continuous_position_bias_mlp.0.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, b + "mlp.fc1.weight")), b + "intermediate.dense.weight");
  expect_every_tensor_placed(t);
}

// Checkpoints that still store the window coordinates and index (buffers transformers recomputes) read
// without a warning and with nothing left over: both are buffers.
TEST(Swinv2, StoredCoordinateBuffersAreKnown) {
  const std::string b = "swinv2.encoder.layers.3.blocks.1.attention.self.";
  expect_reads_cleanly(kSwinv2Tiny, {{b + "relative_coords_table", DType::F32, {1, 15, 15, 2}, {}},
                                     {b + "relative_position_index", DType::I64, {64, 64}, {}}});
  EXPECT_EQ(place_tensor(b + "relative_coords_table").block, Block::Buffer);
}

TEST(Swinv2, Refusals) {
  // Swinv2Attention raises unless the heads divide the stage's width.
  EXPECT_EQ(refusal_of(R"({"model_type":"swinv2","num_heads":[5,6,12,24]})").field, "num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"swinv2","num_heads":[3,6,12]})").field, "num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"swinv2","architectures":["Swinv2Backbone"]})").kind,
            ErrorKind::Unsupported);
}

// nvidia/segformer-b0-finetuned-ade-512-512 (SegformerConfig's defaults, 150 ADE20K classes) and the
// ImageNet encoder nvidia/mit-b0 (1000 classes).
const std::string kSegformerB0Ade =
    R"({"model_type":"segformer","architectures":["SegformerForSemanticSegmentation"],"num_labels":150})";
const std::string kMitB0 =
    R"({"model_type":"segformer","architectures":["SegformerForImageClassification"],"num_labels":1000})";

// The model card's 3.8M for SegFormer-B0 on ADE20K (3,752,694 in transformers); the MiT-B0 classifier has
// 3,576,392 (its encoder 3,319,392: the paper's 3.4M encoder, plus a 256 x 1000 head).
TEST(Segformer, SizesMatchTransformers) {
  EXPECT_EQ(parameters_of(kSegformerB0Ade), 3'752'694u);
  EXPECT_EQ(parameters_of(kMitB0), 3'576'392u);
  // MiT-B5's encoder (the paper's 81.4M for B5 without its decode head).
  EXPECT_EQ(total_of(template_of(R"({"model_type":"segformer","architectures":["SegformerModel"],)"
                                 R"("hidden_sizes":[64,128,320,512],"depths":[3,6,40,3]})")),
            81'443'008u);
}

TEST(Segformer, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kSegformerB0Ade);
  EXPECT_EQ(t.arch.num_layers, 8u);
  EXPECT_EQ(t.arch.hidden_size, 256u);
  // The encoder's three lists: every stage's patch embedding, then every stage's blocks, then their norms.
  EXPECT_LT(tensor_index(t, "segformer.encoder.patch_embeddings.3.layer_norm.bias"),
            tensor_index(t, "segformer.encoder.block.0.0.layer_norm_1.weight"));
  EXPECT_EQ(find_tensor(t, "segformer.encoder.patch_embeddings.0.proj.weight")->shape, (Shape{32, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "segformer.encoder.patch_embeddings.1.proj.weight")->shape, (Shape{64, 32, 3, 3}));
  // Stage 0 reduces keys and values 8 x 8; stage 3 (sr 1) has no reduction.
  EXPECT_EQ(find_tensor(t, "segformer.encoder.block.0.1.attention.self.sr.weight")->shape,
            (Shape{32, 32, 8, 8}));
  EXPECT_EQ(find_tensor(t, "segformer.encoder.block.3.0.attention.self.sr.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "segformer.encoder.block.2.0.mlp.dwconv.dwconv.weight")->shape,
            (Shape{640, 1, 3, 3}));
  // The decode head: a fusing 1 x 1 conv without bias, a BatchNorm whose statistics are buffers.
  EXPECT_EQ(find_tensor(t, "decode_head.linear_fuse.weight")->shape, (Shape{256, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, "decode_head.linear_fuse.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "decode_head.batch_norm.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "decode_head.batch_norm.num_batches_tracked")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "decode_head.classifier.weight")->shape, (Shape{150, 256, 1, 1}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("segformer.encoder.patch_embeddings.2.proj.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("decode_head.linear_c.1.proj.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("decode_head.linear_fuse.weight").block, Block::LmHead);
  expect_every_tensor_placed(template_of(kMitB0));
}

TEST(Segformer, Refusals) {
  // Every list is read for each of num_encoder_blocks stages.
  EXPECT_EQ(refusal_of(R"({"model_type":"segformer","hidden_sizes":[32,64,160]})").field, "hidden_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"segformer","num_encoder_blocks":5})").field, "hidden_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"segformer","num_attention_heads":[1,2,3,8]})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"segformer","architectures":["SegformerBackbone"]})").kind,
            ErrorKind::Unsupported);
}

// OpenGVLab/pvt_v2_b0 (PvtV2Config's defaults) and pvt_v2_b2_li (B2 with linear attention), ImageNet heads.
const std::string kPvtV2B0 =
    R"({"model_type":"pvt_v2","architectures":["PvtV2ForImageClassification"],"num_labels":1000})";
const std::string kPvtV2B2Linear =
    R"({"model_type":"pvt_v2","architectures":["PvtV2ForImageClassification"],"num_labels":1000,)"
    R"("hidden_sizes":[64,128,320,512],"depths":[3,4,6,3],"linear_attention":true})";

// The model cards' 3.7M (B0) and 22.6M (B2-Li).
TEST(PvtV2, SizesMatchTheModelCards) {
  EXPECT_EQ(parameters_of(kPvtV2B0), 3'666'760u);
  EXPECT_EQ(parameters_of(kPvtV2B2Linear), 22'553'512u);
}

TEST(PvtV2, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kPvtV2B0);
  const std::string s0 = "pvt_v2.encoder.layers.0.";
  // Each stage is one module: patch embedding, blocks, norm.
  EXPECT_LT(tensor_index(t, s0 + "layer_norm.bias"),
            tensor_index(t, "pvt_v2.encoder.layers.1.patch_embedding.proj.weight"));
  EXPECT_EQ(find_tensor(t, s0 + "blocks.0.attention.spatial_reduction.weight")->shape, (Shape{32, 32, 8, 8}));
  EXPECT_EQ(find_tensor(t, s0 + "blocks.0.mlp.dense1.weight")->shape, (Shape{256, 32}));  // mlp_ratio 8
  EXPECT_LT(tensor_index(t, s0 + "blocks.0.attention.proj.bias"),
            tensor_index(t, s0 + "blocks.0.attention.spatial_reduction.weight"));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(s0 + "patch_embedding.proj.weight").block, Block::Embedding);
  // Linear attention pools to 7 x 7 and reduces with a 1 x 1 conv in every stage, sr_ratios unread.
  const ModelTemplate li = template_of(kPvtV2B2Linear);
  EXPECT_EQ(find_tensor(li, "pvt_v2.encoder.layers.3.blocks.0.attention.spatial_reduction.weight")->shape,
            (Shape{512, 512, 1, 1}));
  // qkv_bias false drops the query, key and value biases, not the output projection's.
  const ModelTemplate plain = template_of(R"({"model_type":"pvt_v2","qkv_bias":false})");
  EXPECT_EQ(find_tensor(plain, "encoder.layers.1.blocks.0.attention.key.bias"), nullptr);
  EXPECT_NE(find_tensor(plain, "encoder.layers.1.blocks.0.attention.proj.bias"), nullptr);
}

TEST(PvtV2, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"pvt_v2","depths":[2,2,2]})").field, "depths");
  EXPECT_EQ(refusal_of(R"({"model_type":"pvt_v2","hidden_sizes":[32,64,160,250]})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"pvt_v2","architectures":["PvtV2Backbone"]})").kind,
            ErrorKind::Unsupported);
}

// apple/mobilevit-small (MobileViTConfig's defaults), -x-small and -xx-small, ImageNet heads.
const std::string kMobileVitSmall =
    R"({"model_type":"mobilevit","architectures":["MobileViTForImageClassification"],"num_labels":1000})";

// The model cards' 5.6M, 2.3M and 1.3M.
TEST(MobileVit, SizesMatchTheModelCards) {
  EXPECT_EQ(parameters_of(kMobileVitSmall), 5'578'632u);
  EXPECT_EQ(parameters_of(R"({"model_type":"mobilevit","architectures":["MobileViTForImageClassification"],)"
                          R"("hidden_sizes":[96,120,144],"neck_hidden_sizes":[16,32,48,64,80,96,384],)"
                          R"("num_labels":1000})"),
            2'317'848u);
  EXPECT_EQ(parameters_of(R"({"model_type":"mobilevit","architectures":["MobileViTForImageClassification"],)"
                          R"("hidden_sizes":[64,80,96],"neck_hidden_sizes":[16,16,24,48,64,80,320],)"
                          R"("expand_ratio":2.0,"num_labels":1000})"),
            1'272'024u);
}

TEST(MobileVit, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(kMobileVitSmall);
  EXPECT_EQ(t.arch.num_layers, 9u);  // 2 + 4 + 3 transformer layers
  EXPECT_EQ(find_tensor(t, "mobilevit.conv_stem.convolution.weight")->shape, (Shape{16, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mobilevit.conv_stem.convolution.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "mobilevit.conv_stem.normalization.running_mean")->kind, TensorKind::Buffer);
  // Inverted residuals expand 4x, rounded to a multiple of 8; the 3 x 3 conv is depthwise.
  EXPECT_EQ(find_tensor(t, "mobilevit.encoder.layer.1.layer.0.expand_1x1.convolution.weight")->shape,
            (Shape{128, 32, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mobilevit.encoder.layer.1.layer.0.conv_3x3.convolution.weight")->shape,
            (Shape{128, 1, 3, 3}));
  const std::string b = "mobilevit.encoder.layer.3.";
  // The conv into the transformer width keeps no norm; the transformer's layers register their norms last.
  EXPECT_EQ(find_tensor(t, b + "conv_1x1.convolution.weight")->shape, (Shape{192, 128, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "conv_1x1.normalization.weight"), nullptr);
  EXPECT_LT(tensor_index(t, b + "transformer.layer.3.output.dense.bias"),
            tensor_index(t, b + "transformer.layer.3.layernorm_before.weight"));
  EXPECT_EQ(find_tensor(t, b + "transformer.layer.3.intermediate.dense.weight")->shape, (Shape{384, 192}));
  EXPECT_EQ(find_tensor(t, b + "fusion.convolution.weight")->shape, (Shape{128, 256, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mobilevit.conv_1x1_exp.convolution.weight")->shape, (Shape{640, 160, 1, 1}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 640}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("mobilevit.conv_stem.convolution.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor(b + "downsampling_layer.reduce_1x1.convolution.weight").block, Block::Mlp);
  EXPECT_EQ(place_tensor(b + "conv_kxk.convolution.weight").block, Block::ShortConv);
  expect_reads_cleanly(kMobileVitSmall);
}

TEST(MobileVit, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"mobilevit","neck_hidden_sizes":[16,32,64,96,128,160]})").field,
            "neck_hidden_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"mobilevit","num_attention_heads":5})").field, "num_attention_heads");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"mobilevit","architectures":["MobileViTForSemanticSegmentation"]})").kind,
      ErrorKind::Unsupported);
}

// apple/mobilevitv2-{0.5,...,2.0}-imagenet1k-256: MobileViTV2Config's defaults scaled by width_multiplier.
std::string mobilevitv2(const std::string& width) {
  return R"({"model_type":"mobilevitv2","architectures":["MobileViTV2ForImageClassification"],)"
         R"("num_labels":1000,"width_multiplier":)" +
         width + "}";
}

// The paper's 1.4M, 2.9M, 4.9M, 7.5M, 10.6M, 14.3M and 18.4M for widths 0.5 to 2.0.
TEST(MobileVitV2, SizesMatchThePaper) {
  EXPECT_EQ(parameters_of(mobilevitv2("0.5")), 1'370'593u);
  EXPECT_EQ(parameters_of(mobilevitv2("0.75")), 2'866'009u);
  EXPECT_EQ(parameters_of(mobilevitv2("1.0")), 4'901'841u);
  EXPECT_EQ(parameters_of(mobilevitv2("1.25")), 7'478'089u);
  EXPECT_EQ(parameters_of(mobilevitv2("1.5")), 10'594'753u);
  EXPECT_EQ(parameters_of(mobilevitv2("1.75")), 14'251'833u);
  EXPECT_EQ(parameters_of(mobilevitv2("2.0")), 18'449'329u);
}

TEST(MobileVitV2, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(mobilevitv2("0.75"));
  EXPECT_EQ(t.arch.num_layers, 9u);
  // make_divisible(clip(32 * 0.75, 16, 64), 8, 16) = 24 stem channels; the classifier reads 384.
  EXPECT_EQ(find_tensor(t, "mobilevitv2.conv_stem.convolution.weight")->shape, (Shape{24, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 384}));
  const std::string b = "mobilevitv2.encoder.layer.4.";
  // Attention width make_divisible(256 * 0.75, 8) = 192; qkv_proj makes 1 + 2 x 192 channels, with a bias.
  EXPECT_EQ(find_tensor(t, b + "transformer.layer.2.attention.qkv_proj.convolution.weight")->shape,
            (Shape{385, 192, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "transformer.layer.2.attention.qkv_proj.convolution.bias")->shape,
            (Shape{385}));
  EXPECT_EQ(find_tensor(t, b + "transformer.layer.2.ffn.conv1.convolution.weight")->shape,
            (Shape{384, 192, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "conv_kxk.convolution.weight")->shape, (Shape{384, 1, 3, 3}));  // depthwise
  EXPECT_EQ(find_tensor(t, b + "fusion.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "mobilevitv2.conv_1x1_exp.convolution.weight"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(b + "transformer.layer.0.attention.out_proj.convolution.weight").block,
            Block::Attention);
  EXPECT_EQ(place_tensor(b + "transformer.layer.0.ffn.conv2.convolution.weight").block, Block::Mlp);
}

TEST(MobileVitV2, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"mobilevitv2","n_attn_blocks":[2,4]})").field, "n_attn_blocks");
  EXPECT_EQ(refusal_of(R"({"model_type":"mobilevitv2","width_multiplier":0})").field, "width_multiplier");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"mobilevitv2","architectures":["MobileViTV2ForSemanticSegmentation"]})")
          .kind,
      ErrorKind::Unsupported);
}

// sail/poolformer_{s12,s24,s36,m36,m48}: PoolFormerConfig's defaults (S12) with the variants' depths and
// widths.
std::string poolformer(const std::string& depths, const std::string& widths) {
  return R"({"model_type":"poolformer","architectures":["PoolFormerForImageClassification"],"num_labels":1000,)"
         R"("depths":)" +
         depths + R"(,"hidden_sizes":)" + widths + "}";
}

// The model cards' 11.9M, 21.4M, 30.9M, 56.2M and 73.5M.
TEST(PoolFormer, SizesMatchTheModelCards) {
  EXPECT_EQ(parameters_of(poolformer("[2,2,6,2]", "[64,128,320,512]")), 11'915'176u);
  EXPECT_EQ(parameters_of(poolformer("[4,4,12,4]", "[64,128,320,512]")), 21'388'968u);
  EXPECT_EQ(parameters_of(poolformer("[6,6,18,6]", "[64,128,320,512]")), 30'862'760u);
  EXPECT_EQ(parameters_of(poolformer("[6,6,18,6]", "[96,192,384,768]")), 56'172'520u);
  EXPECT_EQ(parameters_of(poolformer("[8,8,24,8]", "[96,192,384,768]")), 73'473'448u);
}

TEST(PoolFormer, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(poolformer("[2,2,6,2]", "[64,128,320,512]"));
  const std::string b = "poolformer.encoder.block.2.5.";
  // The layer's own layer scales come before its modules; the pooling has no parameters.
  EXPECT_LT(tensor_index(t, b + "layer_scale_2"), tensor_index(t, b + "output.conv1.weight"));
  EXPECT_EQ(find_tensor(t, b + "output.conv1.weight")->shape, (Shape{1280, 320, 1, 1}));
  EXPECT_EQ(find_tensor(t, "poolformer.encoder.patch_embeddings.0.projection.weight")->shape,
            (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "norm.weight")->shape, (Shape{512}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(b + "layer_scale_1").block, Block::Attention);
  EXPECT_EQ(place_tensor(b + "layer_scale_2").block, Block::Mlp);
  EXPECT_EQ(place_tensor("poolformer.encoder.patch_embeddings.3.projection.weight").block, Block::Embedding);
  // Without layer scale, and the bare model has no final norm.
  const ModelTemplate bare = template_of(R"({"model_type":"poolformer","use_layer_scale":false})");
  EXPECT_EQ(find_tensor(bare, "encoder.block.0.0.layer_scale_1"), nullptr);
  EXPECT_EQ(find_tensor(bare, "norm.weight"), nullptr);
}

TEST(PoolFormer, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"poolformer","patch_sizes":[7,3,3]})").field, "patch_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"poolformer","padding":[2,1]})").field, "padding");
}

}  // namespace
}  // namespace ma::test
