#include "torch_cases.h"

#include <gtest/gtest.h>

#include <vector>

#include "script_output_cache.h"
#include "test_support.h"

namespace ma::test {

namespace fs = std::filesystem;

std::optional<fs::path> torch_case(const std::string& name) {
  // Keyed by the script's text and the installed torch's version file: another torch writes anew.
  const fs::path script = fs::path(MA_SOURCE_DIR) / "tests" / "support" / "write_torch_cases.py";
  const fs::path torch_version = "/usr/lib/python3/dist-packages/torch/version.py";
  if (!fs::exists(kPython) || !fs::exists(torch_version)) return std::nullopt;
  std::string failure;
  const fs::path cases = cached_script_output(
      "torch-cases", cache_key(read_file(script) + '\0' + read_file(torch_version)),
      [&](const fs::path& staging) {
        const CommandResult w =
            run_shell(std::string(kPython) + " " + quoted(script) + " " + quoted(staging));
        if (w.exit_code != 0)
          return "write_torch_cases.py failed (" + std::to_string(w.exit_code) + "): " + w.err;
        // Each file alone in a directory: a model is read with what lies beside it.
        for (const fs::directory_entry& e :
             std::vector<fs::directory_entry>(fs::directory_iterator(staging), {})) {
          fs::create_directory(staging / e.path().stem());
          fs::rename(e.path(), staging / e.path().stem() / e.path().filename());
        }
        return std::string();
      },
      failure);
  EXPECT_TRUE(failure.empty()) << failure;
  return cases / name / (name + ".pt");
}

}  // namespace ma::test
