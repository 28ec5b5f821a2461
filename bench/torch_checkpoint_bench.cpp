// Benchmark of PyTorch checkpoints, side by side with the peer in one run:
//  (a) header-only analysis: `modelanalyzer tensors DIR --json` on a pytorch_model.bin with Llama-3-70B's 723
//      tensor names, against Python's pickle.Unpickler restricted the way torch.load(weights_only=True) is
//      (what torch runs to read the same data.pkl; torch itself is not needed), and
//      torch.load(weights_only=True) itself where that Python imports torch (Debian's python3-torch), its
//      parameter count beside ours;
//  (b) `modelanalyzer stats` on a 512 MiB zip checkpoint against the same tensors as safetensors: the pickle
//      path must stream at the safetensors rate.
// The files come from bench/torch_checkpoints.py (Debian's /usr/bin/python3; numpy for the values).
//
// usage: ma-bench-torch [--runs N] [--work DIR]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_args.h"
#include "bench_process.h"

namespace fs = std::filesystem;
using ma::bench::median;
using ma::bench::median_seconds;
using ma::bench::run_command;

int main(int argc, char** argv) {
  const fs::path binary = fs::canonical("/proc/self/exe").parent_path().parent_path() / "modelanalyzer";
  const fs::path script = fs::path(MA_SOURCE_DIR) / "bench" / "torch_checkpoints.py";
  const std::string usage = "usage: ma-bench-torch [--runs N] [--work DIR]";
  std::string runs_text, work_text;
  ma::bench::parse_bench_args(argc, argv, usage, {{"--runs", &runs_text}, {"--work", &work_text}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 11, usage));
  const fs::path work =
      work_text.empty() ? fs::temp_directory_path() / "ma-bench-torch" : fs::path(work_text);
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (!fs::exists(work / "big-st" / "model.safetensors") &&
      !run_command({python, script.string(), "make", work.string()}).ok) {
    std::fprintf(stderr, "could not write the checkpoints with %s\n", script.c_str());
    return 1;
  }
  const fs::path llama = work / "llama70b";
  long rss = 0;
  const double ours =
      median_seconds({binary.string(), "tensors", llama.string(), "--json", "--quiet"}, runs, &rss);
  const double peer =
      median_seconds({python, script.string(), "peer", (llama / "pytorch_model.bin").string()}, runs);
  std::printf("(a) pytorch_model.bin, Llama-3-70B's 723 tensors, header only (median of %d)\n", runs);
  std::printf("    modelanalyzer tensors --json      %7.1f ms  (peak RSS %.1f MB)\n", ours * 1e3,
              static_cast<double>(rss) / 1024);
  std::printf("    python restricted Unpickler       %7.1f ms  (interpreter start included)\n", peer * 1e3);
  const fs::path torch_json = work / "torch-load.json", err = work / "torch-load.err";
  const ma::bench::RunResult torch_probe =
      run_command({python, script.string(), "torch", (llama / "pytorch_model.bin").string()}, err);
  if (torch_probe.ok) {
    const double torch_process =
        median_seconds({python, script.string(), "torch", (llama / "pytorch_model.bin").string()}, 3);
    ma::bench::run_to_file_or_exit({python, script.string(), "torch", (llama / "pytorch_model.bin").string()},
                                   torch_json, err);
    const std::string peer_out = ma::bench::read_text(torch_json);
    const fs::path ours_json = work / "ours.json";
    ma::bench::run_to_file_or_exit({binary.string(), "tensors", llama.string(), "--json"}, ours_json, err);
    const bool mapped = peer_out.find("\"mmap\": true") != std::string::npos;
    std::printf(
        "    torch.load(weights_only=True)     %7.1f ms  its load alone (median of 5 in one process, %s); "
        "%.0f ms with import torch\n",
        ma::bench::json_number_after(peer_out, "load_ms"),
        mapped ? "mmap=True" : "this torch has no mmap: the data is read too", torch_process * 1e3);
    std::printf("    parameters: torch %.0f, modelanalyzer %.0f\n",
                ma::bench::json_number_after(peer_out, "parameters"),
                ma::bench::json_number_after(ma::bench::read_text(ours_json), "num_parameters"));
  } else if (torch_probe.exit_code == 3) {
    std::printf("    torch.load(weights_only=True)     skipped (%s cannot import torch)\n", python.c_str());
  } else {
    std::fprintf(stderr, "torch.load failed on %s (files an older benchmark wrote? remove %s):\n%s",
                 llama.c_str(), work.c_str(), ma::bench::read_text(err).c_str());
    return 1;
  }

  const double gib = 512.0 / 1024;  // 16 x 32 MiB
  const int stats_runs = std::max(1, runs / 4);
  const fs::path zip = work / "big" / "model.pt", safetensors = work / "big-st" / "model.safetensors";
  ma::bench::cache_by_reading(zip);
  ma::bench::cache_by_reading(safetensors);
  const double pt = median_seconds({binary.string(), "stats", zip.string(), "--json"}, stats_runs);
  const double st =
      median_seconds({binary.string(), "stats", safetensors.parent_path().string(), "--json"}, stats_runs);
  std::printf("(b) stats on 512 MiB of float32, both files cached by reading them (median of %d)\n",
              stats_runs);
  std::printf("    zip checkpoint (model.pt)         %7.2f GiB/s\n", gib / pt);
  std::printf("    safetensors (same tensors)        %7.2f GiB/s   ratio %.2f\n", gib / st, st / pt);
  return 0;
}
