// What tests/oracle/llama_gguf_oracle.py reports of the tiny GGUF models it has llama.cpp write and load: one
// LlamaReport per file, and the run that makes them (once per test suite). Shared by the tests that hold our
// GGUF reading (gguf_llama_oracle_test.cpp) and our Hugging Face templates (hf_twin_llama_oracle_test.cpp)
// against what llama.cpp built.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "test_support.h"

namespace ma::test {

// One ggml tensor info as llama.cpp's gguf_init_from_file reads it.
struct LlamaTensor {
  int type = -1;
  std::vector<int64_t> ne;  // ggml's four dimensions, fastest first, unused ones 1
  uint64_t offset = 0, size = 0;
};

// What llama.cpp reported for one file.
struct LlamaReport {
  std::string file, arch, ftype;
  uint64_t n_params = 0, size = 0, data_offset = 0;
  int64_t n_layer = 0, n_embd = 0, n_head = 0, n_ctx_train = 0;
  std::optional<int64_t> n_head_kv, n_swa;
  std::vector<std::pair<std::string, std::string>> meta;
  std::map<std::string, LlamaTensor> tensors;
  std::map<std::string, std::string> print_info;  // the hyperparameters llama.cpp logged as it loaded
  std::vector<int64_t> is_swa;                    // per layer, from its log: 1 where it slides a window

  // Latent attention stored absorbed (key_length_mla: one K/V head of kv_lora_rank + rope dims, the
  // per-head sizes under *_mla), as files converted since mid-2025 and every DeepSeek-V3.2 one are.
  bool absorbed_mla() const { return meta_value(arch + ".attention.key_length_mla") != nullptr; }
  const std::string* meta_value(const std::string& key) const {
    for (const auto& [k, v] : meta)
      if (k == key) return &v;
    return nullptr;
  }
  // The elements of llama.cpp's rope_freqs tensor (Llama 3.1's frequency factors): a tensor to llama.cpp,
  // a buffer to transformers (inv_freq, never a parameter).
  uint64_t rope_factor_elements() const;
};

// The oracle script's run (kept in MA_TEST_CACHE_DIR: see run_llama_gguf_oracle): its reports, or why there
// are none (`skip_reason`: the machine lacks python3, numpy or llama.cpp's libraries, or llama.cpp would not
// load its own files; `failure`: the script or its output is broken).
struct LlamaOracleRun {
  std::string skip_reason, failure;
  std::filesystem::path dir;  // the oracle's files: read them, never write there (a cache shared by tests)
  std::vector<LlamaReport> reports;
  std::filesystem::path path_of(const LlamaReport& r) const { return dir / r.file; }
};
LlamaOracleRun run_llama_gguf_oracle();

// A cache key (script_output_cache.h) over the oracle scripts' text (tests/oracle/*.py) and each llama.cpp
// library's name, size and modification time: a new script or another llama.cpp build is a new key.
std::string llama_oracle_inputs_key();

// A test suite over the oracle's run (the first test process runs it, later ones read its files), skipped
// with the reason where it cannot run.
class LlamaOracleSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = run_llama_gguf_oracle(); }
  static void TearDownTestSuite() { run_ = {}; }
  void SetUp() override {
    if (!run_.skip_reason.empty()) GTEST_SKIP() << run_.skip_reason;
    ASSERT_TRUE(run_.failure.empty()) << run_.failure;
    ASSERT_FALSE(run_.reports.empty());
  }
  static inline LlamaOracleRun run_;
};

}  // namespace ma::test
