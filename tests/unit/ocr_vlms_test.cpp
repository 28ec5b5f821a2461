// Swin (swin), Donut's Swin (donut-swin) and the Donut and Nougat composites that nest it, Pix2Struct
// (pix2struct and its two halves alone): templates against what transformers 5 builds. Totals were counted by
// an independent torch mirror of the classes' module construction on the meta device (transformers'
// modular_swin.py after PR #41693, modular_donut_swin.py, modeling_pix2struct.py,
// configuration_pix2struct.py; /tmp/impl/ocr_vlms/verify/mirror.py, compare_out.txt: every name, shape, kind
// and state_dict position identical) and checked against the papers' figures where they publish one.
#include <string>
#include <vector>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/swin-tiny-patch4-window7-224's shape fields (1,000 ImageNet labels).
constexpr const char* kSwinTiny =
    R"({"model_type":"swin","architectures":["SwinForImageClassification"],"embed_dim":96,
    "depths":[2,2,6,2],"num_heads":[3,6,12,24],"window_size":7,"image_size":224,"patch_size":4,
    "num_channels":3,"mlp_ratio":4.0,"qkv_bias":true,"use_absolute_embeddings":false,"num_labels":1000})";

// naver-clova-ix/donut-base: a Donut Swin encoder on 2560 x 1920 pages, 10 x 10 windows, and a 4-layer
// mBART decoder whose LM head is tied (its decoder config leaves tie_word_embeddings at MBartConfig's true).
constexpr const char* kDonutBase =
    R"({"model_type":"vision-encoder-decoder","architectures":["VisionEncoderDecoderModel"],
    "tie_word_embeddings":false,
    "encoder":{"model_type":"donut-swin","depths":[2,2,14,2],"embed_dim":128,"hidden_size":1024,
      "image_size":[2560,1920],"mlp_ratio":4.0,"num_channels":3,"num_heads":[4,8,16,32],"num_layers":4,
      "patch_size":4,"qkv_bias":true,"use_absolute_embeddings":false,"window_size":10},
    "decoder":{"model_type":"mbart","add_cross_attention":true,"add_final_layer_norm":true,"d_model":1024,
      "decoder_attention_heads":16,"decoder_ffn_dim":4096,"decoder_layers":4,"is_decoder":true,
      "is_encoder_decoder":false,"max_position_embeddings":1536,"scale_embedding":true,"vocab_size":57525,
      "pad_token_id":1}})";

// facebook/nougat-base: Donut's encoder on 896 x 672 pages with 7 x 7 windows, a 10-layer mBART decoder
// over 4,096 positions with an untied LM head (convert_nougat_to_hf.py sets tie_word_embeddings=False).
constexpr const char* kNougatBase =
    R"({"model_type":"vision-encoder-decoder","architectures":["VisionEncoderDecoderModel"],
    "encoder":{"model_type":"donut-swin","depths":[2,2,14,2],"embed_dim":128,"hidden_size":1024,
      "image_size":[896,672],"num_heads":[4,8,16,32],"patch_size":4,"window_size":7},
    "decoder":{"model_type":"mbart","add_cross_attention":true,"add_final_layer_norm":true,"d_model":1024,
      "decoder_attention_heads":16,"decoder_ffn_dim":4096,"decoder_layers":10,"is_decoder":true,
      "max_position_embeddings":4096,"scale_embedding":true,"vocab_size":50000,"tie_word_embeddings":false}})";

// google/pix2struct-base's shape fields.
constexpr const char* kPix2StructBase =
    R"({"model_type":"pix2struct","architectures":["Pix2StructForConditionalGeneration"],
    "text_config":{"model_type":"pix2struct_text_model","d_ff":2048,"d_kv":64,"hidden_size":768,
      "num_heads":12,"num_layers":12,"relative_attention_num_buckets":32,"vocab_size":50244},
    "vision_config":{"model_type":"pix2struct_vision_model","d_ff":2048,"d_kv":64,"hidden_size":768,
      "num_attention_heads":12,"num_hidden_layers":12,"patch_embed_hidden_size":768,"seq_len":4096}})";

// google/pix2struct-large's: 18 layers of 1,536 on both sides.
constexpr const char* kPix2StructLarge =
    R"({"model_type":"pix2struct","text_config":{"d_ff":3968,"d_kv":64,"hidden_size":1536,"num_heads":24,
    "num_layers":18,"vocab_size":50244},"vision_config":{"d_ff":3968,"d_kv":64,"hidden_size":1536,
    "num_attention_heads":24,"num_hidden_layers":18,"patch_embed_hidden_size":768,"seq_len":4096}})";

// The Swin paper (Liu et al., 2021, table 1) gives Swin-T 28M and Swin-B 88M parameters; transformers'
// SwinForImageClassification gives 28,288,354 and 87,768,224 (timm's counts of the same models).
TEST(Swin, TinyAndBaseMatchThePaperAndTransformers) {
  const uint64_t tiny = parameters_of(kSwinTiny);
  EXPECT_EQ(tiny, 28'288'354u);
  EXPECT_EQ((tiny + 500'000) / 1'000'000, 28u);
  const std::string base = replaced(
      replaced(replaced(kSwinTiny, R"("embed_dim":96)", R"("embed_dim":128)"), "[2,2,6,2]", "[2,2,18,2]"),
      "[3,6,12,24]", "[4,8,16,32]");
  const uint64_t b = parameters_of(base);
  EXPECT_EQ(b, 87'768'224u);
  EXPECT_EQ((b + 500'000) / 1'000'000, 88u);
}

// transformers 5's names in memory, transformers 4's on disk; the index buffer is not in the model.
TEST(Swin, NamesOnDiskAndTheIndexBuffer) {
  const ModelTemplate t = template_of(kSwinTiny);
  EXPECT_EQ(t.arch.architecture, "SwinForImageClassification");
  EXPECT_EQ(t.arch.hidden_size, 768u);
  EXPECT_EQ(t.arch.num_layers, 12u);
  const TemplateTensor* q = find_tensor(t, "swin.encoder.layers.2.blocks.5.attention.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->shape, (Shape{384, 384}));
  EXPECT_EQ(stored_name(*q), "swin.encoder.layers.2.blocks.5.attention.self.query.weight");
  const TemplateTensor* table = find_tensor(
      t, "swin.encoder.layers.3.blocks.1.attention.relative_position_bias.relative_position_bias_table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->shape, (Shape{169, 24}));  // (2 x 7 - 1)^2 offsets, 24 heads in the last stage
  EXPECT_EQ(stored_name(*table),
            "swin.encoder.layers.3.blocks.1.attention.self.relative_position_bias_table");
  EXPECT_EQ(stored_name(*find_tensor(t, "swin.encoder.layers.0.blocks.0.attention.o_proj.bias")),
            "swin.encoder.layers.0.blocks.0.attention.output.dense.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, "swin.encoder.layers.0.blocks.0.mlp.fc1.weight")),
            "swin.encoder.layers.0.blocks.0.intermediate.dense.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "swin.encoder.layers.0.blocks.0.mlp.fc2.weight")),
            "swin.encoder.layers.0.blocks.0.output.dense.weight");
  // A non-persistent buffer in transformers 5, stored by Hub checkpoints: a known extra per block.
  for (const TemplateTensor& x : t.tensors)
    EXPECT_EQ(x.name.find("relative_position_index"), std::string::npos);
  EXPECT_EQ(t.known_extras.size(), 12u);
  EXPECT_EQ(find_tensor(t, "swin.encoder.layers.0.downsample.reduction.weight")->shape, (Shape{192, 384}));
  EXPECT_EQ(find_tensor(t, "swin.encoder.layers.3.downsample.reduction.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "swin.layernorm.weight")->shape, (Shape{768}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 768}));
}

// SwinConfig's and DonutSwinConfig's defaults (Swin-T's shape): SwinModel 27,519,354 and DonutSwinModel
// 27,517,818 (no final LayerNorm); absolute positions: Swin 5 keeps one per patch, Donut one more.
TEST(Swin, DefaultsAndAbsolutePositions) {
  EXPECT_EQ(parameters_of(R"({"model_type":"swin"})"), 27'519'354u);
  EXPECT_EQ(parameters_of(R"({"model_type":"donut-swin"})"), 27'517'818u);
  const std::string small = R"({"embed_dim":32,"depths":[1,2],"num_heads":[2,4],"window_size":4,
      "image_size":[64,32],"patch_size":4,"use_absolute_embeddings":true)";
  const ModelTemplate s = template_of(R"({"model_type":"swin",)" + small.substr(1) + "}");
  EXPECT_EQ(find_tensor(s, "embeddings.position_embeddings")->shape, (Shape{1, 128, 32}));
  EXPECT_EQ(parameters_of(R"({"model_type":"swin","architectures":["SwinModel"],"qkv_bias":false,
      "mlp_ratio":2.5,)" + small.substr(1) +
                          "}"),
            99'098u);
  const ModelTemplate d = template_of(R"({"model_type":"donut-swin",)" + small.substr(1) + "}");
  EXPECT_EQ(find_tensor(d, "embeddings.position_embeddings")->shape, (Shape{1, 129, 32}));
  EXPECT_EQ(find_tensor(d, "layernorm.weight"), nullptr);
  const TemplateTensor* index =
      find_tensor(d, "encoder.layers.1.blocks.1.attention.self.relative_position_index");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->kind, TensorKind::Buffer);
  EXPECT_EQ(index->shape, (Shape{16, 16}));
  ASSERT_EQ(index->disk.size(), 1u);
  EXPECT_EQ(index->disk.front().dtype, DType::I64);
  EXPECT_EQ(parameters_of(R"({"model_type":"donut-swin","architectures":["DonutSwinForImageClassification"],
      "num_labels":5,)" + small.substr(1) +
                          "}"),
            127'695u);
}

// Donut through VisionEncoderDecoderModel's nested families: 201,852,024 in transformers' classes; the
// encoder's 1,024-wide output needs no enc_to_dec_proj.
TEST(Donut, BaseThroughTheVisionEncoderDecoderComposite) {
  EXPECT_EQ(parameters_of(kDonutBase), 201'852'024u);
  const ModelTemplate t = template_of(kDonutBase);
  EXPECT_EQ(t.arch.architecture, "VisionEncoderDecoderModel");
  EXPECT_EQ(find_tensor(t, "enc_to_dec_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.encoder.layers.2.blocks.13.attention.self.query.weight")->shape,
            (Shape{512, 512}));
  EXPECT_EQ(
      find_tensor(t, "encoder.encoder.layers.0.blocks.0.attention.self.relative_position_bias_table")->shape,
      (Shape{361, 4}));  // (2 x 10 - 1)^2 offsets
  EXPECT_EQ(find_tensor(t, "encoder.encoder.layers.0.blocks.0.attention.self.relative_position_index")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "decoder.lm_head.weight")->tied_to, "decoder.model.decoder.embed_tokens.weight");
  const StackSpec* vision = t.arch.stack(StackRole::Vision);
  ASSERT_NE(vision, nullptr);
  EXPECT_EQ(vision->path, "encoder.encoder.layers");
  EXPECT_EQ(vision->hidden, 1024u);
  EXPECT_EQ(vision->image_size, 2560u);
}

// Nougat-base: 348,687,992 in transformers' classes; the Nougat paper (Blecher et al., 2023, table 1) gives
// 350M.
TEST(Nougat, BaseMatchesThePaperAndTransformers) {
  const uint64_t total = parameters_of(kNougatBase);
  EXPECT_EQ(total, 348'687'992u);
  EXPECT_NEAR(static_cast<double>(total), 350e6, 2e6);
  const ModelTemplate t = template_of(kNougatBase);
  EXPECT_TRUE(find_tensor(t, "decoder.lm_head.weight")->tied_to.empty());
  EXPECT_EQ(
      find_tensor(t, "encoder.encoder.layers.3.blocks.1.attention.self.relative_position_bias_table")->shape,
      (Shape{169, 32}));
}

// The Pix2Struct paper (Lee et al., 2023) pretrains a 282M base and a 1.3B large model; transformers'
// Pix2StructForConditionalGeneration gives 282,285,696 and 1,336,107,264, its defaults the base model's.
TEST(Pix2Struct, BaseAndLargeMatchThePaperAndTransformers) {
  const uint64_t base = parameters_of(kPix2StructBase);
  EXPECT_EQ(base, 282'285'696u);
  EXPECT_EQ((base + 500'000) / 1'000'000, 282u);
  const uint64_t large = parameters_of(kPix2StructLarge);
  EXPECT_EQ(large, 1'336'107'264u);
  EXPECT_EQ((large + 50'000'000) / 100'000'000, 13u);
  EXPECT_EQ(parameters_of(R"({"model_type":"pix2struct"})"), base);
}

TEST(Pix2Struct, NamesTiesAndRecord) {
  const ModelTemplate t = template_of(kPix2StructBase);
  EXPECT_EQ(t.arch.architecture, "Pix2StructForConditionalGeneration");
  EXPECT_EQ(find_tensor(t, "encoder.embeddings.patch_projection.weight")->shape, (Shape{768, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.embeddings.row_embedder.weight")->shape, (Shape{4096, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.encoder.layer.11.mlp.wi_1.weight")->shape, (Shape{2048, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.encoder.layer.0.pre_attention_layer_norm.bias"), nullptr);
  // Only the first decoder layer owns the relative position buckets.
  EXPECT_EQ(find_tensor(t, "decoder.layer.0.self_attention.attention.relative_attention_bias.weight")->shape,
            (Shape{32, 12}));
  EXPECT_EQ(find_tensor(t, "decoder.layer.1.self_attention.attention.relative_attention_bias.weight"),
            nullptr);
  EXPECT_NE(find_tensor(t, "decoder.layer.11.encoder_decoder_attention.attention.key.weight"), nullptr);
  EXPECT_TRUE(find_tensor(t, "decoder.lm_head.weight")->tied_to.empty());
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->path, "encoder.encoder.layer");
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 12u);
  EXPECT_TRUE(t.arch.stack(StackRole::Decoder)->layers[0].cross_attention.has_value());
  // Pix2StructConfig writes its own tie_word_embeddings over text_config's.
  const ModelTemplate tied = template_of(
      R"({"model_type":"pix2struct","tie_word_embeddings":true,"text_config":{"tie_word_embeddings":false}})");
  EXPECT_EQ(find_tensor(tied, "decoder.lm_head.weight")->tied_to, "decoder.embed_tokens.weight");
}

// The halves alone, their config classes' defaults: Pix2StructTextModel 190,449,792 (with its LM head) and
// Pix2StructVisionModel 91,835,904.
TEST(Pix2Struct, TextAndVisionModelsAlone) {
  EXPECT_EQ(parameters_of(R"({"model_type":"pix2struct_text_model"})"), 190'449'792u);
  EXPECT_EQ(parameters_of(R"({"model_type":"pix2struct_vision_model"})"), 91'835'904u);
  const ModelTemplate v = template_of(R"({"model_type":"pix2struct_vision_model"})");
  EXPECT_EQ(v.arch.architecture, "Pix2StructVisionModel");
  EXPECT_NE(find_tensor(v, "encoder.layer.0.attention.query.weight"), nullptr);
  EXPECT_NE(v.arch.stack(StackRole::Encoder), nullptr);
}

// A small Swin checkpoint under transformers 4's names, with the index buffers Hub checkpoints store (int64,
// one per block), reads without a warning: every tensor predicted, the indexes buffers (and known extras).
// Small Donut (whose model keeps its indexes) and Pix2Struct checkpoints read with nothing left over.
TEST(OcrVlms, CheckpointsReadCleanly) {
  const std::string swin = R"({"model_type":"swin","embed_dim":8,"depths":[1,2],"num_heads":[2,4],
      "window_size":2,"image_size":16,"patch_size":4})";
  std::vector<TensorToWrite> indexes;
  for (const char* block :
       {"encoder.layers.0.blocks.0", "encoder.layers.1.blocks.0", "encoder.layers.1.blocks.1"})
    indexes.push_back(
        {std::string(block) + ".attention.self.relative_position_index", DType::I64, {4, 4}, {}});
  const Inventory inv = stored_checkpoint(swin, indexes, DType::F16).inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(extras_in(inv), 0u);
  size_t buffers = 0;
  for (const InventoryTensor& x : inv.tensors)
    buffers += x.name.ends_with("relative_position_index") && x.kind == TensorKind::Buffer;
  EXPECT_EQ(buffers, 3u);
  expect_reads_cleanly(R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"donut-swin",
      "embed_dim":8,"depths":[1,2],"num_heads":[2,4],"window_size":2,"image_size":16,"patch_size":4},
      "decoder":{"model_type":"mbart","d_model":16,"decoder_layers":1,"decoder_attention_heads":2,
      "decoder_ffn_dim":8,"vocab_size":50,"max_position_embeddings":32,"add_cross_attention":true,
      "is_decoder":true}})");
  expect_reads_cleanly(R"({"model_type":"pix2struct","text_config":{"d_ff":8,"d_kv":4,"hidden_size":8,
      "num_heads":2,"num_layers":2,"vocab_size":30,"relative_attention_num_buckets":4},"vision_config":{
      "d_ff":8,"d_kv":4,"hidden_size":8,"num_attention_heads":2,"num_hidden_layers":1,
      "patch_embed_hidden_size":12,"seq_len":8}})");
}

TEST(OcrVlms, RefusesWhatTransformersCannotBuild) {
  // SwinEncoder reads num_heads[stage] for every stage.
  EXPECT_EQ(refusal_of(R"({"model_type":"swin","depths":[2,2],"num_heads":[3]})").field, "num_heads");
  // DonutSwinSelfAttention raises unless the heads divide the width; in a composite the path says where.
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"donut-swin",
      "num_heads":[5,6,12,24]},"decoder":{"model_type":"mbart"}})")
                .field,
            "encoder.num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"donut-swin","depths":[]})").field, "depths");
  EXPECT_EQ(refusal_of(R"({"model_type":"pix2struct","vision_config":{"hidden_size":0}})").field,
            "vision_config.hidden_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"swin","architectures":["SwinForMaskedImageModeling"]})").kind,
            ErrorKind::Unsupported);
}

// Every tensor, in memory and on disk, lands in a block (tensor_placement.cpp's Swin and Pix2Struct rules).
TEST(OcrVlms, NoTensorIsPlacedInOther) {
  for (const char* config : {kSwinTiny, kDonutBase, kPix2StructBase})
    for (const TemplateTensor& x : template_of(config).tensors) {
      EXPECT_NE(place_tensor(x.name).block, Block::Other) << x.name;
      for (const DiskPiece& d : x.disk) EXPECT_NE(place_tensor(d.name).block, Block::Other) << d.name;
    }
  EXPECT_EQ(place_tensor("encoder.encoder.layers.1.blocks.0.output.dense.weight").block, Block::Mlp);
  EXPECT_EQ(place_tensor("swin.encoder.layers.0.downsample.reduction.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("swin.encoder.layers.0.blocks.1.attention.self.relative_position_index").block,
            Block::Buffer);
  EXPECT_EQ(place_tensor("decoder.layer.3.encoder_decoder_attention.attention.query.weight").block,
            Block::CrossAttention);
  EXPECT_EQ(place_tensor("decoder.layer.3.mlp.layer_norm.weight").block, Block::Norm);
}

}  // namespace
}  // namespace ma::test
