// FLAVA (flava) and BridgeTower (bridgetower): templates against what transformers builds. Totals, names,
// shapes and order were compared with an independent reconstruction of the transformers classes in real torch
// modules (/tmp/impl/multimodal_d/verify/expected.py, modeling_flava.py and v5's modeling_bridgetower.py):
// every config below gives the same parameters in the same named_parameters() order.
#include <string>

#include "template_test_support.h"

namespace ma::test {

namespace {

// facebook/flava-full's config.json: FlavaForPreTraining with every sub-config at its class's defaults
// (ViT-B/16 image encoder, BERT-base-sized text encoder, 6-layer multimodal encoder, DALL-E codebook).
std::string mmd_flava_full() {
  return R"({"model_type":"flava","architectures":["FlavaForPreTraining"],"hidden_size":768,
    "projection_dim":768,"init_codebook":true,"text_config":{"hidden_size":768,"vocab_size":30522},
    "image_config":{"hidden_size":768,"image_size":224,"patch_size":16,"vocab_size":8192},
    "multimodal_config":{"hidden_size":768,"num_hidden_layers":6},
    "image_codebook_config":{"hidden_size":256,"num_blocks_per_group":2,"vocab_size":8192}})";
}

// BridgeTower/bridgetower-base's config.json: a CLIP ViT-B/16 at 288 px, RoBERTa-base, six cross-modal
// layers of 768.
std::string mmd_bridgetower_base() {
  return R"({"model_type":"bridgetower","architectures":["BridgeTowerModel"],"hidden_size":768,
    "num_hidden_layers":6,"share_cross_modal_transformer_layers":true,"share_link_tower_layers":false,
    "link_tower_type":"add","tie_word_embeddings":false,
    "text_config":{"vocab_size":50265,"hidden_size":768,"num_hidden_layers":12,"max_position_embeddings":514,
    "type_vocab_size":1},
    "vision_config":{"hidden_size":768,"num_hidden_layers":12,"image_size":288,"patch_size":16,
    "share_layernorm":true,"remove_last_layer":false}})";
}

}  // namespace

// 357,645,303 as FlavaForPreTraining's modules add up: FlavaModel's 241,356,289 (the FLAVA paper's 241M),
// the image codebook's 53,786,240, and the heads; each head's decoder.bias is its bias.
TEST(MultimodalD, FlavaForPreTrainingHasTheCodebookAndTheHeads) {
  const ModelTemplate t = template_of(mmd_flava_full());
  EXPECT_EQ(total_of(t), 357645303u);
  EXPECT_EQ(t.arch.architecture, "FlavaForPreTraining");
  // FlavaModel's own logit_scale comes before its towers.
  EXPECT_EQ(t.tensors.front().name, "flava.logit_scale");
  EXPECT_EQ(t.tensors.back().name, "mmm_text_head.decoder.bias");
  EXPECT_EQ(find_tensor(t, "flava.image_model.embeddings.position_embeddings")->shape, (Shape{1, 197, 768}));
  EXPECT_NE(find_tensor(t, "flava.image_model.embeddings.mask_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "flava.multimodal_model.cls_token")->shape, (Shape{1, 1, 768}));
  EXPECT_EQ(find_tensor(t, "flava.multimodal_model.encoder.layer.5.layernorm_after.weight")->shape,
            (Shape{768}));
  EXPECT_EQ(find_tensor(t, "flava.multimodal_model.encoder.layer.6.layernorm_after.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "image_codebook.blocks.input.weight")->shape, (Shape{256, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "image_codebook.blocks.group_1.group.block_1.id_path.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "image_codebook.blocks.group_4.group.block_1.id_path.weight")->shape,
            (Shape{2048, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, "image_codebook.blocks.group_4.group.block_2.res_path.path.conv_1.weight")->shape,
            (Shape{512, 2048, 3, 3}));
  EXPECT_EQ(find_tensor(t, "image_codebook.blocks.output.conv.weight")->shape, (Shape{8192, 2048, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mim_head.decoder.weight")->shape, (Shape{8192, 768}));
  EXPECT_EQ(find_tensor(t, "mlm_head.decoder.weight")->shape, (Shape{30522, 768}));
  EXPECT_EQ(find_tensor(t, "mlm_head.decoder.bias")->tied_to, "mlm_head.bias");
  EXPECT_LT(tensor_index(t, "mmm_image_head.bias"), tensor_index(t, "mmm_image_head.transform.dense.weight"));
  EXPECT_EQ(find_tensor(t, "itm_head.seq_relationship.weight")->shape, (Shape{2, 768}));
  expect_every_tensor_placed(t);
  expect_reads_cleanly(mmd_flava_full());
}

// 241,356,289: FlavaModel alone, as the FLAVA paper counts the model (241M); no codebook, no heads.
// Without init_codebook FlavaForPreTraining has the heads but no codebook: 303,859,063.
TEST(MultimodalD, FlavaModelIsTheThreeEncodersAndTheProjections) {
  const std::string model = replaced(mmd_flava_full(), "FlavaForPreTraining", "FlavaModel");
  const ModelTemplate t = template_of(model);
  EXPECT_EQ(total_of(t), 241356289u);
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  EXPECT_EQ(t.tensors.back().name, "text_to_mm_projection.bias");
  EXPECT_EQ(find_tensor(t, "image_projection.weight")->shape, (Shape{768, 768}));
  EXPECT_EQ(find_tensor(t, "mim_head.bias"), nullptr);
  EXPECT_EQ(t.arch.stacks.size(), 3u);
  expect_every_tensor_placed(t);
  EXPECT_EQ(total_of(template_of(
                replaced(mmd_flava_full(), R"("init_codebook":true)", R"("init_codebook":false)"))),
            303859063u);
}

// What a config can change: the transformers 4.2x *_config_dict spelling overrides *_config entirely, image
// and patch sizes given as [height, width], no mask token, no multimodal [CLS], a codebook whose width is not
// a multiple of four (its residual paths are out // 4 wide).
TEST(MultimodalD, FlavaVariants) {
  const ModelTemplate t = template_of(R"({"model_type":"flava","architectures":["FlavaForPreTraining"],
    "hidden_size":512,"projection_dim":256,"text_config":{"hidden_size":999},
    "text_config_dict":{"hidden_size":384,"num_hidden_layers":3,"num_attention_heads":6,"intermediate_size":1000,
    "vocab_size":1000,"max_position_embeddings":77,"type_vocab_size":1,"qkv_bias":false},
    "image_config":{"hidden_size":256,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":512,
    "image_size":[64,96],"patch_size":[16,32],"mask_token":false,"vocab_size":500,"num_channels":1},
    "multimodal_config":{"hidden_size":512,"num_hidden_layers":2,"num_attention_heads":8,
    "intermediate_size":700,"use_cls_token":false},
    "image_codebook_config":{"hidden_size":64,"num_blocks_per_group":3,"vocab_size":300}})");
  EXPECT_EQ(total_of(t), 15661255u);
  EXPECT_EQ(find_tensor(t, "flava.text_model.embeddings.word_embeddings.weight")->shape, (Shape{1000, 384}));
  EXPECT_EQ(find_tensor(t, "flava.text_model.encoder.layer.0.attention.attention.query.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "flava.image_model.embeddings.patch_embeddings.projection.weight")->shape,
            (Shape{256, 1, 16, 32}));
  EXPECT_EQ(find_tensor(t, "flava.image_model.embeddings.position_embeddings")->shape, (Shape{1, 13, 256}));
  EXPECT_EQ(find_tensor(t, "flava.image_model.embeddings.mask_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "flava.multimodal_model.cls_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "itm_head.pooler.dense.weight")->shape, (Shape{512, 512}));
  EXPECT_EQ(find_tensor(t, "image_codebook.blocks.group_1.group.block_3.res_path.path.conv_4.weight")->shape,
            (Shape{64, 16, 1, 1}));
  const ModelTemplate odd = template_of(R"({"model_type":"flava","architectures":["FlavaForPreTraining"],
    "image_codebook_config":{"hidden_size":30,"num_blocks_per_group":1,"vocab_size":100}})");
  EXPECT_EQ(total_of(odd), 304118591u);
  EXPECT_EQ(
      find_tensor(odd, "image_codebook.blocks.group_2.group.block_1.res_path.path.conv_1.weight")->shape,
      (Shape{15, 30, 3, 3}));
}

TEST(MultimodalD, FlavaRefusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"flava","text_config":{"num_attention_heads":5}})").field,
            "text_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"flava","image_config":{"patch_size":300}})").field,
            "image_config.patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"flava","architectures":["FlavaForPreTraining"],
    "image_codebook_config":{"hidden_size":3}})")
                .field,
            "image_codebook_config.hidden_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"flava","architectures":["FlavaImageCodebook"]})").kind,
            ErrorKind::Unsupported);
}

// 326,347,008 as BridgeTowerModel's modules add up: the CLIP ViT-B/16 (85,897,728 with 325 positions),
// RoBERTa-base with its pooler (124,645,632), two stacks of six cross-modal layers (56,710,656 each) and the
// transforms, token types, poolers, LayerNorms and link towers (2,382,336).
TEST(MultimodalD, BridgeTowerBase) {
  const ModelTemplate t = template_of(mmd_bridgetower_base());
  EXPECT_EQ(total_of(t), 326347008u);
  EXPECT_EQ(t.arch.architecture, "BridgeTowerModel");
  EXPECT_EQ(t.tensors.front().name, "cross_modal_text_transform.weight");
  EXPECT_EQ(t.tensors.back().name, "cross_modal_image_link_tower.4.LayerNorm.bias");
  EXPECT_EQ(find_tensor(t, "vision_model.visual.embeddings.position_embedding.weight")->shape,
            (Shape{325, 768}));
  EXPECT_EQ(find_tensor(t, "vision_model.visual.embeddings.patch_embedding.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_model.visual.transformer.resblocks.11.attn.in_proj_weight")->shape,
            (Shape{2304, 768}));
  EXPECT_LT(tensor_index(t, "vision_model.visual.transformer.resblocks.0.attn.out_proj.bias"),
            tensor_index(t, "vision_model.visual.transformer.resblocks.0.ln_1.weight"));
  // v5's BridgeTowerTextEmbeddings (RobertaEmbeddings) registers position_embeddings after its LayerNorm.
  EXPECT_LT(tensor_index(t, "text_model.embeddings.LayerNorm.bias"),
            tensor_index(t, "text_model.embeddings.position_embeddings.weight"));
  EXPECT_EQ(find_tensor(t, "text_model.embeddings.token_type_embeddings.weight")->shape, (Shape{1, 768}));
  EXPECT_NE(find_tensor(t, "cross_modal_text_layers.5.crossattention.self.key.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "cross_modal_text_link_tower.5.LayerNorm.weight"), nullptr);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(mmd_bridgetower_base());
}

// The heads: the MLM head (365,592,921: its bias first, a bias-free decoder, untied by BridgeTowerConfig's
// default), the matching score over both [CLS] features (326,350,082), and the contrastive heads with
// logit_scale before the model (327,921,409 with bridgetower-large-itm-mlm-itc's contrastive_hidden_size
// 512).
TEST(MultimodalD, BridgeTowerHeads) {
  const ModelTemplate mlm =
      template_of(replaced(mmd_bridgetower_base(), "BridgeTowerModel", "BridgeTowerForMaskedLM"));
  EXPECT_EQ(total_of(mlm), 365592921u);
  EXPECT_EQ(mlm.tensors.front().name, "bridgetower.cross_modal_text_transform.weight");
  EXPECT_EQ(find_tensor(mlm, "mlm_score.decoder.weight")->shape, (Shape{50265, 768}));
  EXPECT_TRUE(find_tensor(mlm, "mlm_score.decoder.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(mlm, "mlm_score.decoder.bias"), nullptr);
  expect_every_tensor_placed(mlm);
  const ModelTemplate itm = template_of(
      replaced(mmd_bridgetower_base(), "BridgeTowerModel", "BridgeTowerForImageAndTextRetrieval"));
  EXPECT_EQ(total_of(itm), 326350082u);
  EXPECT_EQ(find_tensor(itm, "itm_score.fc.weight")->shape, (Shape{2, 1536}));
  expect_every_tensor_placed(itm);
  const std::string itc_config =
      replaced(replaced(mmd_bridgetower_base(), "BridgeTowerModel", "BridgeTowerForContrastiveLearning"),
               R"("hidden_size":768,)", R"("hidden_size":768,"contrastive_hidden_size":512,
               "logit_scale_init_value":2.6592,)");
  const ModelTemplate itc = template_of(itc_config);
  EXPECT_EQ(total_of(itc), 327921409u);
  EXPECT_EQ(itc.tensors.front().name, "logit_scale");
  EXPECT_EQ(find_tensor(itc, "itc_cross_modal_head.fc.weight")->shape, (Shape{512, 1536}));
  expect_every_tensor_placed(itc);
  expect_reads_cleanly(itc_config);
  // Tied: the decoder is the word embeddings (289,176,159 with four cross-modal layers and scaled_add links,
  // whose scaled_factor comes before each link's LayerNorm).
  const ModelTemplate tied =
      template_of(R"({"model_type":"bridgetower","architectures":["BridgeTowerForMaskedLM"],
    "num_hidden_layers":4,"link_tower_type":"scaled_add","tie_word_embeddings":true})");
  EXPECT_EQ(total_of(tied), 289176159u);
  EXPECT_EQ(find_tensor(tied, "mlm_score.decoder.weight")->tied_to,
            "bridgetower.text_model.embeddings.word_embeddings.weight");
  EXPECT_LT(tensor_index(tied, "bridgetower.cross_modal_text_link_tower.2.scaled_factor"),
            tensor_index(tied, "bridgetower.cross_modal_text_link_tower.2.LayerNorm.weight"));
  expect_every_tensor_placed(tied);
}

// The sharing switches and the large model: unshared transforms (one per cross-modal layer), one shared
// link tower per side (interpolate's beta), per-layer LayerNorms after the vision layers (share_layernorm
// false) and the last vision layer removed; bridgetower-large-itm-mlm-itc's sizes give 866,612,737.
TEST(MultimodalD, BridgeTowerVariants) {
  const ModelTemplate t =
      template_of(R"({"model_type":"bridgetower","architectures":["BridgeTowerForMaskedLM"],
    "hidden_size":512,"num_hidden_layers":3,"share_cross_modal_transformer_layers":false,
    "share_link_tower_layers":true,"link_tower_type":"interpolate",
    "text_config":{"hidden_size":256,"num_attention_heads":4,"num_hidden_layers":5,"intermediate_size":600,
    "vocab_size":1234,"type_vocab_size":2,"max_position_embeddings":100},
    "vision_config":{"hidden_size":128,"num_hidden_layers":4,"patch_size":8,"image_size":32,
    "share_layernorm":false,"remove_last_layer":true,"num_channels":4}})");
  EXPECT_EQ(total_of(t), 10936604u);
  EXPECT_EQ(find_tensor(t, "bridgetower.cross_modal_image_transform.2.weight")->shape, (Shape{512, 128}));
  EXPECT_NE(find_tensor(t, "bridgetower.cross_modal_text_link_tower.beta"), nullptr);
  EXPECT_NE(find_tensor(t, "bridgetower.vision_model.visual.ln_separate.3.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "bridgetower.vision_model.visual.transformer.resblocks.3.ln_1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "mlm_score.decoder.weight")->shape, (Shape{1234, 512}));
  expect_every_tensor_placed(t);
  const ModelTemplate large =
      template_of(R"({"model_type":"bridgetower","architectures":["BridgeTowerForContrastiveLearning"],
    "hidden_size":1024,"num_attention_heads":16,"num_hidden_layers":6,"contrastive_hidden_size":512,
    "logit_scale_init_value":2.6592,
    "text_config":{"hidden_size":1024,"num_attention_heads":16,"num_hidden_layers":24,"intermediate_size":4096},
    "vision_config":{"hidden_size":1024,"num_hidden_layers":24,"patch_size":14,"image_size":294}})");
  EXPECT_EQ(total_of(large), 866612737u);
}

TEST(MultimodalD, BridgeTowerRefusals) {
  // BridgeTowerConfig declares neither: BridgeTowerForContrastiveLearning reads them from config.json.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"bridgetower","architectures":["BridgeTowerForContrastiveLearning"]})")
          .field,
      "contrastive_hidden_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"bridgetower","architectures":["BridgeTowerForContrastiveLearning"],
    "contrastive_hidden_size":512})")
                .field,
            "logit_scale_init_value");
  EXPECT_EQ(refusal_of(R"({"model_type":"bridgetower","text_config":{"add_cross_attention":true}})").field,
            "text_config.add_cross_attention");
  EXPECT_EQ(refusal_of(R"({"model_type":"bridgetower","link_tower_type":"concat"})").field,
            "link_tower_type");
  // nn.MultiheadAttention(32, 32 // 64): no heads.
  EXPECT_EQ(refusal_of(R"({"model_type":"bridgetower","vision_config":{"hidden_size":32}})").field,
            "vision_config.hidden_size");
  // transformers reads vision_model.visual.cross_modal_ln_separate, which does not exist.
  EXPECT_EQ(refusal_of(R"({"model_type":"bridgetower","vision_config":{"share_layernorm":false},
    "init_layernorm_from_vision_encoder":true})")
                .field,
            "init_layernorm_from_vision_encoder");
}

}  // namespace ma::test
