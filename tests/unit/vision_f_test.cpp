// SegGPT (seggpt), TVP (tvp) and EfficientLoFTR (efficientloftr): templates against what transformers
// builds. Totals were counted by an independent torch mirror of the classes' module construction on the
// meta device (modeling_seggpt.py at 7133f63, modeling_tvp.py at ae916c9 with modeling_resnet.py's
// ResNetBackbone, modeling_efficientloftr.py at dc5c33f and configuration_efficientloftr.py at 260714a;
// /tmp/impl/vision_f/verify/count_vision_f.py, compare.sh): state_dict names, shapes and order identical to
// the templates for every config below.
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// BAAI/seggpt-vit-large's shape fields (SegGptConfig's defaults).
constexpr const char* kSegGptLarge =
    R"({"model_type":"seggpt","architectures":["SegGptForImageSegmentation"],"hidden_size":1024,
    "num_hidden_layers":24,"num_attention_heads":16,"image_size":[896,448],"patch_size":16,"mlp_dim":4096,
    "pretrain_image_size":224,"decoder_hidden_size":64,"merge_index":2,
    "intermediate_hidden_state_indices":[5,11,17,23]})";

// Intel/tvp-base's shape: TvpConfig's defaults (ResNet-50 backbone, BERT-base encoder, framepad prompter
// over 48 frames of 448 pixels), with the type_vocab_size its config.json carries.
constexpr const char* kTvpBase =
    R"({"model_type":"tvp","architectures":["TvpForVideoGrounding"],"type_vocab_size":2,
    "backbone_config":{"model_type":"resnet","out_features":["stage4"]}})";

// transformers' own TVP test model (tests/models/tvp/test_modeling_tvp.py, TVPModelTester.get_config).
constexpr const char* kTvpTester =
    R"({"model_type":"tvp","architectures":["TvpModel"],"type_vocab_size":2,"pad_token_id":0,
    "num_frames":2,"max_img_size":448,"visual_prompt_size":96,"vocab_size":100,"hidden_size":32,
    "intermediate_size":32,"num_hidden_layers":2,"num_attention_heads":4,"max_position_embeddings":30,
    "max_grid_col_position_embeddings":30,"max_grid_row_position_embeddings":30,
    "backbone_config":{"model_type":"resnet","num_channels":3,"embedding_size":64,"hidden_sizes":[64,128],
    "depths":[2,2],"hidden_act":"relu","out_features":["stage2"],"out_indices":[2]}})";

// zju-community/efficientloftr as EfficientLoFTRConfig.to_dict() saves it: the derived per-block lists too.
constexpr const char* kEfficientLoftr =
    R"({"model_type":"efficientloftr","architectures":["EfficientLoFTRForKeypointMatching"],
    "stage_num_blocks":[1,2,4,14],"stage_stride":[2,1,2,2],"out_features":[64,64,128,256],
    "stage_in_channels":[1,64,64,128],
    "stage_block_stride":[[2],[1,1],[2,1,1,1],[2,1,1,1,1,1,1,1,1,1,1,1,1,1]],
    "stage_block_out_channels":[[64],[64,64],[128,128,128,128],
      [256,256,256,256,256,256,256,256,256,256,256,256,256,256]],
    "stage_block_in_channels":[[1],[64,64],[64,128,128,128],
      [128,256,256,256,256,256,256,256,256,256,256,256,256,256]],
    "fine_fusion_dims":[256,128,64],"hidden_size":256,"intermediate_size":512,"num_attention_heads":8,
    "num_key_value_heads":8,"num_attention_layers":4})";

}  // namespace

// transformers' SegGptForImageSegmentation at seggpt-vit-large's shape: 370,723,203 (a 1.48 GB float32
// checkpoint); SegGptModel, the class a config without architectures gets, at SegGptConfig's defaults:
// 303,560,704; SegGptModel of a small config without q/k/v biases, 160-pixel square images: 203,232.
TEST(SegGpt, TotalsMatchTransformers) {
  EXPECT_EQ(parameters_of(kSegGptLarge), 370'723'203u);
  EXPECT_EQ(parameters_of(R"({"model_type":"seggpt"})"), 303'560'704u);  // SegGptModel: no decoder
  EXPECT_EQ(parameters_of(R"({"model_type":"seggpt","architectures":["SegGptModel"],"hidden_size":64,
      "num_hidden_layers":3,"num_attention_heads":4,"image_size":160,"patch_size":16,"qkv_bias":false,
      "pretrain_image_size":96,"intermediate_hidden_state_indices":[1,2],"merge_index":1})"),
            203'232u);
}

TEST(SegGpt, NamesShapesAndOrder) {
  const ModelTemplate t = template_of(kSegGptLarge);
  EXPECT_EQ(t.arch.architecture, "SegGptForImageSegmentation");
  EXPECT_EQ(t.arch.num_layers, 24u);
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  // The embeddings' own tokens and position table (14 x 14 + 1 at pretrain_image_size 224) come before the
  // patch projection in state_dict.
  EXPECT_EQ(t.tensors.front().name, "model.embeddings.mask_token");
  EXPECT_EQ(find_tensor(t, "model.embeddings.type_token_instance")->shape, (Shape{1, 1, 1, 1024}));
  EXPECT_EQ(find_tensor(t, "model.embeddings.position_embeddings")->shape, (Shape{1, 197, 1024}));
  EXPECT_LT(tensor_index(t, "model.embeddings.position_embeddings"),
            tensor_index(t, "model.embeddings.patch_embeddings.projection.weight"));
  // Relative positions per axis of the 56 x 28 patch grid (896 x 448 pixels), 64 wide (a head), listed
  // before the attention's qkv; layernorm_before / _after registered after the MLP.
  const std::string l = "model.encoder.layers.23.";
  EXPECT_EQ(find_tensor(t, l + "attention.rel_pos_h")->shape, (Shape{111, 64}));
  EXPECT_EQ(find_tensor(t, l + "attention.rel_pos_w")->shape, (Shape{55, 64}));
  EXPECT_LT(tensor_index(t, l + "attention.rel_pos_w"), tensor_index(t, l + "attention.qkv.weight"));
  EXPECT_EQ(find_tensor(t, l + "attention.qkv.weight")->shape, (Shape{3072, 1024}));
  EXPECT_LT(tensor_index(t, l + "mlp.lin2.bias"), tensor_index(t, l + "layernorm_before.weight"));
  // The decoder reads the four intermediate features concatenated: 4 x 1024 to 16 x 16 x 64.
  EXPECT_EQ(find_tensor(t, "decoder.decoder_embed.weight")->shape, (Shape{16384, 4096}));
  EXPECT_EQ(find_tensor(t, "decoder.decoder_pred.head.weight")->shape, (Shape{3, 64, 1, 1}));
  EXPECT_EQ(t.tensors.back().name, "decoder.decoder_pred.head.bias");
  // Without relative positions there are none.
  EXPECT_EQ(find_tensor(template_of(replaced(kSegGptLarge, "\"mlp_dim\":4096",
                                             "\"use_relative_position_embeddings\":false")),
                        l + "attention.rel_pos_h"),
            nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("model.embeddings.segment_token_prompt").block, Block::Embedding);
  EXPECT_EQ(place_tensor("decoder.decoder_pred.conv.weight").block, Block::LmHead);
  expect_reads_cleanly(R"({"model_type":"seggpt","hidden_size":32,"num_hidden_layers":2,
      "num_attention_heads":2,"image_size":[64,32],"pretrain_image_size":32,"decoder_hidden_size":8,
      "intermediate_hidden_state_indices":[1],"merge_index":0})");
}

TEST(SegGpt, RefusesWhatTransformersCannotBuild) {
  // SegGptConfig raises when merge_index exceeds the lowest intermediate index.
  EXPECT_EQ(refusal_of(R"({"model_type":"seggpt","merge_index":6})").field, "merge_index");
  EXPECT_EQ(refusal_of(R"({"model_type":"seggpt","intermediate_hidden_state_indices":[]})").field,
            "intermediate_hidden_state_indices");
  EXPECT_EQ(refusal_of(R"({"model_type":"seggpt","patch_size":1024})").field, "patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"seggpt","architectures":["SegGptForMaskedImageModeling"]})").kind,
            ErrorKind::Unsupported);
}

// transformers' TvpForVideoGrounding at Intel/tvp-base's shape: 168,351,298; its test model (TvpModel):
// 930,048.
TEST(Tvp, TotalsMatchTransformers) {
  EXPECT_EQ(parameters_of(kTvpBase), 168'351'298u);
  EXPECT_EQ(parameters_of(R"({"model_type":"tvp","architectures":["TvpForVideoGrounding"],
      "type_vocab_size":2})"),
            168'351'298u);
  EXPECT_EQ(parameters_of(kTvpTester), 930'048u);
}

TEST(Tvp, NamesShapesAndOrder) {
  const ModelTemplate t = template_of(kTvpBase);
  EXPECT_EQ(t.arch.architecture, "TvpForVideoGrounding");
  EXPECT_EQ(t.arch.num_layers, 12u);
  // text_prompt is TvpModel's own parameter: first in state_dict, before the ResNet-50 backbone.
  EXPECT_EQ(t.tensors.front().name, "model.text_prompt");
  EXPECT_EQ(t.tensors.front().shape, (Shape{1, 10, 768}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.backbone.embedder.embedder.convolution.weight")->shape,
            (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.backbone.encoder.stages.3.layers.2.layer.2.convolution.weight")
                ->shape,
            (Shape{2048, 512, 1, 1}));
  // grid_encoder_conv reads backbone_config.hidden_sizes[-1], bias-free.
  EXPECT_EQ(find_tensor(t, "model.vision_model.grid_encoder_conv.weight")->shape, (Shape{768, 2048, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.grid_encoder_conv.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.embeddings.layer_norm.weight")->shape, (Shape{768}));
  EXPECT_EQ(find_tensor(t, "model.visual_embeddings.row_position_embeddings.weight")->shape,
            (Shape{100, 768}));
  EXPECT_EQ(find_tensor(t, "model.visual_embeddings.token_type_embeddings.weight")->shape, (Shape{1, 768}));
  EXPECT_EQ(find_tensor(t, "model.encoder.layer.11.attention.layer_norm.weight")->shape, (Shape{768}));
  EXPECT_EQ(find_tensor(t, "model.encoder.layer.11.output.dense.weight")->shape, (Shape{768, 3072}));
  // The framepad prompter: bands of 96 pixels over 48 frames, the side bands between the top and bottom.
  EXPECT_EQ(find_tensor(t, "model.visual_prompter.pad_up")->shape, (Shape{1, 48, 3, 96, 448}));
  EXPECT_EQ(find_tensor(t, "model.visual_prompter.pad_left")->shape, (Shape{1, 48, 3, 256, 96}));
  EXPECT_LT(tensor_index(t, "model.pooler.dense.bias"), tensor_index(t, "model.visual_prompter.pad_up"));
  EXPECT_EQ(find_tensor(t, "video_grounding_head.layer_1.weight")->shape, (Shape{2, 1536}));
  // framedownpad: one bottom band over frame_num frames (TvpConfig has no such field: config.json names it).
  const ModelTemplate down =
      template_of(replaced(kTvpBase, "\"type_vocab_size\":2",
                           R"("type_vocab_size":2,"visual_prompter_type":"framedownpad",
                                                  "frame_num":8)"));
  EXPECT_EQ(find_tensor(down, "model.visual_prompter.pad_down")->shape, (Shape{1, 8, 3, 96, 448}));
  EXPECT_EQ(find_tensor(down, "model.visual_prompter.pad_up"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("model.visual_prompter.pad_up").block, Block::Vision);
  EXPECT_EQ(place_tensor("model.text_prompt").block, Block::Embedding);
  EXPECT_EQ(place_tensor("video_grounding_head.layer_0.weight").block, Block::LmHead);
  expect_reads_cleanly(kTvpTester);
}

TEST(Tvp, RefusesWhatTransformersCannotBuild) {
  // TvpTextInputEmbeddings reads config.type_vocab_size, which TvpConfig does not define.
  EXPECT_EQ(refusal_of(R"({"model_type":"tvp"})").field, "type_vocab_size");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"tvp","type_vocab_size":2,"visual_prompter_type":"framedownpad"})").field,
      "frame_num");
  EXPECT_EQ(refusal_of(R"({"model_type":"tvp","type_vocab_size":2,"visual_prompter_type":"pad"})").field,
            "visual_prompter_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"tvp","type_vocab_size":2,"visual_prompter_apply":"mul"})").field,
            "visual_prompter_apply");
  // A backbone named only by checkpoint: its shape is not in config.json.
  EXPECT_EQ(refusal_of(R"({"model_type":"tvp","type_vocab_size":2,"backbone":"microsoft/resnet-50"})").field,
            "backbone_config");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"tvp","type_vocab_size":2,"backbone_config":{"model_type":"convnext"}})")
          .field,
      "backbone_config.model_type");
}

// transformers' EfficientLoFTRForKeypointMatching at zju-community/efficientloftr's shape: 16,025,216;
// EfficientLoFTRModel (the class a config without architectures gets, no fine fusion layer) at the config's
// defaults: 14,812,032; EfficientLoFTRModel of a small three-stage config with biased attention: 291,584.
TEST(EfficientLoftr, TotalsMatchTransformers) {
  EXPECT_EQ(parameters_of(kEfficientLoftr), 16'025'216u);
  EXPECT_EQ(parameters_of(R"({"model_type":"efficientloftr"})"), 14'812'032u);  // EfficientLoFTRModel
  EXPECT_EQ(parameters_of(R"({"model_type":"efficientloftr","architectures":["EfficientLoFTRModel"],
      "stage_num_blocks":[1,2,3],"stage_stride":[1,2,2],"out_features":[32,32,64],"hidden_size":64,
      "num_attention_heads":4,"num_attention_layers":2,"attention_bias":true,
      "q_aggregation_kernel_size":2})"),
            291'584u);
}

TEST(EfficientLoftr, NamesShapesAndOrder) {
  const ModelTemplate t = template_of(kEfficientLoftr);
  EXPECT_EQ(t.arch.architecture, "EfficientLoFTRForKeypointMatching");
  EXPECT_EQ(t.arch.num_layers, 4u);
  const std::string b = "efficientloftr.backbone.stages.";
  // The first block reads one grey channel; a block keeping width and stride adds a batch-norm identity.
  EXPECT_EQ(find_tensor(t, b + "0.blocks.0.conv1.conv.weight")->shape, (Shape{64, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, b + "0.blocks.0.conv2.conv.weight")->shape, (Shape{64, 1, 1, 1}));
  EXPECT_EQ(find_tensor(t, b + "0.blocks.0.identity.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, b + "1.blocks.0.identity.weight")->shape, (Shape{64}));
  EXPECT_EQ(find_tensor(t, b + "2.blocks.0.identity.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, b + "3.blocks.13.identity.running_var")->kind, TensorKind::Buffer);
  const std::string l = "efficientloftr.local_feature_transformer.layers.3.cross_attention.";
  EXPECT_EQ(find_tensor(t, l + "aggregation.q_aggregation.weight")->shape, (Shape{256, 1, 4, 4}));
  EXPECT_EQ(find_tensor(t, l + "attention.o_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "mlp.fc1.weight")->shape, (Shape{512, 512}));
  EXPECT_EQ(find_tensor(t, l + "mlp.fc2.weight")->shape, (Shape{256, 512}));
  // The fine fusion pyramid: 256 -> 128 -> 64, bias-free convs.
  EXPECT_EQ(find_tensor(t, "refinement_layer.out_conv.weight")->shape, (Shape{256, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "refinement_layer.out_conv_layers.1.out_conv1.weight")->shape,
            (Shape{128, 64, 1, 1}));
  EXPECT_EQ(find_tensor(t, "refinement_layer.out_conv_layers.1.out_conv3.weight")->shape,
            (Shape{64, 128, 3, 3}));
  EXPECT_EQ(t.tensors.back().name, "refinement_layer.out_conv_layers.1.out_conv3.weight");
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(b + "1.blocks.0.identity.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("backbone.stages.1.blocks.0.conv1.conv.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("refinement_layer.out_conv.weight").block, Block::LmHead);
  expect_reads_cleanly(R"({"model_type":"efficientloftr","stage_num_blocks":[1,1],"stage_stride":[2,1],
      "out_features":[8,16],"hidden_size":16,"num_attention_heads":2,"num_attention_layers":1})");
}

TEST(EfficientLoftr, RefusesWhatTransformersCannotBuild) {
  // EfficientLoFTRConfig raises unless hidden_size is the last out_features entry.
  EXPECT_EQ(refusal_of(R"({"model_type":"efficientloftr","hidden_size":128})").field, "hidden_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"efficientloftr","stage_stride":[2,1,2]})").field, "stage_stride");
  // A saved derived list that disagrees with the stage lists (PretrainedConfig would set it back).
  EXPECT_EQ(refusal_of(R"({"model_type":"efficientloftr","fine_fusion_dims":[256,64]})").field,
            "fine_fusion_dims");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"efficientloftr","stage_block_stride":[[2],[1,1],[2,1,1,1],[2]]})").field,
      "stage_block_stride");
}

}  // namespace ma::test
