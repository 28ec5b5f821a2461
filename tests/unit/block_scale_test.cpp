// The block grid a float8 weight's scale puts on it, and code x scale over a row-major run of elements that
// crosses block and row boundaries.
#include "analysis/block_scale.h"

#include <gtest/gtest.h>

#include <vector>

namespace ma {
namespace {

TEST(BlockScale, GridsOfBlockRowAndTensorScales) {
  // DeepSeek-V3's kv_a_proj_with_mqa: 576 rows in 5 blocks of 128, 7168 columns in 56.
  const auto mla = scale_grid({576, 7168}, {5, 56});
  ASSERT_TRUE(mla);
  EXPECT_EQ(mla->block_rows, 128u);
  EXPECT_EQ(mla->block_cols, 128u);
  const auto row = scale_grid({10, 7}, {10, 1});
  ASSERT_TRUE(row);
  EXPECT_EQ(row->block_rows, 1u);
  EXPECT_GE(row->block_cols, 7u);  // one block spans the row
  const auto tensor = scale_grid({5, 8}, {});
  ASSERT_TRUE(tensor);
  EXPECT_EQ(tensor->grid_rows * tensor->grid_cols, 1u);
  EXPECT_FALSE(scale_grid({4, 4}, {3, 3}));        // no power of two splits 4 into 3
  EXPECT_FALSE(scale_grid({2, 3, 4}, {1, 1, 2}));  // a stack: no grid
}

TEST(BlockScale, ApplyCrossesBlocksAndRows) {
  // A 3 x 5 weight in blocks of 2 x 2: a grid of 2 x 3 scales.
  const auto grid = scale_grid({3, 5}, {2, 3});
  ASSERT_TRUE(grid);
  BlockScale s;
  s.cols = 5;
  s.block_rows = grid->block_rows;
  s.block_cols = grid->block_cols;
  s.grid_cols = grid->grid_cols;
  s.scales = {1, 2, 3, 10, 20, 30};
  std::vector<float> v(15, 1.0f);
  s.apply(0, v.data(), 7);  // row 0 whole, then row 1's first two
  s.apply(7, v.data() + 7, 8);
  const std::vector<float> want = {1,  1,  2,  2,  3,  //
                                   1,  1,  2,  2,  3,  //
                                   10, 10, 20, 20, 30};
  EXPECT_EQ(v, want);
}

}  // namespace
}  // namespace ma
