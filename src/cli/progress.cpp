#include "cli/progress.h"

#include <cstdio>

#include "core/units.h"

namespace ma::cli {

void ProgressLine::update(uint64_t done, uint64_t total, const std::string& extra) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (fraction > 1) fraction = 1;
  constexpr int kWidth = 30;
  std::string bar(static_cast<size_t>(fraction * kWidth), '#');
  bar.resize(kWidth, '.');
  const uint64_t rate = seconds > 0 ? static_cast<uint64_t>(static_cast<double>(done) / seconds) : 0;
  std::fprintf(stderr, "\r%s [%s] %3d%%  %s / %s  %s/s  %s ", label_.c_str(), bar.c_str(),
               static_cast<int>(fraction * 100), human_bytes(done).c_str(), human_bytes(total).c_str(),
               human_bytes(rate).c_str(), extra.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  std::lock_guard lock(mutex_);
  if (drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace ma::cli
