// Chameleon (model/families/chameleon.cpp): Llama's layers with per-head q/k LayerNorms and a VQGAN encoder
// that turns images into tokens, against transformers' classes instantiated at full size (the reference
// counter of this work) and the size of its Hub files.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

const std::string k7b = R"({"model_type":"chameleon","architectures":["ChameleonForConditionalGeneration"],
    "vocab_size":65536,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,
    "num_attention_heads":32,"num_key_value_heads":32,
    "vq_config":{"embed_dim":256,"num_embeddings":8192,"latent_channels":256,"resolution":512,
      "base_channels":128,"channel_multiplier":[1,1,2,2,4],"num_res_blocks":2,"attn_resolutions":[]}})";

// facebook/chameleon-7b: 7,043,090,432, its 14.1 GB of bfloat16; the image tokenizer (29,423,616) runs for
// no text token.
TEST(Chameleon, CountsTheLanguageModelAndTheImageTokenizer) {
  const ParameterCounts c = counts_of(k7b);
  EXPECT_EQ(c.total, 7'043'090'432u);
  EXPECT_EQ((2 * c.total + 50'000'000) / 100'000'000, 141u);
  EXPECT_EQ(c.towers, 29'423'616u);
  EXPECT_EQ(c.active, 7'043'090'432u - 29'423'616u);
  const ModelTemplate t = template_of(k7b);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_norm.bias")->shape, Shape({32, 128}));
  EXPECT_EQ(find_tensor(t, "model.vqmodel.encoder.down.4.block.0.nin_shortcut.weight")->shape,
            Shape({512, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.vqmodel.encoder.down.4.downsample.conv.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.vqmodel.encoder.mid.attn_1.proj_out.bias"), nullptr);
  // Chameleon-34B (facebook/chameleon-30b): grouped keys and values, 8 heads of them.
  EXPECT_EQ(parameters_of(replaced(
                replaced(replaced(replaced(replaced(k7b, R"("hidden_size":4096)", R"("hidden_size":8192)"),
                                           R"("intermediate_size":11008)", R"("intermediate_size":22016)"),
                                  R"("num_hidden_layers":32)", R"("num_hidden_layers":48)"),
                         R"("num_attention_heads":32)", R"("num_attention_heads":64)"),
                R"("num_key_value_heads":32)", R"("num_key_value_heads":8)")),
            34'323'732'480u);
  // An attention resolution the encoder passes through adds attention blocks at that level.
  const ModelTemplate attended =
      template_of(replaced(k7b, R"("attn_resolutions":[])", R"("attn_resolutions":[64])"));
  EXPECT_NE(find_tensor(attended, "model.vqmodel.encoder.down.3.attn.1.q.weight"), nullptr);
  EXPECT_EQ(refusal_of(replaced(k7b, "[1,1,2,2,4]", "[1,0]")).field, "vq_config.channel_multiplier");
}

TEST(Chameleon, SmallCheckpointMatches) {
  expect_reads_cleanly(R"({"model_type":"chameleon","vocab_size":64,"hidden_size":32,
      "intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
      "vq_config":{"embed_dim":8,"num_embeddings":16,"latent_channels":8,"resolution":16,"base_channels":8,
        "channel_multiplier":[1,2],"num_res_blocks":1}})");
}

}  // namespace
}  // namespace ma::test
