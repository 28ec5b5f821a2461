// Benchmark of `modelanalyzer serve` (issue 14) against InferenceMAX: for every measured run in
// ../shared/data/serving/inferencemax.json (gpt-oss-120b on H200 and B200 under vLLM, DeepSeek-R1 FP8 on
// H200 under SGLang), the serving estimate from the run's own settings, printed beside the measurement:
// predicted / measured for the mean TPOT, the mean TTFT and the total tokens/s per GPU, then the median and
// the worst ratio of each and the share of runs within +-30% (targets: medians of TPOT and throughput within
// +-15%, 90% of runs within +-30%). Nothing is fitted to these runs.
//
// usage: ma-bench-serve [--outliers]   (default: one line per run; --outliers: only runs beyond +-30%)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analysis/serve/serving_model.h"
#include "bench_args.h"
#include "inferencemax_runs.h"

namespace fs = std::filesystem;
using namespace ma;

namespace {

struct Ratios {
  std::vector<double> tpot, ttft, tput;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double worst(const std::vector<double>& v) {
  double w = 1;
  for (double r : v)
    if (std::abs(std::log(r)) > std::abs(std::log(w))) w = r;
  return w;
}
double within(const std::vector<double>& v, double band) {
  return v.empty() ? 0
                   : static_cast<double>(std::count_if(v.begin(), v.end(),
                                                       [&](double r) { return std::abs(r - 1) <= band; })) /
                         static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  bool outliers = false;
  ma::bench::parse_bench_args(argc, argv, "usage: ma-bench-serve [--outliers]",
                              {{"--outliers", nullptr, &outliers}});
  const bool all = !outliers;
  const fs::path data = fs::path(MA_SOURCE_DIR) / ".." / "shared" / "data";
  const fs::path file = data / "serving" / "inferencemax.json";
  if (!fs::exists(file)) {
    std::printf("SKIPPED: %s is not available\n", file.string().c_str());
    return 0;
  }
  const ma::test::MeasuredRuns measured = ma::test::inferencemax_runs(data);  // configs analysed, not timed
  std::map<std::string, Ratios> groups;
  Ratios total;
  std::printf("%-58s %7s %7s %6s %8s %8s %6s %8s %8s %6s\n", "run (hw model engine isl/osl tp conc)",
              "tpot ms", "meas", "ratio", "ttft ms", "meas", "ratio", "tok/s/g", "meas", "ratio");
  const auto start = std::chrono::steady_clock::now();
  size_t runs = 0;
  for (const ma::test::MeasuredRun& run : measured.runs) {
    const ServeRequest& rq = run.request;
    const std::string& group = run.group;
    const ServeResult r = estimate_serving(run.model->inv, run.model->report, rq);
    const double tpot = r.point.mean_tpot_s / run.mean_tpot_s;
    const double ttft = r.point.mean_ttft_s / run.mean_ttft_s;
    const double tput = r.point.throughput_tokens_per_s_per_gpu / run.tput_per_gpu;
    for (Ratios* g : {&groups[group], &total}) {
      g->tpot.push_back(tpot);
      g->ttft.push_back(ttft);
      g->tput.push_back(tput);
    }
    ++runs;
    if (all || std::abs(tpot - 1) > 0.3 || std::abs(tput - 1) > 0.3) {
      char id[128];
      std::snprintf(id, sizeof id, "%s %llu/%llu tp%u c%llu", group.c_str(),
                    static_cast<unsigned long long>(rq.isl), static_cast<unsigned long long>(rq.osl), rq.tp,
                    static_cast<unsigned long long>(rq.concurrency));
      std::printf("%-58s %7.2f %7.2f %6.2f %8.1f %8.1f %6.2f %8.0f %8.0f %6.2f\n", id,
                  r.point.mean_tpot_s * 1e3, run.mean_tpot_s * 1e3, tpot, r.point.mean_ttft_s * 1e3,
                  run.mean_ttft_s * 1e3, ttft, r.point.throughput_tokens_per_s_per_gpu, run.tput_per_gpu,
                  tput);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\npredicted / measured (median, worst, share within +-30%%)\n");
  std::printf("%-40s %5s  %-22s %-22s %-22s\n", "group", "runs", "TPOT", "TTFT", "tokens/s per GPU");
  auto line = [](const char* name, const Ratios& g) {
    std::printf("%-40s %5zu  %5.2f %5.2f %4.0f%%       %5.2f %5.2f %4.0f%%       %5.2f %5.2f %4.0f%%\n", name,
                g.tpot.size(), median(g.tpot), worst(g.tpot), 100 * within(g.tpot, 0.3), median(g.ttft),
                worst(g.ttft), 100 * within(g.ttft, 0.3), median(g.tput), worst(g.tput),
                100 * within(g.tput, 0.3));
  };
  for (const auto& [name, g] : groups) line(name.c_str(), g);
  line("all", total);
  std::printf("\ntargets: median TPOT and throughput ratios within 0.85-1.15, 90%% of runs within +-30%%\n");
  std::printf("%zu runs estimated in %.2f s (%.1f ms per run, every sweep point timed by the perf model)\n",
              runs, seconds, 1e3 * seconds / static_cast<double>(runs));
  return 0;
}
