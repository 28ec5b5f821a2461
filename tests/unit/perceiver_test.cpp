// Perceiver IO (model/families/perceiver.cpp, perceiver_parts.cpp): one model_type whose architectures entry
// picks the preprocessor and decoder. The counts are those of transformers' classes (modeling_perceiver.py)
// as an independent transcription of their constructors builds them on torch's meta device, name by name,
// shape by shape, in state_dict order, on the configs convert_perceiver_haiku_to_pytorch.py writes for
// deepmind's checkpoints; language-perceiver's agrees with its published ~201M.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// deepmind/language-perceiver: PerceiverConfig's defaults with qk_channels 256 and v_channels 1280.
constexpr const char* kPerceiverLanguage =
    R"({"model_type":"perceiver","architectures":["PerceiverForMaskedLM"],"num_latents":256,"d_latents":1280,
    "d_model":768,"num_blocks":1,"num_self_attends_per_block":26,"num_self_attention_heads":8,
    "num_cross_attention_heads":8,"qk_channels":256,"v_channels":1280,"vocab_size":262,
    "max_position_embeddings":2048})";

// deepmind/vision-perceiver-learned (-fourier and -conv differ in the class and d_model, which their
// preprocessors make unused): 512 latents of 1024, 8 runs of a block of 6 self-attention layers.
std::string perceiver_vision(const std::string& cls, int d_model) {
  return R"({"model_type":"perceiver","architectures":[")" + cls + R"("],"num_latents":512,"d_latents":1024,
    "d_model":)" +
         std::to_string(d_model) +
         R"(,"num_blocks":8,"num_self_attends_per_block":6,"num_cross_attention_heads":1,
    "num_self_attention_heads":8,"qk_channels":null,"v_channels":null,"image_size":224,)" +
         id2label_of(1000) + "}";
}

// deepmind/optical-flow-perceiver: 2048 latents of 512, 24 self-attention layers of 16 heads.
constexpr const char* kPerceiverFlow =
    R"({"model_type":"perceiver","architectures":["PerceiverForOpticalFlow"],"num_latents":2048,
    "d_latents":512,"d_model":322,"num_blocks":1,"num_self_attends_per_block":24,
    "num_self_attention_heads":16,"num_cross_attention_heads":1,"train_size":[368,496]})";

TEST(Perceiver, LanguagePerceiverCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kPerceiverLanguage), 201'108'230u);
  const ModelTemplate t = template_of(kPerceiverLanguage);
  // Registration order: the text preprocessor, the latents, the encoder, the decoder, the embedding
  // decoder's bias (it multiplies by the input embeddings' weight; no tied copy).
  EXPECT_EQ(t.tensors.front().name, "perceiver.input_preprocessor.embeddings.weight");
  EXPECT_EQ(t.tensors.back().name, "embedding_decoder.bias");
  EXPECT_LT(tensor_index(t, "perceiver.embeddings.latents"),
            tensor_index(t, "perceiver.encoder.cross_attention.attention.self.layernorm1.weight"));
  // The encoder's cross-attention reads d_model-wide inputs into 256-wide queries and keys, 1280-wide values.
  EXPECT_EQ(find_tensor(t, "perceiver.encoder.cross_attention.attention.self.key.weight")->shape,
            (Shape{256, 768}));
  EXPECT_EQ(find_tensor(t, "perceiver.encoder.cross_attention.attention.output.dense.weight")->shape,
            (Shape{1280, 1280}));
  // The decoder's queries: one trainable position per output byte, d_model wide; its self-attention output
  // stays d_model wide and there is no final projection.
  EXPECT_EQ(find_tensor(t, "perceiver.decoder.output_position_encodings.position_embeddings")->shape,
            (Shape{2048, 768}));
  EXPECT_EQ(find_tensor(t, "perceiver.decoder.decoding_cross_attention.attention.self.value.weight")->shape,
            (Shape{768, 1280}));
  EXPECT_EQ(find_tensor(t, "perceiver.decoder.final_layer.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 26u);
  EXPECT_FALSE(t.arch.stack(StackRole::Encoder)->shared_weights);
  expect_every_tensor_placed(t);
  // PerceiverConfig's own defaults (qk_channels and v_channels unset: the latents' 1280) build 269,319,430.
  EXPECT_EQ(parameters_of(R"({"model_type":"perceiver","architectures":["PerceiverForMaskedLM"]})"),
            269'319'430u);
}

TEST(Perceiver, ImageClassifiersCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(perceiver_vision("PerceiverForImageClassificationLearned", 512)), 62'255'848u);
  EXPECT_EQ(parameters_of(perceiver_vision("PerceiverForImageClassificationFourier", 261)), 48'440'627u);
  EXPECT_EQ(parameters_of(perceiver_vision("PerceiverForImageClassificationConvProcessing", 322)),
            48'646'522u);

  const ModelTemplate learned = template_of(perceiver_vision("PerceiverForImageClassificationLearned", 512));
  // A conv1x1 to 256 channels and 224^2 trainable positions projected to 256: inputs 512 wide.
  EXPECT_EQ(
      find_tensor(learned, "perceiver.input_preprocessor.position_embeddings.position_embeddings")->shape,
      (Shape{50176, 256}));
  EXPECT_EQ(find_tensor(learned, "perceiver.encoder.cross_attention.attention.self.key.weight")->shape,
            (Shape{512, 512}));
  EXPECT_EQ(find_tensor(learned, "perceiver.decoder.decoder.final_layer.weight")->shape, (Shape{1000, 1024}));
  // The block of 6 layers runs 8 times on the same weights.
  EXPECT_EQ(learned.arch.stack(StackRole::Encoder)->layers.size(), 48u);
  EXPECT_TRUE(learned.arch.stack(StackRole::Encoder)->shared_weights);
  EXPECT_EQ(find_tensor(learned, "perceiver.encoder.self_attends.6.mlp.dense1.weight"), nullptr);
  expect_every_tensor_placed(learned);

  // Fourier: raw pixels and 258 Fourier features, 261 channels; no preprocessor parameters.
  const ModelTemplate fourier = template_of(perceiver_vision("PerceiverForImageClassificationFourier", 261));
  EXPECT_EQ(find_tensor(fourier, "perceiver.encoder.cross_attention.attention.self.key.weight")->shape,
            (Shape{261, 261}));
  // Conv: a 7x7 conv to 64 channels and its BatchNorm2d (running statistics as buffers), 322 channels.
  const ModelTemplate conv =
      template_of(perceiver_vision("PerceiverForImageClassificationConvProcessing", 322));
  EXPECT_EQ(find_tensor(conv, "perceiver.input_preprocessor.convnet.conv.weight")->shape,
            (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(conv, "perceiver.input_preprocessor.convnet.batchnorm.running_mean")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(conv, "perceiver.encoder.cross_attention.attention.self.value.weight")->shape,
            (Shape{322, 322}));
  expect_every_tensor_placed(conv);
}

TEST(Perceiver, OpticalFlowAndBaseModelCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(kPerceiverFlow), 41'057'134u);
  const ModelTemplate flow = template_of(kPerceiverFlow);
  EXPECT_EQ(find_tensor(flow, "perceiver.input_preprocessor.conv_after_patches.weight")->shape,
            (Shape{64, 54}));
  EXPECT_EQ(find_tensor(flow, "perceiver.decoder.decoder.final_layer.weight")->shape, (Shape{2, 322}));
  EXPECT_EQ(find_tensor(flow, "perceiver.decoder.decoder.output_position_encodings.position_embeddings"),
            nullptr);  // the flow decoder queries with Fourier features: no parameters
  expect_every_tensor_placed(flow);

  // No architectures: PerceiverModel, no preprocessor nor decoder; inputs d_model wide.
  const std::string base =
      R"({"model_type":"perceiver","d_latents":64,"num_latents":8,"d_model":32,"num_self_attends_per_block":2,
      "num_blocks":3,"num_self_attention_heads":4,"num_cross_attention_heads":2})";
  EXPECT_EQ(parameters_of(base), 65'888u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(t.tensors.front().name, "embeddings.latents");
  EXPECT_EQ(find_tensor(t, "encoder.cross_attention.attention.self.key.weight")->shape, (Shape{32, 32}));
  expect_every_tensor_placed(t);
}

// cross_attention_shape_for_attention "q" sizes an unset cross-attention's query-key width by the latents;
// v_channels sizes the values and a self-attention's output projection (output_channels = v_channels).
TEST(Perceiver, SequenceClassifierFollowsTheChannelRules) {
  const std::string cfg =
      R"({"model_type":"perceiver","architectures":["PerceiverForSequenceClassification"],"d_latents":64,
      "num_latents":8,"d_model":48,"num_self_attends_per_block":2,"num_self_attention_heads":4,
      "num_cross_attention_heads":2,"cross_attention_shape_for_attention":"q","v_channels":32,
      "self_attention_widening_factor":2,"cross_attention_widening_factor":3,"num_labels":5,
      "vocab_size":100,"max_position_embeddings":64})";
  EXPECT_EQ(parameters_of(cfg), 126'853u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(find_tensor(t, "perceiver.encoder.cross_attention.attention.self.query.weight")->shape,
            (Shape{64, 64}));
  EXPECT_EQ(find_tensor(t, "perceiver.encoder.self_attends.0.attention.output.dense.weight")->shape,
            (Shape{32, 32}));
  EXPECT_EQ(find_tensor(t, "perceiver.encoder.cross_attention.mlp.dense1.weight")->shape, (Shape{192, 64}));
  EXPECT_EQ(find_tensor(t, "perceiver.decoder.decoder.final_layer.weight")->shape, (Shape{5, 64}));
}

TEST(Perceiver, RefusesWhatTransformersRefusesNamingTheField) {
  const std::string learned = perceiver_vision("PerceiverForImageClassificationLearned", 512);
  EXPECT_EQ(refusal_of(replaced(learned, R"("num_cross_attention_heads":1)",
                                R"("num_cross_attention_heads":1,"cross_attention_shape_for_attention":"x")"))
                .field,
            "cross_attention_shape_for_attention");
  EXPECT_EQ(
      refusal_of(replaced(learned, R"("num_self_attention_heads":8)", R"("num_self_attention_heads":7)"))
          .field,
      "num_self_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kPerceiverLanguage, R"("qk_channels":256)", R"("qk_channels":100)")).field,
            "qk_channels");
  EXPECT_EQ(refusal_of(replaced(kPerceiverLanguage, R"("v_channels":1280)", R"("v_channels":100)")).field,
            "v_channels");
  // The masked-LM decoder's 8 heads split values d_model wide.
  EXPECT_EQ(refusal_of(replaced(kPerceiverLanguage, R"("d_model":768)", R"("d_model":770)")).field,
            "d_model");
  EXPECT_EQ(refusal_of(replaced(kPerceiverLanguage, R"("num_blocks":1)", R"("num_blocks":100)")).field,
            "num_blocks");
  EXPECT_EQ(refusal_of(replaced(kPerceiverFlow, "[368,496]", "[]")).field, "train_size");
  const Refusal r =
      refusal_of(replaced(kPerceiverLanguage, "PerceiverForMaskedLM", "PerceiverForMultimodalAutoencoding"));
  EXPECT_EQ(r.kind, ErrorKind::Unsupported);
  EXPECT_EQ(r.field, "architectures");
}

}  // namespace
}  // namespace ma::test
