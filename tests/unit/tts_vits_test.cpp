// VITS (vits: VitsModel, facebook/mms-tts-* and kakao-enterprise/vits-*): templates against what
// transformers builds. The totals, names, shapes and order were counted by a mirror of VitsModel's module
// construction (modeling_vits.py at transformers 7133f631, torch's own nn.Conv1d / nn.Linear / nn.LayerNorm
// and weight_norm's parametrization), whose state_dict matched these templates name for name, shape for
// shape and in order (/tmp/impl/tts_vits/verify: vits_mirror.py, *.ref.names); the rest are published figures
// and sums by hand.
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/mms-tts-eng's config.json (the fields that shape weights); VitsConfig's defaults are its sizes.
constexpr const char* kTtsVitsMmsEng = R"({"model_type":"vits","architectures":["VitsModel"],
  "vocab_size":38,"hidden_size":192,"num_hidden_layers":6,"num_attention_heads":2,"window_size":4,
  "use_bias":true,"ffn_dim":768,"ffn_kernel_size":3,"flow_size":192,"spectrogram_bins":513,
  "hidden_act":"relu","layer_norm_eps":1e-05,"use_stochastic_duration_prediction":true,"num_speakers":1,
  "speaker_embedding_size":0,"upsample_initial_channel":512,"upsample_rates":[8,8,2,2],
  "upsample_kernel_sizes":[16,16,4,4],"resblock_kernel_sizes":[3,7,11],
  "resblock_dilation_sizes":[[1,3,5],[1,3,5],[1,3,5]],"depth_separable_channels":2,
  "depth_separable_num_layers":3,"duration_predictor_flow_bins":10,"duration_predictor_kernel_size":3,
  "duration_predictor_num_flows":4,"duration_predictor_filter_channels":256,"prior_encoder_num_flows":4,
  "prior_encoder_num_wavenet_layers":4,"posterior_encoder_num_wavenet_layers":16,"wavenet_kernel_size":5,
  "wavenet_dilation_rate":1,"sampling_rate":16000})";

// kakao-enterprise/vits-vctk: the original VITS's 178 symbols and 109 VCTK speakers with 256-wide
// embeddings (the conversion script sets speaker_embedding_size 256 for multi-speaker checkpoints).
std::string tts_vits_vctk() {
  return replaced(replaced(replaced(kTtsVitsMmsEng, R"("vocab_size":38)", R"("vocab_size":178)"),
                           R"("num_speakers":1)", R"("num_speakers":109)"),
                  R"("speaker_embedding_size":0)", R"("speaker_embedding_size":256)");
}

// Every other variant at once: the plain duration predictor, no relative-position tables (window_size
// null), bias-free attention, 1-wide feed-forward kernels, three speakers, a smaller HiFi-GAN with two MRF
// kernels of two dilations each, dilated WaveNets.
constexpr const char* kTtsVitsVariant = R"({"model_type":"vits","use_stochastic_duration_prediction":false,
  "window_size":null,"use_bias":false,"num_speakers":3,"speaker_embedding_size":16,"hidden_size":64,
  "num_attention_heads":4,"ffn_kernel_size":1,"upsample_rates":[4,4,2],"upsample_kernel_sizes":[8,8,4],
  "resblock_kernel_sizes":[3,5],"resblock_dilation_sizes":[[1,2],[1,3]],"wavenet_dilation_rate":2,
  "flow_size":32,"spectrogram_bins":80,"upsample_initial_channel":128,
  "duration_predictor_filter_channels":96,"depth_separable_channels":4})";

uint64_t tts_vits_parameters(const ModelTemplate& t, const std::string& prefix = "") {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.name.starts_with(prefix) && x.kind == TensorKind::Parameter) n += numel(x.shape);
  return n;
}

size_t tts_vits_index_of(const ModelTemplate& t, const std::string& name) {
  for (size_t i = 0; i < t.tensors.size(); ++i)
    if (t.tensors[i].name == name) return i;
  ADD_FAILURE() << name;
  return t.tensors.size();
}

// 36,284,592 parameters: the Hub's and the model card's "36.3M" for facebook/mms-tts-eng. By module:
// the text encoder 6,299,904 (38 x 192 tokens; per layer 2 x 9 x 96 relative positions, four 192 x 192
// linears with biases, two 3-wide convs 192 <-> 768 and two LayerNorms, 1,036,416; the 1x1 projection to
// 2 x 192), the flow 7,102,080, the HiFi-GAN decoder 14,327,424 (conv_pre 688,640, upsampler 2,662,880,
// resblocks 126c^2 + 18c per stage of c = 256, 128, 64, 32 channels: 10,975,680, conv_post 224), the
// stochastic duration predictor 1,317,168 and the posterior encoder 7,238,016.
TEST(TtsVits, MmsTtsEngMatchesTransformers) {
  const ModelTemplate t = template_of(kTtsVitsMmsEng);
  EXPECT_EQ(tts_vits_parameters(t), 36284592u);
  EXPECT_EQ(parameters_of(kTtsVitsMmsEng), 36284592u);
  EXPECT_EQ(tts_vits_parameters(t, "text_encoder."), 6299904u);
  EXPECT_EQ(tts_vits_parameters(t, "flow."), 7102080u);
  EXPECT_EQ(tts_vits_parameters(t, "decoder."), 14327424u);
  EXPECT_EQ(tts_vits_parameters(t, "duration_predictor."), 1317168u);
  EXPECT_EQ(tts_vits_parameters(t, "posterior_encoder."), 7238016u);
  EXPECT_EQ(t.tensors.size(), 762u);
  // VitsModel has no buffers and ties nothing.
  for (const TemplateTensor& x : t.tensors) {
    EXPECT_EQ(x.kind, TensorKind::Parameter) << x.name;
    EXPECT_TRUE(x.tied_to.empty()) << x.name;
  }
  // Registration order: text encoder, flow, decoder, duration predictor, posterior encoder; the attention's
  // own tables before its linears (k, v, q, out_proj).
  EXPECT_EQ(t.tensors.front().name, "text_encoder.embed_tokens.weight");
  EXPECT_EQ(t.tensors[1].name, "text_encoder.encoder.layers.0.attention.emb_rel_k");
  EXPECT_EQ(t.tensors[3].name, "text_encoder.encoder.layers.0.attention.k_proj.weight");
  EXPECT_EQ(find_tensor(t, "text_encoder.encoder.layers.0.attention.emb_rel_v")->shape, (Shape{1, 9, 96}));
  EXPECT_EQ(find_tensor(t, "text_encoder.encoder.layers.5.feed_forward.conv_1.weight")->shape,
            (Shape{768, 192, 3}));
  EXPECT_LT(tts_vits_index_of(t, "text_encoder.project.bias"),
            tts_vits_index_of(t, "flow.flows.0.conv_pre.weight"));
  EXPECT_LT(tts_vits_index_of(t, "flow.flows.3.conv_post.bias"),
            tts_vits_index_of(t, "decoder.conv_pre.weight"));
  EXPECT_LT(tts_vits_index_of(t, "decoder.conv_post.weight"),
            tts_vits_index_of(t, "duration_predictor.conv_pre.weight"));
  EXPECT_EQ(t.tensors.back().name, "posterior_encoder.conv_proj.bias");
  EXPECT_EQ(find_tensor(t, "decoder.conv_post.bias"), nullptr);  // conv_post has no bias
  EXPECT_EQ(find_tensor(t, "decoder.upsampler.0.weight")->shape, (Shape{512, 256, 16}));
  EXPECT_EQ(find_tensor(t, "decoder.resblocks.11.convs2.2.weight")->shape, (Shape{32, 32, 11}));
  EXPECT_EQ(find_tensor(t, "decoder.resblocks.12.convs1.0.weight"), nullptr);  // 4 stages x 3 kernels
  // The stochastic duration predictor: an elementwise affine then 4 spline flows of 3 x 10 - 1 parameters.
  EXPECT_EQ(find_tensor(t, "duration_predictor.flows.0.log_scale")->shape, (Shape{2, 1}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.post_flows.4.conv_proj.weight")->shape, (Shape{29, 192, 1}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.conv_dds.convs_dilated.2.weight")->shape, (Shape{192, 1, 3}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.flows.5.conv_pre.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "embed_speaker.weight"), nullptr);  // one speaker
}

// The WaveNets' convs are weight-normed: transformers builds torch's parametrization (its bias, then
// original0 = g and original1 = v); the Hub's checkpoints, converted before torch 2.1, store weight_g and
// weight_v, which transformers renames on load. The HiFi-GAN's convs are plain.
TEST(TtsVits, WaveNetWeightNormIsStoredAsWeightGAndV) {
  const ModelTemplate t = template_of(kTtsVitsMmsEng);
  const std::string in = "posterior_encoder.wavenet.in_layers.0.";
  EXPECT_EQ(t.tensors[tts_vits_index_of(t, in + "bias") + 1].name, in + "parametrizations.weight.original0");
  const TemplateTensor* g = find_tensor(t, in + "parametrizations.weight.original0");
  const TemplateTensor* v = find_tensor(t, in + "parametrizations.weight.original1");
  ASSERT_NE(g, nullptr);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(g->shape, (Shape{384, 1, 1}));
  EXPECT_EQ(v->shape, (Shape{384, 192, 5}));
  EXPECT_EQ(stored_name(*g), in + "weight_g");
  EXPECT_EQ(stored_name(*v), in + "weight_v");
  // The last layer's res/skip conv keeps only the skip half.
  EXPECT_EQ(
      find_tensor(t, "posterior_encoder.wavenet.res_skip_layers.15.parametrizations.weight.original1")->shape,
      (Shape{192, 192, 1}));
  EXPECT_EQ(find_tensor(t, "flow.flows.0.wavenet.res_skip_layers.2.parametrizations.weight.original1")->shape,
            (Shape{384, 192, 1}));
  // 4 flows x 4 layers x 2 convs plus 16 x 2 in the posterior encoder, each as g and v.
  size_t renamed = 0;
  for (const TemplateTensor& x : t.tensors) renamed += !x.disk.empty();
  EXPECT_EQ(renamed, 2u * (4 * 4 * 2 + 16 * 2));
  EXPECT_EQ(stored_name(*find_tensor(t, "decoder.upsampler.1.weight")), "decoder.upsampler.1.weight");
  EXPECT_EQ(disk_totals(t).tensors, 762u);
  EXPECT_EQ(disk_totals(t).elements, 36284592u);
}

// 39,690,608 parameters for vits-vctk: 36,311,472 for the single-speaker VITS of the same sizes
// (vits-ljs: mms-tts-eng + 140 more symbols x 192) plus the speaker table (109 x 256 = 27,904) and the
// conditioning convs every module gets from it.
TEST(TtsVits, VctkConditionsEveryModuleOnTheSpeaker) {
  const ModelTemplate t = template_of(tts_vits_vctk());
  EXPECT_EQ(tts_vits_parameters(t), 39690608u);
  EXPECT_EQ(parameters_of(replaced(kTtsVitsMmsEng, R"("vocab_size":38)", R"("vocab_size":178)")), 36311472u);
  EXPECT_EQ(t.tensors.size(), 782u);
  const TemplateTensor* speakers = find_tensor(t, "embed_speaker.weight");
  ASSERT_NE(speakers, nullptr);
  EXPECT_EQ(speakers->shape, (Shape{109, 256}));
  EXPECT_TRUE(speakers->embedding);
  // Registered after the duration predictor, before the posterior encoder.
  EXPECT_LT(tts_vits_index_of(t, "duration_predictor.post_flows.4.conv_proj.bias"),
            tts_vits_index_of(t, "embed_speaker.weight"));
  EXPECT_LT(tts_vits_index_of(t, "embed_speaker.weight"),
            tts_vits_index_of(t, "posterior_encoder.conv_pre.weight"));
  // One conditioning conv per WaveNet for all its layers, after both layer lists (registered empty first).
  EXPECT_EQ(find_tensor(t, "flow.flows.0.wavenet.cond_layer.parametrizations.weight.original1")->shape,
            (Shape{1536, 256, 1}));
  EXPECT_EQ(find_tensor(t, "posterior_encoder.wavenet.cond_layer.parametrizations.weight.original0")->shape,
            (Shape{6144, 1, 1}));
  EXPECT_EQ(
      tts_vits_index_of(t, "flow.flows.0.wavenet.res_skip_layers.3.parametrizations.weight.original1") + 1,
      tts_vits_index_of(t, "flow.flows.0.wavenet.cond_layer.bias"));
  EXPECT_EQ(find_tensor(t, "decoder.cond.weight")->shape, (Shape{512, 256, 1}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.cond.weight")->shape, (Shape{192, 256, 1}));
  EXPECT_EQ(tts_vits_index_of(t, "duration_predictor.conv_dds.norms_2.2.bias") + 1,
            tts_vits_index_of(t, "duration_predictor.cond.weight"));
}

// 2,696,945 parameters by the mirror of transformers' classes.
TEST(TtsVits, VariantsBuildAsTransformersDoes) {
  const ModelTemplate t = template_of(kTtsVitsVariant);
  EXPECT_EQ(tts_vits_parameters(t), 2696945u);
  EXPECT_EQ(t.tensors.size(), 374u);
  EXPECT_EQ(find_tensor(t, "text_encoder.encoder.layers.0.attention.emb_rel_k"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_encoder.encoder.layers.0.attention.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_encoder.encoder.layers.0.feed_forward.conv_2.weight")->shape,
            (Shape{64, 768, 1}));
  // VitsDurationPredictor: two convs of duration_predictor_filter_channels with LayerNorms, a projection.
  EXPECT_EQ(find_tensor(t, "duration_predictor.conv_2.weight")->shape, (Shape{96, 96, 3}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.proj.weight")->shape, (Shape{1, 96, 1}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.cond.weight")->shape, (Shape{64, 16, 1}));
  EXPECT_EQ(find_tensor(t, "duration_predictor.flows.0.translate"), nullptr);
  // HiFi-GAN: 3 stages x 2 kernels, each with as many conv pairs as dilations.
  EXPECT_EQ(find_tensor(t, "decoder.resblocks.5.convs2.1.weight")->shape, (Shape{16, 16, 5}));
  EXPECT_EQ(find_tensor(t, "decoder.resblocks.5.convs2.2.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.conv_post.weight")->shape, (Shape{1, 16, 7}));
  EXPECT_EQ(find_tensor(t, "flow.flows.0.conv_pre.weight")->shape, (Shape{64, 16, 1}));
  expect_reads_cleanly(kTtsVitsVariant);
}

TEST(TtsVits, RecordIsTheTextEncoder) {
  const ModelTemplate t = template_of(kTtsVitsMmsEng);
  const ArchitectureRecord& a = t.arch;
  EXPECT_EQ(a.architecture, "VitsModel");
  ASSERT_EQ(a.stacks.size(), 1u);
  EXPECT_EQ(a.stacks[0].role, StackRole::Encoder);
  EXPECT_EQ(a.stacks[0].path, "text_encoder.encoder.layers");
  EXPECT_EQ(a.layers().size(), 6u);
  EXPECT_EQ(a.hidden_size, 192u);
  EXPECT_EQ(a.num_attention_heads, 2u);
  EXPECT_EQ(a.head_dim, 96u);
  EXPECT_EQ(a.intermediate_size, 768u);
  EXPECT_EQ(a.vocab_size, 38u);
  EXPECT_TRUE(a.post_norm);
  EXPECT_EQ(a.position, PositionKind::Relative);
  EXPECT_FALSE(a.tie_word_embeddings);
}

TEST(TtsVits, RefusesWhatTransformersCannotBuildOrRun) {
  // Several speakers need an embedding width: VitsModel conditions every module through layers that only
  // exist with one.
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","num_speakers":109})").field, "speaker_embedding_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","num_attention_heads":5})").field, "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","upsample_kernel_sizes":[16,16,4]})").field,
            "upsample_kernel_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","upsample_rates":[],"upsample_kernel_sizes":[]})").field,
            "upsample_rates");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","upsample_initial_channel":8})").field, "upsample_rates");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","resblock_dilation_sizes":[[1,3,5],[1,3,5]]})").field,
            "resblock_dilation_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","resblock_dilation_sizes":[[1,0]]})").field,
            "resblock_dilation_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","flow_size":1})").field, "flow_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","depth_separable_channels":1})").field,
            "depth_separable_channels");
  EXPECT_EQ(refusal_of(R"({"model_type":"vits","architectures":["VitsForSpeechToText"]})").kind,
            ErrorKind::Unsupported);
}

// The text encoder's layers are attention, MLP and norms; what turns them into a waveform (the prior's
// projection, the duration predictor, the flow and the HiFi-GAN decoder) is speech output, the training-only
// posterior encoder audio; none of it "other", in memory or on disk.
TEST(TtsVits, PlacementKeepsTheSpeechSideOutOfOther) {
  for (const std::string& config :
       {std::string(kTtsVitsMmsEng), tts_vits_vctk(), std::string(kTtsVitsVariant)}) {
    const ModelTemplate t = template_of(config);
    for (const DiskTensor& x : disk_form(t)) EXPECT_NE(place_tensor(x.name).block, Block::Other) << x.name;
    expect_every_tensor_placed(t);
  }
  EXPECT_EQ(place_tensor("text_encoder.encoder.layers.2.attention.emb_rel_k").block, Block::Attention);
  EXPECT_EQ(place_tensor("text_encoder.encoder.layers.2.feed_forward.conv_1.weight").block, Block::Mlp);
  EXPECT_EQ(place_tensor("text_encoder.encoder.layers.2.final_layer_norm.weight").block, Block::Norm);
  EXPECT_EQ(place_tensor("text_encoder.embed_tokens.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("text_encoder.project.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("decoder.upsampler.0.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("decoder.upsampler.0.weight").role, "upsampler");
  EXPECT_EQ(place_tensor("decoder.resblocks.4.convs1.2.bias").role, "convs1");
  EXPECT_EQ(place_tensor("decoder.conv_post.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("duration_predictor.flows.0.log_scale").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("duration_predictor.conv_dds.norms_1.0.weight").block, Block::SpeechOutput);
  const TensorPlacement flow = place_tensor("flow.flows.3.wavenet.in_layers.1.weight_g");
  EXPECT_EQ(flow.block, Block::SpeechOutput);
  EXPECT_EQ(flow.role, "in_layers");
  const TensorPlacement posterior =
      place_tensor("posterior_encoder.wavenet.res_skip_layers.7.parametrizations.weight.original1");
  EXPECT_EQ(posterior.block, Block::Audio);
  EXPECT_EQ(posterior.role, "res_skip_layers");
  // A seq2seq decoder's own modules stay where they were.
  EXPECT_EQ(place_tensor("decoder.layers.0.self_attn.q_proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("decoder.embed_tokens.weight").block, Block::Embedding);
}

}  // namespace
}  // namespace ma::test
