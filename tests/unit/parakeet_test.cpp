// Parakeet (model/families/parakeet.cpp): the released CTC models' counts, the module order transformers
// registers, where their tensors sit (BatchNorm statistics included), and the configs they refuse.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// nvidia/parakeet-ctc-1.1b in transformers' form: 42 FastConformer blocks 1,024 wide, 8x subsampling of 80
// mel bins through 256 channels, 1,024 SentencePiece tokens and the CTC blank.
constexpr const char* kParakeetCtc1b = R"({"model_type":"parakeet_ctc","architectures":["ParakeetForCTC"],
    "vocab_size":1025,"pad_token_id":1024,
    "encoder_config":{"model_type":"parakeet_encoder","hidden_size":1024,"num_hidden_layers":42,
      "num_attention_heads":8,"intermediate_size":4096,"hidden_act":"silu","attention_bias":true,
      "conv_kernel_size":9,"subsampling_factor":8,"subsampling_conv_channels":256,"num_mel_bins":80,
      "subsampling_conv_kernel_size":3,"subsampling_conv_stride":2,"max_position_embeddings":5000,
      "scale_input":false}})";

// nvidia/parakeet-ctc-0.6b: the same blocks, 24 of them (ParakeetEncoderConfig's defaults).
std::string parakeet_ctc_0_6b() {
  return replaced(kParakeetCtc1b, R"("num_hidden_layers":42)", R"("num_hidden_layers":24)");
}

// ParakeetForCTC's parameters as its modules build them (verify/parakeet_torch.py transcribes them into
// torch.nn and counts): 25,207,808 per block, 2,761,728 for the subsampling, 1,050,625 for the CTC head;
// the model cards' "1.1B" and "0.6B". BatchNorm running statistics are buffers, not parameters.
TEST(Parakeet, ReleasedModelsCountAsTheirClasses) {
  EXPECT_EQ(parameters_of(kParakeetCtc1b), 1'062'540'289u);
  EXPECT_EQ(parameters_of(parakeet_ctc_0_6b()), 608'799'745u);
  // No encoder_config: ParakeetEncoderConfig() (24 blocks), vocab_size 1025.
  EXPECT_EQ(parameters_of(R"({"model_type":"parakeet_ctc"})"), 608'799'745u);
}

TEST(Parakeet, SubsamplingBlocksAndHead) {
  const ModelTemplate t = template_of(kParakeetCtc1b);
  EXPECT_EQ(t.arch.architecture, "ParakeetForCTC");
  // The ReLUs take places 1 and 4 of the subsampling's ModuleList: convolutions at 0, 2, 3, 5, 6.
  EXPECT_EQ(find_tensor(t, "encoder.subsampling.layers.0.weight")->shape, (Shape{256, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "encoder.subsampling.layers.5.weight")->shape, (Shape{256, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "encoder.subsampling.layers.6.weight")->shape, (Shape{256, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "encoder.subsampling.layers.1.weight"), nullptr);
  // 256 channels x (80 // 2^3) mel bins into the width.
  EXPECT_EQ(find_tensor(t, "encoder.subsampling.linear.weight")->shape, (Shape{1024, 2560}));
  const std::string l = "encoder.layers.41.";
  // The attention's own bias_u / bias_v precede its Linears; relative_k_proj has no bias.
  EXPECT_LT(tensor_index(t, l + "self_attn.bias_v"), tensor_index(t, l + "self_attn.q_proj.weight"));
  EXPECT_EQ(find_tensor(t, l + "self_attn.bias_u")->shape, (Shape{8, 128}));
  EXPECT_EQ(find_tensor(t, l + "self_attn.relative_k_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "conv.pointwise_conv1.weight")->shape, (Shape{2048, 1024, 1}));
  EXPECT_EQ(find_tensor(t, l + "conv.depthwise_conv.weight")->shape, (Shape{1024, 1, 9}));
  EXPECT_EQ(find_tensor(t, l + "conv.norm.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, l + "conv.norm.num_batches_tracked")->shape, Shape{});
  // The four sub-modules come before the five LayerNorms.
  EXPECT_LT(tensor_index(t, l + "feed_forward2.linear2.bias"),
            tensor_index(t, l + "norm_feed_forward1.weight"));
  EXPECT_EQ(t.tensors.back().name, "ctc_head.bias");
  EXPECT_EQ(find_tensor(t, "ctc_head.weight")->shape, (Shape{1025, 1024, 1}));
  const StackSpec* encoder = t.arch.stack(StackRole::Encoder);
  ASSERT_NE(encoder, nullptr);
  EXPECT_EQ(encoder->layers.size(), 42u);
  EXPECT_EQ(encoder->mel_bins, 80u);
}

TEST(Parakeet, PlacesEveryTensor) {
  for (const std::string& config :
       {std::string(kParakeetCtc1b), std::string(R"({"model_type":"parakeet_encoder",
           "num_hidden_layers":2})")}) {
    const ModelTemplate t = template_of(config);
    expect_every_tensor_placed(t);
  }
  // The subsampling is the stem, no layer of the encoder's.
  const TensorPlacement stem = place_tensor("encoder.subsampling.layers.3.weight");
  EXPECT_EQ(stem.block, Block::Embedding);
  EXPECT_FALSE(stem.layer.has_value());
  EXPECT_EQ(place_tensor("encoder.layers.7.feed_forward2.linear1.weight").block, Block::Mlp);
  EXPECT_EQ(place_tensor("encoder.layers.7.conv.depthwise_conv.weight").block, Block::ShortConv);
  EXPECT_EQ(place_tensor("layers.0.conv.norm.running_mean").block, Block::Norm);
  EXPECT_EQ(place_tensor("ctc_head.weight").block, Block::LmHead);
}

// ParakeetEncoder alone, without biases, a 31-tap convolution and 16x subsampling (four strided stages:
// convolutions up to layers.9) of 128 mel bins: 2,266,560 parameters as its modules build them.
TEST(Parakeet, BareEncoderFollowsItsFlags) {
  const std::string enc = R"({"model_type":"parakeet_encoder","hidden_size":256,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":512,"conv_kernel_size":31,"subsampling_factor":16,
      "subsampling_conv_channels":64,"num_mel_bins":128,"attention_bias":false,"convolution_bias":false})";
  const ModelTemplate t = template_of(enc);
  EXPECT_EQ(t.arch.architecture, "ParakeetEncoder");
  EXPECT_EQ(find_tensor(t, "layers.1.feed_forward1.linear1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "layers.1.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "layers.1.conv.pointwise_conv1.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "layers.1.conv.norm.bias"), nullptr);  // BatchNorm's affine bias stays
  EXPECT_EQ(find_tensor(t, "layers.1.conv.depthwise_conv.weight")->shape, (Shape{256, 1, 31}));
  EXPECT_EQ(find_tensor(t, "subsampling.layers.9.weight")->shape, (Shape{64, 64, 1, 1}));
  EXPECT_EQ(find_tensor(t, "subsampling.linear.weight")->shape, (Shape{256, 64 * 8}));
  EXPECT_EQ(parameters_of(enc), 2'266'560u);
}

TEST(Parakeet, RefusesWhatItsConfigRejects) {
  // ParakeetEncoderConfig raises for an even convolution kernel.
  EXPECT_EQ(refusal_of(R"({"model_type":"parakeet_ctc","encoder_config":{"conv_kernel_size":8}})").field,
            "encoder_config.conv_kernel_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"parakeet_encoder","conv_kernel_size":4})").field,
            "conv_kernel_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"parakeet_ctc","architectures":["ParakeetForTDT"]})").kind,
            ErrorKind::Unsupported);
}

// A small checkpoint reads back with nothing missing and nothing extra.
TEST(Parakeet, CheckpointReadsCleanly) {
  expect_reads_cleanly(R"({"model_type":"parakeet_ctc","vocab_size":33,"encoder_config":{"hidden_size":32,
      "num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"subsampling_conv_channels":8,
      "num_mel_bins":16}})");
}

}  // namespace
}  // namespace ma::test
