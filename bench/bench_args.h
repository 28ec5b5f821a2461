// A benchmark's command line: the flags it takes and nothing else. A mistyped flag, a flag without its value
// or a count that is not a positive integer prints the usage and exits 2 (--help or -h: the usage, exit 0),
// so a typo never starts a run of minutes with the defaults.
#pragma once
#include <string>
#include <vector>

namespace ma::bench {

struct BenchFlag {
  std::string name;              // "--runs"
  std::string* value = nullptr;  // the flag takes a value, stored here
  bool* set = nullptr;           // the flag takes none and sets this
};

void parse_bench_args(int argc, char** argv, const std::string& usage, const std::vector<BenchFlag>& flags);

// `text` as a count of at least 1 (--runs, --vocab), or `fallback` when empty; else the usage and exit 2.
long long count_arg(const std::string& flag, const std::string& text, long long fallback,
                    const std::string& usage);

}  // namespace ma::bench
