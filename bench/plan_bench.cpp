// Benchmark of `modelanalyzer plan` (issue 13): the time make_plan takes (every split sized and timed by the
// performance model, the largest context and batch searched, four precisions, the offload plan) for every
// config in ../shared/data/hf-configs that has a template, on 8 x H200 with the vLLM rules and on one 24 GB
// card with a 64 GB CPU, against the target of 50 ms per plan; and, side by side, the KV-cache
// capacity vLLM 0.19 printed for the runs in ../shared/data/engines/engine-memory.json whose config is here
// against what `plan --engine vllm` computes from the same settings (target: within 5%).
//
// usage: ma-bench-plan [--runs N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/error.h"
#include "core/json.h"
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
std::optional<fs::path> config_of(const fs::path& configs, std::string id) {
  id = id.substr(0, id.find(' '));
  const size_t slash = id.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string org = id.substr(0, slash);
  std::string name = id.substr(slash + 1);
  std::vector<std::string> names{name};
  if (const size_t i = name.find("-Instruct"); i != std::string::npos) names.push_back(name.substr(0, i));
  for (size_t n = names.size(), i = 0; i < n; ++i) names.push_back("Meta-" + names[i]);
  for (const std::string& n : names)
    if (fs::exists(configs / (org + "__" + n) / "config.json")) return configs / (org + "__" + n);
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
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

  std::printf("\n== vLLM KV cache tokens: printed by vLLM vs plan --engine vllm (target within 5%%) ==\n");
  std::printf("%-44s %12s %12s %8s\n", "run", "vLLM", "plan", "ratio");
  const json::Document doc = json::Document::parse(
      read_small_file((data / "engines" / "engine-memory.json").string(), 16 << 20), "engines");
  for (const json::Value& row : doc.root().items()) {
    if (row.find("engine")->as_string() != "vLLM") continue;
    const json::Value* tokens = row.find("figures_parsed")->find("kv_tokens");
    const std::string gpu(row.find("gpu")->as_string());
    const size_t at = gpu.find("total_memory=");
    if (!tokens || !tokens->as_uint() || at == std::string::npos) continue;
    const std::string quant(row.find("dtype_quantization")->as_string());
    const auto dir = config_of(data / "hf-configs", std::string(row.find("model_id")->as_string()));
    if (!dir || (quant != "bf16" && quant.find("MXFP4") == std::string::npos)) continue;
    const json::Value* s = row.find("settings");
    const std::string kv(row.find("kv_cache_dtype")->as_string());
    auto m = load(*dir, kv == "fp8" ? std::optional<DType>(DType::F8_E4M3) : std::nullopt);
    if (!m) continue;
    PlanRequest rq;
    const uint64_t tp = *row.find("tp")->as_uint(), pp = *row.find("pp")->as_uint();
    std::string memory = gpu.substr(at + 13, gpu.find("GiB", at) - at - 13);
    memory.erase(std::remove(memory.begin(), memory.end(), ' '), memory.end());
    memory += "GiB";
    rq.gpus = parse_device_spec(std::to_string(tp * pp) + "x" + memory, "--gpu");
    rq.engine = PlanEngine::Vllm;
    rq.knobs.gpu_memory_utilization = s->find("gpu_memory_utilization")->as_double();
    rq.knobs.max_num_seqs = *s->find("max_num_seqs")->as_uint();
    rq.knobs.max_num_batched_tokens = *s->find("max_num_batched_tokens")->as_uint();
    rq.knobs.block_size = *s->find("block_size")->as_uint();
    rq.context = *s->find("max_model_len")->as_uint();
    const Plan p = make_plan(m->inv, m->report, rq);
    for (const SplitPlan& sp : p.splits)
      if (sp.split.tp == tp && sp.split.pp == pp && sp.split.ep == 1) {
        const double ratio =
            static_cast<double>(sp.budget.engine.kv_cache_tokens) / static_cast<double>(*tokens->as_uint());
        std::printf("%-44s %12llu %12llu %8.4f\n", std::string(row.find("id")->as_string()).c_str(),
                    static_cast<unsigned long long>(*tokens->as_uint()),
                    static_cast<unsigned long long>(sp.budget.engine.kv_cache_tokens), ratio);
      }
  }
  return 0;
}
