// `plan --gpu A,B`: devices that differ, and llama.cpp's layer split over several GPUs. The split rule is
// checked against llama.cpp's own (llama_model::load_tensors: layer i on the first device whose cumulative
// --tensor-split share exceeds i / (n_layer + 1)) worked by hand, and against the KV buffers a llama.cpp
// build printed for each of its GPUs (../shared/data/engines).
#include <gtest/gtest.h>

#include "analysis/plan/device_budget.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/json.h"
#include "engine_memory_runs.h"
#include "io/file_source.h"
#include "test_support.h"

namespace ma::test {
namespace {

constexpr uint64_t kGibibyte = 1ull << 30;
constexpr uint64_t kMebibyte = 1ull << 20;

TEST(PlanLayerSplit, LayersGoWhereLlamaCppsCumulativeSharesPutThem) {
  const std::vector<double> equal{24, 24};
  // 32 layers and the output over two equal shares: i / 33 < 0.5 for i <= 16, so 17 layers on the first.
  LayerSplit s = llama_cpp_layer_split(32, equal);
  EXPECT_EQ(s.starts, (std::vector<uint32_t>{0, 17}));
  EXPECT_EQ(s.output_device, 1u);
  // 12 and 24: i / 41 < 1/3 for i <= 13 (13/41 = 0.317, 14/41 = 0.341).
  const std::vector<double> third{12, 24};
  s = llama_cpp_layer_split(40, third);
  EXPECT_EQ(s.starts, (std::vector<uint32_t>{0, 14}));
  // A share too small for a layer's worth keeps only layer 0 (0 / 11 is below any share).
  const std::vector<double> tiny{1, 1000};
  EXPECT_EQ(llama_cpp_layer_split(10, tiny).starts, (std::vector<uint32_t>{0, 1}));
  // A zero share gets nothing: its first layer is the next device's.
  const std::vector<double> none{0, 10};
  s = llama_cpp_layer_split(10, none);
  EXPECT_EQ(s.starts, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(s.output_device, 1u);
}

TEST(PlanLayerSplit, DevicesThatDifferAreListedInOrder) {
  const DeviceSpec d = parse_device_spec("rtx4070ti, rtx3090ti", "--gpu");
  EXPECT_EQ(d.count, 2u);
  ASSERT_TRUE(d.mixed());
  EXPECT_EQ(d.memories, (std::vector<uint64_t>{12 * kGibibyte, 24 * kGibibyte}));
  EXPECT_EQ(d.memory_bytes, 12 * kGibibyte);  // the smallest
  EXPECT_EQ(d.total_memory(), 36 * kGibibyte);
  ASSERT_TRUE(d.hardware);
  EXPECT_EQ(d.hardware->name, "rtx4070ti");  // 504 GB/s against the 3090 Ti's 1,008: the slowest
  const DeviceSpec sized = parse_device_spec("2x24GB,16GB", "--gpu");
  EXPECT_EQ(sized.count, 3u);
  EXPECT_EQ(sized.memories, (std::vector<uint64_t>{24 * kGibibyte, 24 * kGibibyte, 16 * kGibibyte}));
  EXPECT_FALSE(sized.hardware);  // a size alone says nothing of speed
  EXPECT_EQ(parse_device_spec("rtx4090,h200", "--gpu").hardware->name, "rtx4090");
  // Alike after all: one kind of device.
  const DeviceSpec alike = parse_device_spec("h200,h200", "--gpu");
  EXPECT_FALSE(alike.mixed());
  EXPECT_EQ(alike.count, 2u);
  EXPECT_EQ(alike.hardware->name, "h200");
}

// Llama 3 8B in bf16 (14.96 GiB) under llama.cpp: two 4 GB devices cannot hold it, a 4 GB and a 24 GB one
// can, the small one taking the few layers its share gives it; sized as two of the smaller it would not fit.
TEST(PlanLayerSplit, EachDeviceHoldsTheLayersItsShareGivesIt) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Meta-Llama-3-8B");
  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec("2x4GB", "--gpu");
  EXPECT_FALSE(make_plan(m->inv, m->report, rq).fits);
  rq.gpus = parse_device_spec("4GB,24GB", "--gpu");
  const Plan p = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(p.fits);
  ASSERT_TRUE(p.best);
  const Budget& b = p.splits[*p.best].budget;
  ASSERT_EQ(b.stages.size(), 2u);
  // 32 layers and the output: i / 33 < 4/28 for i <= 4.
  EXPECT_EQ(b.stages[0].end_layer, 5u);
  EXPECT_EQ(b.stages[0].bytes.capacity, 4 * kGibibyte);
  EXPECT_EQ(b.stages[1].bytes.capacity, 24 * kGibibyte);
  // Every layer and the output on the GPUs, the token embedding (128,256 x 4,096 in bf16) on the CPU.
  EXPECT_EQ(b.stages[0].bytes.weights + b.stages[1].bytes.weights, p.weights_bytes - 128'256ull * 4'096 * 2);
  // The KV cache follows the layers: 5 and 27 of them, 8 KV heads x 128 x 2 (K, V) x 2 bytes per token.
  EXPECT_EQ(b.stages[0].bytes.kv, 5ull * 8 * 128 * 2 * 2 * 8'192);
  EXPECT_EQ(b.stages[1].bytes.kv, 27ull * 8 * 128 * 2 * 2 * 8'192);
  // llama.cpp runs its layer split only: no tensor-parallel split is offered.
  for (const SplitPlan& s : p.splits) EXPECT_EQ(s.split.tp, 1u);
}

// --tensor-split 3,1 gives the first GPU the layers i with i / 33 < 0.75 (0 to 24) in place of the 17 its
// equal memory would give it, with their cache.
TEST(PlanLayerSplit, ATensorSplitGivenSharesTheLayers) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Meta-Llama-3-8B");
  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec("2x24GB", "--gpu");
  rq.knobs.tensor_split = {3, 1};
  const Plan p = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(p.shown);
  const Budget& b = p.splits[*p.shown].budget;
  ASSERT_EQ(b.stages.size(), 2u);
  EXPECT_EQ(b.stages[0].end_layer, 25u);
  EXPECT_EQ(b.stages[0].bytes.kv, 25ull * 8 * 128 * 2 * 2 * 8'192);
  EXPECT_EQ(b.stages[1].bytes.kv, 7ull * 8 * 128 * 2 * 2 * 8'192);
}

// A 4070 Ti (504 GB/s) and a 3090 Ti (1,008 GB/s): each stage is timed on its own device, so a decode step
// takes longer than on two 3090 Tis and less than on two 4070 Tis, and never less than each stage's weights
// and cache read at its device's bandwidth, one stage after the other.
TEST(PlanLayerSplit, EachStageIsTimedOnItsOwnDevice) {
  LOAD_CONFIG_OR_SKIP(m, "meta-llama__Meta-Llama-3-8B");
  auto step = [&](const char* gpus) {
    PlanRequest rq;
    rq.engine = PlanEngine::LlamaCpp;
    rq.gpus = parse_device_spec(gpus, "--gpu");
    Plan p = make_plan(m->inv, m->report, rq);
    EXPECT_TRUE(p.best) << gpus;
    return p;
  };
  const Plan mixed = step("rtx4070ti,rtx3090ti");
  const SplitPlan& s = mixed.splits[*mixed.best];
  ASSERT_TRUE(s.decode_step_s);
  EXPECT_GT(*s.decode_step_s, *step("2xrtx3090ti").splits.front().decode_step_s);
  EXPECT_LT(*s.decode_step_s, *step("2xrtx4070ti").splits.front().decode_step_s);
  const double bandwidth[] = {504e9, 1008e9};
  double floor = 0;
  for (size_t i = 0; i < 2; ++i) {
    const DeviceBytes& b = s.budget.stages[i].bytes;
    floor += static_cast<double>(b.weights + b.kv) / bandwidth[i];
  }
  EXPECT_GE(*s.decode_step_s, floor);
  EXPECT_LT(*s.decode_step_s, floor * 1.1);  // decode at batch 1 is the bytes it reads
}

// What llama.cpp build 5271 printed on two RTX 3090s for Qwen3-235B-A22B at n_ctx 16,384 with a q8_0 cache:
// 48 and 46 of the 94 layers, KV buffers of 816.00 and 782.00 MiB.
TEST(PlanLayerSplit, KvPerGpuIsWhatLlamaCppPrinted) {
  LOAD_CONFIG_OR_SKIP(m, "Qwen__Qwen3-235B-A22B");
  const json::Document doc = engine_memory_document(*data_);
  const json::Value* run = engine_memory_row(doc, "llamacpp-b5271-2x3090-qwen3-235b-q6k-hybrid");
  ASSERT_NE(run, nullptr);
  const json::Value* parsed = run->find("figures_parsed");
  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec("2xrtx3090", "--gpu");
  rq.kv_dtype = DType::Q8_0;
  rq.context = *parsed->find("n_ctx")->as_uint();
  const Plan p = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(p.shown);
  const Budget& b = p.splits[*p.shown].budget;
  ASSERT_EQ(b.stages.size(), 2u);
  EXPECT_EQ(static_cast<double>(b.stages[0].bytes.kv), parsed->find("kv_mib_cuda0")->as_double() * kMebibyte);
  EXPECT_EQ(static_cast<double>(b.stages[1].bytes.kv), parsed->find("kv_mib_cuda1")->as_double() * kMebibyte);
}

// llama.cpp's offload over several GPUs: each holds a compute buffer of its own, so two 24 GB devices hold
// one more than one 48 GB device, with the same layers and cache.
TEST(PlanLayerSplit, OffloadGivesEveryGpuItsComputeBuffer) {
  const auto m = analyze_dir(MA_EXAMPLE_DIR, {});
  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec("48GB", "--gpu");
  const Plan one = make_plan(m->inv, m->report, rq);
  rq.gpus = parse_device_spec("2x24GB", "--gpu");
  const Plan two = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(one.offload && two.offload);
  EXPECT_EQ(one.offload->gpu_layers, two.offload->gpu_layers);
  const uint64_t buffer = one.splits.front().budget.worst.activations;
  ASSERT_GT(buffer, 0u);
  EXPECT_EQ(two.offload->gpu_bytes, one.offload->gpu_bytes + buffer);
}

}  // namespace
}  // namespace ma::test
