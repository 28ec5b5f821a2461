// Emu3 (model/families/emu3.cpp): a Llama decoder over text and the tokens of a video VQ-VAE. Counted on
// BAAI/Emu3-Chat-hf's config (its class defaults) against the original repository's float32 shards, which
// hold the language model alone, and the VQ-VAE as transformers' classes build it (the reference counter
// of this work, instantiated at full size: 270,740,287 parameters and 24 BatchNorm buffers).
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

const std::string kEmu3 = R"({"model_type":"emu3","architectures":["Emu3ForConditionalGeneration"],
    "text_config":{"model_type":"emu3_text_model","vocab_size":184622,"hidden_size":4096,"intermediate_size":14336,
      "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":131072},
    "vq_config":{"model_type":"emu3_vqgan","codebook_size":32768,"embed_dim":4,"latent_channels":4,
      "base_channels":256,"channel_multiplier":[1,2,2,4],"num_res_blocks":2,"attn_resolutions":[3],
      "hidden_size":1024,"temporal_downsample_factor":4}})";

// The language model: 32 layers of GQA (8 key-value heads of 128) and a SwiGLU of 14,336, its embedding and
// untied head of 184,622 rows; BAAI/Emu3-Chat's seven float32 shards, 33.97 GB, are it alone.
TEST(Emu3, CountsTheLanguageModelAndTheVqVae) {
  const uint64_t layer = 2 * 4096 * 4096 + 2 * 1024 * 4096 + 3 * 14336 * 4096 + 2 * 4096;
  const uint64_t language = 2 * 184622 * 4096 + 32 * layer + 4096;
  EXPECT_NEAR(4.0 * static_cast<double>(language) / 1e9, 33.97, 0.005);
  EXPECT_EQ(parameters_of(kEmu3), language + 270'740'287u);
  const ModelTemplate t = template_of(kEmu3);
  EXPECT_EQ(disk_totals(t).tensors, 786u);
  size_t buffers = 0;
  for (const TemplateTensor& x : t.tensors) buffers += x.kind == TensorKind::Buffer;
  EXPECT_EQ(buffers, 24u);  // running mean, variance and count of the four temporal blocks' two BatchNorms
  const std::string vq = "model.vqmodel.";
  EXPECT_EQ(find_tensor(t, vq + "encoder.time_conv.1.conv.conv.weight")->shape, Shape({4, 4, 4, 3, 3}));
  EXPECT_EQ(find_tensor(t, vq + "decoder.up_block.up.3.block.0.norm1.conv_y.weight")->shape,
            Shape({1024, 4, 1, 1}));
  EXPECT_EQ(find_tensor(t, vq + "decoder.up_block.up.2.block.0.conv1.weight")->shape,
            Shape({512, 1024, 3, 3}));
  EXPECT_EQ(find_tensor(t, vq + "encoder.down_block.down.3.attn.1.q_proj.weight")->shape,
            Shape({1024, 1024}));
  EXPECT_EQ(find_tensor(t, vq + "decoder.up_block.up.2.attn.0.q_proj.weight"), nullptr);
  // Stored as transformers 4 saved it.
  EXPECT_EQ(stored_name(*find_tensor(t, "model.text_model.layers.3.mlp.up_proj.weight")),
            "text_model.model.layers.3.mlp.up_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "lm_head.weight")), "text_model.lm_head.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, vq + "quantize.embedding.weight")),
            "vqmodel.quantize.embedding.weight");
  // No text token runs the tokenizer.
  EXPECT_EQ(place_tensor(vq + "decoder.conv_out.weight").block, Block::Vision);
  EXPECT_EQ(counts_of(kEmu3).towers, 270'740'287u);
}

TEST(Emu3, ReadsItsCheckpointLayoutAndRefusesBadShapes) {
  const std::string small = R"({"model_type":"emu3","architectures":["Emu3ForConditionalGeneration"],
      "text_config":{"vocab_size":40,"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,
        "num_attention_heads":2,"num_key_value_heads":1},
      "vq_config":{"codebook_size":8,"embed_dim":2,"latent_channels":2,"base_channels":4,"channel_multiplier":[1,2],
        "num_res_blocks":1,"attn_resolutions":[1],"hidden_size":8,"temporal_downsample_factor":2}})";
  expect_reads_cleanly(small);
  EXPECT_EQ(
      refusal_of(replaced(small, R"("temporal_downsample_factor":2)", R"("temporal_downsample_factor":3)"))
          .field,
      "vq_config.temporal_downsample_factor");
  EXPECT_EQ(refusal_of(replaced(small, R"("channel_multiplier":[1,2])", R"("channel_multiplier":[])")).field,
            "vq_config.channel_multiplier");
  EXPECT_EQ(refusal_of(replaced(small, R"("num_res_blocks":1)", R"("num_res_blocks":1000)")).field,
            "vq_config.num_res_blocks");
}

}  // namespace
}  // namespace ma::test
