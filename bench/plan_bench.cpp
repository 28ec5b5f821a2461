// Benchmark of `modelanalyzer plan` (issue 13): the time make_plan takes (every split sized and timed by the
// performance model, the largest context and batch searched, four precisions, the offload plan) for every
// config in ../shared/data/hf-configs that has a template, on 8 x H200 with the vLLM rules and on one 24 GB
// card with a 64 GB CPU, against the target of 50 ms per plan; and, side by side, the KV-cache
// capacity vLLM 0.19 and SGLang printed for the runs in ../shared/data/engines/engine-memory.json whose
// config is here against what `plan --engine vllm|sglang` computes from the same settings (target: within
// 5%).
//
// usage: ma-bench-plan [--runs N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "bench_args.h"
#include "core/error.h"
#include "core/json.h"
#include "engine_memory_runs.h"
#include "formats/model_files.h"
#include "io/file_source.h"
#include "model/inventory.h"

namespace fs = std::filesystem;
using namespace ma;

namespace {

using ma::test::AnalyzedModel;

std::unique_ptr<AnalyzedModel> load(const fs::path& dir, std::optional<DType> kv = std::nullopt) {
  ReportOptions o;
  o.kv_dtype = kv;
  auto m = ma::test::analyze_dir(dir, o);
  if (!m->report.architecture_known) return nullptr;
  return m;
}

double plan_seconds(const AnalyzedModel& m, const PlanRequest& rq, int runs) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto a = std::chrono::steady_clock::now();
    Plan p = make_plan(m.inv, m.report, rq);
    const auto b = std::chrono::steady_clock::now();
    if (p.splits.empty()) std::abort();
    t.push_back(std::chrono::duration<double>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The config directory of a Hub id in hf-configs: org__name, without -Instruct, or Meta's older naming.

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: ma-bench-plan [--runs N]";
  std::string runs_text;
  ma::bench::parse_bench_args(argc, argv, usage, {{"--runs", &runs_text}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 5, usage));
  const fs::path data = fs::path(MA_SOURCE_DIR) / ".." / "shared" / "data";
  if (!fs::exists(data / "hf-configs")) {
    std::printf("../shared/data is not available: nothing to measure\n");
    return 0;
  }

  std::printf("== plan: make_plan per config (median of %d), target < 50 ms ==\n", runs);
  PlanRequest big;
  big.gpus = parse_device_spec("8xh200", "--gpu");
  big.engine = PlanEngine::Vllm;
  PlanRequest small;
  small.gpus = parse_device_spec("24GB", "--gpu");
  small.cpu_ram = parse_memory_size("64GB", "--cpu-ram");
  std::vector<std::pair<double, std::string>> times;
  for (const auto& e : fs::directory_iterator(data / "hf-configs")) {
    if (!fs::exists(e.path() / "config.json")) continue;
    std::unique_ptr<AnalyzedModel> m;
    try {
      m = load(e.path());
    } catch (const Error&) {
      continue;
    }
    if (!m) continue;
    for (const PlanRequest* rq : {&big, &small})
      times.emplace_back(
          plan_seconds(*m, *rq, runs),
          e.path().filename().string() + (rq == &big ? " on 8xh200 vllm" : " on 24GB + 64GB CPU"));
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2].first;
  std::printf("%zu plans: median %.2f ms, slowest %.2f ms (%s); target 50 ms: %s\n", times.size(),
              median * 1e3, times.back().first * 1e3, times.back().second.c_str(),
              times.back().first < 0.05 ? "met" : "NOT met");
  for (size_t i = times.size() >= 5 ? times.size() - 5 : 0; i < times.size(); ++i)
    std::printf("  %8.2f ms  %s\n", times[i].first * 1e3, times[i].second.c_str());

  for (const char* engine : {"vLLM", "SGLang"}) {
    std::printf("\n== %s KV cache tokens: printed by %s vs plan --engine (target within 5%%) ==\n", engine,
                engine);
    std::printf("%-44s %12s %12s %8s\n", "run", engine, "plan", "ratio");
    for (const ma::test::EngineRun& r : ma::test::engine_memory_runs(data, engine)) {
      auto m = load(r.config_dir, r.kv_dtype);
      if (!m) continue;
      const Plan p = make_plan(m->inv, m->report, r.request);
      for (const SplitPlan& sp : p.splits)
        if (sp.split.tp == r.tp && sp.split.pp == r.pp && sp.split.ep == 1)
          std::printf(
              "%-44s %12llu %12llu %8.4f\n", r.id.c_str(), static_cast<unsigned long long>(r.printed_tokens),
              static_cast<unsigned long long>(sp.budget.engine.kv_cache_tokens),
              static_cast<double>(sp.budget.engine.kv_cache_tokens) / static_cast<double>(r.printed_tokens));
    }
  }
  return 0;
}
