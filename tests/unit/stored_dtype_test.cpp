// The dtype a checkpoint stores its weights in when config.json declares none: an index's total_size settles
// the width (BLOOM, gpt-oss and granite store 16-bit weights; transformers' float32 default made us predict
// twice their bytes and warn falsely), and safetensors headers name it outright.
#include "model/stored_dtype.h"

#include <gtest/gtest.h>

#include "formats/model_files.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {
namespace {

// 2 layers of hidden 64: embedding 100 x 64, per layer q/k/v/o 4 x 64 x 64 + gate/up/down 3 x 64 x 128 + two
// norms of 64, the final norm 64 and an untied head 100 x 64.
constexpr uint64_t kTinyLlamaParameters =
    100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 64 + 100 * 64;

// A config without torch_dtype and an index naming every tensor the template predicts, with `total_size`.
LocalModelFiles index_only(const TempDir& dir, uint64_t total_size) {
  const std::string config = tiny_llama_config("2");
  write_file(dir / "config.json", config);
  std::string map;
  for (const TemplateTensor& t : build_template(ModelConfig::parse(config, "config.json")).tensors)
    map += std::string(map.empty() ? "" : ",") + "\"" + t.name + "\":\"model-00001-of-00001.safetensors\"";
  write_file(
      dir / "model.safetensors.index.json",
      R"({"metadata":{"total_size":)" + std::to_string(total_size) + R"(},"weight_map":{)" + map + "}}");
  return locate_local_model(dir.path().string());
}

bool warns_about_total_size(const Inventory& inv) {
  for (const std::string& w : inv.warnings)
    if (w.find("total_size") != std::string::npos) return true;
  return false;
}

TEST(StoredDtype, IndexTotalSizeProvesSixteenBitWeights) {
  TempDir dir;
  const Inventory inv = build_inventory(index_only(dir, kTinyLlamaParameters * 2));
  ASSERT_TRUE(inv.arch.stored_dtype);
  EXPECT_EQ(*inv.arch.stored_dtype, DType::BF16);
  EXPECT_EQ(inv.arch.stored_dtype_source, "index total_size");
  EXPECT_EQ(inv.checkpoint->bytes, kTinyLlamaParameters * 2);
  EXPECT_FALSE(warns_about_total_size(inv));
  for (const InventoryTensor& t : inv.tensors) EXPECT_EQ(t.dtype, DType::BF16) << t.name;
}

TEST(StoredDtype, IndexTotalSizeAtFourBytesKeepsFloat32) {
  TempDir dir;
  const Inventory inv = build_inventory(index_only(dir, kTinyLlamaParameters * 4));
  ASSERT_TRUE(inv.arch.stored_dtype);
  EXPECT_EQ(*inv.arch.stored_dtype, DType::F32);
  EXPECT_FALSE(warns_about_total_size(inv));
}

TEST(StoredDtype, AnIndexThatFitsNoWidthStillWarns) {
  TempDir dir;
  const Inventory inv = build_inventory(index_only(dir, kTinyLlamaParameters * 3));
  EXPECT_FALSE(inv.arch.stored_dtype);
  EXPECT_TRUE(warns_about_total_size(inv)) << "3 bytes per weight is no dtype: the disagreement is reported";
}

TEST(StoredDtype, WidthWithinOnePercentOfTheTotal) {
  // 1,000 fixed bytes (quantized pieces) + 10,000 float elements: bf16 is 21,000 bytes.
  EXPECT_EQ(dtype_from_total_size(21'000, 1'000, 10'000), DType::BF16);
  EXPECT_EQ(dtype_from_total_size(21'200, 1'000, 10'000), DType::BF16)
      << "rotary buffers the template cannot shape";
  EXPECT_EQ(dtype_from_total_size(41'000, 1'000, 10'000), DType::F32);
  EXPECT_FALSE(dtype_from_total_size(30'000, 1'000, 10'000));
  EXPECT_FALSE(dtype_from_total_size(0, 1'000, 10'000));
}

TEST(StoredDtype, HeadersNameTheWidestShareOfFloatWeightsNotTheQuantizedOnes) {
  std::vector<InventoryTensor> rows(3);
  rows[0].dtype = DType::F8_E4M3;
  rows[0].parameters = 1'000'000;  // FP8 expert weights: the quantization's dtype
  rows[1].dtype = DType::BF16;
  rows[1].parameters = 10'000;
  rows[2].dtype = DType::F32;
  rows[2].parameters = 64;  // norms kept in float32
  EXPECT_EQ(dtype_in_headers(rows), DType::BF16);
}

TEST(StoredDtype, RealIndexesWithoutTorchDtype) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  for (const char* name : {"bigscience__bloom", "openai__gpt-oss-20b", "ibm__granite-7b-lab"}) {
    const Inventory inv = build_inventory(locate_local_model((*data / "hf-configs" / name).string()));
    EXPECT_TRUE(inv.arch.torch_dtype.empty()) << name << ": the case is a config without torch_dtype";
    ASSERT_TRUE(inv.arch.stored_dtype) << name;
    EXPECT_EQ(*inv.arch.stored_dtype, DType::BF16) << name;
    EXPECT_FALSE(warns_about_total_size(inv)) << name;
  }
}

}  // namespace
}  // namespace ma::test
