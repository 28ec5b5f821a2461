// Voxtral Realtime (voxtral_realtime and its encoder / language model alone), Audio Flamingo 3
// (audioflamingo3, audioflamingo3_encoder), Music Flamingo (musicflamingo) and GLM-ASR (glmasr,
// glmasr_encoder): templates against what transformers builds. Totals, names and registration order were
// checked against an independent count of the transformers classes, module by module from their modeling code
// (/tmp/impl/audio_llms/verify: count_transformers.py, compare_out.txt); published figures are named where
// they exist.
#include <cstdint>
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// mistralai/Voxtral-Mini-4B-Realtime-2602's config.json as VoxtralRealtimeConfig reads it.
constexpr const char* kVoxtralRealtime = R"({"model_type":"voxtral_realtime",
    "architectures":["VoxtralRealtimeForConditionalGeneration"],
    "audio_config":{"model_type":"voxtral_realtime_encoder","hidden_size":1280,"intermediate_size":5120,
      "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"head_dim":64,
      "num_mel_bins":128,"max_position_embeddings":1500,"sliding_window":750},
    "text_config":{"model_type":"voxtral_realtime_text","vocab_size":131072,"hidden_size":3072,
      "intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":32,"num_key_value_heads":8,
      "head_dim":128,"max_position_embeddings":131072,"sliding_window":8192,"tie_word_embeddings":true},
    "downsample_factor":4,"tie_word_embeddings":true})";

// Parameters whose names start with `prefix`, tied copies once.
uint64_t parameters_under(const ModelTemplate& t, const std::string& prefix) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.tied_to.empty() && x.name.starts_with(prefix))
      n += numel(x.shape);
  return n;
}

// 4,429,679,360 parameters: the audio encoder 970,395,392 (the model card's "~970M"), the language model
// 3,434,118,144 ("~3.4B"), the projector the rest; 711 stored tensors, the head tied to the embeddings.
// VoxtralRealtimeConfig's defaults are the same model.
TEST(AudioLlms, VoxtralRealtimeMini4B) {
  const ModelTemplate t = template_of(kVoxtralRealtime);
  EXPECT_EQ(parameters_of(kVoxtralRealtime), 4429679360u);
  EXPECT_EQ(parameters_under(t, "audio_tower."), 970395392u);
  EXPECT_EQ(parameters_under(t, "language_model."), 3434118144u);
  EXPECT_EQ(disk_totals(t).tensors, 711u);
  EXPECT_EQ(parameters_of(R"({"model_type":"voxtral_realtime"})"), 4429679360u);
  EXPECT_EQ(t.arch.architecture, "VoxtralRealtimeForConditionalGeneration");
  EXPECT_EQ(t.arch.hidden_size, 3072u);
  EXPECT_EQ(t.arch.num_layers, 26u);
  // Registration order: audio_tower, language_model, multi_modal_projector.
  EXPECT_EQ(t.tensors.front().name, "audio_tower.embedder.conv1.weight");
  EXPECT_EQ(t.tensors.back().name, "multi_modal_projector.linear_2.weight");
  // The encoder's 32 heads of 64 make 2048 query values from 1280; k has no bias, the MLP's down_proj has
  // one.
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.0.self_attn.q_proj.weight")->shape, (Shape{2048, 1280}));
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.0.self_attn.k_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "audio_tower.layers.31.mlp.down_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.0.mlp.up_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_tower.embedder.conv2.weight")->shape, (Shape{1280, 1280, 3}));
  // Four frames side by side into the projector; the adaptive norm's two bias-free linears per layer.
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear_1.weight")->shape, (Shape{3072, 5120}));
  EXPECT_EQ(find_tensor(t, "language_model.model.layers.25.ada_rms_norm.linear1.weight")->shape,
            (Shape{32, 3072}));
  EXPECT_EQ(find_tensor(t, "language_model.lm_head.weight")->tied_to,
            "language_model.model.embed_tokens.weight");
  const StackSpec* audio = t.arch.stack(StackRole::Audio);
  ASSERT_NE(audio, nullptr);
  EXPECT_EQ(audio->layers.at(0).attention.window, 750u);
  EXPECT_EQ(audio->mel_bins, 128u);
  EXPECT_EQ(t.arch.layers().at(0).attention.window, 8192u);
  EXPECT_EQ(place_tensor("language_model.model.layers.0.ada_rms_norm.linear2.weight").block, Block::Norm);
  EXPECT_EQ(place_tensor("audio_tower.embedder.conv1.weight").block, Block::Audio);
}

// The encoder alone (VoxtralRealtimeEncoder) and the language model alone with VoxtralRealtimeTextConfig's
// own defaults (a Mistral-7B-sized decoder, untied, with the adaptive norms).
TEST(AudioLlms, VoxtralRealtimeEncoderAndTextAlone) {
  const std::string encoder = R"({"model_type":"voxtral_realtime_encoder"})";
  EXPECT_EQ(parameters_of(encoder), 970395392u);
  const ModelTemplate e = template_of(encoder);
  EXPECT_EQ(e.arch.architecture, "VoxtralRealtimeEncoder");
  EXPECT_EQ(e.tensors.front().name, "embedder.conv1.weight");
  EXPECT_EQ(e.tensors.back().name, "norm.weight");
  EXPECT_EQ(place_tensor("embedder.conv1.weight").block, Block::Embedding);
  // Whisper's names are the config class's aliases.
  EXPECT_EQ(parameters_of(R"({"model_type":"voxtral_realtime_encoder","d_model":1280,"encoder_layers":32,
      "encoder_attention_heads":32,"encoder_ffn_dim":5120})"),
            970395392u);
  EXPECT_EQ(parameters_of(R"({"model_type":"voxtral_realtime_text"})"), 7250120704u);
  const ModelTemplate base =
      template_of(R"({"model_type":"voxtral_realtime_text","architectures":["VoxtralRealtimeTextModel"]})");
  EXPECT_EQ(base.tensors.front().name, "embed_tokens.weight");
  EXPECT_EQ(find_tensor(base, "lm_head.weight"), nullptr);
  EXPECT_EQ(
      parameters_of(R"({"model_type":"voxtral_realtime_text","architectures":["VoxtralRealtimeTextModel"]})"),
      7119048704u);
}

TEST(AudioLlms, VoxtralRealtimeRefusals) {
  // num_key_value_heads is num_attention_heads' alias in the encoder's config class.
  EXPECT_EQ(refusal_of(R"({"model_type":"voxtral_realtime","audio_config":{"num_attention_heads":32,
      "num_key_value_heads":16}})")
                .field,
            "audio_config.num_key_value_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"voxtral_realtime","text_config":{"model_type":"llama"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"voxtral_realtime","text_config":{"num_attention_heads":32,
      "num_key_value_heads":5}})")
                .field,
            "text_config.num_key_value_heads");
}

// nvidia/audio-flamingo-3-hf's sizes: Whisper-large-v3's encoder with its position table, Qwen2.5-7B with the
// tokenizer's 151,672 rows, untied, and a biased two-linear projector: 8,267,215,360. AudioFlamingo3Config's
// defaults (Qwen2Config's 4096-wide, 32-layer decoder) make 12,708,843,520.
constexpr const char* kAudioFlamingo3 = R"({"model_type":"audioflamingo3",
    "architectures":["AudioFlamingo3ForConditionalGeneration"],
    "audio_config":{"model_type":"audioflamingo3_encoder","hidden_size":1280,"intermediate_size":5120,
      "num_hidden_layers":32,"num_attention_heads":20,"num_mel_bins":128,"max_source_positions":1500},
    "text_config":{"model_type":"qwen2","vocab_size":151672,"hidden_size":3584,"intermediate_size":18944,
      "num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"tie_word_embeddings":false}})";

TEST(AudioLlms, AudioFlamingo3) {
  const ModelTemplate t = template_of(kAudioFlamingo3);
  EXPECT_EQ(parameters_of(kAudioFlamingo3), 8267215360u);
  EXPECT_EQ(parameters_of(R"({"model_type":"audioflamingo3"})"), 12708843520u);
  EXPECT_EQ(parameters_under(t, "audio_tower."), 636968960u);
  EXPECT_EQ(t.arch.architecture, "AudioFlamingo3ForConditionalGeneration");
  EXPECT_EQ(t.arch.model_type, "qwen2");
  // Whisper's layer (k, v, q, out_proj; k without a bias) and its learned positions.
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.0.self_attn.k_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_tower.embed_positions.weight")->shape, (Shape{1500, 1280}));
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear_1.weight")->shape, (Shape{3584, 1280}));
  EXPECT_NE(find_tensor(t, "multi_modal_projector.linear_2.bias"), nullptr);
  EXPECT_TRUE(find_tensor(t, "language_model.lm_head.weight")->tied_to.empty());
  EXPECT_EQ(t.tensors.back().name, "multi_modal_projector.linear_2.bias");
  // projector_bias false drops both biases.
  const ModelTemplate unbiased = template_of(
      replaced(kAudioFlamingo3, R"("architectures")", R"("projector_bias":false,"architectures")"));
  EXPECT_EQ(find_tensor(unbiased, "multi_modal_projector.linear_1.bias"), nullptr);
  // The encoder alone: AudioFlamingo3Encoder's modules at the top level.
  const ModelTemplate e = template_of(R"({"model_type":"audioflamingo3_encoder"})");
  EXPECT_EQ(parameters_of(R"({"model_type":"audioflamingo3_encoder"})"), 636968960u);
  EXPECT_EQ(e.tensors.front().name, "conv1.weight");
  EXPECT_EQ(e.tensors.back().name, "layer_norm.bias");
  EXPECT_EQ(e.arch.num_layers, 32u);
  EXPECT_EQ(place_tensor("conv1.weight").block, Block::Embedding);
  EXPECT_EQ(refusal_of(R"({"model_type":"audioflamingo3","text_config":{"model_type":"llama"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"audioflamingo3","audio_config":{"num_attention_heads":7}})").field,
            "audio_config.num_attention_heads");
}

// MusicFlamingoForConditionalGeneration is Audio Flamingo 3's model plus a rotary time embedding of buffers
// only: the same parameters. MusicFlamingoConfig reads audio_config's model_type without a default.
TEST(AudioLlms, MusicFlamingoIsAudioFlamingo3WithBuffers) {
  const std::string music = replaced(
      replaced(kAudioFlamingo3, R"("model_type":"audioflamingo3",)", R"("model_type":"musicflamingo",)"),
      "\"audioflamingo3_encoder\"", "\"musicflamingo_encoder\"");
  EXPECT_EQ(parameters_of(music), 8267215360u);
  EXPECT_EQ(template_of(music).arch.architecture, "MusicFlamingoForConditionalGeneration");
  EXPECT_EQ(parameters_of(R"({"model_type":"musicflamingo"})"), 12708843520u);
  EXPECT_EQ(refusal_of(R"({"model_type":"musicflamingo","audio_config":{"hidden_size":1280}})").field,
            "audio_config.model_type");
}

// zai-org/GLM-ASR-Nano-2512 is GlmAsrConfig's defaults: 2,257,843,200 parameters (a converted copy's card
// says 2.26B; the "1.5B" of the model card is its Llama decoder, 1,593,427,968 with the untied head).
TEST(AudioLlms, GlmAsrNano) {
  const std::string config = R"({"model_type":"glmasr"})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(parameters_of(config), 2257843200u);
  EXPECT_EQ(parameters_under(t, "language_model."), 1593427968u);
  EXPECT_EQ(parameters_under(t, "audio_tower."), 635048960u);
  EXPECT_EQ(t.arch.architecture, "GlmAsrForConditionalGeneration");
  EXPECT_EQ(t.arch.model_type, "llama");
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.0.self_attn.k_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "audio_tower.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "audio_tower.layers.0.post_attention_layernorm.bias"), nullptr);
  // intermediate_size values (four frames) into a hidden layer twice the text width.
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear_1.weight")->shape, (Shape{4096, 5120}));
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear_2.weight")->shape, (Shape{2048, 4096}));
  EXPECT_EQ(find_tensor(t, "language_model.model.layers.0.self_attn.k_proj.weight")->shape,
            (Shape{512, 2048}));
  const ModelTemplate e = template_of(R"({"model_type":"glmasr_encoder"})");
  EXPECT_EQ(parameters_of(R"({"model_type":"glmasr_encoder"})"), 635048960u);
  EXPECT_EQ(e.tensors.front().name, "conv1.weight");
  EXPECT_EQ(e.tensors.back().name, "norm.bias");
  EXPECT_EQ(refusal_of(R"({"model_type":"glmasr","text_config":{"model_type":"qwen2"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"glmasr","audio_config":{"num_attention_heads":7}})").field,
            "audio_config.num_attention_heads");
}

}  // namespace
}  // namespace ma::test
