// BLT, the Byte Latent Transformer (model/families/blt.cpp): blt-1b's count, the module order transformers
// registers, its ties, and the configs it refuses.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/blt-1b's shape is BltConfig's defaults (the converter derives each width's SwiGLU size by
// multiple_of 256: 2,816, 5,632 and the patcher's 2,048): a one-layer local encoder and a nine-layer local
// decoder 1,024 wide, a 25-layer global transformer 2,048 wide, a 14-layer 768-wide entropy patcher, and
// 6 x 500,002 hash n-gram rows. 4,633,391,872 as BltForCausalLM's modules build them
// (verify/blt_torch.py), 3,072,012,288 of them the hash table: the paper's "1B" counts neither it nor the
// patcher.
TEST(Blt, DefaultsAreBlt1b) {
  EXPECT_EQ(parameters_of(R"({"model_type":"blt","architectures":["BltForCausalLM"]})"), 4'633'391'872u);
  const ModelTemplate t = template_of(R"({"model_type":"blt"})");
  EXPECT_EQ(t.arch.architecture, "BltForCausalLM");
  EXPECT_EQ(find_tensor(t, "model.encoder_hash_tok_embedding.weight")->shape, (Shape{3'000'012, 1024}));
  // Local encoder: its layers, then the pooling projection, the byte table and one cross-attention.
  EXPECT_LT(tensor_index(t, "model.local_encoder.layers.0.post_attention_layernorm.weight"),
            tensor_index(t, "model.local_encoder.patch_embedding_projection.weight"));
  EXPECT_EQ(find_tensor(t, "model.local_encoder.patch_embedding_projection.weight")->shape,
            (Shape{2048, 1024}));
  EXPECT_EQ(find_tensor(t, "model.local_encoder.cross_attn_layers.1.q_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.local_encoder.cross_attn_layers.0.k_norm.weight")->shape, Shape{1024});
  // Pooled patches are 1,024 x cross_attn_k 2 = the global width: no token_embedding_projection.
  EXPECT_EQ(find_tensor(t, "model.global_transformer.token_embedding_projection.weight"), nullptr);
  // The local decoder cross-attends before every layer.
  EXPECT_NE(find_tensor(t, "model.local_decoder.cross_attn_layers.8.o_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.patcher.lm_head.weight")->shape, (Shape{260, 768}));
  EXPECT_EQ(t.tensors.back().name, "lm_head.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "");
  ASSERT_NE(t.arch.stack(StackRole::Decoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->path, "model.global_transformer.layers");
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 25u);
  expect_every_tensor_placed(t);
}

// A wider global transformer than the pooled patches (as blt-7b's) gets token_embedding_projection; a null
// or zero intermediate_size is int(8 * hidden_size / 3); an empty n-gram list is the default one; BltModel
// has no head and, without patch_in_forward, no patcher. 692,544 as BltModel's modules build it.
TEST(Blt, ProjectionDerivedSizesAndBareModel) {
  const std::string small = R"({"model_type":"blt","architectures":["BltModel"],"patch_in_forward":false,
      "encoder_hash_byte_group_size":[],"encoder_hash_byte_group_vocab":100,
      "encoder_hash_byte_group_nb_functions":2,
      "encoder_config":{"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,
        "intermediate_size":null,"cross_attn_all_layers":true,"num_hidden_layers":2,"hidden_size_global":128},
      "decoder_config":{"hidden_size":64,"num_attention_heads":4,"num_hidden_layers":2,
        "hidden_size_global":128,"intermediate_size":0},
      "global_config":{"hidden_size":128,"num_attention_heads":4,"num_hidden_layers":2,
        "intermediate_size":256}})";
  EXPECT_EQ(parameters_of(small), 692'544u);
  const ModelTemplate t = template_of(small);
  EXPECT_EQ(find_tensor(t, "local_encoder.layers.0.mlp.up_proj.weight")->shape, (Shape{170, 64}));
  EXPECT_EQ(find_tensor(t, "local_encoder.layers.0.self_attn.k_proj.weight")->shape, (Shape{32, 64}));
  EXPECT_EQ(find_tensor(t, "local_encoder.cross_attn_layers.1.k_norm.weight")->shape, Shape{64});
  EXPECT_EQ(find_tensor(t, "encoder_hash_tok_embedding.weight")->shape, (Shape{1200, 64}));
  EXPECT_EQ(find_tensor(t, "patcher.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  const ModelTemplate wide = template_of(R"({"model_type":"blt","global_config":{"hidden_size":4096,
      "num_attention_heads":32,"num_hidden_layers":2}})");
  EXPECT_EQ(find_tensor(wide, "model.global_transformer.token_embedding_projection.weight")->shape,
            (Shape{4096, 2048}));
}

TEST(Blt, TiesOnlyWhatItCan) {
  // tie_word_embeddings ties lm_head to the byte table (both 260 x 1,024 here).
  const ModelTemplate t = template_of(R"({"model_type":"blt","tie_word_embeddings":true})");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.local_encoder.embed_tokens.weight");
  EXPECT_EQ(parameters_of(R"({"model_type":"blt","tie_word_embeddings":true})"), 4'633'391'872u - 260 * 1024);
  EXPECT_EQ(
      refusal_of(R"({"model_type":"blt","tie_word_embeddings":true,"decoder_config":{"hidden_size":512}})")
          .field,
      "tie_word_embeddings");
  EXPECT_EQ(refusal_of(R"({"model_type":"blt","architectures":["BltPatcher"]})").kind,
            ErrorKind::Unsupported);
}

// A small checkpoint reads back with nothing missing and nothing extra.
TEST(Blt, CheckpointReadsCleanly) {
  expect_reads_cleanly(
      R"({"model_type":"blt","encoder_hash_byte_group_vocab":50,"encoder_config":{"hidden_size":32,
      "num_attention_heads":4,"hidden_size_global":64},"decoder_config":{"hidden_size":32,"num_attention_heads":4,
      "num_hidden_layers":2,"hidden_size_global":64},"global_config":{"hidden_size":64,"num_attention_heads":4,
      "num_hidden_layers":2},"patcher_config":{"hidden_size":32,"num_attention_heads":4,"num_hidden_layers":1}})");
}

}  // namespace
}  // namespace ma::test
