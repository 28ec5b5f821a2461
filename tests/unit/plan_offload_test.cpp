// llama.cpp's CPU offload (analysis/plan/offload.h) against llama.cpp's own rules worked by hand from the
// configs: -ngl counts the output as a layer (src/llama-model.cpp: i_gpu_start = n_layer + 1 -
// n_gpu_layers), the GPU layers split as llama_model::load_tensors splits them (layer i of the n slots on the
// first device whose cumulative share exceeds i / n), --n-cpu-moe K keeping the routed experts of layers 0 to
// K - 1 in CPU RAM whichever GPU holds those layers (common/arg.cpp), and each layer's KV cache on its own
// layer's device (src/llama-kv-cache.cpp: the buffer type of model.dev_layer(il)); every GPU must hold its
// own share. The KV buffers per GPU are also checked against what llama.cpp b5271 printed
// (../shared/data/engines).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "analysis/perf/hardware.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/json.h"
#include "engine_memory_runs.h"
#include "io/file_source.h"
#include "report/plan_words.h"
#include "test_support.h"

namespace ma::test {
namespace {

constexpr uint64_t kOffloadGiB = 1ull << 30;
constexpr double kOffloadMiB = 1024.0 * 1024.0;

// int4 g128 as the plan sizes it: half a byte a weight and an fp16 scale and zero point per 128 weights.
constexpr uint64_t offload_int4_bytes(uint64_t weights) {
  return weights / 2 + weights / 128 * 4;
}

// Qwen3-235B-A22B (config.json: hidden 4,096, 64 query and 4 KV heads of 128, 128 experts of 1,536, 94
// layers, vocabulary 151,936, untied head) in int4 on two RTX 3090s, n_ctx 16,384 with a q8_0 cache.
struct Qwen3OnTwo3090s {
  // A layer's weights by hand: its attention in int4 (q and o 4,096 x 8,192, k and v 4,096 x 512), the
  // router (4,096 x 128) and norms (2 x 4,096 + 2 x 128) in bf16; its 128 experts' gate, up and down
  // (4,096 x 1,536 each) in int4; the output is the bf16 head (151,936 x 4,096) and final norm; each layer's
  // cache 4 KV heads x 128 x 2 (K, V) in q8_0 (34 bytes per 32) x 16,384 cells.
  static constexpr uint64_t dense = offload_int4_bytes(2 * 4096ull * 8192 + 2 * 4096ull * 512) +
                                    4096ull * 128 * 2 + (2 * 4096 + 2 * 128) * 2;
  static constexpr uint64_t experts = offload_int4_bytes(128ull * 3 * 4096 * 1536);
  static constexpr uint64_t output = 151'936ull * 4096 * 2 + 4096 * 2;
  static constexpr uint64_t kv_layer = 4ull * 128 * 2 * 34 / 32 * 16'384;
  // Each GPU's memory: the 23.58 GiB CUDA reports for an RTX 3090 (the hardware table's), and its compute
  // buffer, as the plan sizes them.
  uint64_t gpu = 0, buffer = 0;
  explicit Qwen3OnTwo3090s(const OffloadDevice& d) : gpu(d.capacity), buffer(d.compute_buffer) {
    EXPECT_NEAR(static_cast<double>(gpu) / kOffloadGiB, 23.58, 0.005);
  }

  // The bytes each GPU holds when the first takes layers [0, c) (c = 95: every layer and the output) and
  // the second the rest and the output, with --n-cpu-moe k keeping layers 0 to k - 1's experts in RAM.
  uint64_t first(uint32_t c, uint32_t k) const {
    const uint32_t layers = std::min(c, 94u);
    return layers * (dense + kv_layer) + (layers - std::min(k, layers)) * experts + (c == 95 ? output : 0) +
           buffer;
  }
  uint64_t second(uint32_t c, uint32_t k) const {
    if (c == 95) return buffer;
    return (94 - c) * (dense + kv_layer) + (94 - std::max(k, c)) * experts + output + buffer;
  }
  bool fits(uint32_t c, uint32_t k) const { return first(c, k) <= gpu && second(c, k) <= gpu; }
};

OffloadPlan qwen3_on_two_3090s(const AnalyzedModel& m, std::vector<double> tensor_split = {},
                               std::optional<uint32_t> ngl = {}, std::optional<uint32_t> cpu_moe = {}) {
  PlanRequest rq;
  rq.knobs.tensor_split = std::move(tensor_split);
  rq.knobs.n_gpu_layers = ngl;
  rq.knobs.n_cpu_moe = cpu_moe;
  rq.gpus = parse_device_spec("2xrtx3090", "--gpu");
  rq.engine = PlanEngine::LlamaCpp;
  rq.precision = WeightPrecision::INT4;
  rq.kv_dtype = DType::Q8_0;
  rq.context = 16'384;
  rq.cpu_ram = 256 * kOffloadGiB;
  const Plan p = make_plan(m.inv, m.report, rq);
  if (!p.offload) throw std::runtime_error("no offload plan");
  return *p.offload;
}

// llama.cpp's default split of that model, as the review found its --n-cpu-moe advice overfilling the second
// GPU by 20 GiB (it checked the sum of both).
TEST(PlanOffload, EveryGpuHoldsItsOwnShareOfLlamaCppsSplit) {
  LOAD_CONFIG_OR_SKIP(m, "Qwen__Qwen3-235B-A22B");
  const OffloadPlan o = qwen3_on_two_3090s(*m);
  ASSERT_TRUE(o.default_split) << "a -ts of its own holds more than the default split";
  const OffloadDefaultSplit& d = *o.default_split;
  ASSERT_EQ(d.devices.size(), 2u);

  // Every layer and the output on the GPUs: -ngl 95. 95 slots over two equal shares: i / 95 < 0.5 for
  // i <= 47, so layers 0-47 on the first and 48-93 and the output on the second (llama.cpp's 48 and 46).
  EXPECT_EQ(d.ngl, 95u);
  EXPECT_EQ(d.devices[0].first_layer, 0u);
  EXPECT_EQ(d.devices[0].end_layer, 48u);
  EXPECT_EQ(d.devices[1].end_layer, 94u);
  EXPECT_TRUE(d.devices[1].output);

  // Each GPU's KV buffer is what llama.cpp b5271 printed for these 48 and 46 layers.
  const json::Document doc = engine_memory_document(*data_);
  const json::Value* run = engine_memory_row(doc, "llamacpp-b5271-2x3090-qwen3-235b-q6k-hybrid");
  ASSERT_NE(run, nullptr);
  const json::Value* parsed = run->find("figures_parsed");
  const Qwen3OnTwo3090s q(d.devices[1]);
  EXPECT_EQ(d.devices[0].kv, 48 * q.kv_layer);
  EXPECT_EQ(d.devices[1].kv, 46 * q.kv_layer);
  EXPECT_DOUBLE_EQ(static_cast<double>(d.devices[0].kv),
                   parsed->find("kv_mib_cuda0")->as_double() * kOffloadMiB);
  EXPECT_DOUBLE_EQ(static_cast<double>(d.devices[1].kv),
                   parsed->find("kv_mib_cuda1")->as_double() * kOffloadMiB);

  // --n-cpu-moe K takes the experts of layers 0 to K - 1 off whichever GPU holds them: the smallest K with
  // both GPUs within their memory (the first holds 48 layers' attention alone once K passes 48).
  uint32_t k = 0;
  while (!q.fits(48, k)) ++k;
  EXPECT_GT(k, 48u) << "the second GPU's experts must go too, which a summed check never asked for";
  EXPECT_EQ(d.cpu_moe_layers, k);
  EXPECT_EQ(d.devices[1].weights, 46 * q.dense + (94 - k) * q.experts + q.output);
  for (const OffloadDevice& dev : d.devices) EXPECT_TRUE(dev.fits()) << "GPU from layer " << dev.first_layer;
  EXPECT_TRUE(d.gpus_fit);
}

// The default split leaves the first GPU half empty once its layers' experts are in RAM; a -ts that gives it
// more layers keeps fewer experts off the GPUs. The plan's -ts is checked against every split of the 95
// slots worked by hand: with one --n-cpu-moe layer fewer none fits, with its own the one it gives fits and
// leaves the fuller GPU as much free memory as any split can.
TEST(PlanOffload, ATensorSplitOfItsOwnKeepsFewerExpertsOnTheCpu) {
  LOAD_CONFIG_OR_SKIP(m, "Qwen__Qwen3-235B-A22B");
  const OffloadPlan o = qwen3_on_two_3090s(*m);
  ASSERT_TRUE(o.default_split);
  ASSERT_EQ(o.tensor_split.size(), 2u);
  ASSERT_EQ(o.devices.size(), 2u);
  const Qwen3OnTwo3090s q(o.devices[0]);

  EXPECT_EQ(o.ngl, 95u);
  EXPECT_EQ(o.tensor_split[0] + o.tensor_split[1], 95.0);  // -ts counts the output as a slot, like -ngl
  EXPECT_FALSE(o.tensor_split_given);
  const uint32_t k = o.cpu_moe_layers, c = static_cast<uint32_t>(o.tensor_split[0]);
  EXPECT_EQ(c, o.tensor_split[0]) << "whole slots";
  EXPECT_LT(k, o.default_split->cpu_moe_layers);
  ASSERT_GT(k, 0u);
  for (uint32_t split = 0; split <= 95; ++split) EXPECT_FALSE(q.fits(split, k - 1)) << "first GPU " << split;
  ASSERT_TRUE(q.fits(c, k));
  auto fuller_free = [&](uint32_t split) { return q.gpu - std::max(q.first(split, k), q.second(split, k)); };
  for (uint32_t split = 0; split <= 95; ++split)
    if (q.fits(split, k)) {
      EXPECT_LE(fuller_free(split), fuller_free(c)) << "first GPU " << split;
    }

  // llama.cpp's own rule, given -ts c,95-c, puts layers 0 to c - 1 on the first GPU and the rest and the
  // output on the second, each holding what the count by hand says.
  EXPECT_EQ(o.devices[0].first_layer, 0u);
  EXPECT_EQ(o.devices[0].end_layer, c);
  EXPECT_TRUE(o.devices[1].output);
  EXPECT_EQ(o.devices[0].used(), q.first(c, k));
  EXPECT_EQ(o.devices[1].used(), q.second(c, k));
  EXPECT_TRUE(o.fits);
  // In CPU RAM: the token embedding (bf16) and the first K layers' experts; no layer's cache.
  EXPECT_EQ(o.cpu_bytes, 151'936ull * 4096 * 2 + k * q.experts);
  EXPECT_EQ(o.cpu_kv_bytes, 0u);
  // Fewer experts read from RAM at 50 GB/s: a faster decode than the default split's.
  ASSERT_TRUE(o.decode_tokens_per_s && o.default_split->decode_tokens_per_s);
  EXPECT_GT(*o.decode_tokens_per_s, *o.default_split->decode_tokens_per_s);
  EXPECT_TRUE(o.formula.starts_with("-ngl 95 --n-cpu-moe " + std::to_string(k) + " -ts " + std::to_string(c) +
                                    "," + std::to_string(95 - c) + ": "))
      << o.formula;
}

// The user's --tensor-split is held to: llama.cpp's rule puts layer i of the 95 slots on the first GPU
// whose cumulative share exceeds i / 95, and --n-cpu-moe is the fewest that split needs, worked by hand;
// no split of the plan's own replaces it.
TEST(PlanOffload, ATensorSplitGivenIsHeldTo) {
  LOAD_CONFIG_OR_SKIP(m, "Qwen__Qwen3-235B-A22B");
  struct Case {
    std::vector<double> ts;
    uint32_t first_gpu_slots;  // by hand: the i with i / 95 below the first GPU's share
    const char* flag;
  };
  // 3,1: i / 95 < 0.75 for i <= 71; 1,1: i <= 47 (llama.cpp's default split of two equal GPUs); 1,0: all.
  for (const Case& c : {Case{{3, 1}, 72, "3,1"}, Case{{1, 1}, 48, "1,1"}, Case{{1, 0}, 95, "1,0"}}) {
    SCOPED_TRACE(c.flag);
    const OffloadPlan o = qwen3_on_two_3090s(*m, c.ts);
    ASSERT_EQ(o.devices.size(), 2u);
    const Qwen3OnTwo3090s q(o.devices[0]);
    uint32_t k = 0;
    while (k < 94 && !q.fits(c.first_gpu_slots, k)) ++k;
    ASSERT_TRUE(q.fits(c.first_gpu_slots, k));
    EXPECT_EQ(o.ngl, 95u);
    EXPECT_EQ(o.cpu_moe_layers, k);
    EXPECT_EQ(o.devices[0].end_layer, std::min(c.first_gpu_slots, 94u));
    EXPECT_EQ(o.devices[0].used(), q.first(c.first_gpu_slots, k));
    EXPECT_EQ(o.devices[1].used(), q.second(c.first_gpu_slots, k));
    EXPECT_TRUE(o.tensor_split_given);
    EXPECT_EQ(o.tensor_split, c.ts);
    EXPECT_FALSE(o.default_split);
    EXPECT_TRUE(o.formula.starts_with("-ngl 95 --n-cpu-moe " + std::to_string(k) + " -ts " + c.flag + ": "))
        << o.formula;
  }
  // Two equal shares are the default split of two equal GPUs: the same --n-cpu-moe the default needs.
  EXPECT_EQ(qwen3_on_two_3090s(*m, {1, 1}).cpu_moe_layers,
            qwen3_on_two_3090s(*m).default_split->cpu_moe_layers);
}

// -ngl and --n-cpu-moe the user gives are held to and the rest chosen around them; `fits` says whether they
// hold, worked by hand: one --n-cpu-moe layer fewer than the plan's own fits no split, and every layer's
// experts in RAM leaves llama.cpp's default split (48 and 46 layers) holding attention and cache alone.
TEST(PlanOffload, FlagsGivenAreHeldTo) {
  LOAD_CONFIG_OR_SKIP(m, "Qwen__Qwen3-235B-A22B");
  const OffloadPlan best = qwen3_on_two_3090s(*m);
  ASSERT_TRUE(best.fits);
  const uint32_t k = best.cpu_moe_layers;
  ASSERT_GT(k, 0u);

  const OffloadPlan fewer = qwen3_on_two_3090s(*m, {}, 95, k - 1);
  EXPECT_TRUE(fewer.ngl_given && fewer.cpu_moe_given);
  EXPECT_EQ(fewer.ngl, 95u);
  EXPECT_EQ(fewer.cpu_moe_layers, k - 1);
  EXPECT_FALSE(fewer.fits);

  // The plan's own --n-cpu-moe given: the same -ts found for it.
  const OffloadPlan same = qwen3_on_two_3090s(*m, {}, {}, k);
  EXPECT_TRUE(same.fits);
  EXPECT_EQ(same.tensor_split, best.tensor_split);
  EXPECT_FALSE(same.ngl_given);
  EXPECT_FALSE(same.ngl_asked);

  // --cpu-moe (above the layers: all 94) with -ngl 999 (all 95 slots): the default split holds it, no -ts.
  const OffloadPlan all = qwen3_on_two_3090s(*m, {}, 999, 1u << 20);
  const Qwen3OnTwo3090s q(all.devices[0]);
  EXPECT_EQ(all.ngl, 95u);
  EXPECT_EQ(all.ngl_asked, 999u);  // as typed, beside the slots it takes
  EXPECT_EQ(all.cpu_moe_layers, 94u);
  EXPECT_TRUE(all.tensor_split.empty());
  EXPECT_EQ(all.devices[0].used(), q.first(48, 94));
  EXPECT_EQ(all.devices[1].used(), q.second(48, 94));
  EXPECT_TRUE(all.fits);
  EXPECT_EQ(all.cpu_bytes, 151'936ull * 4096 * 2 + 94 * q.experts);
}

// Offload flags the user gives ask about that command line: the verdict answers it before naming a narrower
// precision that would fit (Llama-3.1-8B's 16 GB of bf16 on a 12 GB GPU under vLLM: fp8 fits).
TEST(PlanOffload, TheVerdictAnswersTheFlagsGiven) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Meta-Llama-3.1-8B");
  PlanRequest rq;
  rq.gpus = parse_device_spec("12GB", "--gpu");
  rq.engine = PlanEngine::Vllm;
  rq.cpu_ram = 64 * kOffloadGiB;
  const Plan chosen = make_plan(m->inv, m->report, rq);
  ASSERT_FALSE(chosen.fits);
  ASSERT_TRUE(chosen.widest_fitting);
  EXPECT_NE(plan_verdict(chosen).find("; fits in fp8"), std::string::npos) << plan_verdict(chosen);
  rq.knobs.n_gpu_layers = 20;
  const Plan asked = make_plan(m->inv, m->report, rq);
  EXPECT_NE(plan_verdict(asked).find("; fits with CPU offload (-ngl 20)"), std::string::npos)
      << plan_verdict(asked);
}

// Llama-3.3-70B (hidden 8,192, 8 KV heads of 128, FFN 28,672, 80 layers) in int4 on an RTX 4090 at n_ctx
// 131,072: 0.5 GiB of f16 cache a layer. Each layer's cache lives on its layer's device, so the layers left
// on the CPU keep theirs in RAM; the review found every layer's cache put on the GPU, -ngl 0 and "fits no"
// where 128 GB of RAM holds the rest.
TEST(PlanOffload, EachLayersCacheLivesOnItsLayersDeviceAndIsReadEachStep) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Llama-3.3-70B-Instruct");
  PlanRequest rq;
  rq.gpus = parse_device_spec("rtx4090", "--gpu");
  rq.engine = PlanEngine::LlamaCpp;
  rq.precision = WeightPrecision::INT4;
  rq.context = 131'072;
  rq.cpu_ram = 128 * kOffloadGiB;
  const Plan p = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(p.offload);
  const OffloadPlan& o = *p.offload;
  ASSERT_EQ(o.devices.size(), 1u);

  const uint64_t kv_layer = 8ull * 128 * 2 * 2 * 131'072;  // 0.5 GiB
  const uint64_t layer = offload_int4_bytes(2 * 8192ull * 8192 + 2 * 8192ull * 1024 + 3 * 8192ull * 28'672) +
                         2 * 8192 * 2;  // its two norms in bf16
  const uint64_t output = 128'256ull * 8192 * 2 + 8192 * 2;
  const uint64_t embedding = 128'256ull * 8192 * 2;
  // As many of the last layers as fit beside the output and the compute buffer, each with its cache.
  const uint64_t room = 24 * kOffloadGiB - o.devices[0].compute_buffer - output;
  const uint32_t on_gpu = static_cast<uint32_t>(room / (layer + kv_layer));
  ASSERT_GT(on_gpu, 0u);
  EXPECT_EQ(o.gpu_layers, on_gpu);
  EXPECT_EQ(o.ngl, on_gpu + 1);
  EXPECT_EQ(o.devices[0].kv, on_gpu * kv_layer);
  EXPECT_EQ(o.devices[0].weights, on_gpu * layer + output);
  EXPECT_EQ(o.cpu_kv_bytes, (80 - on_gpu) * kv_layer);
  EXPECT_EQ(o.cpu_bytes, embedding + (80 - on_gpu) * (layer + kv_layer));
  EXPECT_TRUE(o.fits);  // 28.5 GiB of cache and 26 GiB of weights in 128 GiB of RAM

  // A decode step reads every weight and every layer's cache once, each side at its own bandwidth.
  const double gpu_read = static_cast<double>(on_gpu * (layer + kv_layer) + output);
  const double cpu_read = static_cast<double>((80 - on_gpu) * (layer + kv_layer));
  const double step = gpu_read / (find_hardware("rtx4090")->hbm_gbps * 1e9) + cpu_read / (rq.cpu_gbps * 1e9);
  ASSERT_TRUE(o.decode_tokens_per_s);
  EXPECT_NEAR(*o.decode_tokens_per_s, 1.0 / step, 1e-9 / step);

  // -ngl given: 20 slots, the output and the last 19 layers, whatever more the GPU would hold; every slot
  // (-ngl 81) does not fit, and the verdict says so rather than advise another placement.
  rq.knobs.n_gpu_layers = 20;
  const Plan twenty = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(twenty.offload);
  EXPECT_EQ(twenty.offload->gpu_layers, 19u);
  EXPECT_EQ(twenty.offload->devices[0].weights, 19 * layer + output);
  EXPECT_EQ(twenty.offload->cpu_kv_bytes, 61 * kv_layer);
  EXPECT_TRUE(twenty.offload->fits);
  EXPECT_NE(plan_verdict(twenty).find("fits with CPU offload (-ngl 20)"), std::string::npos)
      << plan_verdict(twenty);
  rq.knobs.n_gpu_layers = 81;
  const Plan every = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(every.offload);
  EXPECT_FALSE(every.offload->fits);
  EXPECT_NE(plan_verdict(every).find("nor with CPU offload as given (-ngl 81)"), std::string::npos)
      << plan_verdict(every);
}

// A model every GPU holds whole: -ngl is the layers plus the output (llama.cpp's n_layer + 1), nothing on
// the CPU but the token embedding. One GPU has nothing to split, and two that hold it all with llama.cpp's
// default split need no -ts.
TEST(PlanOffload, AModelThatFitsIsOffloadedWholeWithTheOutputCounted) {
  const auto m = analyze_dir(MA_EXAMPLE_DIR, {});
  for (const char* gpus : {"24GB", "2x24GB"}) {
    SCOPED_TRACE(gpus);
    PlanRequest rq;
    rq.engine = PlanEngine::LlamaCpp;
    rq.gpus = parse_device_spec(gpus, "--gpu");
    const Plan p = make_plan(m->inv, m->report, rq);
    ASSERT_TRUE(p.offload);
    const uint32_t layers = static_cast<uint32_t>(m->inv.arch.layers().size());
    EXPECT_EQ(p.offload->gpu_layers, layers);
    EXPECT_EQ(p.offload->ngl, layers + 1);
    EXPECT_EQ(p.offload->cpu_kv_bytes, 0u);
    EXPECT_TRUE(p.offload->devices.back().output);
    EXPECT_TRUE(p.offload->tensor_split.empty());
    EXPECT_FALSE(p.offload->default_split);
    EXPECT_EQ(p.offload->formula.find("-ts"), std::string::npos);
  }
}

}  // namespace
}  // namespace ma::test
