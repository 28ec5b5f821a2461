// Every family's tensors have a place. The template each builder makes from its config class's defaults (a
// config.json holding its model_type alone) puts no tensor, under its name in memory or on disk, in block
// "other": a block breakdown, the towers set aside, the FLOPs per block and the quantization advice all read
// the block, and "other" tells the user nothing. A new family whose names no rule knows fails here, not in a
// user's report.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/family_registry.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

TEST(EveryFamilyPlacement, NoTensorIsLeftInOther) {
  size_t built = 0;
  for (const FamilyBuilder& f : all_family_builders()) {
    ModelTemplate t;
    try {
      t = template_of(R"({"model_type":")" + std::string(f.model_type) + R"("})");
    } catch (const Error&) {
      continue;  // its config class has no defaults for a field it needs (a backbone, a text_config)
    }
    ++built;
    for (const TemplateTensor& x : t.tensors) {
      EXPECT_NE(place_tensor(x.name).block, Block::Other) << f.model_type << ": " << x.name;
      for (const DiskPiece& piece : x.disk)
        EXPECT_NE(place_tensor(piece.name).block, Block::Other) << f.model_type << ": " << piece.name;
    }
  }
  // Most builders read their config class's defaults; the few that cannot are covered by their own tests.
  EXPECT_GT(built, 300u);
}

}  // namespace
}  // namespace ma::test
