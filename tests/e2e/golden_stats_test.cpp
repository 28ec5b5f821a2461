// Golden files for `modelanalyzer stats` (console, --json, --csv, --markdown) of a checkpoint the test writes
// with fixed values, and for `modelanalyzer compare` (console, --json, --csv, --markdown) of it against a
// changed copy (golden_support.h describes both). 8 histogram bins keep the files readable. The binary runs
// in the checkpoints' directory on relative names; normalised, because they differ from run to run: the CSV's
// created_at timestamp and the JSON's measured "seconds". Regenerate with UPDATE_GOLDEN=1 and read the diff.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "golden_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

const std::vector<GoldenOutput> kOutputs = {
    {"txt", ""}, {"json", " --json"}, {"csv", " --quiet --csv -"}, {"md", " --quiet --markdown -"}};

TEST(GoldenStats, FixedCheckpoint) {
  TempDir tmp;
  const fs::path dir = fixed_checkpoints_in(tmp);
  expect_output_goldens(dir, "stats fixed-a.safetensors --bins 8", kOutputs, fs::path("stats") / "fixed-a",
                        true);
}

TEST(GoldenCompare, FixedCheckpoints) {
  TempDir tmp;
  const fs::path dir = fixed_checkpoints_in(tmp);
  expect_output_goldens(dir, "compare fixed-a.safetensors fixed-b.safetensors", kOutputs,
                        fs::path("compare") / "fixed-a-b", true);
}

}  // namespace
}  // namespace ma::test
