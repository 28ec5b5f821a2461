#include "hub/stale_temp.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace ma {
namespace {

constexpr std::string_view kSuffix = ".incomplete";

bool process_gone(pid_t pid) {
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Removes `file` if no writer holds it: its writer's flock is free (a writer in another PID namespace — a
// container sharing the cache, another NFS node — has a pid that means nothing here) and its pid is gone
// (which covers the instant between the writer's create and its flock). Removed while the lock is held, so
// a writer cannot take it in between. Where flock is unsupported (ENOLCK, EINVAL: some network file
// systems), the pid rule decides alone.
void remove_if_abandoned(const std::filesystem::path& file, pid_t pid) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  int rc;
  while ((rc = ::flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  const bool unlocked = rc == 0 || errno != EWOULDBLOCK;  // else unsupported: the pid decides
  std::error_code ec;
  if (unlocked && process_gone(pid)) std::filesystem::remove(file, ec);
  ::close(fd);  // releases the lock
}

// Exactly a run of decimal digits that fits a pid_t.
std::optional<pid_t> number(std::string_view s) {
  pid_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<IncompleteName> parse_incomplete_name(std::string_view name) {
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix)
    return std::nullopt;
  name.remove_suffix(kSuffix.size());
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  const std::string_view tag = name.substr(dot + 1);  // "{pid}" or "{pid}-{n}"
  const size_t dash = tag.find('-');
  if (dash != std::string_view::npos && !number(tag.substr(dash + 1))) return std::nullopt;
  const auto pid = number(tag.substr(0, dash));
  if (!pid || *pid <= 0) return std::nullopt;
  return IncompleteName{name.substr(0, dot), *pid};
}

void sweep_stale_incomplete(const std::filesystem::path& dir,
                            const std::function<bool(std::string_view)>& ours) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (it->is_symlink(entry_ec) || !it->is_regular_file(entry_ec)) continue;
    const std::string filename = it->path().filename().string();
    const auto temp = parse_incomplete_name(filename);
    if (temp && ours(temp->stem)) remove_if_abandoned(it->path(), temp->pid);
  }
}

}  // namespace ma
