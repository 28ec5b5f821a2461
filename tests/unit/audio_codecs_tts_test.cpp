// Descript's DAC, X-Codec, the UnivNet vocoder and FastSpeech2Conformer (model/families/dac.cpp, xcodec.cpp,
// univnet.cpp, fastspeech2_conformer.cpp): the counts transformers builds, the layout of their parts, where
// their tensors sit and the configs they refuse. Expected totals come from module-by-module reconstructions
// of the transformers classes (modeling_dac.py, modeling_xcodec.py, modeling_univnet.py,
// modeling_fastspeech2_conformer.py); the DAC checkpoints' are the 74M-76M published for them.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// descript/dac_16khz's config.json: 12 codebooks, encoder rates 2, 4, 5, 8 (a 320-sample hop).
const std::string kDac16k = R"({"architectures":["DacModel"],"model_type":"dac","codebook_dim":8,
  "codebook_size":1024,"decoder_hidden_size":1536,"downsampling_ratios":[2,4,5,8],"encoder_hidden_size":64,
  "hidden_size":1024,"hop_length":320,"n_codebooks":12,"quantizer_dropout":0.0,"sampling_rate":16000,
  "upsampling_ratios":[8,5,4,2]})";

// hf-audio/xcodec-hubert-librispeech: DAC's encoder and decoder with a 256-wide latent, hubert-base as the
// semantic model, 8 codebooks of 1024 entries at 4 kbps (1000 * 4 // (50 frames/s * 10 bits)).
const std::string kXcodecHubert = R"({"architectures":["XcodecModel"],"model_type":"xcodec",
  "acoustic_model_config":{"model_type":"dac","codebook_dim":8,"codebook_size":1024,
    "decoder_hidden_size":1024,"downsampling_ratios":[8,5,4,2],"encoder_hidden_size":64,"hidden_size":256,
    "n_codebooks":9,"sampling_rate":16000,"upsampling_ratios":[8,5,4,2]},
  "semantic_model_config":{"model_type":"hubert","architectures":["HubertModel"],"hidden_size":768,
    "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,
    "conv_dim":[512,512,512,512,512,512,512],"conv_stride":[5,2,2,2,2,2,2],"conv_kernel":[10,3,3,3,3,2,2],
    "conv_bias":false,"feat_extract_norm":"group","num_conv_pos_embeddings":128,
    "num_conv_pos_embedding_groups":16,"do_stable_layer_norm":false,"mask_time_prob":0.05},
  "sample_rate":16000,"target_bandwidths":[0.5,1,1.5,2,4],"channel_ratios":[1,1],"strides":[1,1],
  "block_dilations":[1,1],"kernel_size":3,"unit_kernel_size":3,"codebook_size":1024,"codebook_dim":1024})";

uint64_t codec_values_under(const ModelTemplate& t, const std::string& prefix, TensorKind kind) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == kind && x.name.rfind(prefix, 0) == 0) n += numel(x.shape);
  return n;
}

TEST(Dac, CheckpointsCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(kDac16k), 74'141'697u);
  // dac_24khz: the same codec with 32 codebooks.
  EXPECT_EQ(parameters_of(replaced(kDac16k, "\"n_codebooks\":12", "\"n_codebooks\":32")), 74'653'857u);
  // dac_44khz: rates 2, 4, 8, 8 (a 512-sample hop), 9 codebooks.
  const std::string dac44k =
      replaced(replaced(replaced(kDac16k, "[2,4,5,8]", "[2,4,8,8]"), "[8,5,4,2]", "[8,8,4,2]"),
               "\"n_codebooks\":12", "\"n_codebooks\":9");
  EXPECT_EQ(parameters_of(dac44k), 76'620'777u);
  // DacConfig's defaults are dac_44khz's shape.
  EXPECT_EQ(parameters_of(R"({"model_type":"dac"})"), 76'620'777u);
}

// A codec alone is all tower: nothing is set aside, though its first convolutions (encoder.conv1, conv2) are
// named as Whisper's audio stem and placed with it.
TEST(Dac, SetsNothingAsideAsTowers) {
  const ParameterCounts c = counts_of(kDac16k);
  EXPECT_EQ(c.towers, 0u);
  EXPECT_FALSE(c.active.has_value());
  EXPECT_EQ(place_tensor("encoder.conv1.weight").block, Block::Embedding);
}

TEST(Dac, LayoutFollowsTheModules) {
  const ModelTemplate t = template_of(kDac16k);
  // Snake1d keeps its alpha as [1, channels, 1]; each encoder block's residual units run at its input width.
  const TemplateTensor* alpha = find_tensor(t, "encoder.block.0.res_unit1.snake1.alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->shape, (Shape{1, 64, 1}));
  ASSERT_NE(find_tensor(t, "encoder.block.3.conv1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.block.3.conv1.weight")->shape, (Shape{1024, 512, 16}));
  EXPECT_EQ(find_tensor(t, "encoder.conv2.weight")->shape, (Shape{1024, 1024, 3}));
  // The decoder halves decoder_hidden_size per stage: 1536 -> 96 over four (kernel twice the stride).
  ASSERT_NE(find_tensor(t, "decoder.block.3.conv_t1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.block.3.conv_t1.weight")->shape, (Shape{192, 96, 4}));
  EXPECT_EQ(find_tensor(t, "decoder.conv2.weight")->shape, (Shape{1, 96, 7}));
  // Plain convolutions: the converted checkpoints were saved after remove_weight_norm.
  EXPECT_EQ(find_tensor(t, "decoder.conv1.parametrizations.weight.original0"), nullptr);
  // Factorized codebooks: parameters, projected in and out of 8 dimensions.
  ASSERT_NE(find_tensor(t, "quantizer.quantizers.11.codebook.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "quantizer.quantizers.11.codebook.weight")->shape, (Shape{1024, 8}));
  EXPECT_EQ(find_tensor(t, "quantizer.quantizers.0.in_proj.weight")->shape, (Shape{8, 1024, 1}));
  EXPECT_EQ(find_tensor(t, "quantizer.quantizers.12.codebook.weight"), nullptr);
  // Registration order: encoder, decoder, quantizer.
  EXPECT_LT(tensor_index(t, "encoder.conv2.bias"), tensor_index(t, "decoder.conv1.weight"));
  EXPECT_LT(tensor_index(t, "decoder.conv2.bias"), tensor_index(t, "quantizer.quantizers.0.in_proj.weight"));
  EXPECT_EQ(t.tensors.size(), 238u);
}

TEST(Xcodec, HubertCheckpointCountsAsTransformersBuildsIt) {
  // 66,326,913 of the codec's own (DAC's encoder and decoder, the semantic encoder and decoder, fc, fc1,
  // fc2) and hubert-base's 94,371,712.
  EXPECT_EQ(parameters_of(kXcodecHubert), 160'698'625u);
  const ModelTemplate t = template_of(kXcodecHubert);
  EXPECT_EQ(codec_values_under(t, "semantic_model.", TensorKind::Parameter), 94'371'712u);
  // The EMA codebooks are buffers: 8 x (1 + 1024 + 2 x 1024 x 1024).
  EXPECT_EQ(codec_values_under(t, "", TensorKind::Buffer), 16'785'416u);
  // An empty config: XcodecConfig's defaults are that checkpoint's.
  EXPECT_EQ(parameters_of(R"({"model_type":"xcodec"})"), 160'698'625u);
}

TEST(Xcodec, LayoutFollowsTheModules) {
  const ModelTemplate t = template_of(kXcodecHubert);
  // The acoustic config's hidden_size (256) wins over DacConfig's derived 64 x 2^4.
  EXPECT_EQ(find_tensor(t, "acoustic_encoder.conv2.weight")->shape, (Shape{256, 1024, 3}));
  EXPECT_EQ(find_tensor(t, "acoustic_decoder.conv1.weight")->shape, (Shape{1024, 256, 7}));
  // Its upsampling_ratios are not the reversed downsampling_ratios: stage 0 upsamples by 8.
  EXPECT_EQ(find_tensor(t, "acoustic_decoder.block.0.conv_t1.weight")->shape, (Shape{1024, 512, 16}));
  // The semantic blocks' residual units have no biases; the block's conv (kernel 3 at stride 1) has one.
  EXPECT_EQ(find_tensor(t, "encoder_semantic.conv_blocks.1.res_units.1.conv1.weight")->shape,
            (Shape{768, 768, 3}));
  EXPECT_EQ(find_tensor(t, "encoder_semantic.conv_blocks.1.res_units.1.conv1.bias"), nullptr);
  ASSERT_NE(find_tensor(t, "decoder_semantic.conv_blocks.0.conv.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "fc.weight")->shape, (Shape{1024, 1024}));
  EXPECT_EQ(find_tensor(t, "fc1.weight")->shape, (Shape{768, 1024}));
  EXPECT_EQ(find_tensor(t, "fc2.weight")->shape, (Shape{256, 1024}));
  EXPECT_EQ(find_tensor(t, "quantizer.quantizers.7.codebook.embed")->shape, (Shape{1024, 1024}));
  EXPECT_EQ(find_tensor(t, "quantizer.quantizers.8.codebook.embed"), nullptr);
  // Registration order: the acoustic halves, the semantic encoder and decoder, HuBERT, the linears.
  EXPECT_LT(tensor_index(t, "acoustic_decoder.conv2.bias"), tensor_index(t, "encoder_semantic.conv.weight"));
  EXPECT_LT(tensor_index(t, "decoder_semantic.conv2.weight"),
            tensor_index(t, "semantic_model.masked_spec_embed"));
  EXPECT_LT(tensor_index(t, "semantic_model.encoder.layers.11.final_layer_norm.bias"),
            tensor_index(t, "fc.weight"));
}

TEST(Xcodec, FractionalChannelRatiosAndStridesShapeTheSemanticBlocks) {
  // int(1024 * 1.5) and int(1024 * 0.5) wide blocks, strided 2 and 3 (kernels 4 and 6; the decoder's are
  // bias-free transposed convs), three residual units each, 12 codebooks at 6 kbps over a 128-wide latent;
  // counted by the reconstruction, HuBERT's 38,312,064 (1024 wide, 2 layers) included.
  const std::string variant = R"({"model_type":"xcodec","semantic_model_config":{"hidden_size":1024,
    "num_hidden_layers":2,"num_attention_heads":16,"intermediate_size":4096},"channel_ratios":[1.5,0.5],
    "strides":[2,3],"block_dilations":[1,3,5],"target_bandwidths":[6],"acoustic_model_config":{
    "downsampling_ratios":[2,4,5,8],"upsampling_ratios":[8,5,4,2],"hidden_size":128}})";
  EXPECT_EQ(parameters_of(variant), 163'948'161u);
  const ModelTemplate t = template_of(variant);
  EXPECT_EQ(find_tensor(t, "decoder_semantic.conv_blocks.1.conv.weight")->shape, (Shape{512, 1024, 6}));
  EXPECT_EQ(find_tensor(t, "decoder_semantic.conv_blocks.1.conv.bias"), nullptr);
  EXPECT_EQ(codec_values_under(t, "", TensorKind::Buffer), 28'323'852u);
}

TEST(UnivNet, CountsAsTransformersBuildsIt) {
  // dg845/univnet-dev is UnivNetConfig's defaults: 100 mel bins, 32 hidden channels, three stages of four
  // location-variable convolutions.
  EXPECT_EQ(parameters_of(R"({"model_type":"univnet","architectures":["UnivNetModel"]})"), 14'789'153u);
  const ModelTemplate t = template_of(R"({"model_type":"univnet"})");
  // The kernel predictor's kernel_conv emits every LVC kernel: 32 in x 64 out x 3 wide x 4 layers.
  ASSERT_NE(find_tensor(t, "resblocks.2.kernel_predictor.kernel_conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "resblocks.2.kernel_predictor.kernel_conv.weight")->shape, (Shape{24576, 64, 3}));
  EXPECT_EQ(find_tensor(t, "resblocks.0.convt_pre.weight")->shape, (Shape{32, 32, 16}));
  EXPECT_EQ(find_tensor(t, "resblocks.2.resblocks.3.conv.weight")->shape, (Shape{32, 32, 3}));
  EXPECT_LT(tensor_index(t, "resblocks.0.kernel_predictor.bias_conv.bias"),
            tensor_index(t, "resblocks.0.resblocks.0.conv.weight"));
  // Its predictor's residual blocks are model_in_channels wide, whatever its hidden width: counted by the
  // reconstruction for this variant.
  EXPECT_EQ(parameters_of(R"({"model_type":"univnet","model_in_channels":48,"model_hidden_channels":16,
    "num_mel_bins":80,"resblock_kernel_sizes":[3,5],"resblock_stride_sizes":[4,5],
    "resblock_dilation_sizes":[[1,3],[1,3,9]],"kernel_predictor_num_blocks":2,
    "kernel_predictor_hidden_channels":32,"kernel_predictor_conv_size":5})"),
            1'890'641u);
  for (const TemplateTensor& x : t.tensors)
    EXPECT_EQ(place_tensor(x.name).block, Block::SpeechOutput) << x.name;
  // UnivNetConfig raises unless its three lists are of one length.
  EXPECT_EQ(refusal_of(R"({"model_type":"univnet","resblock_stride_sizes":[8,8]})").field,
            "resblock_stride_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"univnet","resblock_dilation_sizes":[[1],[1]]})").field,
            "resblock_dilation_sizes");
}

TEST(FastSpeech2Conformer, CountsAsTransformersBuildsIt) {
  // espnet/fastspeech2_conformer is FastSpeech2ConformerConfig's defaults: 384 wide, 4 + 4 macaron Conformer
  // layers with convolution modules (kernels 7 and 31); its BatchNorms' running statistics are buffers.
  EXPECT_EQ(parameters_of(R"({"model_type":"fastspeech2_conformer"})"), 70'262'259u);
  const ModelTemplate t = template_of(R"({"model_type":"fastspeech2_conformer"})");
  EXPECT_EQ(codec_values_under(t, "", TensorKind::Buffer), 8'365u);
  // The attention's own bias vectors come before its linears; linear_pos has no bias.
  EXPECT_LT(tensor_index(t, "encoder.conformer_layers.0.self_attn.pos_bias_v"),
            tensor_index(t, "encoder.conformer_layers.0.self_attn.linear_q.weight"));
  EXPECT_EQ(find_tensor(t, "encoder.conformer_layers.0.self_attn.pos_bias_u")->shape, (Shape{2, 192}));
  EXPECT_EQ(find_tensor(t, "encoder.conformer_layers.0.self_attn.linear_pos.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.conformer_layers.3.conv_module.depthwise_conv.weight")->shape,
            (Shape{384, 1, 31}));
  EXPECT_EQ(find_tensor(t, "pitch_predictor.conv_layers.4.conv.weight")->shape, (Shape{256, 256, 5}));
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.feat_out.weight")->shape, (Shape{80, 384}));
  EXPECT_EQ(find_tensor(t, "speech_decoder_postnet.prob_out.weight"), nullptr);
  // Speaker and language tables with more than one of each, the speaker-embedding projection, concat_after,
  // no macaron feed-forward; counted by the reconstruction.
  EXPECT_EQ(parameters_of(R"({"model_type":"fastspeech2_conformer","hidden_size":256,"vocab_size":100,
    "num_mel_bins":64,"encoder_num_attention_heads":4,"encoder_layers":2,"encoder_linear_units":1024,
    "decoder_layers":3,"decoder_num_attention_heads":8,"decoder_linear_units":512,"encoder_concat_after":true,
    "use_macaron_style_in_conformer":false,"reduction_factor":2,"num_speakers":4,"num_languages":3,
    "speaker_embed_dim":192,"pitch_predictor_layers":3,"energy_embed_kernel_size":3,
    "positionwise_conv_kernel_size":1,"speech_decoder_postnet_layers":3})"),
            7'222'019u);
  expect_every_tensor_placed(t);
  // FastSpeech2ConformerConfig raises on even kernels and heads that do not divide the width.
  EXPECT_EQ(refusal_of(R"({"model_type":"fastspeech2_conformer","decoder_kernel_size":30})").field,
            "decoder_kernel_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"fastspeech2_conformer","encoder_num_attention_heads":5})").field,
            "encoder_num_attention_heads");
}

TEST(FastSpeech2Conformer, WithItsHifiGanVocoder) {
  // espnet/fastspeech2_conformer_hifigan: FastSpeech2ConformerHifiGanConfig's defaults (x8, x8, x2, x2),
  // under model_type "hifigan" as SpeechT5's vocoder; 160 buffer values (mean, scale).
  EXPECT_EQ(parameters_of(R"({"model_type":"hifigan","architectures":["FastSpeech2ConformerHifiGan"]})"),
            13'926'017u);
  // espnet/fastspeech2_conformer_with_hifigan: both, under model. and vocoder.
  const std::string both = R"({"model_type":"fastspeech2_conformer_with_hifigan",
    "architectures":["FastSpeech2ConformerWithHifiGan"]})";
  EXPECT_EQ(parameters_of(both), 70'262'259u + 13'926'017u);
  const ModelTemplate t = template_of(both);
  EXPECT_EQ(codec_values_under(t, "", TensorKind::Buffer), 8'365u + 160u);
  ASSERT_NE(find_tensor(t, "vocoder.upsampler.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "vocoder.upsampler.0.weight")->shape, (Shape{512, 256, 16}));
  EXPECT_LT(tensor_index(t, "model.speech_decoder_postnet.feat_out.weight"), tensor_index(t, "vocoder.mean"));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("vocoder.resblocks.0.convs1.0.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("model.pitch_embed.conv.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("model.encoder.conformer_layers.0.feed_forward_macaron.conv1.weight").block,
            Block::Mlp);
}

TEST(AudioCodecs, TensorsSitInTheAudioTower) {
  for (const std::string& config : {kDac16k, kXcodecHubert}) {
    for (const TemplateTensor& x : template_of(config).tensors) {
      const Block b = place_tensor(x.name).block;
      // DAC's encoder.conv1 / conv2 share Whisper's audio stem's names and sit with it.
      if (x.name == "encoder.conv1.weight" || x.name == "encoder.conv1.bias" ||
          x.name == "encoder.conv2.weight" || x.name == "encoder.conv2.bias")
        EXPECT_EQ(b, Block::Embedding) << x.name;
      else
        EXPECT_EQ(b, Block::Audio) << x.name;
    }
  }
  // T5's encoder.block.N holds layer.M, not DAC's modules.
  EXPECT_EQ(place_tensor("encoder.block.0.layer.0.SelfAttention.q.weight").block, Block::Attention);
}

TEST(AudioCodecs, RefusesWhatTransformersRejects) {
  EXPECT_EQ(refusal_of(R"({"model_type":"dac","codebook_size":1000})").field, "codebook_size");
  // DacDecoder reads the last stage's index after its loop.
  EXPECT_EQ(refusal_of(R"({"model_type":"dac","upsampling_ratios":[]})").field, "upsampling_ratios");
  EXPECT_EQ(refusal_of(R"({"model_type":"dac","architectures":["DacForCausalLM"]})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"xcodec","acoustic_model_config":{"upsampling_ratios":[]}})").field,
            "acoustic_model_config.upsampling_ratios");
  // SemanticEncoder raises on lists of different lengths.
  EXPECT_EQ(refusal_of(R"({"model_type":"xcodec","channel_ratios":[1]})").field, "channel_ratios");
  // The wavlm checkpoints' semantic model is not modelled.
  EXPECT_EQ(refusal_of(R"({"model_type":"xcodec","semantic_model_config":{"model_type":"wavlm"}})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
