// `plan` takes of each engine only what it runs: a --kv-dtype or --dtype the chosen engine cannot hold is a
// usage error naming the flag, the value, the engine and what it takes (the lists from each engine's own
// argument parser: llama.cpp's common/arg.cpp kv_cache_types, vLLM's CacheConfig, SGLang's server_args.py,
// TGI's launcher); another engine's knobs are warned of, not silently dropped; llama.cpp's row split is
// refused rather than sized as true tensor parallel.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "cli/plan_args.h"
#include "core/error.h"
#include "test_support.h"

namespace ma::test {
namespace {

// A llama.cpp plan request for `gpus`.
PlanRequest llama_cpp_request(const char* gpus) {
  PlanRequest rq;
  rq.engine = PlanEngine::LlamaCpp;
  rq.gpus = parse_device_spec(gpus, "--gpu");
  return rq;
}

// The usage error parsing `plan` with these flags raises ("" when it parses).
std::string plan_flags_error(std::vector<std::string> flags) {
  flags.insert(flags.begin(), {"model", "--gpu", "24GB"});
  try {
    cli::parse_plan_args(flags);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
    return e.what();
  }
  return "";
}

TEST(PlanEngineFlags, EachEngineTakesItsOwnCacheTypes) {
  // llama.cpp's -ctk / -ctv: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1, and nothing else.
  for (const char* t : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"})
    EXPECT_EQ(plan_flags_error({"--engine", "llama.cpp", "--kv-dtype", t}), "") << t;
  for (const char* t : {"fp8", "q4_k", "q6_k", "int4"}) {
    const std::string e = plan_flags_error({"--engine", "llama.cpp", "--kv-dtype", t});
    EXPECT_NE(e.find("--kv-dtype"), std::string::npos) << e;
    EXPECT_NE(e.find(std::string("'") + t + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("llama.cpp"), std::string::npos) << e;
    EXPECT_NE(e.find("q5_1"), std::string::npos) << "lists what it takes: " << e;
  }
  // vLLM's kv_cache_dtype: auto, bfloat16, fp16, fp8, fp8_e4m3, fp8_e5m2.
  for (const char* t : {"auto", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2"})
    EXPECT_EQ(plan_flags_error({"--engine", "vllm", "--kv-dtype", t}), "") << t;
  const std::string vllm = plan_flags_error({"--engine", "vllm", "--kv-dtype", "q4_0"});
  EXPECT_NE(vllm.find("'q4_0' is not a cache type vllm runs"), std::string::npos) << vllm;
  EXPECT_NE(vllm.find("fp8_e5m2"), std::string::npos) << vllm;
  // SGLang's: auto, bf16, fp8_e4m3, fp8_e5m2; TGI's fp8_e4m3fn in its own spelling.
  EXPECT_NE(plan_flags_error({"--engine", "sglang", "--kv-dtype", "int4"}).find("sglang"), std::string::npos);
  EXPECT_EQ(plan_flags_error({"--engine", "sglang", "--kv-dtype", "fp8_e5m2"}), "");
  EXPECT_EQ(plan_flags_error({"--engine", "tgi", "--kv-dtype", "fp8_e4m3fn"}), "");
  // The engine may come after the cache type.
  EXPECT_NE(plan_flags_error({"--kv-dtype", "q8_0", "--engine", "vllm"}), "");
  EXPECT_EQ(
      cli::parse_plan_args({"m", "--gpu", "24GB", "--kv-dtype", "q8_0", "--engine", "llama.cpp"}).kv_dtype,
      DType::Q8_0);
  EXPECT_FALSE(
      cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "vllm", "--kv-dtype", "auto"}).kv_dtype);
}

// llama.cpp runs GGUF's weight types: 16-bit ones, Q8_0 at 8.5 bits and Q4_0 / Q4_K at 4.5, none of them fp8
// (8 bits) or int4 g128 (4.25): a quantized GGUF is planned as stored instead.
TEST(PlanEngineFlags, LlamaCppRunsNoFp8OrInt4Weights) {
  for (const char* d : {"fp8", "int4"}) {
    const std::string e = plan_flags_error({"--engine", "llama.cpp", "--dtype", d});
    EXPECT_NE(e.find(std::string("--dtype: ") + d + " is not a weight type llama.cpp runs"),
              std::string::npos)
        << e;
    EXPECT_EQ(plan_flags_error({"--engine", "vllm", "--dtype", d}), "") << d;
  }
  EXPECT_EQ(plan_flags_error({"--engine", "llama.cpp", "--dtype", "bf16"}), "");
}

TEST(PlanEngineFlags, AnotherEnginesKnobsAreWarnedOf) {
  auto warnings = [](std::vector<std::string> flags) {
    flags.insert(flags.begin(), {"model", "--gpu", "24GB"});
    return cli::parse_plan_args(flags).warnings;
  };
  const std::vector<std::string> sglang = warnings({"--engine", "sglang", "--gpu-memory-utilization", "0.5"});
  ASSERT_EQ(sglang.size(), 1u);
  EXPECT_NE(sglang[0].find("--gpu-memory-utilization is for vllm"), std::string::npos) << sglang[0];
  EXPECT_NE(sglang[0].find("--engine sglang"), std::string::npos) << sglang[0];
  ASSERT_EQ(warnings({"--engine", "vllm", "--mem-fraction-static", "0.5"}).size(), 1u);
  EXPECT_EQ(warnings({"--gpu-memory-utilization", "0.5", "--mem-fraction-static", "0.5"}).size(), 2u);
  EXPECT_TRUE(
      warnings({"--engine", "vllm", "--gpu-memory-utilization", "0.5", "--block-size", "32"}).empty());
  EXPECT_TRUE(warnings({"--engine", "sglang", "--mem-fraction-static", "0.5"}).empty());
}

// --tensor-split as llama.cpp's common/arg.cpp reads -ts: proportions split on ',' or '/', the GPUs not
// named taking 0, all 0 (or one GPU) its default split by memory, more shares than GPUs refused.
TEST(PlanEngineFlags, ATensorSplitIsReadAsLlamaCppReadsIt) {
  auto split = [](const char* gpus, const char* ts) {
    return cli::parse_plan_args({"m", "--gpu", gpus, "--engine", "llama.cpp", "--tensor-split", ts})
        .request.knobs.tensor_split;
  };
  EXPECT_EQ(split("2xrtx3090", "3,1"), (std::vector<double>{3, 1}));
  EXPECT_EQ(split("3x24GB", "0.5/0.25"), (std::vector<double>{0.5, 0.25, 0}));
  EXPECT_TRUE(split("2x24GB", "0,0").empty());
  EXPECT_TRUE(split("24GB", "3").empty());
  auto refused = [](const char* ts) {
    try {
      cli::parse_plan_args({"m", "--gpu", "2x24GB", "--engine", "llama.cpp", "--tensor-split", ts});
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused("1,1,1").find("--tensor-split: 3 shares for 2 GPU(s)"), std::string::npos)
      << refused("1,1,1");
  for (const char* bad : {"-1,1", "3,x", "3,,1", "", "inf,1"})
    EXPECT_NE(refused(bad).find("--tensor-split"), std::string::npos) << "'" << bad << "'";
  // Another engine places no layers by it.
  const std::vector<std::string> w =
      cli::parse_plan_args({"m", "--gpu", "2x24GB", "--engine", "vllm", "--tensor-split", "3,1"}).warnings;
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("--tensor-split is for llama.cpp"), std::string::npos) << w[0];
}

// -ngl and --n-cpu-moe as llama.cpp's users write them (-ngl 999 for every layer, --cpu-moe for every
// layer's experts); the offload plan that --cpu-ram asks for under any engine is llama.cpp's, which takes
// them, so only without it are they another engine's knobs.
TEST(PlanEngineFlags, LlamaCppsPlacementFlagsAreRead) {
  const EngineKnobs k = cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "llama.cpp", "--n-gpu-layers",
                                              "999", "--n-cpu-moe", "3"})
                            .request.knobs;
  EXPECT_EQ(k.n_gpu_layers, 999u);
  EXPECT_EQ(k.n_cpu_moe, 3u);
  EXPECT_GE(cli::parse_plan_args({"m", "--gpu", "24GB", "--cpu-moe"}).request.knobs.n_cpu_moe.value_or(0),
            1u << 16);
  EXPECT_NE(plan_flags_error({"--n-gpu-layers", "-1"}).find("--n-gpu-layers"), std::string::npos);
  // llama.cpp's own spellings, as a llama-server command line has them.
  const cli::PlanArgs pasted =
      cli::parse_plan_args({"m", "--gpu", "2x24GB", "--engine", "llama.cpp", "-ngl", "20", "-ncmoe", "3",
                            "-ts", "3,1", "-ctk", "q8_0", "-ctv", "q4_0", "-ub", "256"});
  EXPECT_EQ(pasted.request.knobs.n_gpu_layers, 20u);
  EXPECT_EQ(pasted.request.knobs.n_cpu_moe, 3u);
  EXPECT_EQ(pasted.request.knobs.tensor_split, (std::vector<double>{3, 1}));
  EXPECT_EQ(pasted.request.knobs.ubatch, 256u);
  EXPECT_EQ(pasted.kv_dtype, DType::Q8_0);
  EXPECT_EQ(pasted.request.v_dtype, DType::Q4_0);
  EXPECT_TRUE(pasted.warnings.empty());
  EXPECT_EQ(
      cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "vllm", "--n-cpu-moe", "3"}).warnings.size(),
      1u);
  EXPECT_TRUE(cli::parse_plan_args(
                  {"m", "--gpu", "24GB", "--engine", "vllm", "--cpu-ram", "64GB", "--n-cpu-moe", "3"})
                  .warnings.empty());
}

// llama.cpp's -ub: its compute buffer holds one ubatch of n_ubatch tokens, so half the ubatch halves it (a
// model without sliding layers, whose mask covers the cells alone).
TEST(PlanEngineFlags, TheUbatchSizesLlamaCppsComputeBuffer) {
  EXPECT_EQ(cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "llama.cpp", "--ubatch-size", "256"})
                .request.knobs.ubatch,
            256u);
  const std::vector<std::string> w =
      cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "vllm", "--ubatch-size", "256"}).warnings;
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("--ubatch-size is for llama.cpp"), std::string::npos) << w[0];
  const auto m = analyze_dir(MA_EXAMPLE_DIR, {});
  PlanRequest rq = llama_cpp_request("24GB");
  const uint64_t full = make_plan(m->inv, m->report, rq).splits.at(0).budget.worst.activations;
  rq.knobs.ubatch = 256;
  const uint64_t half = make_plan(m->inv, m->report, rq).splits.at(0).budget.worst.activations;
  ASSERT_GT(full, 0u);
  EXPECT_EQ(2 * half, full);
}

// llama.cpp's -c counts the cells of every sequence: batch 4 of 8,192 tokens is -c 32,768 -np 4, four times
// the cache of one.
TEST(PlanEngineFlags, LlamaCppsContextCountsEverySequence) {
  const auto m = analyze_dir(MA_EXAMPLE_DIR, {});
  PlanRequest rq = llama_cpp_request("24GB");
  rq.context = 8192;
  const uint64_t one = make_plan(m->inv, m->report, rq).splits.at(0).budget.worst.kv;
  rq.batch = 4;
  const Budget four = make_plan(m->inv, m->report, rq).splits.at(0).budget;
  EXPECT_EQ(four.worst.kv, 4 * one);
  const std::vector<std::string>& f = four.engine.formulas;
  EXPECT_TRUE(std::any_of(f.begin(), f.end(), [](const std::string& t) {
    return t.find("x batch 4 (-c 32,768 -np 4)") != std::string::npos;
  }));
}

// As llama.cpp reads -ctk and -ctv: the one not given is f16; --kv-dtype sets both, so the two together
// are refused, and so is an engine that keeps K and V in one type.
TEST(PlanEngineFlags, KAndVCacheTypesAreReadAsLlamaCppReadsThem) {
  const cli::PlanArgs k =
      cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "llama.cpp", "--cache-type-k", "q8_0"});
  EXPECT_EQ(k.kv_dtype, DType::Q8_0);
  EXPECT_EQ(k.request.v_dtype, DType::F16);
  const cli::PlanArgs v =
      cli::parse_plan_args({"m", "--gpu", "24GB", "--engine", "llama.cpp", "--cache-type-v", "q4_0"});
  EXPECT_EQ(v.kv_dtype, DType::F16);
  EXPECT_EQ(v.request.v_dtype, DType::Q4_0);
  EXPECT_NE(plan_flags_error({"--engine", "llama.cpp", "--kv-dtype", "q8_0", "--cache-type-v", "f16"})
                .find("--kv-dtype sets K and V both"),
            std::string::npos);
  EXPECT_NE(
      plan_flags_error({"--engine", "vllm", "--cache-type-k", "fp8"}).find("vllm keeps K and V in one type"),
      std::string::npos);
  const std::string bad = plan_flags_error({"--engine", "llama.cpp", "--cache-type-v", "q6_k"});
  EXPECT_NE(bad.find("--cache-type-v: 'q6_k' is not a cache type llama.cpp runs"), std::string::npos) << bad;
}

// llama.cpp's only tensor-parallel-like mode, -sm row, splits the matrices but keeps the KV cache and the
// compute buffer on the main GPU: sizing it as tensor parallel halved a cache llama.cpp keeps whole.
TEST(PlanEngineFlags, LlamaCppsRowSplitIsRefused) {
  const auto m = analyze_dir(MA_EXAMPLE_DIR, {});
  PlanRequest rq = llama_cpp_request("2xrtx3090");
  rq.tp = 2;
  try {
    make_plan(m->inv, m->report, rq);
    ADD_FAILURE() << "--tp 2 with llama.cpp was planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("--tp"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--pp"), std::string::npos) << e.what();
  }
  rq.tp = 1;  // its layer split
  EXPECT_EQ(make_plan(m->inv, m->report, rq).splits.at(0).split.pp, 2u);
}

}  // namespace
}  // namespace ma::test
