// EnCodec (encodec), MusicGen (musicgen, musicgen_decoder) and MusicGen Melody (musicgen_melody,
// musicgen_melody_decoder): templates against what transformers 5 builds. Totals were counted by a mirror of
// the transformers classes' module construction made of torch's own modules (nn.Conv1d, nn.LSTM, ...) on the
// meta device, whose state_dict matched these templates name for name, shape for shape and in order
// (/tmp/impl/speech_gen/verify: count_transformers.py, compare_out.txt); the rest are published figures.
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// t5-base's sizes (T5Config's defaults are t5-small's).
constexpr const char* kSpeechGenT5Base =
    R"({"model_type":"t5","architectures":["T5ForConditionalGeneration"],"d_model":768,"d_ff":3072,
    "num_layers":12,"num_heads":12,"d_kv":64,"vocab_size":32128,"feed_forward_proj":"relu"})";
// facebook/encodec_32khz's config, as facebook/musicgen-* nest it (the fields that differ from
// EncodecConfig's defaults, which are facebook/encodec_24khz's).
constexpr const char* kSpeechGenEncodec32k =
    R"({"model_type":"encodec","architectures":["EncodecModel"],"codebook_size":2048,"num_filters":64,
    "sampling_rate":32000,"target_bandwidths":[2.2],"upsampling_ratios":[8,5,4,4],"use_causal_conv":false,
    "use_conv_shortcut":false,"norm_type":"weight_norm"})";

// facebook/musicgen-small: its decoder config is MusicgenDecoderConfig's defaults.
std::string musicgen_small() {
  return std::string(R"({"model_type":"musicgen","architectures":["MusicgenForConditionalGeneration"],
    "text_encoder":)") +
         kSpeechGenT5Base + R"(,"audio_encoder":)" + kSpeechGenEncodec32k +
         R"(,"decoder":{"model_type":"musicgen_decoder",
    "hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,"ffn_dim":4096,"num_codebooks":4,
    "vocab_size":2048,"max_position_embeddings":2048}})";
}

struct SpeechGenTotals {
  uint64_t parameters = 0, buffers = 0;
};
SpeechGenTotals speech_gen_totals(const ModelTemplate& t, const std::string& prefix = "") {
  SpeechGenTotals s;
  for (const TemplateTensor& x : t.tensors) {
    if (!x.name.starts_with(prefix) || !x.tied_to.empty()) continue;
    (x.kind == TensorKind::Parameter ? s.parameters : s.buffers) += numel(x.shape);
  }
  return s;
}

// 586,884,674 parameters in MusicgenForConditionalGeneration: T5EncoderModel 109,628,544, EncodecModel
// 56,884,674, the decoder 419,584,000 and enc_to_dec_proj (768 -> 1024) 787,456. The Hub's "591M" for
// facebook/musicgen-small counts what its checkpoint stores: the parameters, the codebooks' persistent
// buffers (4 x (2048 x 128 x 2 + 2048 + 1) = 2,105,348) and the sinusoidal table transformers 4 saved as a
// parameter (2048 x 1024 = 2,097,152), 591,087,174 values in all.
TEST(SpeechGen, MusicgenSmallIsT5EncodecAndTheDecoder) {
  const ModelTemplate t = template_of(musicgen_small());
  EXPECT_EQ(speech_gen_totals(t).parameters, 586884674u);
  EXPECT_EQ(speech_gen_totals(t, "text_encoder.").parameters, 109628544u);
  EXPECT_EQ(speech_gen_totals(t, "audio_encoder.").parameters, 56884674u);
  EXPECT_EQ(speech_gen_totals(t, "decoder.").parameters, 419584000u);
  EXPECT_EQ(speech_gen_totals(t).buffers, 2105348u);
  EXPECT_EQ(speech_gen_totals(t).parameters + speech_gen_totals(t).buffers + 2048u * 1024u, 591087174u);
  EXPECT_EQ(disk_totals(t).elements, 586884674u + 2105348u);
  ASSERT_EQ(t.known_extras.size(), 1u);
  EXPECT_EQ(t.known_extras[0].prefix, "decoder.model.decoder.embed_positions.");
  // Registration order: text encoder, audio encoder, decoder, projection.
  EXPECT_EQ(t.tensors.front().name, "text_encoder.shared.weight");
  EXPECT_LT(tensor_index(t, "text_encoder.encoder.final_layer_norm.weight"),
            tensor_index(t, "audio_encoder.encoder.layers.0.conv.bias"));
  EXPECT_LT(tensor_index(t, "audio_encoder.quantizer.layers.3.codebook.embed_avg"),
            tensor_index(t, "decoder.model.decoder.embed_tokens.0.weight"));
  EXPECT_EQ(t.tensors.back().name, "enc_to_dec_proj.bias");
  EXPECT_EQ(find_tensor(t, "enc_to_dec_proj.weight")->shape, (Shape{1024, 768}));
  // T5EncoderModel, whatever the nested config's architectures say: no decoder stack, no LM head.
  EXPECT_EQ(find_tensor(t, "text_encoder.decoder.final_layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_encoder.encoder.embed_tokens.weight")->tied_to,
            "text_encoder.shared.weight");
  // One embedding per codebook with a row for the pad / start token, one bias-free head per codebook, and
  // bias-free attention that cross-attends in every layer.
  EXPECT_EQ(find_tensor(t, "decoder.model.decoder.embed_tokens.3.weight")->shape, (Shape{2049, 1024}));
  EXPECT_EQ(find_tensor(t, "decoder.lm_heads.3.weight")->shape, (Shape{2048, 1024}));
  EXPECT_EQ(find_tensor(t, "decoder.model.decoder.layers.23.encoder_attn.v_proj.weight")->shape,
            (Shape{1024, 1024}));
  EXPECT_EQ(find_tensor(t, "decoder.model.decoder.layers.0.self_attn.q_proj.bias"), nullptr);
  // EnCodec's weight-normed convs, stored under torch's old names; its codebooks are buffers.
  const TemplateTensor* v =
      find_tensor(t, "audio_encoder.decoder.layers.3.conv.parametrizations.weight.original1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape, (Shape{1024, 512, 16}));  // ConvTranspose1d: [in, out, 2 x ratio 8]
  EXPECT_EQ(stored_name(*v), "audio_encoder.decoder.layers.3.conv.weight_v");
  EXPECT_EQ(find_tensor(t, "audio_encoder.decoder.layers.3.conv.parametrizations.weight.original0")->shape,
            (Shape{1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, "audio_encoder.encoder.layers.13.lstm.weight_hh_l1")->shape, (Shape{4096, 1024}));
  EXPECT_EQ(find_tensor(t, "audio_encoder.quantizer.layers.0.codebook.embed")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "audio_encoder.quantizer.layers.4.codebook.embed"), nullptr);  // 2.2 kbps: 4
  EXPECT_EQ(find_tensor(t, "audio_encoder.encoder.layers.1.shortcut.conv.bias"), nullptr);
  // The record is the decoder's; the text encoder joins it as an encoder stack.
  EXPECT_EQ(t.arch.architecture, "MusicgenForConditionalGeneration");
  EXPECT_EQ(t.arch.model_type, "musicgen_decoder");
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  EXPECT_EQ(t.arch.num_layers, 24u);
  ASSERT_NE(t.arch.stack(StackRole::Decoder), nullptr);
  EXPECT_TRUE(t.arch.stack(StackRole::Decoder)->layers[0].cross_attention.has_value());
  ASSERT_NE(t.arch.stack(StackRole::Encoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->path, "text_encoder.encoder.block");
}

// A decoder whose cross_attention_hidden_size is the text encoder's width needs no projection (transformers
// raises on any other width).
TEST(SpeechGen, CrossAttentionHiddenSizeDropsTheProjection) {
  const ModelTemplate t = template_of(replaced(musicgen_small(), R"("num_codebooks":4,)",
                                               R"("num_codebooks":4,"cross_attention_hidden_size":768,)"));
  EXPECT_EQ(find_tensor(t, "enc_to_dec_proj.weight"), nullptr);
  EXPECT_EQ(speech_gen_totals(t).parameters, 586884674u - 768u * 1024u - 1024u);
}

// facebook/musicgen-large's decoder alone: 3,255,382,016 parameters (the paper's "3.3B").
TEST(SpeechGen, MusicgenLargeDecoder) {
  const ModelTemplate t =
      template_of(R"({"model_type":"musicgen_decoder","architectures":["MusicgenForCausalLM"],
    "hidden_size":2048,"num_hidden_layers":48,"num_attention_heads":32,"ffn_dim":8192,"num_codebooks":4,
    "vocab_size":2048})");
  EXPECT_EQ(speech_gen_totals(t).parameters, 3255382016u);
  EXPECT_EQ(t.arch.architecture, "MusicgenForCausalLM");
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_EQ(t.arch.head_dim, 64u);
  // MusicgenDecoderLayer builds its cross-attention even without a text encoder.
  EXPECT_NE(find_tensor(t, "model.decoder.layers.47.encoder_attn.k_proj.weight"), nullptr);
  ASSERT_EQ(t.known_extras.size(), 1u);
  EXPECT_EQ(t.known_extras[0].prefix, "model.decoder.embed_positions.");
}

// MusicgenModel: the decoder without heads, directly under decoder.
TEST(SpeechGen, MusicgenModelHasNoHeads) {
  const ModelTemplate t = template_of(R"({"model_type":"musicgen_decoder","architectures":["MusicgenModel"],
    "num_hidden_layers":2})");
  EXPECT_EQ(speech_gen_totals(t).parameters, 41961472u);
  EXPECT_NE(find_tensor(t, "decoder.embed_tokens.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_heads.0.weight"), nullptr);
}

// facebook/musicgen-melody (the "1.5B" of its card): 1,552,138,818 parameters; its decoder layers have no
// cross-attention (the conditioning is prepended), and the 12 chroma bins get their own projection.
TEST(SpeechGen, MusicgenMelodyPrependsItsConditioning) {
  const std::string melody = std::string(R"({"model_type":"musicgen_melody",
    "architectures":["MusicgenMelodyForConditionalGeneration"],"num_chroma":12,"text_encoder":)") +
                             kSpeechGenT5Base + R"(,"audio_encoder":)" + kSpeechGenEncodec32k +
                             R"(,"decoder":{"model_type":"musicgen_melody_decoder","hidden_size":1536,
    "num_hidden_layers":48,"num_attention_heads":24,"ffn_dim":6144}})";
  const ModelTemplate t = template_of(melody);
  EXPECT_EQ(speech_gen_totals(t).parameters, 1552138818u);
  EXPECT_EQ(speech_gen_totals(t, "decoder.").parameters, 1384424448u);
  EXPECT_EQ(find_tensor(t, "decoder.model.decoder.layers.0.encoder_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_enc_to_dec_proj.weight")->shape, (Shape{1536, 12}));
  EXPECT_EQ(t.tensors.back().name, "audio_enc_to_dec_proj.bias");
  EXPECT_FALSE(t.arch.stack(StackRole::Decoder)->layers[0].cross_attention.has_value());

  const ModelTemplate d = template_of(R"({"model_type":"musicgen_melody_decoder","hidden_size":1536,
    "num_hidden_layers":48,"num_attention_heads":24,"ffn_dim":6144})");
  EXPECT_EQ(speech_gen_totals(d).parameters, 1384424448u);
  EXPECT_EQ(d.arch.architecture, "MusicgenMelodyForCausalLM");
}

// facebook/encodec_24khz (EncodecConfig's defaults): 14,851,810 parameters and 32 codebooks of 1024 x 128
// (24 kbps at 75 frames of 10 bits), 8,421,408 buffer values: the Hub's "23.3M" is both, 23,273,218.
TEST(SpeechGen, Encodec24kHz) {
  const ModelTemplate t = template_of(R"({"model_type":"encodec"})");
  EXPECT_EQ(speech_gen_totals(t).parameters, 14851810u);
  EXPECT_EQ(speech_gen_totals(t).buffers, 8421408u);
  EXPECT_EQ(t.arch.architecture, "EncodecModel");
  EXPECT_NE(find_tensor(t, "quantizer.layers.31.codebook.cluster_size"), nullptr);
  EXPECT_EQ(find_tensor(t, "quantizer.layers.32.codebook.cluster_size"), nullptr);
  // The residual block's conv shortcut, and the strided conv after it: kernel 2 x ratio.
  EXPECT_EQ(find_tensor(t, "encoder.layers.1.shortcut.conv.parametrizations.weight.original1")->shape,
            (Shape{32, 32, 1}));
  EXPECT_EQ(find_tensor(t, "encoder.layers.3.conv.parametrizations.weight.original1")->shape,
            (Shape{64, 32, 4}));
  EXPECT_EQ(stored_name(*find_tensor(t, "encoder.layers.3.conv.parametrizations.weight.original0")),
            "encoder.layers.3.conv.weight_g");
}

// facebook/encodec_48khz: stereo, time_group_norm (plain convs and a one-group GroupNorm each), 4 codebooks
// fewer (24 kbps at 150 frames): 14,856,294 parameters.
TEST(SpeechGen, Encodec48kHzUsesGroupNorms) {
  const ModelTemplate t =
      template_of(R"({"model_type":"encodec","audio_channels":2,"norm_type":"time_group_norm",
    "sampling_rate":48000,"target_bandwidths":[3.0,6.0,12.0,24.0],"use_causal_conv":false})");
  EXPECT_EQ(speech_gen_totals(t).parameters, 14856294u);
  EXPECT_EQ(speech_gen_totals(t).buffers, 4210704u);
  EXPECT_EQ(find_tensor(t, "encoder.layers.0.conv.weight")->shape, (Shape{32, 2, 7}));
  EXPECT_EQ(find_tensor(t, "encoder.layers.0.norm.weight")->shape, (Shape{32}));
  EXPECT_EQ(find_tensor(t, "decoder.layers.3.conv.weight")->shape, (Shape{512, 256, 16}));
}

TEST(SpeechGen, RefusesWhatTransformersRejects) {
  EXPECT_EQ(refusal_of(R"({"model_type":"encodec","norm_type":"layer_norm"})").field, "norm_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"encodec","codebook_size":1000})").field, "codebook_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"encodec","use_causal_conv":false,"trim_right_ratio":0.5})").field,
            "trim_right_ratio");
  EXPECT_EQ(refusal_of(R"({"model_type":"encodec","target_bandwidths":[]})").field, "target_bandwidths");
  EXPECT_EQ(refusal_of(R"({"model_type":"musicgen_decoder","num_attention_heads":15})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"musicgen","audio_encoder":{"model_type":"encodec"}})").field,
            "text_encoder.model_type");
  EXPECT_EQ(
      refusal_of(replaced(musicgen_small(), R"("norm_type":"weight_norm")", R"("norm_type":"spectral")"))
          .field,
      "audio_encoder.norm_type");
  EXPECT_EQ(refusal_of(replaced(musicgen_small(), R"("num_codebooks":4,)",
                                R"("num_codebooks":4,"cross_attention_hidden_size":512,)"))
                .field,
            "decoder.cross_attention_hidden_size");
  EXPECT_EQ(refusal_of(replaced(musicgen_small(), R"("model_type":"t5")", R"("model_type":"bert")")).kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"musicgen_melody_decoder",
    "architectures":["MusicgenMelodyForConditionalGeneration"]})")
                .kind,
            ErrorKind::Unsupported);
}

// The codec is audio, the per-codebook tables are embeddings and heads, not layers (tensor_placement.cpp).
TEST(SpeechGen, PlacesTheCodecAndTheCodebookTables) {
  for (const char* name : {"audio_encoder.encoder.layers.0.conv.parametrizations.weight.original1",
                           "audio_encoder.decoder.layers.1.lstm.weight_ih_l0",
                           "audio_encoder.quantizer.layers.3.codebook.embed", "audio_enc_to_dec_proj.weight",
                           "encoder.layers.13.lstm.bias_hh_l1", "quantizer.layers.0.codebook.inited",
                           "encoder.layers.1.block.1.conv.weight_v", "decoder.layers.4.shortcut.conv.bias"})
    EXPECT_EQ(place_tensor(name).block, Block::Audio) << name;
  const TensorPlacement embed = place_tensor("decoder.model.decoder.embed_tokens.2.weight");
  EXPECT_EQ(embed.block, Block::Embedding);
  EXPECT_FALSE(embed.layer.has_value());
  const TensorPlacement head = place_tensor("decoder.lm_heads.2.weight");
  EXPECT_EQ(head.block, Block::LmHead);
  EXPECT_FALSE(head.layer.has_value());
  EXPECT_EQ(place_tensor("decoder.model.decoder.embed_positions.weights").block, Block::Embedding);
  // LFM2's short convolutions stay where they were.
  EXPECT_EQ(place_tensor("model.layers.0.conv.conv.weight").block, Block::ShortConv);
}

}  // namespace
}  // namespace ma::test
