// Benchmark of `modelanalyzer stats` on a Llama-3.2-1B-shaped BF16 checkpoint (embedding 128256 x 2048, 16
// layers of q/k/v/o, gate/up/down and two norms, tied head: 1.24 B parameters, 2.47 GB), generated once with
// normal-distributed weights and reused while its size and header match. With the file in the page cache it
// interleaves, per run:
//   (a) the I/O ceiling: a plain read() loop over the file with a reused 1 MiB buffer, in this process, on
//       one thread and on two threads (pread over each half);
//   (b) `modelanalyzer stats FILE --json > /dev/null`: wall time and the child's peak RSS (wait4);
//   (c) the numpy baseline bench/stats_numpy_baseline.py run by /usr/bin/python3 (mean, std, min, max, zero
//       fraction and a 64-bin histogram per tensor, chunked memmap, float64 sums): wall and peak RSS.
// Prints medians, throughput in GB/s (10^9 bytes of checkpoint per second), the ratios, and whether the
// targets are met: >= 8 GB/s, >= 30x numpy, peak RSS <= 512 MiB. Then (d) the same two commands on a
// BERT-base-shaped float32 checkpoint (199 tensors, 438 MB, most of them small): what a scan pays per tensor.
//
// usage: ma-bench-stats [--runs N] [--work DIR] [--no-numpy]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "bench_process.h"
#include "core/error.h"
#include "formats/safetensors_writer.h"
#include "generated_checkpoints.h"
#include "io/atomic_file.h"

namespace fs = std::filesystem;
using ma::bench::median;
using ma::bench::RunResult;

namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr double kTargetGBs = 8.0;
constexpr double kTargetSpeedup = 30.0;
constexpr long kTargetRssKb = 512 * 1024;

// -----------------------------------------------------------------------------------------------------------
// Measurements.

// Reads [begin, end) of the file with pread into a reused 1 MiB buffer; returns the bytes read.
uint64_t read_range(const fs::path& path, uint64_t begin, uint64_t end) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string());
  std::vector<char> buf(1u << 20);
  uint64_t off = begin, total = 0;
  while (off < end) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), end - off));
    ssize_t n = ::pread(fd, buf.data(), want, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    off += static_cast<uint64_t>(n);
    total += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return total;
}

// Plain read() loop (1 thread), or each of `threads` threads over its share of the file; returns seconds.
double read_loop(const fs::path& path, uint64_t size, int threads) {
  auto start = std::chrono::steady_clock::now();
  uint64_t total = 0;
  if (threads == 1) {
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + path.string());
    std::vector<char> buf(1u << 20);
    for (;;) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
    }
    ::close(fd);
  } else {
    std::vector<std::thread> pool;
    std::vector<uint64_t> got(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        uint64_t b = size * static_cast<uint64_t>(t) / static_cast<uint64_t>(threads);
        uint64_t e = size * static_cast<uint64_t>(t + 1) / static_cast<uint64_t>(threads);
        got[static_cast<size_t>(t)] = read_range(path, b, e);
      });
    for (auto& th : pool) th.join();
    for (uint64_t g : got) total += g;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (total != size)
    throw std::runtime_error("read " + std::to_string(total) + " bytes, expected " + std::to_string(size));
  return s;
}

const char* met(bool ok) {
  return ok ? "met" : "NOT met";
}

}  // namespace

int main(int argc, char** argv) {
  fs::path self = fs::canonical("/proc/self/exe");
  fs::path binary = self.parent_path().parent_path() / "modelanalyzer";
  fs::path script = fs::path(MA_SOURCE_DIR) / "bench" / "stats_numpy_baseline.py";
  const std::string usage = "usage: ma-bench-stats [--runs N] [--work DIR] [--no-numpy]";
  std::string runs_text, work_text;
  bool no_numpy = false;
  ma::bench::parse_bench_args(
      argc, argv, usage,
      {{"--runs", &runs_text}, {"--work", &work_text}, {"--no-numpy", nullptr, &no_numpy}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 3, usage));
  const bool want_numpy = !no_numpy;
  const fs::path work =
      work_text.empty() ? fs::temp_directory_path() / "ma-bench-stats" : fs::path(work_text);
  try {
    fs::path model = work / "llama-1b-bf16.safetensors";
    size_t tensors = 0;
    uint64_t size = ma::bench::ensure_llama_1b_checkpoint(model, tensors);
    const double gb = static_cast<double>(size) / 1e9;
    std::printf("checkpoint: Llama-3.2-1B layout, BF16, %zu tensors, %.3f GB (%s)\n", tensors, gb,
                model.c_str());

    bool numpy =
        want_numpy && std::system((std::string(kPython) + " -c 'import numpy' 2>/dev/null").c_str()) == 0;
    if (want_numpy && !numpy)
      std::printf("note: %s cannot import numpy; the numpy baseline is skipped\n", kPython);

    read_loop(model, size, 1);  // warm the page cache
    std::vector<std::string> ours = {binary.string(), "stats", model.string(), "--json"};
    std::vector<std::string> python = {kPython, script.string(), model.string()};
    fs::path err = work / "stderr.txt";
    RunResult probe = ma::bench::run_command(ours, err);  // warm-up, and is the command there at all?
    bool have_ours = probe.ok;
    if (!have_ours)
      std::printf("note: `modelanalyzer stats` failed (exit code %d); its measurements are skipped\n",
                  probe.exit_code);

    std::vector<double> read1, read2, ours_s, numpy_s;
    long ours_rss = 0, numpy_rss = 0;
    for (int i = 0; i < runs; ++i) {  // interleaved, so drift affects all alike
      read1.push_back(read_loop(model, size, 1));
      read2.push_back(read_loop(model, size, 2));
      if (have_ours) {
        RunResult r = ma::bench::run_command(ours, err);
        if (!r.ok)
          throw std::runtime_error("modelanalyzer stats failed (exit code " + std::to_string(r.exit_code) +
                                   ")");
        ours_s.push_back(r.seconds);
        ours_rss = std::max(ours_rss, ma::bench::peak_rss_kb(r, "modelanalyzer"));
      }
      if (numpy) {
        RunResult r = ma::bench::run_command(python, err);
        if (!r.ok)
          throw std::runtime_error("the numpy baseline failed (exit code " + std::to_string(r.exit_code) +
                                   ")");
        numpy_s.push_back(r.seconds);
        numpy_rss = std::max(numpy_rss, ma::bench::peak_rss_kb(r, "the numpy baseline"));
      }
      std::printf("  run %d/%d done\n", i + 1, runs);
      std::fflush(stdout);
    }

    double r1 = gb / median(read1), r2 = gb / median(read2);
    std::printf("read() loop, 1 MiB buffer (medians of %d runs): 1 thread %.2f GB/s, 2 threads %.2f GB/s\n",
                runs, r1, r2);
    double ours_gbs = 0, numpy_gbs = 0;
    if (have_ours) {
      ours_gbs = gb / median(ours_s);
      std::printf(
          "modelanalyzer stats --json: %.3f s, %.2f GB/s (%.2fx the 2-thread read() loop), peak RSS %.1f "
          "MiB\n",
          median(ours_s), ours_gbs, ours_gbs / r2, static_cast<double>(ours_rss) / 1024.0);
    }
    if (numpy) {
      numpy_gbs = gb / median(numpy_s);
      std::printf("numpy baseline:             %.3f s, %.3f GB/s, peak RSS %.1f MiB\n", median(numpy_s),
                  numpy_gbs, static_cast<double>(numpy_rss) / 1024.0);
    }
    if (have_ours && numpy) std::printf("speedup over numpy: %.1fx\n", ours_gbs / numpy_gbs);
    if (have_ours) {
      std::printf("targets: >= %.0f GB/s %s; >= %.0fx numpy %s; peak RSS <= 512 MiB %s\n", kTargetGBs,
                  met(ours_gbs >= kTargetGBs), kTargetSpeedup,
                  numpy ? met(ours_gbs / numpy_gbs >= kTargetSpeedup) : "not measured (no numpy)",
                  met(ours_rss <= kTargetRssKb));
    } else {
      std::printf("targets: not measured (`modelanalyzer stats` did not run)\n");
    }
    // A scan's cost per tensor shows on a checkpoint of many small tensors.
    const fs::path bert = work / "bert-base-f32.safetensors";
    size_t bert_tensors = 0;
    const double bert_gb =
        static_cast<double>(ma::bench::ensure_bert_base_checkpoint(bert, bert_tensors)) / 1e9;
    std::printf("checkpoint: BERT-base layout, float32, %zu tensors, %.3f GB (%s)\n", bert_tensors, bert_gb,
                bert.c_str());
    if (have_ours) {
      const double s = ma::bench::median_seconds({binary.string(), "stats", bert.string(), "--json"}, runs);
      std::printf("modelanalyzer stats --json: %.3f s, %.2f GB/s\n", s, bert_gb / s);
      if (numpy) {
        const double n = ma::bench::median_seconds({kPython, script.string(), bert.string()}, runs);
        std::printf("numpy baseline:             %.3f s, %.2f GB/s; speedup %.1fx\n", n, bert_gb / n, n / s);
      }
    }
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
