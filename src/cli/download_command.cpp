// `modelanalyzer download MODEL [--include GLOB]... [--exclude GLOB]... [--out DIR] [--revision R]`: seed 004's
// download.py — the repo's files into the shared cache (default) or a directory, with a progress bar on a
// terminal. Ctrl-C stops the transfers, removes their temp files and exits 130.
#include <csignal>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "core/error.h"
#include "core/units.h"
#include "hub/download.h"
#include "hub/repo_ref.h"

namespace ma::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

// One line redrawn in place, at most ten times a second.
class ProgressBar {
 public:
  void operator()(const DownloadProgress& p) {
    auto now = std::chrono::steady_clock::now();
    if (p.files_done != p.files_total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    double seconds = std::chrono::duration<double>(now - start_).count();
    double fraction = p.bytes_total ? static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : 1.0;
    if (fraction > 1) fraction = 1;
    constexpr int kWidth = 30;
    int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, '.');
    double rate = seconds > 0 ? static_cast<double>(p.bytes_done) / seconds : 0;
    std::fprintf(stderr, "\r[%s] %3d%%  %s / %s  %s/s  %llu/%llu files ", bar.c_str(), static_cast<int>(fraction * 100),
                 human_bytes(p.bytes_done).c_str(), human_bytes(p.bytes_total).c_str(),
                 human_bytes(static_cast<uint64_t>(rate)).c_str(), static_cast<unsigned long long>(p.files_done),
                 static_cast<unsigned long long>(p.files_total));
    std::fflush(stderr);
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

}  // namespace

int run_download(const Args& args) {
  std::string model;
  bool quiet = false;
  HubArgs hub;
  DownloadOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error(ErrorKind::Usage, "", a, "needs a value");
      return args[++i];
    };
    if (take_hub_arg(args, i, hub)) continue;
    if (a == "--include") options.include.push_back(value());
    else if (a == "--exclude") options.exclude.push_back(value());
    else if (a == "--out") options.out_dir = value();
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (!a.empty() && a[0] == '-') throw Error(ErrorKind::Usage, "", a, "unknown option for 'download'; see modelanalyzer --help");
    else if (model.empty()) model = a;
    else throw Error(ErrorKind::Usage, "", a, "'download' takes one MODEL");
  }
  if (model.empty()) throw Error(ErrorKind::Usage, "", "MODEL", "missing; usage: modelanalyzer download MODEL [--include GLOB] [--out DIR]");
  std::optional<RepoRef> ref = parse_repo_ref(model);
  if (!ref) throw Error(ErrorKind::Usage, model, "", "not a Hub repo id (org/name, name or a huggingface.co URL)");
  if (hub.revision) {
    validate_revision(*hub.revision);
    ref->revision = *hub.revision;
  }
  HubSettings settings = hub_settings(hub.flags);
  Output out = detect_output(quiet);
  print_warnings(settings.warnings, out);

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  options.cancel = &g_interrupted;
  ProgressBar bar;
  std::mutex bar_mutex;
  const bool show_bar = out.stderr_tty && !quiet;
  if (show_bar)
    options.progress = [&](const DownloadProgress& p) {
      std::lock_guard lock(bar_mutex);
      bar(p);
    };
  DownloadResult r;
  try {
    r = download_repo(*ref, settings, options);
  } catch (const Error&) {
    if (show_bar) std::fputc('\n', stderr);
    if (g_interrupted.load()) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no partial file was kept\n");
      return 130;
    }
    throw;
  }
  if (show_bar) std::fputc('\n', stderr);
  if (!quiet)
    std::fprintf(stderr, "%s@%s: %llu file(s) downloaded (%s), %llu already present%s\n", ref->id.c_str(),
                 r.commit.c_str(), static_cast<unsigned long long>(r.files_downloaded),
                 human_bytes(r.bytes_downloaded).c_str(), static_cast<unsigned long long>(r.files_present),
                 r.resumed ? (", " + std::to_string(r.resumed) + " resumed after a lost connection").c_str() : "");
  // The path on stdout, for scripts: `cd "$(modelanalyzer download gpt2)"`.
  print_stdout(r.root.string() + "\n");
  return 0;
}

}  // namespace ma::cli
