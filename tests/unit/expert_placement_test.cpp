// The inventory places a routed expert's piece once per template piece and reuses it for every expert
// (model/inventory.cpp, ExpertPlacements). That holds only if a piece's placement never depends on the
// expert's index: checked here for every per-expert tensor of every MoE config in ../shared/data.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "io/file_source.h"
#include "model/config.h"
#include "model/family_registry.h"
#include "model/model_template.h"
#include "model/tensor_placement.h"
#include "test_support.h"

namespace ma::test {
namespace {

bool same_place(const TensorPlacement& a, const TensorPlacement& b) {
  return a.layer == b.layer && a.stack_length == b.stack_length && a.block == b.block && a.role == b.role;
}

TEST(ExpertPlacement, NeverDependsOnTheExpertIndex) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  size_t models = 0, pieces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(*data / "hf-configs")) {
    const auto config_path = entry.path() / "config.json";
    if (!std::filesystem::exists(config_path)) continue;
    std::optional<ModelTemplate> model;
    try {
      model = build_template(ModelConfig::parse(read_small_file(config_path, 1 << 24), config_path.string()));
    } catch (const Error&) {
      continue;  // an architecture without a template has no expert pieces to place
    }
    bool moe = false;
    for (const TemplateTensor& t : model->tensors) {
      if (!t.per_expert) continue;
      moe = true;
      const PerExpertPieces& pe = *t.per_expert;
      for (uint32_t part = 0; part < pe.parts.size(); ++part) {
        const TensorPlacement first = place_tensor(pe.name(0, part));
        EXPECT_EQ(first.block, Block::MoeExpert) << pe.name(0, part);
        for (uint32_t e : {1u, pe.experts / 2, pe.experts - 1}) {
          if (e >= pe.experts) continue;
          EXPECT_TRUE(same_place(first, place_tensor(pe.name(e, part))))
              << pe.name(e, part) << " is not placed like " << pe.name(0, part);
        }
        ++pieces;
      }
    }
    models += moe;
  }
  EXPECT_GE(models, 5u) << "the MoE configs of ../shared/data (Mixtral, DeepSeek-V3, Qwen3-MoE, ...)";
  EXPECT_GT(pieces, 0u);
}

}  // namespace
}  // namespace ma::test
