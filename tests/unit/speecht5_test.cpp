// SpeechT5 (speecht5: SpeechT5ForTextToSpeech / ForSpeechToText / ForSpeechToSpeech / SpeechT5Model,
// microsoft/speecht5_tts, _asr, _vc) and its vocoder (hifigan: SpeechT5HifiGan, microsoft/speecht5_hifigan):
// templates against what transformers builds. Totals, names, shapes and order were counted by a torch
// reconstruction of the classes' module construction (modeling_speecht5.py at transformers ffe96a29, every
// __init__ as written; /tmp/impl/speecht5/verify: speecht5_torch.py, hifigan_torch.py, compare_result.txt),
// whose state_dict matched these templates name for name, shape for shape and in order; the Hub lists
// speecht5_tts at 144M parameters.
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/speecht5_tts's config.json, the fields that shape weights (the others are SpeechT5Config's
// defaults, which are these checkpoints' sizes).
constexpr const char* kSpeechT5Tts = R"({"model_type":"speecht5","architectures":["SpeechT5ForTextToSpeech"],
  "vocab_size":81,"hidden_size":768,"encoder_layers":12,"encoder_attention_heads":12,"encoder_ffn_dim":3072,
  "decoder_layers":6,"decoder_attention_heads":12,"decoder_ffn_dim":3072,"num_mel_bins":80,
  "speech_decoder_prenet_layers":2,"speech_decoder_prenet_units":256,"speaker_embedding_dim":512,
  "speech_decoder_postnet_layers":5,"speech_decoder_postnet_units":256,"speech_decoder_postnet_kernel":5,
  "reduction_factor":2,"max_speech_positions":4000,"max_text_positions":450,
  "encoder_max_relative_position":160,"mask_time_prob":0.05})";
// microsoft/speecht5_asr and speecht5_vc: the same sizes under the other task classes.
std::string speecht5_asr() {
  return replaced(kSpeechT5Tts, "SpeechT5ForTextToSpeech", "SpeechT5ForSpeechToText");
}
std::string speecht5_vc() {
  return replaced(kSpeechT5Tts, "SpeechT5ForTextToSpeech", "SpeechT5ForSpeechToSpeech");
}
// microsoft/speecht5_hifigan's config.json.
constexpr const char* kSpeechT5HifiGan = R"({"model_type":"hifigan","architectures":["SpeechT5HifiGan"],
  "model_in_dim":80,"sampling_rate":16000,"upsample_initial_channel":512,"upsample_rates":[4,4,4,4],
  "upsample_kernel_sizes":[8,8,8,8],"resblock_kernel_sizes":[3,7,11],
  "resblock_dilation_sizes":[[1,3,5],[1,3,5],[1,3,5]],"leaky_relu_slope":0.1,"normalize_before":true})";

// Text encoder prenet 62,209 (81 x 768 tokens, alpha); encoder 85,076,480 (its LayerNorm, 12 layers of
// 7,087,872, pe_k 320 x 64); decoder 56,710,656 (6 layers of 9,451,776); speech decoder prenet 1,267,713;
// speech postnet 1,314,626 (feat_out, prob_out, five convolutions and their BatchNorms): 144,431,684, the
// Hub's 144M. The BatchNorms' running statistics add 2,213 stored values (buffers, not parameters).
TEST(SpeechT5, TextToSpeechMatchesTransformers) {
  EXPECT_EQ(parameters_of(kSpeechT5Tts), 144'431'684u);
  const ModelTemplate t = template_of(kSpeechT5Tts);
  EXPECT_EQ(t.tensors.size(), 396u);
  EXPECT_EQ(disk_totals(t).elements, 144'433'897u);
  EXPECT_EQ(t.tensors.front().name, "speecht5.encoder.prenet.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "speecht5.encoder.prenet.encode_positions.alpha")->shape, Shape{});
  EXPECT_EQ(find_tensor(t, "speecht5.encoder.wrapped_encoder.embed_positions.pe_k.weight")->shape,
            (Shape{320, 64}));
  EXPECT_EQ(find_tensor(t, "speecht5.decoder.prenet.speaker_embeds_layer.weight")->shape, (Shape{768, 1280}));
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.feat_out.weight")->shape, (Shape{160, 768}));
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.layers.0.conv.weight")->shape, (Shape{256, 80, 5}));
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.layers.4.conv.weight")->shape, (Shape{80, 256, 5}));
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.layers.4.batch_norm.running_var")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.layers.4.batch_norm.num_batches_tracked")->shape, Shape{});
  // BART's attention order (k, v, q, out_proj); the sinusoidal tables are non-persistent buffers: absent.
  EXPECT_LT(tensor_index(t, "speecht5.decoder.wrapped_decoder.layers.0.encoder_attn.k_proj.weight"),
            tensor_index(t, "speecht5.decoder.wrapped_decoder.layers.0.encoder_attn.q_proj.weight"));
  EXPECT_EQ(find_tensor(t, "speecht5.decoder.prenet.encode_positions.pe"), nullptr);
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  expect_reads_cleanly(kSpeechT5Tts);
}

// The recognizer: the speech encoder prenet (masked_spec_embed first, wav2vec 2.0's seven convolutions with
// one GroupNorm, the projection, the weight-normed positional convolution stored as weight_g / weight_v) and
// a text decoder whose token table the LM head shares: 151,165,056; untied, 81 x 768 more.
TEST(SpeechT5, SpeechToTextTiesItsHead) {
  EXPECT_EQ(parameters_of(speecht5_asr()), 151'165'056u);
  EXPECT_EQ(parameters_of(replaced(speecht5_asr(), R"("vocab_size":81,)",
                                   R"("vocab_size":81,"tie_word_embeddings":false,)")),
            151'165'056u + 81u * 768u);
  const ModelTemplate t = template_of(speecht5_asr());
  EXPECT_EQ(t.tensors.size(), 370u);
  EXPECT_EQ(t.tensors.front().name, "speecht5.encoder.prenet.masked_spec_embed");
  EXPECT_EQ(find_tensor(t, "text_decoder_postnet.lm_head.weight")->tied_to,
            "speecht5.decoder.prenet.embed_tokens.weight");
  const TemplateTensor* v =
      find_tensor(t, "speecht5.encoder.prenet.pos_conv_embed.conv.parametrizations.weight.original1");
  EXPECT_EQ(v->shape, (Shape{768, 48, 128}));
  EXPECT_EQ(stored_name(*v), "speecht5.encoder.prenet.pos_conv_embed.conv.weight_v");
  EXPECT_EQ(
      find_tensor(t, "speecht5.encoder.prenet.pos_conv_embed.conv.parametrizations.weight.original0")->shape,
      (Shape{1, 1, 128}));
  EXPECT_EQ(find_tensor(t, "speecht5.encoder.prenet.feature_encoder.conv_layers.0.conv.weight")->shape,
            (Shape{512, 1, 10}));
  EXPECT_EQ(find_tensor(t, "speecht5.encoder.prenet.feature_encoder.conv_layers.1.layer_norm.weight"),
            nullptr);
  expect_reads_cleanly(speecht5_asr());
  // Checkpoints written by transformers 4 also store the sinusoidal tables it made parameters: known extras.
  const Inventory inv =
      stored_checkpoint(
          speecht5_asr(),
          {{"speecht5.encoder.prenet.pos_sinusoidal_embed.weights", DType::F32, {4004, 768}, {}},
           {"speecht5.decoder.prenet.embed_positions.weights", DType::F32, {454, 768}, {}}})
          .inventory;
  EXPECT_TRUE(inv.warnings.empty());
  EXPECT_EQ(extras_in(inv), 2u);
}

// Voice conversion: speech prenets on both sides and the speech postnet, 153,685,187; SpeechT5Model, the bare
// encoder-decoder, 141,787,136.
TEST(SpeechT5, SpeechToSpeechAndBareModel) {
  EXPECT_EQ(parameters_of(speecht5_vc()), 153'685'187u);
  EXPECT_EQ(template_of(speecht5_vc()).tensors.size(), 411u);
  expect_reads_cleanly(speecht5_vc());
  const std::string bare = replaced(kSpeechT5Tts, "SpeechT5ForTextToSpeech", "SpeechT5Model");
  EXPECT_EQ(parameters_of(bare), 141'787'136u);
  const ModelTemplate t = template_of(bare);
  EXPECT_EQ(t.tensors.front().name, "encoder.wrapped_encoder.layer_norm.weight");
  EXPECT_NE(find_tensor(t, "decoder.wrapped_decoder.layers.5.final_layer_norm.bias"), nullptr);
}

// The task fields a config may change, against the torch reconstruction: a "layer"-normed, biased feature
// encoder of three convolutions, no SpecAugment vector, narrower stacks with their own heads (17,789,504,
// untied); a TTS model with 64 mel bins, three prenet layers and a one-convolution postnet (142,790,211).
TEST(SpeechT5, ConfigFieldsShapeThePrenetsAndPostnet) {
  const std::string asr = R"({"model_type":"speecht5","architectures":["SpeechT5ForSpeechToText"],
    "vocab_size":100,"tie_word_embeddings":false,"feat_extract_norm":"layer","conv_bias":true,
    "mask_time_prob":0,"conv_dim":[256,256,512],"conv_kernel":[10,3,3],"conv_stride":[5,2,2],
    "num_conv_pos_embeddings":64,"num_conv_pos_embedding_groups":8,"hidden_size":512,
    "encoder_attention_heads":8,"decoder_attention_heads":4,"encoder_layers":3,"decoder_layers":2,
    "encoder_ffn_dim":1024,"decoder_ffn_dim":2048,"encoder_max_relative_position":100})";
  EXPECT_EQ(parameters_of(asr), 17'789'504u);
  const ModelTemplate a = template_of(asr);
  EXPECT_EQ(a.tensors.size(), 124u);
  EXPECT_EQ(find_tensor(a, "speecht5.encoder.prenet.masked_spec_embed"), nullptr);
  EXPECT_EQ(find_tensor(a, "speecht5.encoder.wrapped_encoder.embed_positions.pe_k.weight")->shape,
            (Shape{200, 64}));
  const std::string tts = R"({"model_type":"speecht5","architectures":["SpeechT5ForTextToSpeech"],
    "num_mel_bins":64,"speech_decoder_prenet_layers":3,"speech_decoder_prenet_units":128,
    "speaker_embedding_dim":192,"speech_decoder_postnet_layers":1,"speech_decoder_postnet_units":128,
    "speech_decoder_postnet_kernel":3,"reduction_factor":1})";
  EXPECT_EQ(parameters_of(tts), 142'790'211u);
  EXPECT_EQ(find_tensor(template_of(tts), "speech_decoder_postnet.layers.0.conv.weight")->shape,
            (Shape{64, 64, 3}));
}

// microsoft/speecht5_hifigan: conv_pre, four transposed convolutions, twelve residual blocks, conv_post:
// 12,656,257 parameters; the normalisation's mean and scale (80 each) are buffers, first in the state_dict.
TEST(SpeechT5, HifiGanVocoder) {
  EXPECT_EQ(parameters_of(kSpeechT5HifiGan), 12'656'257u);
  const ModelTemplate t = template_of(kSpeechT5HifiGan);
  EXPECT_EQ(t.tensors.size(), 158u);
  EXPECT_EQ(t.tensors.front().name, "mean");
  EXPECT_EQ(t.tensors.front().kind, TensorKind::Buffer);
  EXPECT_EQ(disk_totals(t).elements, 12'656'257u + 160u);
  EXPECT_EQ(find_tensor(t, "upsampler.3.weight")->shape, (Shape{64, 32, 8}));
  EXPECT_EQ(find_tensor(t, "resblocks.11.convs2.2.weight")->shape, (Shape{32, 32, 11}));
  EXPECT_EQ(find_tensor(t, "conv_post.bias")->shape, Shape{1});
  expect_reads_cleanly(kSpeechT5HifiGan);
  // Two stages, two kernels: 1,950,593 (torch reconstruction).
  EXPECT_EQ(parameters_of(R"({"model_type":"hifigan","model_in_dim":64,"upsample_initial_channel":256,
    "upsample_rates":[8,8,4],"upsample_kernel_sizes":[16,16,8],"resblock_kernel_sizes":[3,7],
    "resblock_dilation_sizes":[[1,3],[1,3,5]]})"),
            1'950'593u);
}

TEST(SpeechT5, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(
      refusal_of(replaced(kSpeechT5Tts, R"("decoder_attention_heads":12)", R"("decoder_attention_heads":5)"))
          .field,
      "decoder_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(speecht5_asr(), R"("vocab_size":81,)", R"("vocab_size":81,"conv_dim":[512,512],)"))
          .field,
      "conv_kernel");
  EXPECT_EQ(refusal_of(replaced(speecht5_asr(), R"("vocab_size":81,)",
                                R"("vocab_size":81,"num_conv_pos_embedding_groups":7,)"))
                .field,
            "num_conv_pos_embedding_groups");
  EXPECT_EQ(refusal_of(replaced(kSpeechT5Tts, "SpeechT5ForTextToSpeech", "SpeechT5ForCTC")).kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(replaced(kSpeechT5HifiGan, R"("resblock_kernel_sizes":[3,7,11])",
                                R"("resblock_kernel_sizes":[3,7])"))
                .field,
            "resblock_dilation_sizes");
  // FastSpeech2ConformerHifiGan's configs also say model_type "hifigan": a copy of the class (its own
  // defaults: audio_codecs_tts_test.cpp), the same tensors from the same fields; other classes are refused.
  EXPECT_EQ(parameters_of(replaced(kSpeechT5HifiGan, "SpeechT5HifiGan", "FastSpeech2ConformerHifiGan")),
            12'656'257u);
  EXPECT_EQ(refusal_of(replaced(kSpeechT5HifiGan, "SpeechT5HifiGan", "SpeechT5HifiGanForCTC")).kind,
            ErrorKind::Unsupported);
}

// The encoder-decoder's layers are attention, MLP and norms; the speech encoder prenet is audio, the speech
// decoder prenet, the speech postnet and the vocoder speech output; token tables and position tables
// embeddings; none of it "other", in memory or on disk.
TEST(SpeechT5, PlacementKeepsThePrenetsAndPostnetsOutOfOther) {
  for (const std::string& config :
       {std::string(kSpeechT5Tts), speecht5_asr(), speecht5_vc(), std::string(kSpeechT5HifiGan)}) {
    const ModelTemplate t = template_of(config);
    for (const DiskTensor& x : disk_form(t)) EXPECT_NE(place_tensor(x.name).block, Block::Other) << x.name;
    expect_every_tensor_placed(t);
  }
  EXPECT_EQ(place_tensor("speecht5.encoder.prenet.feature_encoder.conv_layers.3.conv.weight").block,
            Block::Audio);
  EXPECT_EQ(place_tensor("speecht5.encoder.prenet.pos_conv_embed.conv.weight_g").block, Block::Audio);
  EXPECT_EQ(place_tensor("speecht5.decoder.prenet.layers.1.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("speecht5.decoder.prenet.speaker_embeds_layer.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("speech_decoder_postnet.layers.2.batch_norm.running_mean").block,
            Block::SpeechOutput);
  EXPECT_EQ(place_tensor("speecht5.encoder.prenet.embed_tokens.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("speecht5.encoder.prenet.encode_positions.alpha").block, Block::Embedding);
  EXPECT_EQ(place_tensor("speecht5.encoder.wrapped_encoder.embed_positions.pe_k.weight").block,
            Block::Embedding);
  EXPECT_EQ(place_tensor("speecht5.decoder.wrapped_decoder.layers.3.encoder_attn.q_proj.weight").block,
            Block::CrossAttention);
  EXPECT_EQ(place_tensor("text_decoder_postnet.lm_head.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("resblocks.4.convs1.0.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("conv_post.weight").block, Block::SpeechOutput);
}

}  // namespace
}  // namespace ma::test
