// llama.cpp's K and V cache types apart (-ctk / -ctv, plan's --cache-type-k / --cache-type-v): each layer
// caches a row of K in its type and a row of V in its own a token, as llama.cpp's KV buffers hold them.
// Checked against the buffers an ik_llama.cpp build printed for Llama-3.1-8B with an iq4_nl K and an f16 V
// (../shared/data/engines), and against the sizes worked by hand from the config. The flags are read in
// plan_engine_flags_test.cpp.
#include <gtest/gtest.h>

#include "analysis/memory_kv.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/json.h"
#include "engine_memory_runs.h"
#include "test_support.h"

namespace ma::test {
namespace {

constexpr double kCacheMiB = 1024.0 * 1024.0;

// K iq4_nl (18 bytes per 32 values) and V f16 over Llama-3.1-8B's 32 layers of 8 KV heads x 128 at n_ctx
// 1,024: 32 x 1,024 x (1,024 / 32 x 18 + 1,024 x 2) bytes, 18 MiB of K and 64 MiB of V, as it printed.
TEST(PlanCacheTypes, KAndVInTypesOfTheirOwnAreWhatLlamaCppAllocates) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Meta-Llama-3.1-8B");
  const json::Document doc = engine_memory_document(*data_);
  const json::Value* run = engine_memory_row(doc, "ikllama-3090-llama31-8b-k-iq4nl");
  ASSERT_NE(run, nullptr);
  const json::Value& settings = *run->find("settings");
  ASSERT_EQ(settings.find("type_k")->as_string(), "iq4_nl");
  ASSERT_EQ(settings.find("type_v")->as_string(), "f16");
  const json::Value& parsed = *run->find("figures_parsed");

  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec("rtx3090", "--gpu");
  rq.context = parsed.find("n_ctx")->as_uint();
  rq.kv_dtype = DType::IQ4_NL;
  rq.v_dtype = DType::F16;
  const Plan p = make_plan(m->inv, m->report, rq);
  EXPECT_EQ(p.kv_dtype, "iq4_nl");
  EXPECT_EQ(p.v_dtype, "f16");
  const uint64_t k_bytes = 32ull * 1024 * (1024 / 32 * 18), v_bytes = 32ull * 1024 * 1024 * 2;
  EXPECT_EQ(static_cast<double>(k_bytes), parsed.find("k_mib")->as_double() * kCacheMiB);
  EXPECT_EQ(static_cast<double>(v_bytes), parsed.find("v_mib")->as_double() * kCacheMiB);
  const EngineView& e = p.splits.front().budget.engine;
  EXPECT_EQ(e.kv_cache_bytes, k_bytes + v_bytes);
  EXPECT_EQ(static_cast<double>(e.kv_cache_bytes), parsed.find("kv_mib")->as_double() * kCacheMiB);

  // The same V type as K's is the one cache type of before.
  rq.v_dtype = DType::IQ4_NL;
  const Plan same = make_plan(m->inv, m->report, rq);
  EXPECT_TRUE(same.v_dtype.empty());
  EXPECT_EQ(same.splits.front().budget.engine.kv_cache_bytes, 2 * k_bytes);
}

// Each layer's formula and the convention name both types; a K that is its V (cached once) and an MLA
// latent stay K's alone.
TEST(PlanCacheTypes, TheCachePlanNamesBothTypes) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Meta-Llama-3.1-8B");
  const KvCachePlan plan = plan_kv_cache(m->inv.arch, DType::Q8_0, DType::BF16, 4096, {}, DType::F16);
  ASSERT_FALSE(plan.layers.empty());
  // 8 x 128 = 1,024 values a row: q8_0 32 blocks of 34 bytes, f16 2,048 bytes.
  EXPECT_EQ(plan.layers.front().bytes_per_token, 32u * 34 + 2048);
  EXPECT_EQ(plan.per_token, 32u * (32 * 34 + 2048));
  EXPECT_NE(plan.layers.front().formula.find("(34 bytes per 32 K + 2 bytes V)"), std::string::npos)
      << plan.layers.front().formula;
  EXPECT_NE(plan.convention.find("K cache in q8_0, V in f16"), std::string::npos) << plan.convention;

  const auto ds = analyze_dir(*data_ / "hf-configs" / "deepseek-ai__DeepSeek-V3");
  const KvCachePlan latent = plan_kv_cache(ds->inv.arch, DType::Q8_0, DType::BF16, 4096, {}, DType::F16);
  const KvCachePlan k_only = plan_kv_cache(ds->inv.arch, DType::Q8_0, DType::BF16, 4096);
  EXPECT_EQ(latent.per_token, k_only.per_token);
}

}  // namespace
}  // namespace ma::test
