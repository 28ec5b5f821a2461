// Golden files for `modelanalyzer perf` of the built-in example on the datasheet H200, in decode and in
// prefill: the console summary, --json and the Markdown study (--report). The model is analytic (no timing
// is measured) and the binary runs in the example's parent directory on a relative name, so nothing needs
// normalising. Regenerate with UPDATE_GOLDEN=1 (see golden_support.h) and read the diff.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "golden_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

void expect_perf_goldens(const std::string& mode) {
  expect_output_goldens(example_dir().parent_path(),
                        "perf " + example_dir().filename().string() + " --hw h200 --mode " + mode,
                        {{"txt", ""}, {"json", " --json"}, {"md", " --quiet --report -"}},
                        fs::path("perf") / ("example-h200-" + mode), /*normalize=*/true);
}

TEST(GoldenPerf, ExampleDecodeOnH200) {
  expect_perf_goldens("decode");
}

TEST(GoldenPerf, ExamplePrefillOnH200) {
  expect_perf_goldens("prefill");
}

}  // namespace
}  // namespace ma::test
