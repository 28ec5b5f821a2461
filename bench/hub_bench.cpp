// Benchmark of the Hub client on the largest layout users name: a DeepSeek-V3-shaped repo of 163 sparse
// shards served by the fake Hub (a real nginx on loopback, tests/hub), LFS shards redirected to a "CDN"
// origin as huggingface.co does. Measures `modelanalyzer tensors ORG/NAME --json` cold (empty cache) and warm
// (second run), side by side with the official JS client's parseSafetensorsMetadata (@huggingface/hub, run by
// tests/peer/safetensors_params.mjs) on the same server: HTTP requests and bytes as the server logged them
// (both origins, headers included), and wall time.
//
// usage: ma-bench-hub [--config DEEPSEEK_V3_CONFIG_JSON] [--runs N] [--work DIR]
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_args.h"
#include "bench_process.h"
#include "core/error.h"
#include "core/json.h"
#include "deepseek_skeleton.h"
#include "fake_hub.h"
#include "hub/content_hash.h"
#include "io/file_source.h"

namespace fs = std::filesystem;
using ma::test::FakeHub;
using ma::test::LogEntry;

using ma::bench::median;

namespace {

constexpr const char* kRepo = "deepseek-ai/DeepSeek-V3";

struct Sample {
  double wall_ms = 0;
  size_t requests = 0;
  uint64_t bytes = 0;          // as the server sent them, headers included
  size_t header_requests = 0;  // requests for .safetensors files on either origin
};

std::string run_capture(const std::string& cmd, double& wall_ms) {
  auto start = std::chrono::steady_clock::now();
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65536];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = p ? pclose(p) : -1;
  wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("command failed: " + cmd);
  return out;
}

Sample from_log(const FakeHub& hub, double wall_ms, size_t at_least) {
  Sample s;
  s.wall_ms = wall_ms;
  for (const LogEntry& e : hub.wait_for_log(at_least, std::chrono::milliseconds(500))) {
    ++s.requests;
    s.bytes += e.bytes_sent;
    if (e.server == "cdn" || e.uri.find(".safetensors") != std::string::npos) ++s.header_requests;
  }
  return s;
}

// The repo as the Hub would serve it: small files in git, shards in LFS (their first 8 + N bytes real, the
// rest a hole; the etag a hash of that prefix, since the zeros are never read).
ma::test::FakeRepo skeleton_repo(const fs::path& dir, uint64_t& header_total) {
  ma::test::FakeRepo repo;
  repo.id = kRepo;
  repo.info_json_fields = "\"author\":\"deepseek-ai\",\"downloads\":1000000,\"likes\":4000";
  for (const auto& e : fs::directory_iterator(dir)) {
    ma::test::FakeFile f;
    f.path = e.path().filename().string();
    if (e.path().extension() != ".safetensors") {
      f.content = ma::read_small_file(e.path(), 64 << 20);
      repo.files.push_back(std::move(f));
      continue;
    }
    ma::FileSource src(e.path());
    std::string first8;
    src.read_exact(0, 8, first8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first8[static_cast<size_t>(i)]);
    src.read_exact(0, 8 + n, f.content);
    header_total += f.content.size();
    f.sparse_size = fs::file_size(e.path());
    f.lfs = true;
    ma::ContentHash h(std::string(64, '0'), 0);
    h.update(f.content);
    f.etag = h.hex_digest();
    repo.files.push_back(std::move(f));
  }
  return repo;
}

void print(const char* what, const std::vector<Sample>& runs) {
  std::vector<double> walls;
  for (const Sample& s : runs) walls.push_back(s.wall_ms);
  const Sample& s = runs.front();
  std::printf("%-44s %8.1f ms  %6zu requests (%zu for shard headers)  %8.2f MB\n", what, median(walls),
              s.requests, s.header_requests, static_cast<double>(s.bytes) / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path self = fs::canonical("/proc/self/exe");
  fs::path binary = self.parent_path().parent_path() / "modelanalyzer";
  fs::path peer = fs::path(MA_SOURCE_DIR) / "tests/peer/safetensors_params.mjs";
  const std::string usage = "usage: ma-bench-hub [--config DEEPSEEK_V3_CONFIG_JSON] [--runs N] [--work DIR]";
  std::string config_text, runs_text, work_text;
  ma::bench::parse_bench_args(argc, argv, usage,
                              {{"--config", &config_text}, {"--runs", &runs_text}, {"--work", &work_text}});
  const fs::path config = config_text.empty() ? default_deepseek_config() : fs::path(config_text);
  const fs::path work = work_text.empty() ? fs::temp_directory_path() / "ma-bench-hub" : fs::path(work_text);
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 5, usage));
  if (!fs::exists(config)) {
    std::fprintf(stderr, "DeepSeek-V3 config not found at %s (pass --config)\n", config.c_str());
    return 2;
  }
  if (!FakeHub::available()) {
    std::fprintf(stderr, "nginx not installed (scripts/install-deps.sh)\n");
    return 2;
  }
  try {
    fs::remove_all(work);
    auto [tensors, json_bytes] = write_deepseek_skeleton(config, work / "ckpt");
    uint64_t header_total = 0;
    FakeHub hub(work / "hub", "hf_bench");
    hub.add_repo(skeleton_repo(work / "ckpt", header_total));
    hub.start();
    std::printf(
        "repo: %s layout, %d sparse LFS shards, %zu tensors, %.2f MB of shard headers (8 + N bytes each)\n",
        kRepo, kSkeletonShards, tensors, static_cast<double>(header_total) / 1e6);
    (void)json_bytes;

    auto ours = [&](const fs::path& cache) {
      return "env -u HF_TOKEN HF_ENDPOINT=" + hub.endpoint() + " HF_HUB_CACHE='" + cache.string() + "' '" +
             binary.string() + "' tensors " + kRepo + " --json --quiet";
    };
    std::vector<Sample> cold, warm, js;
    double js_inside_ms = 0;
    for (int r = 0; r < runs; ++r) {  // interleaved, so drift affects all alike
      fs::path cache = work / ("cache-" + std::to_string(r));
      double ms = 0;
      hub.clear_log();
      run_capture(ours(cache) + " >/dev/null", ms);
      cold.push_back(from_log(hub, ms, kSkeletonShards * 2));
      hub.clear_log();
      run_capture(ours(cache) + " >/dev/null", ms);
      warm.push_back(from_log(hub, ms, 1));
      if (fs::exists(peer.parent_path() / "node_modules")) {
        hub.clear_log();
        std::string line = run_capture("node '" + peer.string() + "' " + hub.endpoint() + " " + kRepo, ms);
        js.push_back(from_log(hub, ms, kSkeletonShards * 6));
        ma::json::Document d = ma::json::Document::parse(line, "peer output");
        js_inside_ms += d.root().find("wall_ms")->as_double() / runs;
      }
    }
    print("modelanalyzer tensors, cold (empty cache)", cold);
    print("modelanalyzer tensors, warm (cached)", warm);
    if (!js.empty()) {
      print("@huggingface/hub parseSafetensorsMetadata", js);
      std::printf("  (of which %.1f ms inside parseSafetensorsMetadata, without node's start-up)\n",
                  js_inside_ms);
      std::vector<double> a, b;
      for (const Sample& s : cold) a.push_back(s.wall_ms);
      for (const Sample& s : js) b.push_back(s.wall_ms);
      std::printf("cold: %.1fx faster than the JS client, %.1fx fewer requests, %.1fx fewer bytes\n",
                  median(b) / median(a),
                  static_cast<double>(js.front().requests) / static_cast<double>(cold.front().requests),
                  static_cast<double>(js.front().bytes) / static_cast<double>(cold.front().bytes));
    } else {
      std::printf(
          "@huggingface/hub: not installed (bash scripts/install-peer.sh); no side-by-side figures\n");
    }
    const double budget = 1.2 * static_cast<double>(header_total) + 1e6;
    std::printf(
        "targets: one range request per shard + its redirect hop + a handful (<= %d): %s; "
        "bytes <= 1.2 x headers + 1 MB (%.2f MB): %s; warm run makes no header request: %s\n",
        2 * kSkeletonShards + 8, cold.front().requests <= 2 * kSkeletonShards + 8 ? "met" : "NOT met",
        budget / 1e6, static_cast<double>(cold.front().bytes) <= budget ? "met" : "NOT met",
        warm.front().header_requests == 0 ? "met" : "NOT met");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
