// CLIP's and SigLIP's towers alone (clip_vision_model, clip_text_model, siglip_vision_model,
// siglip_text_model, siglip2_vision_model), Chinese-CLIP and OWL-ViT / OWLv2 against what transformers
// builds. Totals are sum(p.numel() for p in model.parameters()) of torch reconstructions of the transformers
// classes' module trees (modeling_clip.py, modeling_siglip.py, modeling_siglip2.py, modeling_chinese_clip.py,
// modeling_owlvit.py, modeling_owlv2.py; /tmp/impl/clip_relatives/verify, results.txt), whose state_dict
// names, shapes and order the templates match; published figures are named where they exist. transformers
// builds the base tower classes flat and strips their checkpoints' vision_model. / text_model. prefix on load
// (conversion_mapping.py's PrefixChange for clip_vision_model / clip_text_model and the types mapped to
// them).
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// openai/clip-vit-base-patch32's vision_config as a tower's config.json.
const std::string kClipVisionB32 =
    R"({"model_type":"clip_vision_model","architectures":["CLIPVisionModel"],"hidden_size":768,
    "intermediate_size":3072,"num_hidden_layers":12,"num_attention_heads":12,"image_size":224,"patch_size":32,
    "projection_dim":512})";

// 87,456,000 for CLIPVisionModel; with the bias-free visual_projection 87,849,216, the 87.8M the Hub shows
// for openai/clip-vit-base-patch32's vision tower. CLIPVisionConfig's defaults are this tower's.
TEST(ClipRelatives, ClipVisionModelAloneAndWithProjection) {
  const ModelTemplate t = template_of(kClipVisionB32);
  EXPECT_EQ(total_of(t), 87456000u);
  EXPECT_EQ(t.arch.architecture, "CLIPVisionModel");
  EXPECT_EQ(t.tensors.front().name, "embeddings.class_embedding");
  EXPECT_EQ(stored_name(t.tensors.front()), "vision_model.embeddings.class_embedding");
  EXPECT_EQ(find_tensor(t, "embeddings.position_embedding.weight")->shape, (Shape{50, 768}));
  EXPECT_NE(find_tensor(t, "pre_layrnorm.weight"), nullptr);  // sic, as CLIP spells it
  EXPECT_EQ(stored_name(*find_tensor(t, "encoder.layers.11.mlp.fc2.bias")),
            "vision_model.encoder.layers.11.mlp.fc2.bias");
  expect_every_tensor_placed(t);
  EXPECT_EQ(find_tensor(t, "visual_projection.weight"), nullptr);
  EXPECT_EQ(parameters_of(R"({"model_type":"clip_vision_model"})"), 87456000u);
  const ModelTemplate p =
      template_of(replaced(kClipVisionB32, "CLIPVisionModel\"", "CLIPVisionModelWithProjection\""));
  EXPECT_EQ(total_of(p), 87849216u);
  // CLIPVisionModelWithProjection keeps the tower under vision_model., as its checkpoints store it.
  EXPECT_EQ(stored_name(*find_tensor(p, "vision_model.post_layernorm.weight")),
            "vision_model.post_layernorm.weight");
  EXPECT_EQ(p.tensors.back().name, "visual_projection.weight");
  EXPECT_EQ(p.tensors.back().shape, (Shape{512, 768}));
  expect_every_tensor_placed(p);
  // openai/clip-vit-large-patch14-336's vision tower with its projection (LLaVA's CLIP tower).
  EXPECT_EQ(
      parameters_of(R"({"model_type":"clip_vision_model","architectures":["CLIPVisionModelWithProjection"],
    "hidden_size":1024,"intermediate_size":4096,"num_hidden_layers":24,"num_attention_heads":16,
    "image_size":336,"patch_size":14,"projection_dim":768})"),
      304293888u);
}

// CLIPTextConfig's defaults: 63,165,952. openai/clip-vit-large-patch14's text tower (Stable Diffusion 1.x's
// text encoder, 123,060,480 without the projection) with text_projection: 123,650,304.
TEST(ClipRelatives, ClipTextModelAloneAndWithProjection) {
  const ModelTemplate t = template_of(R"({"model_type":"clip_text_model"})");
  EXPECT_EQ(total_of(t), 63165952u);
  EXPECT_EQ(t.arch.architecture, "CLIPTextModel");
  EXPECT_EQ(t.arch.vocab_size, 49408u);
  EXPECT_EQ(t.arch.max_position_embeddings, 77u);
  EXPECT_EQ(t.tensors.back().name, "final_layer_norm.bias");
  EXPECT_EQ(stored_name(t.tensors.back()), "text_model.final_layer_norm.bias");
  expect_every_tensor_placed(t);
  const ModelTemplate p = template_of(
      R"({"model_type":"clip_text_model","architectures":["CLIPTextModelWithProjection"],"hidden_size":768,
      "intermediate_size":3072,"num_hidden_layers":12,"num_attention_heads":12,"projection_dim":768})");
  EXPECT_EQ(total_of(p), 123650304u);
  EXPECT_EQ(p.tensors.back().name, "text_projection.weight");
  EXPECT_NE(find_tensor(p, "text_model.embeddings.token_embedding.weight"), nullptr);
  EXPECT_EQ(find_tensor(p, "text_projection.bias"), nullptr);
  expect_every_tensor_placed(p);
}

// google/siglip-base-patch16-224's vision tower: 92,884,224 with its attention-pooling head;
// google/siglip-so400m-patch14-384's: 428,225,600 (the "400M-shape" tower), 412,987,248 without the head.
TEST(ClipRelatives, SiglipVisionModel) {
  const ModelTemplate t = template_of(
      R"({"model_type":"siglip_vision_model","architectures":["SiglipVisionModel"],"hidden_size":768,
      "intermediate_size":3072,"num_hidden_layers":12,"num_attention_heads":12,"image_size":224,
      "patch_size":16})");
  EXPECT_EQ(total_of(t), 92884224u);
  EXPECT_EQ(t.arch.architecture, "SiglipVisionModel");
  EXPECT_EQ(find_tensor(t, "embeddings.position_embedding.weight")->shape, (Shape{196, 768}));
  const TemplateTensor* in_proj = find_tensor(t, "head.attention.in_proj_weight");
  EXPECT_EQ(in_proj->shape, (Shape{2304, 768}));
  EXPECT_EQ(stored_name(*in_proj), "vision_model.head.attention.in_proj_weight");
  expect_every_tensor_placed(t);
  const std::string so400m =
      R"({"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,
      "num_hidden_layers":27,"num_attention_heads":16,"image_size":384,"patch_size":14})";
  EXPECT_EQ(parameters_of(so400m), 428225600u);
  EXPECT_EQ(
      parameters_of(replaced(so400m, "\"patch_size\":14", "\"patch_size\":14,\"vision_use_head\":false")),
      412987248u);
}

// Siglip2VisionModel (google/siglip2-base-patch16-naflex's vision tower): a linear patch embedding over
// 3 x 16 x 16 values and 256 positions, 92,930,304. SiglipTextModel's defaults: 110,271,744.
TEST(ClipRelatives, Siglip2VisionModelAndSiglipTextModel) {
  const ModelTemplate t = template_of(
      R"({"model_type":"siglip2_vision_model","architectures":["Siglip2VisionModel"],"num_patches":256,
      "patch_size":16})");
  EXPECT_EQ(total_of(t), 92930304u);
  EXPECT_EQ(find_tensor(t, "embeddings.patch_embedding.weight")->shape, (Shape{768, 768}));
  EXPECT_EQ(find_tensor(t, "embeddings.position_embedding.weight")->shape, (Shape{256, 768}));
  EXPECT_EQ(stored_name(*find_tensor(t, "post_layernorm.weight")), "vision_model.post_layernorm.weight");
  expect_every_tensor_placed(t);
  const ModelTemplate text = template_of(R"({"model_type":"siglip_text_model"})");
  EXPECT_EQ(total_of(text), 110271744u);
  EXPECT_EQ(text.arch.architecture, "SiglipTextModel");
  EXPECT_EQ(text.tensors.back().name, "head.bias");
  EXPECT_EQ(stored_name(text.tensors.back()), "text_model.head.bias");
  expect_every_tensor_placed(text);
}

// OFA-Sys/chinese-clip-vit-base-patch16: 188,262,913, the model card's 188M. The text tower is BERT's
// modules without a pooler (vocabulary 21,128).
const std::string kChineseClipB16 =
    R"({"model_type":"chinese_clip","architectures":["ChineseCLIPModel"],"projection_dim":512,
    "text_config":{"model_type":"chinese_clip_text_model","vocab_size":21128,"hidden_size":768,
    "intermediate_size":3072,"num_hidden_layers":12,"num_attention_heads":12,"max_position_embeddings":512,
    "type_vocab_size":2},
    "vision_config":{"model_type":"chinese_clip_vision_model","hidden_size":768,"intermediate_size":3072,
    "num_hidden_layers":12,"num_attention_heads":12,"image_size":224,"patch_size":16,"projection_dim":512}})";

TEST(ClipRelatives, ChineseClipPairsBertWithClipVision) {
  const ModelTemplate t = template_of(kChineseClipB16);
  EXPECT_EQ(total_of(t), 188262913u);
  EXPECT_EQ(t.arch.architecture, "ChineseCLIPModel");
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  EXPECT_EQ(t.tensors[1].name, "text_model.embeddings.word_embeddings.weight");
  EXPECT_EQ(t.tensors[1].shape, (Shape{21128, 768}));
  EXPECT_NE(find_tensor(t, "text_model.encoder.layer.11.attention.self.query.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_model.pooler.dense.weight"), nullptr);
  EXPECT_LT(tensor_index(t, "text_model.encoder.layer.11.output.LayerNorm.bias"),
            tensor_index(t, "vision_model.embeddings.class_embedding"));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight")->shape, (Shape{197, 768}));
  EXPECT_EQ(t.tensors.back().name, "text_projection.weight");
  expect_every_tensor_placed(t);
  // ChineseCLIPConfig's defaults (BERT-base text, a patch-32 vision tower): 197,134,081.
  EXPECT_EQ(parameters_of(R"({"model_type":"chinese_clip"})"), 197134081u);
  // ChineseCLIPVisionModel: the vision transformer alone (flat, as CLIPVisionModel), 85,799,424 at patch 16.
  const ModelTemplate v = template_of(R"({"model_type":"chinese_clip_vision_model","patch_size":16})");
  EXPECT_EQ(total_of(v), 85799424u);
  EXPECT_EQ(stored_name(v.tensors.front()), "vision_model.embeddings.class_embedding");
}

// google/owlvit-base-patch32 (its Hub config leaves both towers at OWL-ViT's defaults): 153,231,879, the
// model card's 153M. google/owlv2-base-patch16-ensemble: 154,966,792.
TEST(ClipRelatives, OwlVitAndOwlv2Detectors) {
  const ModelTemplate t = template_of(
      R"({"model_type":"owlvit","architectures":["OwlViTForObjectDetection"],"text_config":{},"vision_config":{}})");
  EXPECT_EQ(total_of(t), 153231879u);
  EXPECT_EQ(t.tensors.front().name, "owlvit.logit_scale");
  EXPECT_EQ(find_tensor(t, "owlvit.text_model.embeddings.position_embedding.weight")->shape,
            (Shape{16, 512}));
  EXPECT_EQ(find_tensor(t, "owlvit.vision_model.embeddings.position_embedding.weight")->shape,
            (Shape{577, 768}));
  EXPECT_NE(find_tensor(t, "owlvit.vision_model.pre_layernorm.weight"), nullptr);  // not CLIP's pre_layrnorm
  EXPECT_EQ(find_tensor(t, "class_head.dense0.weight")->shape, (Shape{512, 768}));
  EXPECT_EQ(find_tensor(t, "objectness_head.dense0.weight"), nullptr);
  EXPECT_EQ(t.tensors.back().name, "layer_norm.bias");
  expect_every_tensor_placed(t);
  const ModelTemplate v2 =
      template_of(R"({"model_type":"owlv2","architectures":["Owlv2ForObjectDetection"]})");
  EXPECT_EQ(total_of(v2), 154966792u);
  EXPECT_EQ(find_tensor(v2, "owlv2.vision_model.embeddings.position_embedding.weight")->shape,
            (Shape{3601, 768}));
  EXPECT_LT(tensor_index(v2, "box_head.dense2.bias"), tensor_index(v2, "objectness_head.dense0.weight"));
  EXPECT_EQ(find_tensor(v2, "objectness_head.dense2.weight")->shape, (Shape{1, 768}));
  expect_every_tensor_placed(v2);
  // OwlViTModel alone, owlvit-large-patch14's shapes: the contrastive model without heads, 430,993,921.
  EXPECT_EQ(parameters_of(R"({"model_type":"owlvit","architectures":["OwlViTModel"],"projection_dim":768,
    "text_config":{"hidden_size":768,"intermediate_size":3072,"num_attention_heads":12},
    "vision_config":{"hidden_size":1024,"intermediate_size":4096,"num_attention_heads":16,
    "num_hidden_layers":24,"image_size":840,"patch_size":14}})"),
            430993921u);
}

// Configs transformers cannot build are refused, naming the field.
TEST(ClipRelatives, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"clip_vision_model","num_attention_heads":7})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"chinese_clip","vision_config":{"image_size":224,"patch_size":256}})")
                .field,
            "vision_config.patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"chinese_clip","text_config":{"num_attention_heads":5}})").field,
            "text_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"owlv2","text_config":{"num_attention_heads":5}})").field,
            "text_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"clip_text_model","architectures":["CLIPTextForCausalLM"]})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
