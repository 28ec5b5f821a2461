// SGLang's default mem_fraction_static, as its server_args.py derives it at start-up (since its PR #10975 of
// October 2025, _handle_gpu_memory_settings): every expected value below is worked by hand from that code, in
// MiB of the GPU's memory — reserved = 512 + 1.5 x max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs
// + tp x pp / 8 x 1024, at least 10,240 over 60 GiB; fraction = round((memory - reserved) / memory, 3).
#include <gtest/gtest.h>

#include <string>

#include "analysis/plan/plan.h"
#include "analysis/plan/plan_engine.h"
#include "analyzed_model.h"
#include "test_support.h"

namespace ma::test {
namespace {

TEST(SglangFraction, EachMemoryBucketReservesWhatSglangReserves) {
  struct Case {
    uint64_t gib;
    uint32_t tp, pp;
    uint64_t chunk, graphs, reserved;
    double fraction;
  };
  const Case cases[] = {
      // 16 GiB (T4): chunk 2,048, 8 graphs: 512 + 3,072 + 16 + 128 = 3,728; 12,656 / 16,384 = 0.7725
      {16, 1, 1, 2048, 8, 3728, 0.772},
      // 24 GiB (L4) at TP 1: 24 graphs: 512 + 3,072 + 48 + 128 = 3,760; 20,816 / 24,576 = 0.8470
      {24, 1, 1, 2048, 24, 3760, 0.847},
      // 24 GiB at TP 4: 80 graphs: 512 + 3,072 + 160 + 512 = 4,256; 20,320 / 24,576 = 0.8268
      {24, 4, 1, 2048, 80, 4256, 0.827},
      // 40 GiB (A100 40GB) at TP 2: chunk 4,096, 32 graphs: 512 + 6,144 + 64 + 256 = 6,976; 33,984 / 40,960
      {40, 2, 1, 4096, 32, 6976, 0.830},
      // 80 GiB at TP 1: chunk 8,192, 256 graphs: 512 + 12,288 + 512 + 128 = 13,440; 68,480 / 81,920 = 0.8359
      {80, 1, 1, 8192, 256, 13440, 0.836},
      // 80 GiB at TP 2 x PP 2: TP under 4 keeps 256 graphs; 512 + 12,288 + 512 + 512 = 13,824 -> 0.8313
      {80, 2, 2, 8192, 256, 13824, 0.831},
      // 80 GiB at TP 4: 512 graphs: 512 + 12,288 + 1,024 + 512 = 14,336; 67,584 / 81,920 = 0.825
      {80, 4, 1, 8192, 512, 14336, 0.825},
      // 141 GiB (H200) at TP 1: the same as 80 GiB, over more memory: 130,944 / 144,384 = 0.9069
      {141, 1, 1, 8192, 256, 13440, 0.907},
      // 192 GiB at TP 8: chunk 16,384, 512 graphs: 512 + 24,576 + 1,024 + 1,024 = 27,136; 169,472 / 196,608
      {192, 8, 1, 16384, 512, 27136, 0.862},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.gib) + " GiB, TP " + std::to_string(c.tp) + " PP " + std::to_string(c.pp));
    const SglangFraction f = sglang_default_fraction(c.gib << 30, c.tp, c.pp);
    EXPECT_EQ(f.memory_mib, c.gib * 1024);
    EXPECT_EQ(f.chunked_prefill, c.chunk);
    EXPECT_EQ(f.cuda_graph_max_bs, c.graphs);
    EXPECT_EQ(f.reserved_mib, c.reserved);
    EXPECT_DOUBLE_EQ(f.fraction, c.fraction);
  }
}

// A plan under SGLang without --mem-fraction-static sizes the pool with the fraction of each split (a larger
// TP reserves more) and shows how it was derived; a stated fraction is used as given, with no such line.
TEST(SglangFraction, APlanUsesTheDefaultOfItsSplitUnlessOneIsStated) {
  const std::unique_ptr<AnalyzedModel> m = analyze_dir(MA_EXAMPLE_DIR);  // the built-in tiny Llama
  PlanRequest rq;
  rq.gpus = parse_device_spec("80GiB", "--gpu");
  rq.engine = PlanEngine::Sglang;
  const Plan p = make_plan(m->inv, m->report, rq);
  const std::string& derived = p.splits.front().budget.engine.formulas.front();
  EXPECT_NE(derived.find("SGLang's default mem_fraction_static = round((81,920 MiB - reserved 13,440 MiB)"),
            std::string::npos)
      << derived;
  EXPECT_NE(p.splits.front().budget.engine.formulas.at(1).find("mem_fraction_static 0.836 x"),
            std::string::npos)
      << p.splits.front().budget.engine.formulas.at(1);

  rq.knobs.mem_fraction_static = 0.5;
  const Plan stated = make_plan(m->inv, m->report, rq);
  for (const std::string& f : stated.splits.front().budget.engine.formulas)
    EXPECT_EQ(f.find("default mem_fraction_static"), std::string::npos) << f;
  EXPECT_NE(stated.splits.front().budget.engine.formulas.front().find("mem_fraction_static 0.500 x"),
            std::string::npos)
      << stated.splits.front().budget.engine.formulas.front();
  EXPECT_LT(stated.splits.front().budget.engine.kv_cache_bytes,
            p.splits.front().budget.engine.kv_cache_bytes);
}

}  // namespace
}  // namespace ma::test
