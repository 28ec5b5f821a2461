// What every benchmark needs to time a command: run it (stdout to /dev/null, stderr to a file shown when it
// fails) for its wall time and peak RSS, and the median of repeated timings.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ma::bench {

struct RunResult {
  bool ok = false;
  int exit_code = 0;
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, all its threads
  long max_rss_kb = 0;
  // This process's RSS when it spawned the command: max_rss_kb cannot be told below it (the child starts
  // out counted with the parent's resident memory, see run_command).
  long rss_floor_kb = 0;
};

// argv[0] is looked up on PATH when it has no slash.
RunResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& err = "/dev/null");

// r.max_rss_kb, with a note on stderr naming `what` when the figure is no more than the floor under it.
long peak_rss_kb(const RunResult& r, const std::string& what);

double median(std::vector<double> v);

// run_command, ending the benchmark (exit 1, the command's stderr shown) when it fails.
RunResult run_or_exit(const std::vector<std::string>& argv, const std::filesystem::path& err);
// `argv` run through /bin/sh with its stdout into `out` (a peer script's JSON), ending the benchmark when it
// fails.
RunResult run_to_file_or_exit(const std::vector<std::string>& argv, const std::filesystem::path& out,
                              const std::filesystem::path& err);
// A whole small file (a command's JSON output); empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);
// The number after "key": in a JSON text (the first occurrence); NaN when absent.
double json_number_after(const std::string& json, const std::string& key);

// Puts a file in the page cache the way reading it puts any file there: evicted (after a sync) and read once
// from start to end. How a file was written shapes its cached pages: a checkpoint Python wrote in small
// writes was cached in small pages, and stats read it 13% slower (0.222-0.232 s against 0.195-0.199 s for the
// same tensors as safetensors, on the 2-core VM); read back after eviction, the two took 0.191-0.200 and
// 0.194-0.200 s. Files compared side by side are cached this way first, so the reader is what differs.
void cache_by_reading(const std::filesystem::path& file);

// The median wall time of `runs` runs of a command, after a sync() and one more run that warms the page cache
// and is not counted; the largest peak RSS into `rss_kb` and the median CPU time into `cpu_seconds` when
// given. A failing command ends the benchmark (exit 1).
double median_seconds(const std::vector<std::string>& argv, int runs, long* rss_kb = nullptr,
                      double* cpu_seconds = nullptr);

}  // namespace ma::bench
