// `plan --engine llama.cpp` against llama.cpp itself: tests/oracle/llama_context_oracle.py writes tiny llama
// and qwen3moe GGUF models with llama.cpp's gguf API (and a Q8_0 quantization of the first) and two with
// recurrent state (Mamba-2, and Falcon-H1's Mamba-2 beside attention), creates a context for each at several
// n_ctx with llama_init_from_model, and records the model, KV, recurrent-state (RS) and compute buffers
// llama.cpp's log reports. The weights, the KV cache and the state are exact (to the log's 0.01 MiB); the
// compute buffer of the attention models is an approximation of llama.cpp's graph allocator, held to 15%.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "analysis/model_report.h"
#include "analysis/plan/plan.h"
#include "core/json.h"
#include "formats/model_files.h"
#include "llama_oracle_support.h"
#include "model/inventory.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kLogResolution = 0.005 * kMiB;  // the log prints MiB with two decimals

TEST(PlanLlamaCpp, KvCacheAndWeightsAreWhatLlamaCppAllocates) {
  const std::string why = llama_oracle_unavailable();
  if (!why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const CommandResult r = run_shell(std::string(kOraclePython) + " " +
                                    quoted(fs::path(MA_SOURCE_DIR) / "tests/oracle/llama_context_oracle.py") +
                                    " " + quoted(llama_lib_dir()) + " " + quoted(dir.path()));
  if (r.exit_code == kLlamaCouldNotLoad) GTEST_SKIP() << "llama.cpp did not start: " << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document contexts = parse_json_file(dir / "contexts.json");
  size_t checked = 0, checked_recurrent = 0;
  for (const json::Value& c : contexts.root().items()) {
    const std::string file(c.find("file")->as_string());
    const uint64_t n_ctx = *c.find("n_ctx")->as_uint();
    SCOPED_TRACE(file + " n_ctx " + std::to_string(n_ctx));
    const LocalModelFiles files = locate_local_model((dir / file).string());
    const Inventory inv = build_inventory(files);
    ReportOptions o;
    o.skip_tokenizer = true;
    const ModelReport report = build_model_report(inv, files, o);
    PlanRequest rq;
    rq.gpus = parse_device_spec("24GB", "--gpu");
    rq.engine = PlanEngine::LlamaCpp;
    rq.context = n_ctx;
    const Plan p = make_plan(inv, report, rq);
    const EngineView& e = p.splits.front().budget.engine;
    // The cache is K/V (attention layers) and recurrent state (Mamba-2 layers: llama.cpp's f32 conv state
    // of the kernel less one column, and SSM state): each buffer rounded in the log.
    // A windowed model's two caches (llama_kv_cache_iswa) are logged apart, each rounded.
    auto mib = [&](const char* key) { return c.find(key) ? c.find(key)->as_double() * kMiB : 0.0; };
    const bool recurrent = c.find("rs_mib") != nullptr;
    double cache_lines = 0;
    for (const json::Value& line : c.find("log")->items())
      cache_lines += line.as_string().find("KV buffer size") != std::string_view::npos ||
                     line.as_string().find("RS buffer size") != std::string_view::npos;
    EXPECT_NEAR(static_cast<double>(e.kv_cache_bytes), mib("kv_mib") + mib("rs_mib"),
                cache_lines * kLogResolution);
    EXPECT_NEAR(static_cast<double>(p.weights_bytes), mib("model_mib"), kLogResolution);
    // The compute buffer of attention models; a recurrent scan's intermediates are not modelled, nor the
    // per-layer inputs of Gemma 3n and 4 and Gemma 3n's four AltUp streams, nor latent attention's own.
    const bool unmodelled =
        file.rfind("gemma3n", 0) == 0 || file.rfind("gemma4", 0) == 0 || file.rfind("deepseek32", 0) == 0;
    if (!recurrent && !unmodelled) {
      EXPECT_NEAR(static_cast<double>(e.activation_peak_bytes) / mib("compute_mib"), 1.0, 0.15);
    }
    checked_recurrent += recurrent;
    ++checked;
  }
  EXPECT_GE(checked, 30u);
  EXPECT_GE(checked_recurrent, 9u);
}

}  // namespace
}  // namespace ma::test
