// Golden files for `modelanalyzer tensors`: console, --json and --csv of the built-in example (a checkpoint:
// tensors from the headers) and of a dry run of a gpt-oss config the test writes (MoE with routed experts and
// their biases, alternating sliding-window and full attention, attention sinks: tensors from the template).
// The binary runs in the model's parent directory on a relative name, so no path needs normalising and the
// outputs hold no timestamps. Regenerate with UPDATE_GOLDEN=1 (see golden_support.h) and read the diff.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "golden_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

// Every output of `tensors` for `model` (relative to `dir`) against tests/golden/tensors/<name>.*.
void expect_tensors_goldens(const fs::path& dir, const std::string& model, const std::string& name) {
  expect_output_goldens(dir, "tensors " + model,
                        {{"txt", ""}, {"json", " --json"}, {"csv", " --quiet --csv -"}},
                        fs::path("tensors") / name, /*normalize=*/true);
}

TEST(GoldenTensors, BuiltInExample) {
  expect_tensors_goldens(example_dir().parent_path(), example_dir().filename().string(), "example");
}

TEST(GoldenTensors, MoeSlidingWindowDryRun) {
  TempDir tmp;
  fs::create_directories(tmp / "gpt-oss-tiny");
  write_moe_sliding_window_config(tmp / "gpt-oss-tiny");
  expect_tensors_goldens(tmp.path(), "gpt-oss-tiny", "gpt-oss-moe-sliding-window");
}

}  // namespace
}  // namespace ma::test
