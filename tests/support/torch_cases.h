// The PyTorch checkpoints tests/support/write_torch_cases.py writes with torch.save itself (Debian's
// python3-torch): each CASE.pt alone in a directory of the tests' cache (script_output_cache.h), all of them
// written by one run of the script (importing torch takes seconds) for this test process and the next.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace ma::test {

// CASE.pt (a case the script names), or nullopt without torch, where the test skips. A run of the script
// that fails is a test failure, reported here.
std::optional<std::filesystem::path> torch_case(const std::string& name);

}  // namespace ma::test
