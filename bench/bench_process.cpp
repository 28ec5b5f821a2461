#include "bench_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

extern char** environ;  // for posix_spawnp: the child gets this environment

namespace ma::bench {

namespace {

// What this process has resident now, in KiB (VmRSS); 0 when /proc cannot tell.
long own_rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

// A spawned child runs on this process's memory until it execs, and Linux starts the child's ru_maxrss at
// that memory's high-water mark: a bench that had held 470 MB while writing its input reported 470 MB for a
// command whose own peak is 17 MB. Lowering the mark to what is resident now ("5" to clear_refs, Linux 4.0)
// leaves this process's current RSS as the only floor under the child's figure.
void reset_own_peak_rss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return;
  // Kernels before 4.0 refuse it: the child's figure then starts at this process's peak, not its RSS.
  [[maybe_unused]] const ssize_t written = ::write(fd, "5", 1);
  ::close(fd);
}

}  // namespace

RunResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& err) {
  std::fflush(stdout);  // nothing buffered may be duplicated into the child
  reset_own_peak_rss();
  const long rss_floor_kb = own_rss_kb();
  // posix_spawn, not fork(): a forked child copies the parent's page tables before it execs, which costs in
  // proportion to the bench's own memory and would be timed as the command's (/bin/true from an 11 MB parent
  // on a 2-core VM: 3.7-4.7 ms forked, 2.6-2.7 ms spawned).
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&io, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, args[0], &io, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&io);
  if (failed) {
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(failed));
    RunResult r;
    r.exit_code = 127;
    return r;
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  RunResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kb = ru.ru_maxrss;
  r.rss_floor_kb = rss_floor_kb;
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  r.cpu_seconds = seconds(ru.ru_utime) + seconds(ru.ru_stime);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!r.ok) {
    std::ifstream in(err);
    std::string line;
    while (std::getline(in, line)) std::fprintf(stderr, "  %s: %s\n", argv[0].c_str(), line.c_str());
  }
  return r;
}

RunResult run_or_exit(const std::vector<std::string>& argv, const std::filesystem::path& err) {
  RunResult r = run_command(argv, err);
  if (!r.ok) {
    std::fprintf(stderr, "failed (exit %d): %s\n", r.exit_code, argv[0].c_str());
    std::exit(1);
  }
  return r;
}

RunResult run_to_file_or_exit(const std::vector<std::string>& argv, const std::filesystem::path& out,
                              const std::filesystem::path& err) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "'" : " '") + a + "'";
  return run_or_exit({"/bin/sh", "-c", cmd + " > '" + out.string() + "'"}, err);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

double json_number_after(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":";
  const size_t at = json.find(needle);
  return at == std::string::npos ? std::nan("") : std::atof(json.c_str() + at + needle.size());
}

long peak_rss_kb(const RunResult& r, const std::string& what) {
  if (r.max_rss_kb <= r.rss_floor_kb)
    std::fprintf(stderr, "note: the peak RSS of %s is at most this bench's own RSS (%.1f MB), not measured\n",
                 what.c_str(), static_cast<double>(r.rss_floor_kb) / 1024);
  return r.max_rss_kb;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void cache_by_reading(const std::filesystem::path& file) {
  ::sync();  // dirty pages are not evicted
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  std::vector<char> buffer(1 << 20);
  while (::read(fd, buffer.data(), buffer.size()) > 0) {
  }
  ::close(fd);
}

double median_seconds(const std::vector<std::string>& argv, int runs, long* rss_kb, double* cpu_seconds) {
  // What a bench has just written may still be on its way to the disk. On the 16-core VM lent on 2026-11-28,
  // stats read float32 files written seconds before at 0.68 GiB/s; the same files, synced and read later,
  // at 8.4 GiB/s.
  ::sync();
  std::vector<double> s, cpu;
  for (int i = 0; i <= runs; ++i) {
    const RunResult r = run_command(argv);
    if (!r.ok) {
      std::fprintf(stderr, "command failed: %s\n", argv[0].c_str());
      std::exit(1);
    }
    if (i > 0) {
      s.push_back(r.seconds);
      cpu.push_back(r.cpu_seconds);
    }
    if (rss_kb) *rss_kb = std::max(*rss_kb, peak_rss_kb(r, argv[0]));
  }
  if (cpu_seconds) *cpu_seconds = median(cpu);
  return median(s);
}

}  // namespace ma::bench
