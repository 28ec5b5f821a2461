// Benchmark of `modelanalyzer spectrum` against scipy, side by side in one run (issue 16):
//   (a) the full spectrum of one 4096 x 11008 float32 matrix: ours (LAPACK sgesdd through OpenBLAS, the
//       whole process: start, read, decode, decompose, JSON) against scipy.linalg.svd(compute_uv=False,
//       lapack_driver="gesdd") in /usr/bin/python3 (in-process time of the call alone, and its whole
//       process), interleaved run by run;
//   (b) the Gram path (`--method gram`) against the same SVD and against numpy's eigvalsh(W Wᵀ);
//   (c) a whole Llama-3.2-1B-shaped BF16 checkpoint (113 matrices, the 128256 x 2048 embedding included)
//       by the Gram path, and by full SVD with --model-svd: wall time and peak RSS, the checkpoint streamed
//       one matrix at a time.
// Prints medians, ratios and whether the targets hold: SVD no slower than scipy's gesdd; Gram >= 3x faster.
//
// usage: ma-bench-spectrum [--runs N] [--work DIR] [--no-model] [--model-svd]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "bench_process.h"
#include "formats/safetensors_writer.h"
#include "generated_checkpoints.h"

namespace fs = std::filesystem;
using ma::bench::median;
using ma::bench::run_command;
using ma::bench::RunResult;

namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr uint64_t kRows = 4096, kCols = 11008;

// A 4096 x 11008 float32 matrix of normal values (fixed seed), written once.
fs::path ensure_matrix(const fs::path& work) {
  const fs::path path = work / "w4096x11008.safetensors";
  std::error_code ec;
  if (fs::file_size(path, ec) > kRows * kCols * 4 && !ec) return path;
  std::printf("writing %s...\n", path.c_str());
  std::string data(kRows * kCols * 4, '\0');
  uint64_t s = 0x5eed;
  for (uint64_t i = 0; i < kRows * kCols; ++i) {
    const auto uniform = [&] {
      uint64_t z = (s += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return (static_cast<double>((z ^ (z >> 31)) >> 11) + 0.5) * 0x1p-53;
    };
    const float v = static_cast<float>(0.02 * std::sqrt(-2 * std::log(uniform())) *
                                       std::cos(2 * std::numbers::pi * uniform()));
    std::memcpy(data.data() + 4 * i, &v, 4);
  }
  fs::create_directories(work);
  ma::write_safetensors(path, {{"model.layers.0.mlp.up_proj.weight", ma::DType::F32, {kRows, kCols}, data}});
  return path;
}

struct Timed {
  std::vector<double> wall, inner;
  long rss_kb = 0;
  void add(const RunResult& r, double in) {
    wall.push_back(r.seconds);
    inner.push_back(in);
    rss_kb = std::max(rss_kb, ma::bench::peak_rss_kb(r, "a spectrum run"));
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: ma-bench-spectrum [--runs N] [--work DIR] [--no-model] [--model-svd]";
  std::string runs_text, work_text;
  bool no_model = false, model_svd = false;
  ma::bench::parse_bench_args(argc, argv, usage,
                              {{"--runs", &runs_text},
                               {"--work", &work_text},
                               {"--no-model", nullptr, &no_model},
                               {"--model-svd", nullptr, &model_svd}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 3, usage));
  const bool model = !no_model;
  const fs::path work =
      work_text.empty() ? fs::temp_directory_path() / "ma-bench-spectrum" : fs::path(work_text);
  const std::string tool = (fs::path(argv[0]).parent_path().parent_path() / "modelanalyzer").string();
  const fs::path source = MA_SOURCE_DIR;
  const std::string baseline = (source / "bench" / "spectrum_scipy_baseline.py").string();
  const fs::path matrix = ensure_matrix(work), err = work / "stderr.txt", json = work / "out.json";
  std::printf("(a, b) one %llu x %llu float32 matrix, %d runs, interleaved\n",
              static_cast<unsigned long long>(kRows), static_cast<unsigned long long>(kCols), runs);
  std::fflush(stdout);
  Timed ours_svd, ours_gram, scipy_svd, numpy_gram;
  for (int r = 0; r < runs; ++r) {
    RunResult x = ma::bench::run_or_exit(
        {tool, "spectrum", matrix.string(), "--quiet", "--export", json.string()}, err);
    ours_svd.add(x, ma::bench::json_number_after(ma::bench::read_text(json), "seconds"));
    x = ma::bench::run_to_file_or_exit({kPython, baseline, matrix.string()}, json, err);
    scipy_svd.add(x, ma::bench::json_number_after(ma::bench::read_text(json), "seconds"));
    x = ma::bench::run_or_exit(
        {tool, "spectrum", matrix.string(), "--quiet", "--method", "gram", "--export", json.string()}, err);
    ours_gram.add(x, ma::bench::json_number_after(ma::bench::read_text(json), "seconds"));
    x = ma::bench::run_to_file_or_exit({kPython, baseline, matrix.string(), "--gram"}, json, err);
    numpy_gram.add(x, ma::bench::json_number_after(ma::bench::read_text(json), "seconds"));
    std::printf("  run %d: ours svd %.2f s, scipy gesdd %.2f s, ours gram %.2f s, numpy gram %.2f s\n", r + 1,
                ours_svd.wall.back(), scipy_svd.inner.back(), ours_gram.wall.back(), numpy_gram.inner.back());
    std::fflush(stdout);
  }
  const double svd = median(ours_svd.wall), svd_in = median(ours_svd.inner);
  const double sci = median(scipy_svd.inner), sci_wall = median(scipy_svd.wall);
  const double gram = median(ours_gram.wall), np_gram = median(numpy_gram.inner);
  std::printf("\n%-44s %10s %10s\n", ("median of " + std::to_string(runs) + " runs").c_str(), "in-process",
              "process");
  std::printf("%-44s %9.2fs %9.2fs  (peak RSS %.0f MiB)\n", "modelanalyzer spectrum (sgesdd)", svd_in, svd,
              static_cast<double>(ours_svd.rss_kb) / 1024.0);
  std::printf("%-44s %9.2fs %9.2fs\n", "scipy.linalg.svd gesdd, float32", sci, sci_wall);
  std::printf("%-44s %9.2fs %9.2fs  (peak RSS %.0f MiB)\n", "modelanalyzer spectrum --method gram",
              median(ours_gram.inner), gram, static_cast<double>(ours_gram.rss_kb) / 1024.0);
  std::printf("%-44s %9.2fs %9.2fs\n", "numpy eigvalsh(W Wt), float32", np_gram, median(numpy_gram.wall));
  std::printf("\nSVD: ours (whole process) / scipy gesdd (call alone) = %.2f  -> %s (target <= 1)\n",
              svd / sci, svd <= sci ? "met" : "NOT met");
  std::printf("Gram: %.2fx faster than our SVD, %.2fx faster than scipy gesdd  -> %s (target >= 3x)\n",
              svd / gram, sci / gram, svd / gram >= 3 ? "met" : "NOT met");

  if (model) {
    size_t tensors = 0;
    const fs::path ckpt = fs::temp_directory_path() / "ma-bench-stats" / "llama-1b-bf16.safetensors";
    const uint64_t size = ma::bench::ensure_llama_1b_checkpoint(ckpt, tensors);
    std::printf("\n(c) whole Llama-3.2-1B-shaped BF16 checkpoint (%.2f GB, %zu tensors), one run each\n",
                static_cast<double>(size) / 1e9, tensors);
    std::fflush(stdout);
    std::vector<std::string> methods = {"gram"};
    if (model_svd) methods.push_back("svd");
    for (const std::string& m : methods) {
      const RunResult x = ma::bench::run_or_exit(
          {tool, "spectrum", ckpt.string(), "--quiet", "--method", m, "--export", json.string()}, err);
      std::printf("  --method %-5s %7.1f s wall, peak RSS %.0f MiB (checkpoint %.0f MiB)\n", m.c_str(),
                  x.seconds,
                  static_cast<double>(ma::bench::peak_rss_kb(x, "modelanalyzer spectrum")) / 1024.0,
                  static_cast<double>(size) / 1048576.0);
      std::fflush(stdout);
    }
  }
  return 0;
}
