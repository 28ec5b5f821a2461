// Pop2Piano (model/families/encoders_t5.cpp: T5 with a composer embedding), Moshi (moshi.cpp) and Dia
// (dia.cpp) on their config classes' defaults, which are sweetcocoa/pop2piano's, kmhf/hf-moshiko's and
// nari-labs/Dia-1.6B's. The counts are those of transformers' classes, counted from their modules (verify/
// in the helper's folder); Moshi's and Dia's also against their published sizes.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kGenBPop2Piano =
    R"({"model_type":"pop2piano","architectures":["Pop2PianoForConditionalGeneration"]})";

// 1,228,800 (shared) + 10,752 (composers) + encoder 25,172,736 (6 x 4,195,328, one 32 x 8 bias table, a
// final norm) + decoder 31,467,264 (6 x 5,244,416, bias table, final norm); the stacks' embeddings and
// lm_head share `shared`.
TEST(AudioGenB, Pop2PianoCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGenBPop2Piano), 57'879'552u);
  const ModelTemplate t = template_of(kGenBPop2Piano);
  const TemplateTensor* composers = find_tensor(t, "mel_conditioner.embedding.weight");
  ASSERT_NE(composers, nullptr);
  EXPECT_EQ(composers->shape, (Shape{21, 512}));
  EXPECT_EQ(tensor_index(t, "mel_conditioner.embedding.weight"), 1u);  // right after shared
  ASSERT_NE(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "shared.weight");
  ASSERT_NE(find_tensor(t, "decoder.block.5.layer.2.DenseReluDense.wi_1.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 6u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
  expect_every_tensor_placed(t);
}

// Untied (all three copies of the table own their storage), 4 decoder blocks, ungated feed-forward, 5
// composers: 40,583,168 (encoder 18,881,280, decoder 16,784,128, four 1,228,800 tables, 2,560 composers).
TEST(AudioGenB, Pop2PianoFollowsItsConfig) {
  const std::string varied =
      replaced(kGenBPop2Piano, R"("architectures")",
               R"("tie_word_embeddings":false,"num_decoder_layers":4,"feed_forward_proj":"relu",)"
               R"("composer_vocab_size":5,"architectures")");
  EXPECT_EQ(parameters_of(varied), 40'583'168u);
  const ModelTemplate t = template_of(varied);
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  EXPECT_NE(find_tensor(t, "encoder.block.0.layer.1.DenseReluDense.wi.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 4u);
}

TEST(AudioGenB, Pop2PianoRefusesImpossibleSizes) {
  EXPECT_EQ(
      refusal_of(replaced(kGenBPop2Piano, R"("architectures")", R"("num_heads":0,"architectures")")).field,
      "num_heads");
  EXPECT_EQ(
      refusal_of(replaced(kGenBPop2Piano, R"("architectures")", R"("composer_vocab_size":0,"architectures")"))
          .field,
      "composer_vocab_size");
}

// MoshiConfig's defaults are kmhf/hf-moshiko's (Mimi's, kyutai/mimi's); its config.json names the class.
constexpr const char* kGenBMoshiko =
    R"({"model_type":"moshi","architectures":["MoshiForConditionalGeneration"]})";

// Counted from transformers' modules (verify/ in the helper's folder): 16 audio code tables of 2,049 x 4,096
// (134,283,264), Mimi 79,308,609, the temporal transformer 6,839,083,008 (a 32,001-row table, 32 layers of
// 205,529,088, norm, a 32,000-row head) and the depth decoder 714,362,880 (a 32,001 x 1,024 text table,
// seven 2,049 x 1,024 code tables, [8, 1024, 4096] input projections, 6 layers of 8 per-codebook matrices,
// [8, 2048, 1024] heads). Without Mimi, 7,687,729,152: the 7.69B of kyutai/moshiko-pytorch-bf16's card.
TEST(AudioGenB, MoshikoCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGenBMoshiko), 7'767'037'761u);
  const ModelTemplate t = template_of(kGenBMoshiko);
  EXPECT_EQ(tensor_index(t, "embed_tokens.15.weight"), 15u);  // before the codec, as registered
  ASSERT_NE(find_tensor(t, "audio_encoder.quantizer.semantic_residual_vector_quantizer.input_proj.weight"),
            nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.model.embed_tokens.weight")->shape, (Shape{32001, 4096}));
  EXPECT_EQ(find_tensor(t, "decoder.model.layers.31.mlp.fc2.weight")->shape, (Shape{4096, 11264}));
  EXPECT_EQ(find_tensor(t, "decoder.lm_head.weight")->shape, (Shape{32000, 4096}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.layers.5.self_attn.q_proj.linear.weight")->shape,
            (Shape{8, 1024, 1024}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.layers.0.mlp.fc1.weight")->shape, (Shape{8, 5632, 1024}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.lm_heads.weight")->shape, (Shape{8, 2048, 1024}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.embed_tokens.6.weight")->shape, (Shape{2049, 1024}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.embed_tokens.7.weight"), nullptr);  // the last code is no input
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 32u);
  expect_every_tensor_placed(t);
}

// The temporal transformer alone: MoshiForCausalLM (6,839,083,008) and MoshiModel, without the head.
TEST(AudioGenB, MoshiTemporalTransformerAlone) {
  EXPECT_EQ(parameters_of(replaced(kGenBMoshiko, "MoshiForConditionalGeneration", "MoshiForCausalLM")),
            6'839'083'008u);
  EXPECT_EQ(parameters_of(replaced(kGenBMoshiko, "MoshiForConditionalGeneration", "MoshiModel")),
            6'708'011'008u);
}

// One codebook: the depth decoder's MLP is a plain nn.Linear (MoshiGatingMLP), its attention still a
// [1, out, in] MoshiFlexibleLinear.
TEST(AudioGenB, MoshiWithOneCodebook) {
  const ModelTemplate t =
      template_of(replaced(kGenBMoshiko, R"("architectures")", R"("num_codebooks":1,"architectures")"));
  EXPECT_EQ(find_tensor(t, "depth_decoder.layers.0.mlp.fc1.weight")->shape, (Shape{5632, 1024}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.layers.0.self_attn.k_proj.linear.weight")->shape,
            (Shape{1, 1024, 1024}));
  EXPECT_EQ(find_tensor(t, "embed_tokens.2.weight"), nullptr);
}

TEST(AudioGenB, MoshiRefusals) {
  EXPECT_EQ(
      refusal_of(replaced(kGenBMoshiko, R"("architectures")",
                          R"("num_codebooks":9,"audio_encoder_config":{"num_quantizers":8},"architectures")"))
          .field,
      "num_codebooks");
  EXPECT_EQ(refusal_of(replaced(kGenBMoshiko, R"("architectures")",
                                R"("depth_decoder_config":{"ffn_dim":5633},"architectures")"))
                .field,
            "depth_decoder_config.ffn_dim");
  EXPECT_EQ(
      refusal_of(replaced(kGenBMoshiko, R"("architectures")", R"("num_attention_heads":30,"architectures")"))
          .field,
      "num_attention_heads");
  // lm_head [32000, 4096] cannot share the 32,001-row table.
  EXPECT_EQ(refusal_of(
                replaced(kGenBMoshiko, R"("architectures")", R"("tie_word_embeddings":true,"architectures")"))
                .kind,
            ErrorKind::Unsupported);
}

// DiaConfig's defaults are nari-labs/Dia-1.6B's.
constexpr const char* kGenBDia = R"({"model_type":"dia","architectures":["DiaForConditionalGeneration"]})";

// Counted from transformers' modules (verify/): the encoder 251,945,984 (a 256 x 1,024 byte table, 12 MHA
// layers of 20,973,568, norm), the decoder 1,340,266,496 (one 9 x 1,028-row table, 18 layers of 73,406,464:
// GQA self-attention 16 / 4 heads, cross-attention reading 1,024-wide encoder states, gate_up 16,384 x
// 2,048), logits_dense 18,948,096: 1,611,160,576, the card's 1.6B. The DAC codec is no part of the model.
TEST(AudioGenB, DiaCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGenBDia), 1'611'160'576u);
  const ModelTemplate bare = template_of(replaced(kGenBDia, "DiaForConditionalGeneration", "DiaModel"));
  EXPECT_EQ(total_of(bare), 1'592'212'480u);                          // no logits_dense
  EXPECT_NE(find_tensor(bare, "encoder.embedding.weight"), nullptr);  // DiaModel is the root
  expect_every_tensor_placed(bare);
  const ModelTemplate t = template_of(kGenBDia);
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.17.self_attention.k_proj.weight")->shape,
            (Shape{512, 2048}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.cross_attention.v_proj.weight")->shape,
            (Shape{2048, 1024}));
  EXPECT_EQ(find_tensor(t, "model.decoder.embeddings.embed.weight")->shape, (Shape{9252, 2048}));
  EXPECT_EQ(find_tensor(t, "logits_dense.weight")->shape, (Shape{9252, 2048}));
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 18u);
  expect_every_tensor_placed(t);
}

// DiaConfig asserts one delay per channel; a null num_key_value_heads means one per head.
TEST(AudioGenB, DiaFollowsItsConfig) {
  EXPECT_EQ(refusal_of(replaced(kGenBDia, R"("architectures")",
                                R"("decoder_config":{"num_channels":8},"architectures")"))
                .field,
            "delay_pattern");
  const ModelTemplate t = template_of(replaced(
      kGenBDia, R"("architectures")", R"("decoder_config":{"num_key_value_heads":null},"architectures")"));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.self_attention.k_proj.weight")->shape,
            (Shape{2048, 2048}));
}

}  // namespace
}  // namespace ma::test
