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

#include "analysis/perf/hardware.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/json.h"
#include "io/file_source.h"
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
// layers, vocabulary 151,936, untied head) in int4 on two RTX 3090s, n_ctx 16,384 with a q8_0 cache, as the
// review found its --n-cpu-moe advice overfilling the second GPU by 20 GiB (it checked the sum of both).
TEST(PlanOffload, EveryGpuHoldsItsOwnShareOfLlamaCppsSplit) {
  LOAD_CONFIG_OR_SKIP(m, "Qwen__Qwen3-235B-A22B");
  PlanRequest rq;
  rq.gpus = parse_device_spec("2xrtx3090", "--gpu");
  rq.engine = PlanEngine::LlamaCpp;
  rq.precision = WeightPrecision::INT4;
  rq.kv_dtype = DType::Q8_0;
  rq.context = 16'384;
  rq.cpu_ram = 256 * kOffloadGiB;
  const Plan p = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(p.offload);
  const OffloadPlan& o = *p.offload;
  ASSERT_EQ(o.devices.size(), 2u);

  // Every layer and the output on the GPUs: -ngl 95. 95 slots over two equal shares: i / 95 < 0.5 for
  // i <= 47, so layers 0-47 on the first and 48-93 and the output on the second (llama.cpp's 48 and 46).
  EXPECT_EQ(o.gpu_layers, 94u);
  EXPECT_EQ(o.ngl, 95u);
  EXPECT_EQ(o.devices[0].first_layer, 0u);
  EXPECT_EQ(o.devices[0].end_layer, 48u);
  EXPECT_EQ(o.devices[1].end_layer, 94u);
  EXPECT_TRUE(o.devices[1].output);

  // Each GPU's KV buffer is what llama.cpp b5271 printed for these 48 and 46 layers: 4 KV heads x 128 x 2
  // (K, V) in q8_0 (34 bytes per 32) x 16,384 cells a layer.
  const json::Document doc = json::Document::parse(
      read_small_file(*data_ / "engines" / "engine-memory.json", 16 << 20), "engine-memory.json");
  const json::Value* parsed = nullptr;
  for (const json::Value& row : doc.root().items())
    if (row.find("id")->as_string() == "llamacpp-b5271-2x3090-qwen3-235b-q6k-hybrid")
      parsed = row.find("figures_parsed");
  ASSERT_NE(parsed, nullptr);
  const uint64_t kv_layer = 4ull * 128 * 2 * 34 / 32 * 16'384;
  EXPECT_EQ(o.devices[0].kv, 48 * kv_layer);
  EXPECT_EQ(o.devices[1].kv, 46 * kv_layer);
  EXPECT_DOUBLE_EQ(static_cast<double>(o.devices[0].kv),
                   parsed->find("kv_mib_cuda0")->as_double() * kOffloadMiB);
  EXPECT_DOUBLE_EQ(static_cast<double>(o.devices[1].kv),
                   parsed->find("kv_mib_cuda1")->as_double() * kOffloadMiB);

  // A layer's weights by hand: its attention in int4 (q and o 4,096 x 8,192, k and v 4,096 x 512), the
  // router (4,096 x 128) and norms (2 x 4,096 + 2 x 128) in bf16; its 128 experts' gate, up and down
  // (4,096 x 1,536 each) in int4; the output is the bf16 head (151,936 x 4,096) and final norm.
  const uint64_t dense = offload_int4_bytes(2 * 4096ull * 8192 + 2 * 4096ull * 512) + 4096ull * 128 * 2 +
                         (2 * 4096 + 2 * 128) * 2;
  const uint64_t experts = offload_int4_bytes(128ull * 3 * 4096 * 1536);
  const uint64_t output = 151'936ull * 4096 * 2 + 4096 * 2;
  // --n-cpu-moe K takes the experts of layers 0 to K - 1 off whichever GPU holds them: the smallest K with
  // both GPUs within 24 GiB (the first holds 48 layers' attention alone once K passes 48).
  const uint64_t buffer = o.devices[1].compute_buffer;
  auto first_gpu = [&](uint32_t k) {
    return 48 * dense + (48 - std::min(k, 48u)) * experts + 48 * kv_layer + buffer;
  };
  auto second_gpu = [&](uint32_t k) {
    return 46 * dense + (94 - std::max(k, 48u)) * experts + output + 46 * kv_layer + buffer;
  };
  uint32_t k = 0;
  while (first_gpu(k) > 24 * kOffloadGiB || second_gpu(k) > 24 * kOffloadGiB) ++k;
  EXPECT_GT(k, 48u) << "the second GPU's experts must go too, which a summed check never asked for";
  EXPECT_EQ(o.cpu_moe_layers, k);
  EXPECT_EQ(o.devices[1].weights, 46 * dense + (94 - k) * experts + output);
  for (const OffloadDevice& d : o.devices) {
    EXPECT_LE(d.used(), d.capacity) << "GPU from layer " << d.first_layer;
    EXPECT_TRUE(d.fits());
  }
  EXPECT_TRUE(o.fits);
  // In CPU RAM: the token embedding (bf16) and the first K layers' experts; no layer's cache.
  EXPECT_EQ(o.cpu_bytes, 151'936ull * 4096 * 2 + k * experts);
  EXPECT_EQ(o.cpu_kv_bytes, 0u);
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
}

// A model every GPU holds whole: -ngl is the layers plus the output (llama.cpp's n_layer + 1), nothing on
// the CPU but the token embedding.
TEST(PlanOffload, AModelThatFitsIsOffloadedWholeWithTheOutputCounted) {
  const auto m = analyze_dir(MA_EXAMPLE_DIR, {});
  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec("24GB", "--gpu");
  const Plan p = make_plan(m->inv, m->report, rq);
  ASSERT_TRUE(p.offload);
  const uint32_t layers = static_cast<uint32_t>(m->inv.arch.layers().size());
  EXPECT_EQ(p.offload->gpu_layers, layers);
  EXPECT_EQ(p.offload->ngl, layers + 1);
  EXPECT_EQ(p.offload->cpu_kv_bytes, 0u);
  EXPECT_TRUE(p.offload->devices.at(0).output);
}

}  // namespace
}  // namespace ma::test
