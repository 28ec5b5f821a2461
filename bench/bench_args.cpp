#include "bench_args.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace ma::bench {
namespace {

[[noreturn]] void usage_exit(const std::string& usage, const std::string& why) {
  if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
  std::fprintf(why.empty() ? stdout : stderr, "%s\n", usage.c_str());
  std::exit(why.empty() ? 0 : 2);
}

}  // namespace

void parse_bench_args(int argc, char** argv, const std::string& usage, const std::vector<BenchFlag>& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") usage_exit(usage, "");
    const BenchFlag* flag = nullptr;
    for (const BenchFlag& f : flags)
      if (f.name == a) flag = &f;
    if (!flag) usage_exit(usage, "unknown argument: " + a);
    if (flag->set) {
      *flag->set = true;
    } else {
      if (i + 1 >= argc) usage_exit(usage, a + " needs a value");
      *flag->value = argv[++i];
    }
  }
}

long long count_arg(const std::string& flag, const std::string& text, long long fallback,
                    const std::string& usage) {
  if (text.empty()) return fallback;
  long long n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1)
    usage_exit(usage, flag + ": expects a positive integer, not '" + text + "'");
  return n;
}

}  // namespace ma::bench
