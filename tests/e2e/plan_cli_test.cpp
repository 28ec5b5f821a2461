// End-to-end: `modelanalyzer plan` on the built-in example: the issue's JSON fields, every number the console
// shows also in the JSON, the Markdown, CSV and picture written, and bad device specs refused with exit 2.
// The plan itself: unit/plan_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_test_support.h"
#include "core/json.h"
#include "core/units.h"

namespace ma::test {
namespace {

TEST(PlanCli, JsonHasTheIssuesFieldsAndEveryOutputIsWritten) {
  TempDir dir;
  CommandResult r = run_cli("plan " + example() + " --gpu 2xh200 --engine vllm --json --markdown " +
                            quoted(dir / "plan.md") + " --csv " + quoted(dir / "plan.csv") + " --plot " +
                            quoted(dir / "plan.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "plan");
  const json::Value& root = d.root();
  for (const char* key : {"fits", "devices", "max_context", "max_batch", "splits", "plans", "engine",
                          "precisions", "widest_fitting_precision", "layer_kinds", "conversion"})
    EXPECT_NE(root.find(key), nullptr) << key;
  EXPECT_TRUE(root.find("fits")->as_bool());
  const json::Value& device = root.find("devices")->items().at(0);
  for (const char* kind : {"weights", "kv_cache", "activations", "overhead", "reserved", "free"})
    EXPECT_NE(device.find("bytes")->find(kind), nullptr) << kind;
  const json::Value* engine = root.find("engine");
  for (const char* key : {"kv_cache_tokens", "kv_cache_bytes", "weights_bytes", "activation_peak_bytes",
                          "non_kv_bytes", "max_concurrency"})
    EXPECT_NE(engine->find(key), nullptr) << key;
  EXPECT_GT(*engine->find("kv_cache_tokens")->as_uint(), 0u);
  const json::Value& plan = root.find("plans")->items().at(0);
  EXPECT_GT(plan.find("tokens_per_s")->find("decode")->as_double(), 0);
  // The tiny example has 4 heads: TP 2 is valid, and so is PP 2.
  EXPECT_EQ(root.find("splits")->items().size(), 2u);
  EXPECT_NE(read_file(dir / "plan.md").find("## Splits"), std::string::npos);
  EXPECT_NE(read_file(dir / "plan.csv").find("model_id,tp,pp,ep"), std::string::npos);
  const std::string plot = read_file(dir / "plan.svg");
  EXPECT_NE(plot.find("<svg"), std::string::npos);
  // An opaque white page under everything, as the other plots have: on a dark viewer a transparent plan
  // lost its dark text and its headroom swatch.
  EXPECT_NE(plot.find("<rect x=\"0\" y=\"0\""), std::string::npos);
  EXPECT_LT(plot.find("<rect x=\"0\" y=\"0\""), plot.find("<text"));

  // The console's figures come from the same plan.
  CommandResult console = run_cli("plan " + example() + " --gpu 2xh200 --engine vllm");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("kv_cache_tokens           " +
                             with_thousands(*engine->find("kv_cache_tokens")->as_uint())),
            std::string::npos)
      << console.out;
  EXPECT_NE(console.out.find(" reserved "), std::string::npos) << "the JSON's bytes.reserved\n"
                                                               << console.out;
  EXPECT_NE(console.out.find(" kv_spare "), std::string::npos) << "the JSON's bytes.kv_spare\n"
                                                               << console.out;
  // The device table's reserved column is bytes.reserved alone (it showed reserved + kv_spare); the split
  // table's "per device" is splits[].per_device_bytes; the precision table's split is precisions[].split.
  const json::Value& bytes = *device.find("bytes");
  EXPECT_NE(console.out.find(human_bytes(*bytes.find("reserved")->as_uint())), std::string::npos)
      << console.out;
  for (const json::Value& s : root.find("splits")->items()) {
    const uint64_t used =
        *s.find("bytes")->find("weights")->as_uint() + *s.find("bytes")->find("kv_cache")->as_uint() +
        *s.find("bytes")->find("activations")->as_uint() + *s.find("bytes")->find("overhead")->as_uint() +
        *s.find("bytes")->find("reserved")->as_uint();
    EXPECT_EQ(*s.find("per_device_bytes")->as_uint(), used);
  }
  for (const json::Value& p : root.find("precisions")->items())
    EXPECT_EQ(p.find("split")->is_null(), !p.find("fits")->as_bool());
}

// A Gemma-2-shaped model of 4 layers, 2 of them sliding (a 512-token window): 2 KV heads of 64, so 512 bytes
// a token a layer in bf16.
constexpr const char* kSlidingGemma2 = R"({"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"],
    "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000, "sliding_window": 512,
    "max_position_embeddings": 32768, "torch_dtype": "bfloat16"})";

// A cache of sliding-window layers holds the window, not the context: the sequences a pool serves are its
// bytes over one sequence's, which for the engines that size the cache for the batch is the batch, and for
// vLLM the largest batch the plan finds (Gemma 3 at 32k read 0.75 sequences of a cache sized for 4).
// K and V in types of their own: both named in the JSON and the console, the cache sized by both.
TEST(PlanCli, KAndVCacheTypesAreBothReported) {
  const std::string args = "plan " + example() + " --gpu 24GB --engine llama.cpp --cache-type-k q8_0";
  const CommandResult r = run_cli(args + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "plan");
  EXPECT_EQ(d.root().find("kv_cache_dtype")->as_string(), "q8_0");
  EXPECT_EQ(d.root().find("kv_cache_dtype_v")->as_string(), "f16");
  const CommandResult both = run_cli("plan " + example() + " --gpu 24GB --engine llama.cpp --json");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const json::Document f16 = json::Document::parse(both.out, "plan");
  EXPECT_TRUE(f16.root().find("kv_cache_dtype_v")->is_null());
  // q8_0 K (34 bytes per 32) beside an f16 V (64 per 32) against 128 per 32 for both in f16.
  const double ratio = d.root().find("engine")->find("kv_cache_bytes")->as_double() /
                       f16.root().find("engine")->find("kv_cache_bytes")->as_double();
  EXPECT_DOUBLE_EQ(ratio, (34.0 + 64.0) / 128.0);
  const CommandResult console = run_cli(args);
  EXPECT_NE(console.out.find("kv_cache_dtype            q8_0 K, f16 V"), std::string::npos) << console.out;
}

TEST(PlanCli, MaxConcurrencyCountsSlidingWindowsAsTheyAreCached) {
  TempDir dir;
  write_file(dir / "config.json", kSlidingGemma2);
  for (const char* engine : {"transformers", "llama.cpp"}) {
    CommandResult r = run_cli("plan " + quoted(dir.path()) +
                              " --gpu 24GB --context 32768 --batch 4 --engine " + engine + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json::Document d = json::Document::parse(r.out, "plan");
    EXPECT_DOUBLE_EQ(d.root().find("engine")->find("max_concurrency")->as_double(), 4.0) << engine;
    EXPECT_EQ(*d.root().find("engine")->find("kv_cache_tokens")->as_uint(), 4u * 32768) << engine;
  }
  CommandResult r =
      run_cli("plan " + quoted(dir.path()) + " --gpu 24GB --context 32768 --engine vllm --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "plan");
  const double concurrency = d.root().find("engine")->find("max_concurrency")->as_double();
  EXPECT_EQ(static_cast<uint64_t>(concurrency), *d.root().find("max_batch")->as_uint()) << r.out;
}

// llama.cpp's iSWA cache gives a sliding-window layer its window plus a ubatch, in whole 256-cell pages:
// pad(512 + 512, 256) = 1,024 cells beside the global layers' 4,096, at 2 x 2 heads x 64 x 2 bytes a token.
TEST(PlanCli, LlamaCppCachesAWindowPlusAUbatchForSlidingLayers) {
  TempDir dir;
  write_file(dir / "config.json", kSlidingGemma2);
  CommandResult r =
      run_cli("plan " + quoted(dir.path()) + " --gpu 24GB --context 4096 --engine llama.cpp --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "plan");
  EXPECT_EQ(*d.root().find("engine")->find("kv_cache_bytes")->as_uint(), (2u * 4096 + 2u * 1024) * 512);
}

// --weights: each candidate block's largest kurtosis and abs_max / std are those `stats` reports for its
// matrices.
TEST(PlanCli, WeightsGiveEachBlockTheTailsStatsMeasures) {
  CommandResult plan = run_cli("plan " + example() + " --gpu 24GB --weights --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  CommandResult stats = run_cli("stats " + example() + " --json");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const json::Document p = json::Document::parse(plan.out, "plan");
  const json::Document st = json::Document::parse(stats.out, "stats");
  const json::Value& candidates = *p.root().find("conversion")->find("quantizable");
  ASSERT_GE(candidates.items().size(), 2u);  // attention and mlp
  for (const json::Value& q : candidates.items()) {
    const std::string block(q.find("block")->as_string());
    double kurtosis = -1e9, ratio = 0;
    for (const json::Value& t : st.root().find("tensors")->items()) {
      if (t.find("block")->as_string() != block || t.find("rows")->is_null()) continue;
      kurtosis = std::max(kurtosis, t.find("kurtosis")->as_double());
      ratio = std::max(ratio, t.find("abs_max")->as_double() / t.find("std")->as_double());
    }
    EXPECT_DOUBLE_EQ(q.find("max_kurtosis")->as_double(), kurtosis) << block;
    EXPECT_NEAR(q.find("max_outlier_ratio")->as_double(), ratio, 1e-9 * ratio) << block;
    EXPECT_FALSE(q.find("sensitive")->as_bool()) << block;  // random normal weights: no heavy tails
  }
}

// The TGI and TensorRT-LLM knobs reach their rules from the command line: TensorRT-LLM's max_tokens caps the
// pool in whole blocks of 32 (1,000 -> 1,024 tokens), TGI's fraction sets its headroom.
TEST(PlanCli, TgiAndTensorRtLlmKnobsReachTheirRules) {
  CommandResult r =
      run_cli("plan " + example() + " --gpu 24GB --engine tensorrt-llm --kv-cache-max-tokens 1000 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "plan");
  const json::Value& trt = *d.root().find("engine");
  EXPECT_EQ(trt.find("name")->as_string(), "tensorrt-llm");
  EXPECT_EQ(*trt.find("kv_cache_tokens")->as_uint(), 1024u);
  uint64_t pool[2] = {};
  for (int i = 0; i < 2; ++i) {
    r = run_cli("plan " + example() + " --gpu 24GB --engine tgi --json" +
                (i ? " --cuda-memory-fraction 0.5" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    d = json::Document::parse(r.out, "plan");
    pool[i] = *d.root().find("engine")->find("kv_cache_bytes")->as_uint();
  }
  // Half the fraction moves 0.45 of the device (24 GiB) out of the pool, to within a byte of rounding.
  EXPECT_NEAR(static_cast<double>(pool[0] - pool[1]), 0.45 * 24 * 1073741824.0, 2);
}

// Devices that differ: the console lists them in order, and the JSON gives each run and each device's
// capacity, the stages sized on their own devices.
TEST(PlanCli, DevicesThatDifferAreListedAndEachSizedOnItsOwn) {
  CommandResult r = run_cli("plan " + example() + " --gpu 'rtx4070ti, 16GB' --engine llama.cpp --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "plan");
  const json::Value& gpus = *d.root().find("gpus");
  EXPECT_TRUE(gpus.find("mixed")->as_bool());
  EXPECT_EQ(*gpus.find("count")->as_uint(), 2u);
  EXPECT_EQ(*gpus.find("memory_bytes")->as_uint(), 12ull << 30);  // the smallest
  EXPECT_EQ(*gpus.find("total_memory_bytes")->as_uint(), 28ull << 30);
  ASSERT_EQ(gpus.find("runs")->items().size(), 2u);
  EXPECT_EQ(gpus.find("runs")->items().at(1).find("count")->as_uint(), 1u);
  EXPECT_TRUE(gpus.find("runs")->items().at(1).find("name")->is_null());
  std::vector<uint64_t> capacities;
  for (const json::Value& device : d.root().find("devices")->items())
    capacities.push_back(*device.find("capacity")->as_uint());
  EXPECT_EQ(capacities, (std::vector<uint64_t>{12ull << 30, 16ull << 30}));
  CommandResult console = run_cli("plan " + example() + " --gpu 'rtx4070ti, 16GB' --engine llama.cpp");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("1 x NVIDIA GeForce RTX 4070 Ti 12 GB (12.00 GiB) + 1 x 16.00 GiB device"),
            std::string::npos)
      << console.out;
}

TEST(PlanCli, BadDevicesAndMissingGpuAreUsageErrors) {
  for (const char* args : {" --gpu h100", " --gpu 0xh200", " --gpu 24XB", "", " --gpu 24GB --engine lmdeploy",
                           " --gpu 24GB,", " --gpu 24GB,h100"}) {
    CommandResult r = run_cli("plan " + example() + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("--"), std::string::npos) << r.err;
  }
  // The example's 4 heads cannot be shared by 3 GPUs: a split asked for that cannot exist is a usage error
  // naming why, not a plan saying the model does not fit (exit 0).
  CommandResult r = run_cli("plan " + example() + " --gpu 3xh200 --tp 3");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("--tp: 3 cannot split this model"), std::string::npos) << r.err;
}

// Two devices that differ, neither big enough: the JSON gives each device its own capacity (the group is
// sized by the smaller), and the plot draws the stage's bar whole, labelled with what it needs, where a
// scale cut at the capacity had hidden how far past it the stage goes.
TEST(PlanCli, DevicesThatDifferKeepTheirCapacityAndAPlotShowsWhatDoesNotFit) {
  TempDir dir;
  CommandResult r =
      run_cli("plan " + example() + " --gpu 0.0002GB,0.0001GB --json --plot " + quoted(dir / "plan.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "plan");
  EXPECT_FALSE(d.root().find("fits")->as_bool());
  const auto& devices = d.root().find("devices")->items();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].find("capacity")->as_uint(), 214'748u);  // 0.0002 GiB, rounded to a byte
  EXPECT_EQ(devices[1].find("capacity")->as_uint(), 107'374u);
  uint64_t used = 0;
  for (const json::Member& m : devices[0].find("bytes")->members())
    if (m.key != "free") used += *m.value.as_uint();
  EXPECT_GT(used, 214'748u);
  const std::string svg = read_file(dir / "plan.svg");
  EXPECT_NE(svg.find(">" + human_bytes(used) + "<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">does not fit"), std::string::npos);
}

// HBM bytes a second of the chip `hw`, as its profile gives them.
double hbm_bytes_per_s(const std::string& hw) {
  const CommandResult r = run_cli("perf " + example() + " --hw " + hw + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "perf").root().find("hardware")->find("hbm_gbps")->as_double() * 1e9;
}

// A decode step streams the weights the plan sizes. GPT-J-6B states no torch_dtype (fp32): transformers holds
// 22.5 GiB, and its step was timed as bf16, 247 tokens/s on an H100, which would read 6 TB/s from 3.35. vLLM
// holds it in bf16 and streams half.
TEST(PlanCli, ADecodeStepReadsTheWeightsThePlanSizes) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const double hbm = hbm_bytes_per_s("h100-sxm");
  uint64_t transformers_bytes = 0;
  for (const char* engine : {"transformers", "vllm"}) {
    const CommandResult r = run_cli("plan " + quoted(*data / "hf-configs" / "EleutherAI__gpt-j-6b") +
                                    " --gpu h100-sxm --engine " + engine + " --json");
    ASSERT_EQ(r.exit_code, 0) << engine << ": " << r.err;
    const json::Document d = json::Document::parse(r.out, "plan");
    const uint64_t weights = d.root().find("weights_bytes")->as_uint().value();
    if (std::string(engine) == "transformers") transformers_bytes = weights;
    const json::Value& best = d.root().find("plans")->items().at(0);
    EXPECT_GE(best.find("decode_step_s")->as_double(), static_cast<double>(weights) / hbm) << engine;
  }
  EXPECT_GT(transformers_bytes, 6'000'000'000ull * 4 * 0.9) << "fp32 weights under transformers";
}

// A PEFT adapter runs merged into its base model: plan, perf and serve size and time the base (they took the
// adapter's 7 KiB of LoRA matrices for the model: 1e9 tokens/s, and serve found no room for a KV cache).
TEST(PlanCli, AnAdapterIsPlannedTimedAndServedAsItsBaseModel) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const std::string base = quoted(*data / "fixtures" / "tiny-llama");
  const std::string adapter = quoted(*data / "fixtures" / "tiny-llama-lora");
  const auto json_of = [](const std::string& args) {
    const CommandResult r = run_cli(args + " --json");
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    return json::Document::parse(r.out, args);
  };
  EXPECT_EQ(json_of("plan " + adapter + " --gpu h100-sxm").root().find("weights_bytes")->as_uint(),
            json_of("plan " + base + " --gpu h100-sxm").root().find("weights_bytes")->as_uint());
  EXPECT_DOUBLE_EQ(json_of("perf " + adapter + " --hw h100-sxm").root().find("tokens_per_s")->as_double(),
                   json_of("perf " + base + " --hw h100-sxm").root().find("tokens_per_s")->as_double());
  const CommandResult serve = run_cli("serve " + adapter + " --hw h100-sxm");
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_NE(serve.err.find("a PEFT adapter: its base model at"), std::string::npos) << serve.err;
}

// A model that fits on the GPU only with llama.cpp's CPU offload: the advice is the offload, never a
// conversion llama.cpp cannot run (it has no fp8 type), and the picture draws the offload it relies on (a GPU
// bar under its capacity and the CPU's) rather than the whole model standing on the GPU's line.
TEST(PlanCli, TheOffloadAPlanReliesOnIsWhatItsPictureDraws) {
  TempDir dir;
  const CommandResult r =
      run_cli("plan " + example() + " --gpu 2.65MiB --cpu-ram 1GB --engine llama.cpp --json --plot " +
              quoted(dir / "p.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document doc = json::Document::parse(r.out, "plan");
  const json::Value& plan = doc.root();
  EXPECT_FALSE(plan.find("fits")->as_bool());
  EXPECT_TRUE(plan.find("widest_fitting_precision")->is_null());
  EXPECT_TRUE(plan.find("offload")->find("fits")->as_bool());
  const std::string svg = read_file(dir / "p.svg");
  EXPECT_NE(svg.find("llama.cpp&apos;s CPU offload"), std::string::npos) << svg.substr(0, 600);
  EXPECT_NE(svg.find(">CPU<"), std::string::npos);
  EXPECT_NE(svg.find(">GPU 0<"), std::string::npos);
  EXPECT_NE(svg.find("fits with CPU offload"), std::string::npos);
}

// gpt-oss-120b on two RTX 3090s: llama.cpp's default split leaves the first GPU half empty once its layers'
// experts are in RAM, so the advice is a -ts of the plan's own, in the JSON (tensor_split, default_split),
// the console and the verdict alike.
TEST(PlanCli, ATensorSplitOfItsOwnIsAdvisedWhereItHoldsMore) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const std::string args = "plan " + quoted(*data / "hf-configs" / "openai__gpt-oss-120b") +
                           " --gpu 2xrtx3090 --engine llama.cpp --cpu-ram 128GB --context 16384";
  const CommandResult r = run_cli(args + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document doc = json::Document::parse(r.out, "plan");
  const json::Value& o = *doc.root().find("offload");
  auto count = [](const json::Value* v) { return std::to_string(v->as_uint().value_or(UINT64_MAX)); };
  const auto& ts = o.find("tensor_split")->items();
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0].as_uint().value_or(0) + ts[1].as_uint().value_or(0), o.find("ngl")->as_uint());
  const json::Value& def = *o.find("default_split");
  EXPECT_GT(def.find("cpu_moe_layers")->as_uint().value_or(0),
            o.find("cpu_moe_layers")->as_uint().value_or(0));
  EXPECT_EQ(def.find("devices")->items().size(), 2u);
  EXPECT_GT(o.find("decode_tokens_per_s")->as_double(), def.find("decode_tokens_per_s")->as_double());
  const std::string flags = "-ngl " + count(o.find("ngl")) + " --n-cpu-moe " +
                            count(o.find("cpu_moe_layers")) + " -ts " + count(&ts[0]) + "," + count(&ts[1]);
  EXPECT_TRUE(o.find("formula")->as_string().starts_with(flags + ":")) << o.find("formula")->as_string();

  const CommandResult console = run_cli(args);
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("fits with CPU offload (" + flags + ")"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("default_split             ngl " + count(def.find("ngl")) + ", cpu_moe_layers " +
                             count(def.find("cpu_moe_layers"))),
            std::string::npos)
      << console.out;
  EXPECT_FALSE(o.find("tensor_split_given")->as_bool());

  // The user's own split is held to: no search, no default to compare with, its shares as given.
  const CommandResult given = run_cli(args + " --tensor-split 1/1 --json");
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const json::Document gdoc = json::Document::parse(given.out, "plan");
  const json::Value& g = *gdoc.root().find("offload");
  EXPECT_TRUE(g.find("tensor_split_given")->as_bool());
  ASSERT_EQ(g.find("tensor_split")->items().size(), 2u);
  EXPECT_EQ(g.find("tensor_split")->items()[1].as_double(), 1.0);
  EXPECT_TRUE(g.find("default_split")->is_null());
  // Two equal shares of two equal GPUs are llama.cpp's default split: what the default needed above.
  EXPECT_EQ(g.find("cpu_moe_layers")->as_uint(), def.find("cpu_moe_layers")->as_uint());
  EXPECT_TRUE(g.find("formula")->as_string().find(" -ts 1,1: ") != std::string::npos)
      << g.find("formula")->as_string();
}

}  // namespace
}  // namespace ma::test
