// Moonshine and Granite Speech (model/families/moonshine.cpp, granite_speech.cpp): the released models'
// counts, the layers transformers builds, where their tensors sit, and the configs they refuse.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// UsefulSensors/moonshine-tiny: MoonshineConfig's defaults (288 wide, 6 + 6 layers of 8 heads, 32,768
// tokens).
constexpr const char* kMoonshineTiny = R"({"model_type":"moonshine",
    "architectures":["MoonshineForConditionalGeneration"],"hidden_size":288,"intermediate_size":1152,
    "encoder_num_hidden_layers":6,"decoder_num_hidden_layers":6,"encoder_num_attention_heads":8,
    "decoder_num_attention_heads":8,"encoder_num_key_value_heads":8,"decoder_num_key_value_heads":8,
    "max_position_embeddings":194,"pad_head_dim_to_multiple_of":8,"partial_rotary_factor":0.9,
    "rope_theta":10000.0,"tie_word_embeddings":true,"vocab_size":32768})";

// UsefulSensors/moonshine-base: 416 wide, 8 + 8 layers.
std::string moonshine_base() {
  std::string c = replaced(kMoonshineTiny, R"("hidden_size":288)", R"("hidden_size":416)");
  c = replaced(c, R"("intermediate_size":1152)", R"("intermediate_size":1664)");
  c = replaced(c, R"("encoder_num_hidden_layers":6)", R"("encoder_num_hidden_layers":8)");
  return replaced(c, R"("decoder_num_hidden_layers":6)", R"("decoder_num_hidden_layers":8)");
}

// 27,092,736 and 61,513,920: MoonshineForConditionalGeneration's parameters, the model cards' "27M" and
// "61M" (proj_out is the decoder's embedding: counted once).
TEST(Moonshine, ReleasedModelsCountAsPublished) {
  EXPECT_EQ(parameters_of(kMoonshineTiny), 27'092'736u);
  EXPECT_EQ(parameters_of(moonshine_base()), 61'513'920u);
}

TEST(Moonshine, StemLayersAndTiedHead) {
  const ModelTemplate t = template_of(kMoonshineTiny);
  EXPECT_EQ(t.arch.architecture, "MoonshineForConditionalGeneration");
  // Three unpadded convolutions, the first without a bias, a GroupNorm after it.
  EXPECT_EQ(find_tensor(t, "model.encoder.conv1.weight")->shape, (Shape{288, 1, 127}));
  EXPECT_EQ(find_tensor(t, "model.encoder.conv1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.conv2.weight")->shape, (Shape{576, 288, 7}));
  EXPECT_EQ(find_tensor(t, "model.encoder.conv3.weight")->shape, (Shape{288, 576, 3}));
  EXPECT_EQ(find_tensor(t, "model.encoder.groupnorm.bias")->shape, (Shape{288}));
  // Bias-free LayerNorms and o_proj; the decoder's SwiGLU fc1 holds value and gate.
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.5.input_layernorm.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.0.mlp.fc1.weight")->shape, (Shape{1152, 288}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.mlp.fc1.weight")->shape, (Shape{2304, 288}));
  EXPECT_NE(find_tensor(t, "model.decoder.layers.5.encoder_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "proj_out.weight")->tied_to, "model.decoder.embed_tokens.weight");
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
  ASSERT_NE(t.arch.stack(StackRole::Encoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 6u);
  EXPECT_FALSE(t.arch.stack(StackRole::Encoder)->layers[0].ffn.gated);
  EXPECT_TRUE(t.arch.stack(StackRole::Decoder)->layers[0].cross_attention.has_value());
  // The stem is the encoder's embedding, as Whisper's is.
  EXPECT_EQ(place_tensor("model.encoder.conv3.weight").block, Block::Embedding);
}

// Each stack divides the width by its own heads; attention_bias adds q/k/v biases (never o's). MoonshineModel
// has no head. 4,883,456 and 411,936: the classes' counts for these configs.
TEST(Moonshine, GroupedHeadsBiasesAndBareModel) {
  const std::string gqa = R"({"model_type":"moonshine","hidden_size":256,"intermediate_size":512,
      "encoder_num_hidden_layers":2,"decoder_num_hidden_layers":3,"encoder_num_attention_heads":8,
      "encoder_num_key_value_heads":2,"decoder_num_attention_heads":4,"decoder_num_key_value_heads":1,
      "attention_bias":true,"tie_word_embeddings":false,"vocab_size":1000,
      "architectures":["MoonshineForConditionalGeneration"]})";
  const ModelTemplate t = template_of(gqa);
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.1.self_attn.k_proj.weight")->shape, (Shape{64, 256}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.2.encoder_attn.v_proj.bias")->shape, (Shape{64}));
  EXPECT_EQ(find_tensor(t, "proj_out.weight")->tied_to, "");
  EXPECT_EQ(parameters_of(gqa), 4'883'456u);
  const std::string bare = R"({"model_type":"moonshine","architectures":["MoonshineModel"],"hidden_size":96,
      "head_dim":16,"intermediate_size":128,"encoder_num_hidden_layers":1,"decoder_num_hidden_layers":1,
      "vocab_size":50})";
  const ModelTemplate b = template_of(bare);
  EXPECT_EQ(find_tensor(b, "encoder.layers.0.self_attn.q_proj.weight")->shape, (Shape{128, 96}));
  EXPECT_EQ(find_tensor(b, "proj_out.weight"), nullptr);
  EXPECT_EQ(parameters_of(bare), 411'936u);
}

TEST(Moonshine, RefusesUnsharableKeyValueHeads) {
  EXPECT_EQ(refusal_of(R"({"model_type":"moonshine","decoder_num_key_value_heads":3})").field,
            "decoder_num_key_value_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"moonshine","architectures":["MoonshineForCTC"]})").kind,
            ErrorKind::Unsupported);
}

// The Granite-3.3-2B language model (granite-3.3-2b-instruct's config: 2,533,541,888 parameters, its card's
// "2.53B"), a 16-layer Conformer with a 256-label CTC head and a two-layer 1024-wide Q-Former reading it
// through 15 / 5 = 3 queries: the shape of ibm-granite/granite-speech-3.3-2b.
constexpr const char* kGraniteSpeech2b = R"({"model_type":"granite_speech",
    "architectures":["GraniteSpeechForConditionalGeneration"],"downsample_rate":5,"window_size":15,
    "encoder_config":{"context_size":200,"conv_expansion_factor":2,"conv_kernel_size":15,"dim_head":128,
      "feedforward_mult":4,"hidden_dim":1024,"input_dim":160,"max_pos_emb":512,"num_heads":8,"num_layers":16,
      "output_dim":256,"model_type":"granite_speech_encoder"},
    "projector_config":{"model_type":"blip_2_qformer","cross_attention_frequency":1,"encoder_hidden_size":1024,
      "hidden_size":1024,"intermediate_size":4096,"max_position_embeddings":2048,"num_attention_heads":16,
      "num_hidden_layers":2,"use_qformer_text_input":false},
    "text_config":{"model_type":"granite","architectures":["GraniteForCausalLM"],"hidden_size":2048,
      "intermediate_size":8192,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":8,
      "vocab_size":49160,"max_position_embeddings":131072,"tie_word_embeddings":true,"rope_theta":10000000.0}})";

// GraniteSpeechForConditionalGeneration's counts: the language model, then the encoder (439,980,288) and the
// projector (35,697,664), both towers no text token runs.
TEST(GraniteSpeech, CountsTheLanguageModelAndItsTowers) {
  const ParameterCounts c = counts_of(kGraniteSpeech2b);
  EXPECT_EQ(c.total, 3'009'219'840u);
  EXPECT_EQ(c.towers, 439'980'288u + 35'697'664u);
  // GraniteSpeechConfig's defaults: GraniteConfig's LM (6,738,415,616, Llama-2-7B's shape), a 10-layer
  // Conformer with a 42-label head, Blip2QFormerConfig's Q-Former (cross-attention every other layer, keys
  // from 1,408-wide features).
  EXPECT_EQ(parameters_of(R"({"model_type":"granite_speech"})"), 7'121'513'514u);
}

TEST(GraniteSpeech, ConformerBlocksAndProjector) {
  const ModelTemplate t = template_of(kGraniteSpeech2b);
  EXPECT_EQ(t.arch.architecture, "GraniteSpeechForConditionalGeneration");
  EXPECT_EQ(t.arch.hidden_size, 2048u);  // the record describes the language model
  EXPECT_EQ(t.tensors.front().name, "language_model.model.embed_tokens.weight");  // registered first
  EXPECT_EQ(find_tensor(t, "language_model.lm_head.weight")->tied_to,
            "language_model.model.embed_tokens.weight");
  const std::string l = "encoder.layers.15.";
  EXPECT_EQ(find_tensor(t, "encoder.input_linear.weight")->shape, (Shape{1024, 160}));
  EXPECT_EQ(find_tensor(t, l + "attn.to_kv.weight")->shape, (Shape{2048, 1024}));
  EXPECT_EQ(find_tensor(t, l + "attn.to_q.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "attn.rel_pos_emb.weight")->shape, (Shape{1025, 128}));
  EXPECT_EQ(find_tensor(t, l + "conv.up_conv.weight")->shape, (Shape{4096, 1024, 1}));
  EXPECT_EQ(find_tensor(t, l + "conv.depth_conv.conv.weight")->shape, (Shape{2048, 1, 15}));
  EXPECT_EQ(find_tensor(t, l + "conv.batch_norm.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, l + "conv.batch_norm.num_batches_tracked")->shape, Shape{});
  EXPECT_EQ(find_tensor(t, "encoder.out_mid.weight")->shape, (Shape{1024, 256}));
  EXPECT_EQ(find_tensor(t, "projector.query")->shape, (Shape{1, 3, 1024}));
  EXPECT_EQ(find_tensor(t, "projector.qformer.encoder.layer.1.crossattention.attention.key.weight")->shape,
            (Shape{1024, 1024}));
  EXPECT_EQ(find_tensor(t, "projector.linear.weight")->shape, (Shape{2048, 1024}));
  ASSERT_NE(t.arch.stack(StackRole::Audio), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Audio)->layers.size(), 16u);
  expect_every_tensor_placed(t);
  // The Q-Former with text input and sparser cross-attention, as Blip2QFormerConfig allows.
  const ModelTemplate q = template_of(R"({"model_type":"granite_speech","projector_config":{
      "model_type":"blip_2_qformer","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":3,
      "intermediate_size":48,"encoder_hidden_size":1024,"use_qformer_text_input":true}})");
  EXPECT_NE(find_tensor(q, "projector.qformer.encoder.layer.2.crossattention.attention.key.weight"), nullptr);
  EXPECT_EQ(find_tensor(q, "projector.qformer.encoder.layer.1.crossattention.attention.key.weight"), nullptr);
  EXPECT_NE(find_tensor(q, "projector.qformer.encoder.layer.0.intermediate.dense.weight"), nullptr);
}

TEST(GraniteSpeech, RefusesWhatTransformersRejects) {
  // GraniteSpeechConformerAttention raises when the context exceeds the relative-position table.
  EXPECT_EQ(refusal_of(R"({"model_type":"granite_speech","encoder_config":{"context_size":600}})").field,
            "encoder_config.context_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"granite_speech","projector_config":{"model_type":"mlp"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"granite_speech","text_config":{"model_type":"bert"}})").kind,
            ErrorKind::Unsupported);
}

// The placement rules these models need stay narrow: the Conformer's names at the root are audio, a BART or
// Whisper encoder's are not; a root projector that is a plain Linear (wav2vec 2.0's classification head) is
// no tower.
TEST(GraniteSpeech, PlacementOfTheRootConformerAndProjector) {
  EXPECT_EQ(place_tensor("encoder.layers.0.conv.batch_norm.running_mean").block, Block::Audio);
  EXPECT_EQ(place_tensor("encoder.out.bias").block, Block::Audio);
  EXPECT_EQ(place_tensor("encoder.layers.2.self_attn.k_proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("encoder.layers.2.fc1.weight").block, Block::Mlp);
  EXPECT_NE(place_tensor("projector.weight").block, Block::VisionProjector);
  EXPECT_EQ(place_tensor("projector.query").block, Block::VisionProjector);
}

// KyutaiSpeechToTextConfig's defaults (stt-2.6b-en's sizes) with MimiConfig's (kyutai/mimi): 2,696,431,425
// parameters as KyutaiSpeechToTextForConditionalGeneration builds them, 79,308,609 of them the codec's; the
// codec's 32 codebooks are 16,842,784 more values in buffers (96,151,393 with its parameters: kyutai/mimi's
// "96.2M" on its model card).
TEST(KyutaiSpeechToText, CountsTheDecoderAndItsCodec) {
  const std::string stt = R"({"model_type":"kyutai_speech_to_text"})";
  const ParameterCounts c = counts_of(stt);
  EXPECT_EQ(c.total, 2'696'431'425u);
  EXPECT_EQ(c.towers, 79'308'609u);
  const ModelTemplate t = template_of(stt);
  uint64_t buffers = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Buffer) buffers += numel(x.shape);
  EXPECT_EQ(buffers, 16'842'784u);
  // One table embeds the text token and the 32 codes of each frame: 4,001 + 32 x 2,049 + 1 rows.
  EXPECT_EQ(find_tensor(t, "model.embed_tokens.embed_tokens.weight")->shape, (Shape{69570, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.47.self_attn.q_proj.linear.weight")->shape, (Shape{2048, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.fc1.weight")->shape, (Shape{11264, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.fc2.weight")->shape, (Shape{2048, 5632}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "");
  // Mimi: SEANet convolutions (ELUs keep their indices), layer scales, the 12.5 Hz resampling pair,
  // codebooks.
  EXPECT_EQ(find_tensor(t, "codec_model.encoder.layers.12.conv.weight")->shape, (Shape{1024, 512, 16}));
  EXPECT_EQ(find_tensor(t, "codec_model.encoder.layers.2.conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "codec_model.decoder.layers.2.conv.weight")->shape, (Shape{1024, 512, 16}));
  EXPECT_NE(find_tensor(t, "codec_model.encoder_transformer.layers.7.mlp_layer_scale.scale"), nullptr);
  EXPECT_EQ(find_tensor(t, "codec_model.downsample.conv.weight")->shape, (Shape{512, 512, 4}));
  EXPECT_EQ(find_tensor(t, "codec_model.upsample.conv.weight")->shape, (Shape{512, 1, 4}));
  const std::string q = "codec_model.quantizer.acoustic_residual_vector_quantizer.";
  EXPECT_EQ(find_tensor(t, q + "layers.30.codebook.embed_sum")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, q + "input_proj.weight")->shape, (Shape{256, 512, 1}));
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers[0].attention.window, 375u);
  expect_every_tensor_placed(t);
  // KyutaiSpeechToTextModel is the decoder alone.
  const ModelTemplate bare = template_of(R"({"model_type":"kyutai_speech_to_text",
      "architectures":["KyutaiSpeechToTextModel"],"num_hidden_layers":2})");
  EXPECT_NE(find_tensor(bare, "embed_tokens.embed_tokens.weight"), nullptr);
  EXPECT_EQ(find_tensor(bare, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(bare, "codec_model.encoder.layers.0.conv.weight"), nullptr);
}

// Grouped heads, an explicit head_dim and a codec at its SEANet's own frame rate (no resampling pair),
// without the quantizer projections, with convolution shortcuts: 2,386,137 and 76,901 parameters as the
// classes build these configs.
TEST(KyutaiSpeechToText, VariantsOfDecoderAndCodec) {
  const std::string variant = R"({"model_type":"kyutai_speech_to_text","vocab_size":1000,"hidden_size":256,
      "num_hidden_layers":3,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":48,"ffn_dim":640,
      "num_codebooks":8,"codebook_vocab_size":129,"audio_pad_token_id":2032,"sliding_window":null,
      "codec_config":{"model_type":"mimi","hidden_size":64,"num_filters":8,"num_residual_layers":2,
        "upsampling_ratios":[4,2],"use_conv_shortcut":true,"sampling_rate":800,"frame_rate":100,
        "vector_quantization_hidden_dimension":64,"codebook_dim":null,"codebook_size":64,"num_quantizers":4,
        "num_semantic_quantizers":2,"num_hidden_layers":2,"intermediate_size":96,"num_attention_heads":4,
        "num_key_value_heads":2,"attention_bias":true,"upsample_groups":16,"compress":4}})";
  EXPECT_EQ(parameters_of(variant), 2'386'137u);
  const ModelTemplate t = template_of(variant);
  EXPECT_EQ(find_tensor(t, "model.layers.2.self_attn.k_proj.linear.weight")->shape, (Shape{96, 256}));
  EXPECT_EQ(find_tensor(t, "codec_model.downsample.conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "codec_model.quantizer.semantic_residual_vector_quantizer.input_proj.weight"),
            nullptr);
  EXPECT_EQ(
      find_tensor(t, "codec_model.quantizer.semantic_residual_vector_quantizer.layers.1.codebook.embed_sum")
          ->shape,
      (Shape{64, 64}));  // codebook_dim null: hidden_size
  EXPECT_NE(find_tensor(t, "codec_model.encoder.layers.2.shortcut.conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "codec_model.decoder_transformer.layers.1.self_attn.o_proj.bias")->shape,
            (Shape{64}));
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers[0].attention.window, 0u);
  EXPECT_EQ(parameters_of(R"({"model_type":"kyutai_speech_to_text","vocab_size":100,"hidden_size":64,
      "num_hidden_layers":1,"num_attention_heads":4,"ffn_dim":96,"num_codebooks":2,"codebook_vocab_size":10,
      "audio_pad_token_id":120,"codec_config":{"model_type":"mimi","hidden_size":32,"num_filters":4,
        "upsampling_ratios":[2,2],"sampling_rate":100,"frame_rate":6.25,"codebook_size":16,"num_quantizers":3,
        "upsample_groups":8,"num_hidden_layers":1,"intermediate_size":48,"num_attention_heads":2,
        "num_key_value_heads":2,"head_dim":24,"vector_quantization_hidden_dimension":16,
        "codebook_dim":16}})"),
            76'901u);
}

TEST(KyutaiSpeechToText, RefusesWhatTransformersRejects) {
  EXPECT_EQ(refusal_of(R"({"model_type":"kyutai_speech_to_text","ffn_dim":11263})").field, "ffn_dim");
  EXPECT_EQ(refusal_of(R"({"model_type":"kyutai_speech_to_text","num_codebooks":8})").field,
            "audio_pad_token_id");
  EXPECT_EQ(refusal_of(R"({"model_type":"kyutai_speech_to_text","tie_word_embeddings":true})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(
      refusal_of(R"({"model_type":"kyutai_speech_to_text","codec_config":{"model_type":"encodec"}})").kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"kyutai_speech_to_text","codec_config":{"model_type":"mimi",
      "num_quantizers":4,"num_semantic_quantizers":4}})")
                .field,
            "codec_config.num_semantic_quantizers");
  EXPECT_EQ(refusal_of(R"({"model_type":"kyutai_speech_to_text","codec_config":{"model_type":"mimi",
      "codebook_size":1000}})")
                .field,
            "codec_config.codebook_size");
}

}  // namespace
}  // namespace ma::test
