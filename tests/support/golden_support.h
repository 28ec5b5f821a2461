// Golden files under tests/golden/: outputs of the real binary, checked by hand once and guarded against
// regressions by the golden tests (e2e/golden_*_test.cpp). UPDATE_GOLDEN=1 rewrites them instead of
// comparing; GOLDEN_PNG_DIR=DIR also draws every golden picture as PNG into DIR (through the binary's own PNG
// path) so that a reviewer can look at it. Read the diff, and look at every changed picture, before
// committing.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace ma::test {

// tests/golden/ in the source tree.
std::filesystem::path golden_dir();
// Whether UPDATE_GOLDEN is set: the golden tests write what they get instead of comparing.
bool updating_goldens();

// Compares `got` with tests/golden/<relative>, or writes it there when updating (creating its directory).
// A missing golden is a fatal failure.
void expect_golden(const std::string& got, const std::filesystem::path& relative);

// One output of a command: the file extension of its golden and the flags that select it (" --json").
struct GoldenOutput {
  std::string ext;
  std::string flags;
};
// Runs `command` + each output's flags in `dir` (run_cli_in) and compares stdout with
// tests/golden/<stem>.<ext>, after normalize_run when `normalize` is set.
void expect_output_goldens(const std::filesystem::path& dir, const std::string& command,
                           const std::vector<GoldenOutput>& outputs, const std::filesystem::path& stem,
                           bool normalize = false);

// What differs from run to run and nothing else: ISO-8601 UTC timestamps (the CSV's created_at, fractions of
// a second included) become TIMESTAMP, and the measured scan time ("seconds": in the stats and compare JSON)
// and rate ("gb_per_s": stats) become the strings "SECONDS" and "GB_PER_S" (so that the golden stays valid
// JSON). Paths need no normalising where the
// binary runs in the inputs' directory on relative names (run_cli_in).
std::string normalize_run(std::string s);

// The golden inputs the tests write themselves, with fixed values (every one exact in BF16 and F32, so the
// statistics are the same on every machine):
//   fixed-a.safetensors  a Llama-shaped checkpoint of 5 layers (q_proj F32, up_proj BF16 with exact zeros,
//                        input_layernorm BF16), embedding, final norm and LM head; layer 3's q_proj is 8x
//                        wider than the others (an outlier for --trends) and layer 4's up_proj holds a NaN
//                        and an Inf.
//   fixed-b.safetensors  the same after a "fine-tune": layer 2's q_proj x 1.5 + 0.25 (flagged: mean drift
//                        0.25), layer 1's up_proj x 1.25 (not flagged), layer 0's up_proj stored as F32 with
//                        the same values (no drift), lm_head.weight missing, an extra layers.4 q_proj bias.
void write_fixed_checkpoints(const std::filesystem::path& dir);
// The same in `tmp`/fixed: a directory named alike in every run, as titles name a file with its directory.
std::filesystem::path fixed_checkpoints_in(const TempDir& tmp);
// config.json of a tiny gpt-oss model for a dry run: 4 layers alternating sliding-window (32) and full
// attention, GQA 4/2, 4 experts with top-2 routing and their biases, attention sinks.
void write_moe_sliding_window_config(const std::filesystem::path& dir);

}  // namespace ma::test
