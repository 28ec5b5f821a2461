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
};

// argv[0] is looked up on PATH when it has no slash.
RunResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& err = "/dev/null");

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

// The median wall time of `runs` runs of a command, after a sync() and one more run that warms the page cache
// and is not counted; the largest peak RSS into `rss_kb` and the median CPU time into `cpu_seconds` when
// given. A failing command ends the benchmark (exit 1).
double median_seconds(const std::vector<std::string>& argv, int runs, long* rss_kb = nullptr,
                      double* cpu_seconds = nullptr);

}  // namespace ma::bench
