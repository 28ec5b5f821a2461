// Benchmark of `modelanalyzer embeddings` against scikit-learn, side by side in one run (issue 16):
//   (a) 32,000 x 2,048 float32 token rows, k = 8, --max-iter 50: our k-means++ and Lloyd (the JSON's
//       kmeans_seconds) against scikit-learn's KMeans(n_init=1, max_iter=50).fit alone (/usr/bin/python3,
//       bench/embeddings_sklearn_baseline.py), interleaved run by run; and our whole command beside them
//       (read, norms, duplicates, clustering, silhouette on 2,000 rows, principal components);
//   (b) a Qwen-shaped 151,936 x 1,024 embedding with k = 32, ours alone (--max-iter 50), its time stated.
// The rows are Gaussian blobs (a few hundred centres), so the clustering has real work to do.
//
// usage: ma-bench-embeddings [--runs N] [--work DIR] [--no-qwen]
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

namespace fs = std::filesystem;
using ma::bench::median;
using ma::bench::run_command;
using ma::bench::RunResult;

namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr const char* kTensor = "model.embed_tokens.weight";

// rows x cols float32 rows around 256 Gaussian centres (fixed seed), written once as a model directory.
fs::path ensure_model(const fs::path& dir, uint64_t rows, uint64_t cols) {
  const fs::path file = dir / "model.safetensors";
  std::error_code ec;
  if (fs::file_size(file, ec) > rows * cols * 4 && !ec) return dir;
  std::printf("writing %s (%llu x %llu)...\n", file.c_str(), static_cast<unsigned long long>(rows),
              static_cast<unsigned long long>(cols));
  std::fflush(stdout);
  uint64_t s = 0x5eed ^ rows;
  const auto normal = [&] {
    const auto uniform = [&] {
      uint64_t z = (s += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return (static_cast<double>((z ^ (z >> 31)) >> 11) + 0.5) * 0x1p-53;
    };
    return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
  };
  constexpr uint64_t kCentres = 256;
  std::vector<float> centres(kCentres * cols);
  for (float& c : centres) c = static_cast<float>(0.03 * normal());
  std::string data(rows * cols * 4, '\0');
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t c = (i * 2654435761u) % kCentres;
    for (uint64_t t = 0; t < cols; ++t) {
      const float v = centres[c * cols + t] + static_cast<float>(0.02 * normal());
      std::memcpy(data.data() + 4 * (i * cols + t), &v, 4);
    }
  }
  fs::create_directories(dir);
  ma::write_safetensors(file, {{kTensor, ma::DType::F32, {rows, cols}, data}});
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: ma-bench-embeddings [--runs N] [--work DIR] [--no-qwen]";
  std::string runs_text, work_text;
  bool no_qwen = false;
  ma::bench::parse_bench_args(
      argc, argv, usage, {{"--runs", &runs_text}, {"--work", &work_text}, {"--no-qwen", nullptr, &no_qwen}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 3, usage));
  const bool qwen = !no_qwen;
  const fs::path work =
      work_text.empty() ? fs::temp_directory_path() / "ma-bench-embeddings" : fs::path(work_text);
  const std::string tool = (fs::path(argv[0]).parent_path().parent_path() / "modelanalyzer").string();
  const std::string baseline =
      (fs::path(MA_SOURCE_DIR) / "bench" / "embeddings_sklearn_baseline.py").string();
  const fs::path err = work / "stderr.txt", json = work / "out.json";
  const fs::path model = ensure_model(work / "rows32000x2048", 32000, 2048);
  std::printf("(a) 32,000 x 2,048 float32, k = 8, max_iter 50, %d runs, interleaved\n", runs);
  std::fflush(stdout);
  std::vector<double> ours, ours_inner, ours_kmeans, theirs;
  double our_inertia = 0, their_inertia = 0;
  for (int r = 0; r < runs; ++r) {
    const RunResult x = ma::bench::run_or_exit({tool, "embeddings", model.string(), "--k", "8", "--max-iter",
                                                "50", "--quiet", "--export", json.string()},
                                               err);
    const std::string out = ma::bench::read_text(json);
    ours.push_back(x.seconds);
    ours_inner.push_back(ma::bench::json_number_after(out, "seconds"));
    ours_kmeans.push_back(ma::bench::json_number_after(out, "kmeans_seconds"));
    our_inertia = ma::bench::json_number_after(out, "inertia");
    ma::bench::run_to_file_or_exit({kPython, baseline, (model / "model.safetensors").string(), kTensor, "8"},
                                   json, err);
    const std::string base = ma::bench::read_text(json);
    theirs.push_back(ma::bench::json_number_after(base, "seconds"));
    their_inertia = ma::bench::json_number_after(base, "inertia");
    std::printf("  run %d: ours %.2f s (whole process), scikit-learn fit %.2f s\n", r + 1, x.seconds,
                theirs.back());
    std::fflush(stdout);
  }
  std::printf("\n%-58s %9s\n", ("median of " + std::to_string(runs) + " runs").c_str(), "seconds");
  std::printf("%-58s %9.2f  (inertia %.6g)\n", "modelanalyzer embeddings --k 8, whole process", median(ours),
              our_inertia);
  std::printf("%-58s %9.2f\n", "  of which in-process analysis (JSON seconds)", median(ours_inner));
  std::printf("%-58s %9.2f\n", "  of which k-means++ and Lloyd (JSON kmeans_seconds)", median(ours_kmeans));
  std::printf("%-58s %9.2f  (inertia %.6g)\n", "scikit-learn KMeans(k=8, n_init=1, max_iter=50).fit alone",
              median(theirs), their_inertia);
  std::printf("\nk-means: ours / scikit-learn's fit = %.2f -> %s (target <= 1: at least as fast)\n",
              median(ours_kmeans) / median(theirs),
              median(ours_kmeans) <= median(theirs) ? "met" : "NOT met");
  std::printf("whole analysis (norms, duplicates, k-means, silhouette, PCA) / scikit-learn's fit = %.2f\n",
              median(ours) / median(theirs));
  if (qwen) {
    const fs::path q = ensure_model(work / "qwen151936x1024", 151936, 1024);
    const RunResult x = ma::bench::run_or_exit({tool, "embeddings", q.string(), "--k", "32", "--max-iter",
                                                "50", "--quiet", "--export", json.string()},
                                               err);
    std::printf(
        "\n(b) Qwen-shaped 151,936 x 1,024, k = 32, max_iter 50: %.2f s whole process, peak RSS %.0f MiB\n",
        x.seconds, static_cast<double>(ma::bench::peak_rss_kb(x, "modelanalyzer embeddings")) / 1024.0);
  }
  return 0;
}
