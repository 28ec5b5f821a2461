// Benchmark of GGUF reading, side by side with the peer in one run:
//  (a) header-only analysis of a Llama-3-70B Q4_K_M GGUF (723 tensors, a full-size tokenizer in the header,
//      sparse data): `modelanalyzer tensors FILE --json` and the full report `modelanalyzer FILE --json`,
//      against the Hugging Face Hub's own parser, @huggingface/gguf (tests/peer/gguf_params.mjs), whose
//      parameter count is printed beside ours;
//  (b) `modelanalyzer stats` on a quantized GGUF with Q4_K data in every block, in GB/s of file bytes.
//
// usage: ma-bench-gguf [--runs N] [--work DIR]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "bench_process.h"
#include "gguf_skeleton.h"

namespace fs = std::filesystem;
using ma::bench::median;
using ma::bench::median_seconds;
using ma::bench::run_command;

namespace {

// The peer's one line of JSON (run through the shell to capture it); empty when node or the package is
// absent.
std::string peer_line(const fs::path& script, const fs::path& file) {
  const std::string cmd = "node '" + script.string() + "' '" + file.string() + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[4096];
  std::string out;
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return pclose(p) == 0 ? out : std::string();
}

std::string field(const std::string& json, const std::string& key) {
  const size_t k = json.find("\"" + key + "\":");
  if (k == std::string::npos) return "?";
  const size_t b = k + key.size() + 3;
  return json.substr(b, json.find_first_of(",}", b) - b);
}

// Our parameter count, from the tensors export.
std::string our_parameters(const fs::path& binary, const fs::path& file) {
  const std::string cmd = "'" + binary.string() + "' tensors '" + file.string() + "' --json 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[1 << 16];
  std::string out;
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return field(out, "num_parameters");
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path binary = fs::canonical("/proc/self/exe").parent_path().parent_path() / "modelanalyzer";
  const fs::path peer = fs::path(MA_SOURCE_DIR) / "tests" / "peer" / "gguf_params.mjs";
  const std::string usage = "usage: ma-bench-gguf [--runs N] [--work DIR]";
  std::string runs_text, work_text;
  ma::bench::parse_bench_args(argc, argv, usage, {{"--runs", &runs_text}, {"--work", &work_text}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 11, usage));
  const fs::path work = work_text.empty() ? fs::temp_directory_path() / "ma-bench-gguf" : fs::path(work_text);
  fs::create_directories(work);
  const fs::path big = work / "llama-3-70b.Q4_K_M.gguf", q4k = work / "q4_k-3-layers-normal.gguf";
  if (!fs::exists(big)) ma::bench::write_llama70b_q4_k_m(big);
  if (!fs::exists(q4k)) ma::bench::write_q4_k_layers(q4k, 3);

  long rss = 0;
  const double tensors =
      median_seconds({binary.string(), "tensors", big.string(), "--json", "--quiet"}, runs, &rss);
  const double report = median_seconds({binary.string(), big.string(), "--json", "--quiet"}, runs);
  std::printf("(a) Llama-3-70B Q4_K_M GGUF, 723 tensors, %.1f GB file, header only (median of %d)\n",
              static_cast<double>(fs::file_size(big)) / 1e9, runs);
  std::printf("    modelanalyzer tensors --json      %7.1f ms  (peak RSS %.1f MB)\n", tensors * 1e3,
              static_cast<double>(rss) / 1024);
  std::printf("    modelanalyzer (report) --json     %7.1f ms\n", report * 1e3);
  const std::string line = peer_line(peer, big);
  if (line.empty()) {
    std::printf(
        "    @huggingface/gguf                 skipped (node or tests/peer/node_modules absent: "
        "scripts/install-peer.sh)\n");
  } else {
    std::vector<double> whole, parse;
    for (int i = 0; i <= runs; ++i) {
      const ma::bench::RunResult r = run_command({"node", peer.string(), big.string()});
      if (i > 0) whole.push_back(r.seconds);
      if (i > 0) parse.push_back(std::stod(field(peer_line(peer, big), "wall_ms")));
    }
    std::printf("    @huggingface/gguf (node)          %7.1f ms  whole process; its parse alone %.1f ms\n",
                median(whole) * 1e3, median(parse));
    std::printf("    parameters: ours %s, @huggingface/gguf %s\n", our_parameters(binary, big).c_str(),
                field(line, "parameterCount").c_str());
  }

  const double gb = static_cast<double>(fs::file_size(q4k)) / 1e9;
  const int stats_runs = std::max(1, runs / 4);
  double cpu = 0;
  const double stats = median_seconds({binary.string(), "stats", q4k.string(), "--json", "--quiet"},
                                      stats_runs, nullptr, &cpu);
  std::printf(
      "(b) stats on %.2f GB of Q4_K GGUF (the values llama.cpp decodes, exact percentiles), page cache warm "
      "(median of %d, %u cores)\n",
      gb, stats_runs, std::thread::hardware_concurrency());
  std::printf("    modelanalyzer stats               %7.2f GB/s of file bytes  (%.2f s)\n", gb / stats,
              stats);
  // The rate a core reaches: the passes are shared by every core, so the wall rate grows with them.
  std::printf("    per core: %.2f GB/s of file bytes (CPU %.2f s)\n", gb / cpu, cpu);
  return 0;
}
