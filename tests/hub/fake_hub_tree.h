// The fake Hub's served tree: model-info JSON, non-LFS files and LFS blobs written under www/, sparse where a
// file is mostly zeros, and damaged on disk for the truncated and corrupt modes.
#pragma once

#include <vector>

#include "fake_hub_layout.h"
#include "fake_hub_plan.h"

namespace ma::test::detail {

// Replaces www/ with the tree of `repos` (and creates the empty root and nginx's tmp/).
void write_served_tree(const Layout& lay, const std::vector<RepoPlan>& repos);

}  // namespace ma::test::detail
