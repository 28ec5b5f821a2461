// CLIPSeg and AltCLIP against what transformers builds. Totals are sum(p.numel() for p in
// model.parameters()) of torch reconstructions of the transformers classes' module trees
// (models/clipseg/modular_clipseg.py, models/altclip/modular_altclip.py over modeling_clip.py and
// modeling_chinese_clip.py; /tmp/impl/clip_relatives_b/verify, results.txt), whose state_dict names, shapes
// and order the templates match; published figures are named where they exist.
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// CIDAS/clipseg-rd64-refined: CLIP ViT-B/16 (149,620,737) and the decoder with the complex transposed
// convolution, 150,747,746 in all: the model card's 150.7M.
const std::string kClipSegRd64Refined =
    R"({"model_type":"clipseg","architectures":["CLIPSegForImageSegmentation"],"extract_layers":[3,6,9],
    "reduce_dim":64,"projection_dim":512,"use_complex_transposed_convolution":true,
    "decoder_num_attention_heads":4,"decoder_intermediate_size":2048,
    "text_config":{"model_type":"clipseg_text_model","hidden_size":512,"intermediate_size":2048,
    "num_attention_heads":8,"num_hidden_layers":12,"max_position_embeddings":77,"vocab_size":49408},
    "vision_config":{"model_type":"clipseg_vision_model","hidden_size":768,"intermediate_size":3072,
    "num_attention_heads":12,"num_hidden_layers":12,"image_size":224,"patch_size":16}})";

TEST(ClipRelativesB, ClipSegForImageSegmentation) {
  const ModelTemplate t = template_of(kClipSegRd64Refined);
  EXPECT_EQ(total_of(t), 150747746u);
  EXPECT_EQ(t.arch.architecture, "CLIPSegForImageSegmentation");
  // CLIPModel's own temperature first, then its modules under clip.; the decoder after.
  EXPECT_EQ(t.tensors.front().name, "clip.logit_scale");
  EXPECT_EQ(find_tensor(t, "clip.vision_model.embeddings.position_embedding.weight")->shape,
            (Shape{197, 768}));
  EXPECT_EQ(find_tensor(t, "clip.text_projection.weight")->shape, (Shape{512, 512}));
  EXPECT_LT(tensor_index(t, "decoder.film_add.bias"),
            tensor_index(t, "decoder.transposed_convolution.0.weight"));
  EXPECT_LT(tensor_index(t, "decoder.transposed_convolution.4.bias"),
            tensor_index(t, "decoder.reduces.0.weight"));
  // ConvTranspose2d weights are [in, out / groups, k, k]; kernels of patch_size / 4.
  EXPECT_EQ(find_tensor(t, "decoder.transposed_convolution.2.weight")->shape, (Shape{64, 32, 4, 4}));
  EXPECT_EQ(find_tensor(t, "decoder.transposed_convolution.4.weight")->shape, (Shape{32, 1, 4, 4}));
  EXPECT_EQ(find_tensor(t, "decoder.reduces.2.weight")->shape, (Shape{64, 768}));
  EXPECT_EQ(find_tensor(t, "decoder.layers.2.mlp.fc1.weight")->shape, (Shape{2048, 64}));
  EXPECT_EQ(t.tensors.back().name, "decoder.layers.2.layer_norm2.bias");
  EXPECT_EQ(find_tensor(t, "decoder.layers.3.mlp.fc1.weight"), nullptr);
  expect_every_tensor_placed(t);
  // The simple decoder (one ConvTranspose2d of kernel and stride patch_size) at reduce_dim 16:
  // 149,620,737 + 2 x 8,208 FiLM + 4,097 + 3 x 12,304 reduces + 3 x 68,752 layers.
  const ModelTemplate simple =
      template_of(R"({"model_type":"clipseg","architectures":["CLIPSegForImageSegmentation"],"reduce_dim":16,
      "vision_config":{"patch_size":16}})");
  EXPECT_EQ(total_of(simple), 149884418u);
  EXPECT_EQ(find_tensor(simple, "decoder.transposed_convolution.weight")->shape, (Shape{16, 1, 16, 16}));
  expect_every_tensor_placed(simple);
}

// CLIPSegModel with CLIPSegConfig's defaults is CLIP ViT-B/32's contrastive model: 151,277,313, as
// openai/clip-vit-base-patch32.
TEST(ClipRelativesB, ClipSegModelDefaults) {
  const ModelTemplate t = template_of(R"({"model_type":"clipseg"})");
  EXPECT_EQ(total_of(t), 151277313u);
  EXPECT_EQ(t.arch.architecture, "CLIPSegModel");
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  EXPECT_EQ(find_tensor(t, "decoder.film_mul.weight"), nullptr);
  expect_every_tensor_placed(t);
}

// BAAI/AltCLIP: an XLM-RoBERTa-large text model (559,630,080 with transformation and pre_LN) beside CLIP
// ViT-L/14's vision transformer, 864,186,113 in all (the published ~864M).
const std::string kAltClip =
    R"({"model_type":"altclip","architectures":["AltCLIPModel"],"projection_dim":768,
    "text_config":{"model_type":"altclip_text_model","vocab_size":250002,"hidden_size":1024,
    "num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096,"max_position_embeddings":514,
    "type_vocab_size":1,"project_dim":768},
    "vision_config":{"model_type":"altclip_vision_model","hidden_size":1024,"intermediate_size":4096,
    "num_attention_heads":16,"num_hidden_layers":24,"image_size":224,"patch_size":14}})";

TEST(ClipRelativesB, AltClipModel) {
  const ModelTemplate t = template_of(kAltClip);
  EXPECT_EQ(total_of(t), 864186113u);
  EXPECT_EQ(t.arch.architecture, "AltCLIPModel");
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  // RobertaEmbeddings registers position_embeddings after its LayerNorm.
  EXPECT_LT(tensor_index(t, "text_model.roberta.embeddings.LayerNorm.bias"),
            tensor_index(t, "text_model.roberta.embeddings.position_embeddings.weight"));
  // AltRobertaEncoder is a CLIPEncoder (layers); checkpoints keep RoBERTa's encoder.layer.
  const TemplateTensor* query =
      find_tensor(t, "text_model.roberta.encoder.layers.23.attention.self.query.weight");
  ASSERT_NE(query, nullptr);
  EXPECT_EQ(stored_name(*query), "text_model.roberta.encoder.layer.23.attention.self.query.weight");
  EXPECT_EQ(find_tensor(t, "text_model.transformation.weight")->shape, (Shape{768, 1024}));
  EXPECT_NE(find_tensor(t, "text_model.pre_LN.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_model.roberta.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight")->shape, (Shape{257, 1024}));
  EXPECT_EQ(find_tensor(t, "text_projection.weight")->shape, (Shape{768, 768}));
  EXPECT_EQ(t.tensors.back().name, "text_projection.weight");
  expect_every_tensor_placed(t);
  // AltCLIPConfig's defaults: the XLM-R-large text model beside CLIP's ViT-B/32 tower, 648,265,729.
  EXPECT_EQ(parameters_of(R"({"model_type":"altclip"})"), 648265729u);
}

// Configs transformers cannot build are refused, naming the field; other classes are not modelled.
TEST(ClipRelativesB, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"clipseg","architectures":["CLIPSegForImageSegmentation"],
      "decoder_num_attention_heads":5})")
                .field,
            "decoder_num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"clipseg","architectures":["CLIPSegForImageSegmentation"],
      "use_complex_transposed_convolution":true,"vision_config":{"patch_size":2}})")
                .field,
            "vision_config.patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"altclip","text_config":{"num_attention_heads":5}})").field,
            "text_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"altclip","vision_config":{"image_size":224,"patch_size":300}})").field,
      "vision_config.patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"altclip","architectures":["AltCLIPVisionModel"]})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"clipseg","architectures":["CLIPSegTextModel"]})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
