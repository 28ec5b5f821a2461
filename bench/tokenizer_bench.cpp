// Benchmark of read_tokenizer on a tokenizer.json shaped like Qwen's (byte-level BPE, ~150k vocabulary
// entries and ~150k merges, pretty-printed as the `tokenizers` library writes it, ~10 MB), generated in a
// temp dir. Prints the median of N runs (default 21) of read_tokenizer, and beside it a full DOM parse of the
// same text for scale. Issue 3's target: a 10 MB tokenizer.json summarized in under 50 ms.
//
// usage: ma-bench-tokenizer [--runs N] [--vocab N]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "core/error.h"
#include "core/json.h"
#include "formats/tokenizer.h"
#include "io/atomic_file.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Timings {
  std::vector<double> wall, cpu;
};

// Wall time and this thread's CPU time: on a loaded machine the CPU time is the steadier of the two.
template <typename F>
Timings time_runs(int runs, F&& f) {
  Timings t;
  for (int i = 0; i < runs; ++i) {
    double c0 = cpu_ms();
    auto start = std::chrono::steady_clock::now();
    f();
    t.wall.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    t.cpu.push_back(cpu_ms() - c0);
  }
  return t;
}

// A random piece: byte-level BPE pieces are mostly short words, half with the "Ġ" (space) marker, some with
// other non-ASCII byte symbols; ids are written as tokenizers writes them.
std::string piece(std::mt19937& rng, size_t i) {
  static const char* const kAlpha[] = {"a", "b", "c", "d", "e", "f", "g", "h",  "i",   "k", "l",
                                       "m", "n", "o", "p", "r", "s", "t", "u",  "w",   "y", "A",
                                       "S", "T", "0", "1", "_", "Ċ", "č", "Ã©", "âĢľ", "ĠĠ"};
  std::string s = (rng() & 1) ? "Ġ" : "";
  size_t len = 4 + rng() % 13;
  for (size_t k = 0; k < len; ++k) s += kAlpha[rng() % (sizeof kAlpha / sizeof kAlpha[0])];
  return s + std::to_string(i % 97);  // keeps pieces distinct enough without a set
}

std::string generate(size_t vocab) {
  std::mt19937 rng(7);
  std::string t;
  t.reserve(12 << 20);
  t += "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [\n";
  const size_t added = 22;  // Qwen2's <|endoftext|>, <|im_start|>, ... follow the base vocabulary
  for (size_t i = 0; i < added; ++i) {
    t += "    {\n      \"id\": " + std::to_string(vocab + i) + ",\n      \"content\": \"<|special_" +
         std::to_string(i) +
         "|>\",\n      \"single_word\": false,\n      \"lstrip\": false,\n      \"rstrip\": false,\n"
         "      \"normalized\": false,\n      \"special\": true\n    }";
    t += i + 1 < added ? ",\n" : "\n";
  }
  t += "  ],\n  \"normalizer\": {\"type\": \"NFC\"},\n"
       "  \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": "
       "{\"Regex\": \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+\"}, \"behavior\": "
       "\"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", \"add_prefix_space\": false, "
       "\"trim_offsets\": false, \"use_regex\": false}]},\n"
       "  \"post_processor\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": "
       "false},\n"
       "  \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false},\n"
       "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": null,\n"
       "    \"continuing_subword_prefix\": \"\",\n    \"end_of_word_suffix\": \"\",\n"
       "    \"fuse_unk\": false,\n    \"byte_fallback\": false,\n    \"ignore_merges\": false,\n"
       "    \"vocab\": {\n";
  std::vector<std::string> pieces;
  pieces.reserve(vocab);
  for (size_t i = 0; i < vocab; ++i) {
    pieces.push_back(piece(rng, i));
    std::string quoted;
    ma::json::append_quoted(quoted, pieces.back());
    t += "      " + quoted + ": " + std::to_string(i) + (i + 1 < vocab ? ",\n" : "\n");
  }
  t += "    },\n    \"merges\": [\n";
  const size_t merges = vocab - 256;
  for (size_t i = 0; i < merges; ++i) {
    const std::string& p = pieces[256 + i];
    size_t cut = 1 + rng() % (p.size() - 1);
    while (cut < p.size() && (static_cast<unsigned char>(p[cut]) & 0xC0) == 0x80) ++cut;  // whole characters
    std::string quoted;
    ma::json::append_quoted(quoted, p.substr(0, cut) + " " + p.substr(cut));
    t += "      " + quoted + (i + 1 < merges ? ",\n" : "\n");
  }
  t += "    ]\n  }\n}\n";
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: ma-bench-tokenizer [--runs N] [--vocab N]";
  std::string runs_text, vocab_text;
  ma::bench::parse_bench_args(argc, argv, usage, {{"--runs", &runs_text}, {"--vocab", &vocab_text}});
  const int runs = static_cast<int>(ma::bench::count_arg("--runs", runs_text, 21, usage));
  // Qwen2's base vocabulary by default; at least the 256 bytes and a few merges.
  const size_t vocab =
      std::max<size_t>(300, static_cast<size_t>(ma::bench::count_arg("--vocab", vocab_text, 151643, usage)));
  fs::path dir = fs::temp_directory_path() / ("ma-tokenizer-bench-" + std::to_string(::getpid()));
  try {
    fs::create_directories(dir);
    std::string text = generate(vocab);
    {
      ma::AtomicFile f(dir / "tokenizer.json");
      f.write(text);
      f.commit(text.size());
    }
    std::printf("tokenizer.json: %.2f MB, %zu vocabulary entries, %zu merges, 22 added tokens\n",
                static_cast<double>(text.size()) / 1e6, vocab, vocab - 256);

    std::optional<ma::TokenizerInfo> info;
    Timings ours = time_runs(runs, [&] { info = ma::read_tokenizer(dir); });
    if (!info || info->base_vocab_size != vocab || info->vocab_size != vocab + 22 ||
        info->merges != vocab - 256) {
      std::fprintf(stderr, "wrong summary: vocab %llu\n",
                   static_cast<unsigned long long>(info ? info->vocab_size : 0));
      return 1;
    }
    Timings dom = time_runs(runs, [&] {
      std::string t = ma::read_small_file(dir / "tokenizer.json", 256ull << 20);
      ma::json::Document::parse(std::move(t), "tokenizer.json");
    });
    std::printf(
        "read_tokenizer (pull reader, counts only): median %.2f ms wall (min %.2f, max %.2f), "
        "%.2f ms CPU, over %d runs; target < 50 ms\n",
        median(ours.wall), *std::min_element(ours.wall.begin(), ours.wall.end()),
        *std::max_element(ours.wall.begin(), ours.wall.end()), median(ours.cpu), runs);
    std::printf("for scale, read + full DOM parse of the same file: median %.2f ms wall, %.2f ms CPU\n",
                median(dom.wall), median(dom.cpu));
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    fs::remove_all(dir);
    return 1;
  }
  fs::remove_all(dir);
  return 0;
}
