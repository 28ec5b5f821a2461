// Florence-2 (model/families/florence2.cpp) in both checkpoint forms: transformers' own
// (florence-community/*) and the original remote-code repos (microsoft/Florence-2-*), against the figures
// published for them, and a small checkpoint in the original names.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// The text and vision sizes of Florence-2-base; `large` swaps in Florence-2-large's.
std::string text_config(const std::string& type, const std::string& vocab, bool large) {
  return R"({"model_type":")" + type + R"(","vocab_size":)" + vocab +
         (large ? R"(,"d_model":1024,"encoder_layers":12,"decoder_layers":12,"encoder_ffn_dim":4096,
             "decoder_ffn_dim":4096,"encoder_attention_heads":16,"decoder_attention_heads":16})"
                : R"(,"d_model":768,"encoder_layers":6,"decoder_layers":6,"encoder_ffn_dim":3072,
             "decoder_ffn_dim":3072,"encoder_attention_heads":12,"decoder_attention_heads":12})");
}

// florence-community/Florence-2-*: the converter's config (vocabulary 51,328: <image> added, padded to 64).
std::string native(bool large) {
  return R"({"model_type":"florence2","image_token_id":51289,"text_config":)" +
         text_config("bart", "51328", large) + R"(,"vision_config":{"model_type":"florence_vision",
      "embed_dim":)" +
         (large ? "[256,512,1024,2048]" : "[128,256,512,1024]") +
         R"(,"depths":[1,1,9,1],"patch_size":[7,3,3,3],"patch_prenorm":[false,true,true,true],
      "projection_dim":)" +
         (large ? "1024" : "768") + "}}";
}

// microsoft/Florence-2-*: the remote code's config (davit tower, florence2_language text, 51,289 rows).
std::string original(bool large) {
  return R"({"model_type":"florence2","vocab_size":51289,"text_config":)" +
         text_config("florence2_language", "51289", large) + R"(,"vision_config":{"model_type":"davit",
      "dim_embed":)" +
         (large ? "[256,512,1024,2048]" : "[128,256,512,1024]") +
         R"(,"depths":[1,1,9,1],"patch_size":[7,3,3,3],"patch_prenorm":[false,true,true,true],
      "projection_dim":)" +
         (large ? "1024" : "768") +
         R"(,"image_pos_embed":{"type":"learned_abs_2d","max_pos_embeddings":50},
      "visual_temporal_embedding":{"type":"COSINE","max_temporal_embeddings":100}}})";
}

// Libre-YOLO pins florence-community/Florence-2-base's unique parameter count, 231,443,968, with its
// model.safetensors (F16, 463,178,864 bytes); the model cards give 0.23B and 0.77B. The original repos hold
// 39 rows less of the shared embedding and head (51,289 rows): 231,414,016 and 770,173,952.
TEST(Florence2, CountsMatchThePublishedFigures) {
  EXPECT_EQ(parameters_of(native(false)), 231'443'968u);
  EXPECT_EQ((parameters_of(native(true)) + 5'000'000) / 10'000'000, 77u);
  EXPECT_EQ(parameters_of(original(false)), 231'443'968u - 39u * 768);
  EXPECT_EQ(parameters_of(original(true)), parameters_of(native(true)) - 39u * 1024);
  // What save_pretrained writes: one shared embedding (the stacks' embed_tokens and the head are tied to
  // it) and the persistent buffer of frame positions (100 x 1024).
  const DiskTotals disk = disk_totals(template_of(native(false)));
  EXPECT_EQ(disk.tensors, 665u);
  EXPECT_EQ(disk.elements, 231'443'968u + 100 * 1024);
  const ModelTemplate t = template_of(native(false));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.convs.1.norm.weight")->shape,
            Shape({128}));  // before the conv
  EXPECT_EQ(find_tensor(t, "model.vision_tower.convs.0.norm.weight")->shape, Shape({128}));  // after it
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.image_position_embed.row_embeddings.weight")->shape,
            Shape({50, 512}));
  EXPECT_EQ(find_tensor(t, "model.language_model.encoder.embed_positions.weight")->shape, Shape({1026, 768}));
}

TEST(Florence2, OriginalRepositoriesAreReadInTheirOwnNames) {
  const ModelTemplate t = template_of(original(false));
  std::vector<std::string> names;
  for (const DiskTensor& x : disk_form(t)) names.push_back(x.name);
  const auto stored = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  EXPECT_TRUE(stored("vision_tower.convs.0.proj.weight"));
  EXPECT_TRUE(stored("vision_tower.blocks.2.8.channel_block.conv1.fn.dw.weight"));
  EXPECT_TRUE(stored("vision_tower.blocks.0.0.spatial_block.window_attn.fn.qkv.bias"));
  EXPECT_TRUE(stored("vision_tower.blocks.0.0.channel_block.ffn.fn.net.fc2.weight"));
  EXPECT_TRUE(stored("image_pos_embed.column_embeddings.weight"));
  EXPECT_TRUE(stored("language_model.model.shared.weight"));
  EXPECT_FALSE(stored("model.language_model.shared.weight"));
  EXPECT_TRUE(stored("image_projection"));
  for (const DiskTensor& x : disk_form(t)) {
    if (x.name == "image_projection") {
      EXPECT_EQ(x.shape, Shape({1024, 768}));  // [in, out]
    }
  }
}

// A small Florence-2 in the remote code's names, with the language model's final_logits_bias transformers'
// class does not have: every tensor matches or is a known extra.
TEST(Florence2, SmallOriginalCheckpointMatches) {
  const std::string config = R"({"model_type":"florence2","text_config":{"model_type":"florence2_language",
      "vocab_size":100,"d_model":32,"encoder_layers":1,"decoder_layers":1,"encoder_ffn_dim":64,
      "decoder_ffn_dim":64,"encoder_attention_heads":2,"decoder_attention_heads":2,
      "max_position_embeddings":64},"vision_config":{"model_type":"davit","dim_embed":[8,16,24,32],
      "depths":[1,1,2,1],"projection_dim":32,"image_pos_embed":{"max_pos_embeddings":5},
      "visual_temporal_embedding":{"max_temporal_embeddings":4}}})";
  const Inventory inv =
      stored_checkpoint(config, {{"language_model.final_logits_bias", DType::F16, {1, 100}, {}}}, DType::F16)
          .inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(extras_in(inv), 1u);
}

TEST(Florence2, RefusesAProjectionTheLanguageModelCannotTake) {
  const auto field_of = [](const std::string& c, const std::string& from, const std::string& to) {
    return refusal_of(replaced(c, from, to)).field;
  };
  EXPECT_EQ(field_of(native(false), R"("projection_dim":768)", R"("projection_dim":1024)"),
            "vision_config.projection_dim");
  EXPECT_EQ(field_of(native(false), R"("depths":[1,1,9,1])", R"("depths":[1,1,9])"), "vision_config.depths");
  EXPECT_EQ(
      field_of(native(false), R"("patch_prenorm":[false,true,true,true])", R"("patch_prenorm":[0,1,1,1])"),
      "vision_config.patch_prenorm");
}

}  // namespace
}  // namespace ma::test
