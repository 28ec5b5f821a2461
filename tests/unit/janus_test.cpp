// Janus-Pro (model/families/janus.cpp) as transformers converts it: understanding and image generation
// around a Llama language model, against the parameter count the Hub's file of Janus-Pro-1B records and
// transformers' classes instantiated at full size (the reference counter of this work).
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// deepseek-community/Janus-Pro-1B's config (its shape-setting fields).
const std::string k1b = R"({"architectures":["JanusForConditionalGeneration"],"model_type":"janus",
    "tie_word_embeddings":false,
    "text_config":{"model_type":"llama","vocab_size":102400,"hidden_size":2048,"intermediate_size":5632,
      "num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16,"head_dim":128,
      "max_position_embeddings":16384,"tie_word_embeddings":false},
    "vision_config":{"model_type":"janus_vision_model","hidden_size":1024,"num_hidden_layers":24,
      "num_attention_heads":16,"image_size":384,"patch_size":16,"mlp_ratio":4.0,"attention_bias":true,
      "projection_dim":2048,"depth":2},
    "vq_config":{"model_type":"janus_vqgan","embed_dim":8,"num_embeddings":16384,"latent_channels":256,
      "base_channels":128,"channel_multiplier":[1,1,2,2,4],"num_res_blocks":2,
      "projection_dim":2048,"num_hidden_layers":2,"image_token_embed_dim":2048}})";

// The Hub's safetensors metadata for Janus-Pro-1B's model.safetensors: 2,076,636,811 parameters. The towers
// (understanding, its aligner, the VQGAN, generation's embeddings, aligner and head) run for no text token.
TEST(Janus, CountsMatchTheHubsFile) {
  const ParameterCounts c = counts_of(k1b);
  EXPECT_EQ(c.total, 2'076'636'811u);
  EXPECT_EQ(c.towers, 303'688'704u + 6'295'552u + 71'883'403u + 131'072u + 4'214'784u + 37'767'168u);
  EXPECT_EQ(c.active, c.total - c.towers);
  const ModelTemplate t = template_of(k1b);
  EXPECT_EQ(find_tensor(t, "model.vqmodel.decoder.up.0.attn.2.proj_out.weight")->shape,
            Shape({512, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.vqmodel.decoder.up.4.upsample.conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.vqmodel.encoder.down.4.attn.1.q.weight")->shape, Shape({512, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.generation_head.vision_head.weight")->shape, Shape({16384, 2048}));
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  // Janus-Pro-7B: the 7B text model and 4,096-wide aligners and head.
  const std::string pro7b = replaced(
      replaced(
          replaced(replaced(replaced(replaced(k1b, R"("hidden_size":2048)", R"("hidden_size":4096)"),
                                     R"("intermediate_size":5632)", R"("intermediate_size":11008)"),
                            R"("num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16)",
                            R"("num_hidden_layers":30,"num_attention_heads":32,"num_key_value_heads":32)"),
                   R"("projection_dim":2048,"depth")", R"("projection_dim":4096,"depth")"),
          R"("projection_dim":2048,"num_hidden_layers")", R"("projection_dim":4096,"num_hidden_layers")"),
      R"("image_token_embed_dim":2048)", R"("image_token_embed_dim":4096)");
  EXPECT_EQ(parameters_of(pro7b), 7'407'773'323u);
  // JanusConfig alone ties the head.
  EXPECT_EQ(parameters_of(R"({"model_type":"janus","architectures":["JanusForConditionalGeneration"]})"),
            7'031'324'299u);
}

// deepseek-ai/Janus-Pro-7B and -1B, DeepSeek's own repositories (multi_modality): the converted models plus
// what the conversion drops, the tower's attention-pooling head (12,595,200) and the codebook usage buffer
// (65,536). Janus-Pro-7B's two .bin shards hold 9.99 + 4.85 GB in bfloat16.
TEST(Janus, DeepSeeksOwnRepositoriesKeepWhatTheConversionDrops) {
  const std::string pro7b = R"({"architectures":["MultiModalityCausalLM"],"model_type":"multi_modality",
      "aligner_config":{"cls":"MlpProjector","params":{"depth":2,"input_dim":1024,"n_embed":4096,
        "projector_type":"mlp_gelu"}},
      "gen_aligner_config":{"cls":"MlpProjector","params":{"depth":2,"input_dim":8,"n_embed":4096,
        "projector_type":"mlp_gelu"}},
      "gen_head_config":{"cls":"vision_head","params":{"image_token_embed":4096,"image_token_size":16384,
        "n_embed":4096}},
      "gen_vision_config":{"cls":"VQ-16","params":{"image_token_size":16384,"n_embed":8}},
      "language_config":{"max_position_embeddings":16384,"model_type":"llama","num_hidden_layers":30,
        "vocab_size":102400},
      "vision_config":{"cls":"CLIPVisionTower","params":{"image_size":384,"model_name":"siglip_large_patch16_384",
        "select_feature":"same","select_layer":-1}}})";
  const ModelTemplate t = template_of(pro7b);
  EXPECT_TRUE(t.arch.hand_derived);
  EXPECT_EQ(parameters_of(pro7b), 7'407'773'323u + 12'595'200u);
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 936u);
  EXPECT_EQ(disk.elements, 7'420'368'523u + 65'536u);
  EXPECT_EQ((2 * disk.elements + 50'000'000) / 100'000'000, 148u);  // 9.99 + 4.85 GB
  EXPECT_EQ(find_tensor(t, "vision_model.vision_tower.blocks.23.attn.qkv.weight")->shape,
            Shape({3072, 1024}));
  EXPECT_NE(find_tensor(t, "gen_vision_model.decoder.conv_blocks.0.attn.2.proj_out.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "gen_vision_model.encoder.mid.1.q.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "language_model.lm_head.weight"), nullptr);
  EXPECT_EQ(refusal_of(replaced(pro7b, "CLIPVisionTower", "HybridVisionTower")).kind, ErrorKind::Unsupported);
}

TEST(Janus, SmallCheckpointMatches) {
  expect_reads_cleanly(R"({"architectures":["JanusForConditionalGeneration"],"model_type":"janus",
      "tie_word_embeddings":false,
      "text_config":{"model_type":"llama","vocab_size":64,"hidden_size":32,"intermediate_size":48,
        "num_hidden_layers":2,"num_attention_heads":4},
      "vision_config":{"hidden_size":16,"num_hidden_layers":2,"num_attention_heads":2,"image_size":32,
        "patch_size":16,"projection_dim":32},
      "vq_config":{"embed_dim":4,"num_embeddings":10,"latent_channels":8,"base_channels":8,
        "channel_multiplier":[1,2],"num_res_blocks":1,"projection_dim":32,"image_token_embed_dim":32}})");
}

}  // namespace
}  // namespace ma::test
