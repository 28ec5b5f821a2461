// T5Gemma and T5Gemma 2 (model/families/t5gemma.cpp): the released sizes against keras-hub's preset counts
// (an implementation of its own), the cross-attention of the unbalanced 9B-2B, T5Gemma 2's merged attention
// and its checkpoints' names, and the classes it builds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "template_test_support.h"

namespace ma::test {
namespace {

std::string side(uint64_t hidden, uint64_t width, uint64_t layers, uint64_t heads, uint64_t kv_heads,
                 uint64_t head_dim) {
  return R"({"hidden_size":)" + std::to_string(hidden) + R"(,"intermediate_size":)" + std::to_string(width) +
         R"(,"num_hidden_layers":)" + std::to_string(layers) + R"(,"num_attention_heads":)" +
         std::to_string(heads) + R"(,"num_key_value_heads":)" + std::to_string(kv_heads) + R"(,"head_dim":)" +
         std::to_string(head_dim) + R"(,"vocab_size":256000})";
}
std::string pair(const std::string& encoder, const std::string& decoder) {
  return R"({"model_type":"t5gemma","encoder":)" + encoder + R"(,"decoder":)" + decoder + "}";
}
const std::string k2b = side(2304, 9216, 26, 8, 4, 256), k9b = side(3584, 14336, 42, 16, 8, 256);

// keras-hub's t5gemma presets: 2b-2b 5,596,853,760; 9b-2b 12,292,375,296; 9b-9b 20,333,401,088, and the T5
// sizes (their hidden sizes and depths; their head and MLP splits are T5 v1.1's, which reproduce the counts).
TEST(T5Gemma, CountsMatchKerasHubsPresets) {
  EXPECT_EQ(parameters_of(pair(k2b, k2b)), 5'596'853'760u);
  EXPECT_EQ(parameters_of(pair(k9b, k2b)), 12'292'375'296u);
  EXPECT_EQ(parameters_of(pair(k9b, k9b)), 20'333'401'088u);
  const std::string s = side(512, 1024, 8, 8, 8, 64), b = side(768, 2048, 12, 12, 12, 64),
                    l = side(1024, 2816, 24, 16, 16, 64), ml = side(1152, 6912, 26, 4, 4, 256),
                    xl = side(2048, 5120, 24, 32, 32, 64);
  EXPECT_EQ(parameters_of(pair(s, s)), 312'517'632u);
  EXPECT_EQ(parameters_of(pair(b, b)), 591'490'560u);
  EXPECT_EQ(parameters_of(pair(l, l)), 1'241'761'792u);
  EXPECT_EQ(parameters_of(pair(ml, ml)), 2'200'345'344u);
  EXPECT_EQ(parameters_of(pair(xl, xl)), 3'766'980'608u);
}

TEST(T5Gemma, DecoderAttendsTheEncodersWidthAndTiesItsHead) {
  const ModelTemplate t = template_of(pair(k9b, k2b));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.cross_attn.k_proj.weight")->shape, Shape({1024, 3584}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.cross_attn.q_proj.weight")->shape, Shape({2048, 2304}));
  EXPECT_EQ(find_tensor(t, "lm_head.out_proj.weight")->tied_to, "model.decoder.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_tokens.weight")->shape, Shape({256000, 3584}));
  // Gemma-2's alternation on the decoder's self-attention: sliding, then full.
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers[0].attention.window, 4096u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers[1].attention.window, 0u);
  EXPECT_TRUE(t.arch.stack(StackRole::Decoder)->layers[0].cross_attention.has_value());
  // The bare model has no head and no `model.` prefix; the encoder-only class is not built here.
  const ModelTemplate bare =
      template_of(replaced(pair(k2b, k2b), R"("model_type":"t5gemma")",
                           R"("model_type":"t5gemma","architectures":["T5GemmaModel"])"));
  EXPECT_NE(find_tensor(bare, "decoder.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(bare, "lm_head.out_proj.weight"), nullptr);
  EXPECT_EQ(refusal_of(replaced(pair(k2b, k2b), R"("model_type":"t5gemma")",
                                R"("model_type":"t5gemma","architectures":["T5GemmaEncoderModel"])"))
                .kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(
      refusal_of(replaced(pair(k2b, k2b), R"("num_key_value_heads":4)", R"("num_key_value_heads":3)")).field,
      "encoder.num_key_value_heads");
}

// t5gemma-2-4b-4b: Gemma-3 4B's text sizes on both sides, Gemma-3's SigLIP (896 px, no pooling head).
std::string t5gemma2_4b() {
  const std::string text = R"({"vocab_size":262144,"hidden_size":2560,"intermediate_size":10240,
      "num_hidden_layers":34,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256})";
  return R"({"model_type":"t5gemma2","encoder":{"text_config":)" + text + R"(,"vision_config":{
      "hidden_size":1152,"intermediate_size":4304,"num_hidden_layers":27,"num_attention_heads":16,
      "image_size":896,"patch_size":14,"vision_use_head":false},"mm_tokens_per_image":256},"decoder":)" +
         text + "}";
}

// keras-hub's t5gemma2 4b preset, 8,180,020,080, keeps the decoder's embedding (and its end-of-image vector)
// as weights of their own, where transformers ties one table to the encoder, the decoder and the head.
TEST(T5Gemma, T5Gemma2MatchesKerasHubWithItsSecondEmbedding) {
  EXPECT_EQ(parameters_of(t5gemma2_4b()) + 262144u * 2560 + 2560, 8'180'020'080u);
  const ModelTemplate t = template_of(t5gemma2_4b());
  // Merged attention: one set of projections and q/k norms, nothing named cross_attn.
  EXPECT_NE(find_tensor(t, "model.decoder.layers.0.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.cross_attn.q_proj.weight"), nullptr);
  EXPECT_TRUE(t.arch.stack(StackRole::Decoder)->layers[0].cross_attention.has_value());
  EXPECT_EQ(find_tensor(t, "model.decoder.embed_tokens.eoi_embedding")->tied_to,
            "model.encoder.text_model.embed_tokens.eoi_embedding");
  std::vector<std::string> stored;
  for (const DiskTensor& x : disk_form(t)) stored.push_back(x.name);
  for (const char* name :
       {"model.encoder.embed_tokens.weight", "model.encoder.layers.33.mlp.down_proj.weight",
        "model.encoder.vision_tower.vision_model.encoder.layers.26.mlp.fc1.weight",
        "model.encoder.multi_modal_projector.mm_input_projection_weight"})
    EXPECT_NE(std::find(stored.begin(), stored.end(), name), stored.end()) << name;
  EXPECT_EQ(stored.size(), 1327u);  // the tied decoder embedding, its vector and the head are not stored
}

}  // namespace
}  // namespace ma::test
