// PaddleOCR-VL (paddleocr_vl, model/families/paddleocr_vl.cpp): a headless SigLIP tower, a patch-folding
// projector and ERNIE-4.5-0.3B, from the Hub's flat config. The independent figures are its checkpoint's:
// model.safetensors (PaddleOCR-VL, -1.5, -1.6) holds 620 bf16 tensors of 958,588,736 values (the Hub's
// count), transformers' 608 of 905,601,648 (the card's "0.9B") and 12 it drops on load: a packed-position
// table of 32,768 x 1,152 and SigLIP's pooling head.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// PaddlePaddle/PaddleOCR-VL's config.json (the remote code's flat form), the fields that shape tensors.
constexpr const char* kPaddleOcrVl = R"({"model_type":"paddleocr_vl",
    "architectures":["PaddleOCRVLForConditionalGeneration"],"hidden_size":1024,"num_hidden_layers":18,
    "num_attention_heads":16,"num_key_value_heads":2,"head_dim":128,"intermediate_size":3072,
    "vocab_size":103424,"use_bias":false,"tie_word_embeddings":false,
    "vision_config":{"model_type":"paddleocr_vl","hidden_size":1152,"intermediate_size":4304,
      "num_hidden_layers":27,"num_attention_heads":16,"num_channels":3,"image_size":384,"patch_size":14,
      "spatial_merge_size":2}})";

TEST(PaddleOcrVl, CountsAsItsCheckpointHoldsIt) {
  EXPECT_EQ(parameters_of(kPaddleOcrVl), 905'601'648u);
  const ModelTemplate t = template_of(kPaddleOcrVl);
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 608u);
  // The two sets transformers drops: the packed-position table and the pooling head (probe, packed
  // attention, its out projection, LayerNorm and MLP).
  const uint64_t head =
      1152 + 3456u * 1152 + 3456 + 1152u * 1152 + 1152 + 2 * 1152 + 4304u * 1152 + 4304 + 1152u * 4304 + 1152;
  EXPECT_EQ(disk.elements + 32'768u * 1152 + head, 958'588'736u);
  // The remote code's names on disk; transformers' in memory.
  EXPECT_EQ(stored_name(*find_tensor(t, "model.projector.linear_1.weight")), "mlp_AR.linear_1.weight");
  EXPECT_EQ(find_tensor(t, "model.projector.linear_1.weight")->shape, Shape({4608, 4608}));
  EXPECT_EQ(find_tensor(t, "model.projector.pre_norm.bias")->shape, Shape({1152}));
  EXPECT_EQ(stored_name(*find_tensor(t, "model.visual.vision_model.encoder.layers.26.mlp.fc1.weight")),
            "visual.vision_model.encoder.layers.26.mlp.fc1.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.layers.0.self_attn.k_proj.weight")),
            "model.layers.0.self_attn.k_proj.weight");
  EXPECT_EQ(find_tensor(t, "model.visual.vision_model.embeddings.position_embedding.weight")->shape,
            Shape({729, 1152}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "");
  // transformers' nested form builds the same, and its defaults are PaddleOCR-VL's sizes, tied.
  const std::string nested = R"({"model_type":"paddleocr_vl","tie_word_embeddings":false,
      "text_config":{"model_type":"paddleocr_vl_text"},"vision_config":{"model_type":"paddleocr_vl_vision"}})";
  EXPECT_EQ(parameters_of(nested), 905'601'648u);
  EXPECT_EQ(parameters_of(R"({"model_type":"paddleocr_vl"})"), 905'601'648u - 103'424u * 1024);
}

// A small PaddleOCR-VL written in the checkpoint's names, with the two sets transformers drops: every
// tensor matches or is a known extra, so no warning.
TEST(PaddleOcrVl, CheckpointNamesMatchAndItsExtrasAreKnown) {
  const TempDir dir;
  const std::string config = R"({"model_type":"paddleocr_vl","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":96,"vocab_size":100,
      "tie_word_embeddings":false,"vision_config":{"model_type":"paddleocr_vl","hidden_size":32,
      "intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":2,"image_size":56,"patch_size":14}})";
  std::ofstream(dir.path() / "config.json") << config;
  std::vector<TensorToWrite> s;
  for (const DiskTensor& x : disk_form(template_of(config))) s.push_back({x.name, DType::BF16, x.shape, {}});
  s.push_back(
      {"visual.vision_model.embeddings.packing_position_embedding.weight", DType::BF16, {32768, 32}, {}});
  s.push_back({"visual.vision_model.head.probe", DType::BF16, {1, 1, 32}, {}});
  write_safetensors(dir.path() / "model.safetensors", s);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(inv.tensors.size(), s.size());
  EXPECT_EQ(extras_in(inv), 2u);
}

}  // namespace
}  // namespace ma::test
