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
// targets are met: >= 8 GB/s, >= 30x numpy, peak RSS <= 512 MiB.
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

#include "bench_process.h"
#include "core/error.h"
#include "formats/safetensors_writer.h"
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
// The checkpoint.

struct Planned {
  ma::TensorToWrite tensor;  // data left empty: only the header is built from it
  double mean, sigma;        // the weights' distribution
};

std::vector<Planned> llama_1b_layout() {
  constexpr uint64_t kHidden = 2048, kKv = 512, kMlp = 8192, kVocab = 128256, kLayers = 16;
  std::vector<Planned> t;
  auto add = [&](std::string name, ma::Shape shape, double mean, double sigma) {
    t.push_back({{std::move(name), ma::DType::BF16, std::move(shape), {}}, mean, sigma});
  };
  add("model.embed_tokens.weight", {kVocab, kHidden}, 0, 0.02);
  for (uint64_t l = 0; l < kLayers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {kHidden}, 1.0, 0.05);
    add(p + "self_attn.q_proj.weight", {kHidden, kHidden}, 0, 0.02);
    add(p + "self_attn.k_proj.weight", {kKv, kHidden}, 0, 0.02);
    add(p + "self_attn.v_proj.weight", {kKv, kHidden}, 0, 0.02);
    add(p + "self_attn.o_proj.weight", {kHidden, kHidden}, 0, 0.02 / std::sqrt(2.0 * kLayers));
    add(p + "post_attention_layernorm.weight", {kHidden}, 1.0, 0.05);
    add(p + "mlp.gate_proj.weight", {kMlp, kHidden}, 0, 0.02);
    add(p + "mlp.up_proj.weight", {kMlp, kHidden}, 0, 0.02);
    add(p + "mlp.down_proj.weight", {kHidden, kMlp}, 0, 0.02 / std::sqrt(2.0 * kLayers));
  }
  add("model.norm.weight", {kHidden}, 1.0, 0.05);
  return t;
}

uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint16_t to_bf16(float f) {  // round to nearest even (inputs are finite)
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7fff + ((b >> 16) & 1);
  return static_cast<uint16_t>(b >> 16);
}

// 65,536 normal samples of the tensor's distribution as BF16; each element then picks one with 16 random bits
// (four elements per 64-bit draw), which is fast and gives a realistic spread of distinct values.
std::vector<uint16_t> value_table(double mean, double sigma, uint64_t& rng) {
  std::vector<uint16_t> table(65536);
  for (auto& v : table) {
    double u = (static_cast<double>(splitmix64(rng) >> 11) + 0.5) * 0x1p-53;  // (0, 1)
    double w = static_cast<double>(splitmix64(rng) >> 11) * 0x1p-53;
    double z = std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * w);
    v = to_bf16(static_cast<float>(mean + sigma * z));
  }
  return table;
}

std::string padded_header(const std::vector<ma::TensorToWrite>& tensors) {
  std::string header = ma::safetensors_header_json(tensors, {{"format", "pt"}});
  while (header.size() % 8) header += ' ';  // as write_safetensors pads it
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header;
}

bool file_starts_with(const fs::path& p, const std::string& prefix) {
  int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) return false;
  std::string got(prefix.size(), '\0');
  ssize_t n = ::pread(fd, got.data(), got.size(), 0);
  ::close(fd);
  return n == static_cast<ssize_t>(prefix.size()) && got == prefix;
}

// Writes (or reuses) the checkpoint; returns its size in bytes.
uint64_t ensure_checkpoint(const fs::path& path, size_t& tensor_count) {
  std::vector<Planned> plan = llama_1b_layout();
  std::vector<ma::TensorToWrite> tensors;
  uint64_t data_bytes = 0;
  for (const auto& p : plan) {
    tensors.push_back(p.tensor);
    data_bytes += ma::numel(p.tensor.shape) * 2;
  }
  tensor_count = tensors.size();
  std::string head = padded_header(tensors);
  uint64_t size = head.size() + data_bytes;
  std::error_code ec;
  if (fs::file_size(path, ec) == size && !ec && file_starts_with(path, head)) {
    std::printf("reusing %s\n", path.c_str());
    return size;
  }
  std::printf("writing %s (%.2f GB)...\n", path.c_str(), static_cast<double>(size) / 1e9);
  std::fflush(stdout);
  auto start = std::chrono::steady_clock::now();
  fs::create_directories(path.parent_path());
  ma::AtomicFile out(path);
  out.write(head);
  uint64_t rng = 0x5eed5eed5eedull;
  constexpr size_t kChunk = 32u << 20;  // elements per write: 64 MiB
  std::vector<uint16_t> buf(kChunk);
  for (const auto& p : plan) {
    std::vector<uint16_t> table = value_table(p.mean, p.sigma, rng);
    uint64_t left = ma::numel(p.tensor.shape);
    while (left) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
      for (size_t i = 0; i < n; i += 4) {
        uint64_t r = splitmix64(rng);
        for (size_t j = 0; j < 4 && i + j < n; ++j) buf[i + j] = table[(r >> (16 * j)) & 0xffff];
      }
      out.write(std::string_view(reinterpret_cast<const char*>(buf.data()), n * 2));
      left -= n;
    }
  }
  out.commit();
  std::printf("  written in %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return size;
}

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
  fs::path work = fs::temp_directory_path() / "ma-bench-stats";
  int runs = 3;
  bool want_numpy = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--work" && i + 1 < argc) {
      work = argv[++i];
    } else if (a == "--no-numpy") {
      want_numpy = false;
    } else {
      std::fprintf(stderr, "usage: ma-bench-stats [--runs N] [--work DIR] [--no-numpy]\n");
      return 2;
    }
  }
  try {
    fs::path model = work / "llama-1b-bf16.safetensors";
    size_t tensors = 0;
    uint64_t size = ensure_checkpoint(model, tensors);
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
        ours_rss = std::max(ours_rss, r.max_rss_kb);
      }
      if (numpy) {
        RunResult r = ma::bench::run_command(python, err);
        if (!r.ok)
          throw std::runtime_error("the numpy baseline failed (exit code " + std::to_string(r.exit_code) +
                                   ")");
        numpy_s.push_back(r.seconds);
        numpy_rss = std::max(numpy_rss, r.max_rss_kb);
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
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
