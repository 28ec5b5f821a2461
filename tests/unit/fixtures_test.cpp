// Real checkpoints written by transformers/safetensors (../shared/data/fixtures): their headers parse, the
// parameter count equals what the writing model reported, every stored tensor is placed (layer, block, role),
// and the headers agree with our template (no warnings).
#include <gtest/gtest.h>

#include "analysis/parameter_counts.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> safetensors_fixtures() {
  std::vector<std::string> names;
  if (auto data = test::shared_data())
    for (const auto& e : fs::directory_iterator(*data / "fixtures"))
      if (e.is_directory() && fs::exists(e.path() / "config.json") &&
          (fs::exists(e.path() / "model.safetensors") ||
           fs::exists(e.path() / "model.safetensors.index.json")))
        names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  if (names.empty()) names.push_back("NO_SHARED_DATA");
  return names;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, HeadersMatchTemplateAndCount) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  fs::path dir = *data / "fixtures" / GetParam();
  json::Document expected = test::parse_json_file(dir / "EXPECTED.json");
  Inventory inv = build_inventory(locate_local_model(dir.string()));
  ASSERT_EQ(inv.origin, InventoryOrigin::Headers);
  ParameterCounts c = count_parameters(inv);
  // A quantized checkpoint's count is the logical count of its original (issue: quantization report).
  const json::Value* logical = expected.root().find("logical_params_of_original");
  uint64_t want = logical ? *logical->as_uint() : *expected.root().find("num_params")->as_uint();
  EXPECT_EQ(c.total, want);
  for (const InventoryTensor& t : inv.tensors) {
    EXPECT_NE(t.placement.block, Block::Other) << t.name << " has no block";
    if (t.stored) {
      EXPECT_TRUE(t.file_index.has_value()) << t.name;
    }
  }
  std::string warnings;
  for (const auto& w : inv.warnings) warnings += "  " + w + "\n";
  EXPECT_TRUE(inv.warnings.empty()) << "headers disagree with the template:\n" << warnings;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(safetensors_fixtures()),
                         test::ParamName());

}  // namespace
}  // namespace ma
