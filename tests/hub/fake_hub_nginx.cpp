// The fake Hub's nginx process: find the binary, free ports, start/wait/stop/reopen.
#include "fake_hub_nginx.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include "fake_hub_io.h"

namespace ma::test::detail {

namespace fs = std::filesystem;

namespace {

constexpr auto kStartTimeout = std::chrono::seconds(10);
constexpr auto kGracefulStopTimeout = std::chrono::seconds(5);
constexpr auto kReopenTimeout = std::chrono::seconds(5);

uint16_t bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("FakeHub: getsockname failed");
  return ntohs(addr.sin_port);
}

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

bool port_accepts(uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const sockaddr_in addr = loopback(port);
  return fd.get() >= 0 && ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
}

// fork + exec in its own process group (so a forced stop reaches the workers too), output to files.
pid_t spawn_nginx(const std::string& binary, const Layout& lay) {
  const std::string prefix_dir = lay.work.string() + "/", conf = lay.conf().string(),
                    err = lay.error_log().string();
  const std::string out_file = (lay.work / "nginx.stdout").string(),
                    err_file = (lay.work / "nginx.stderr").string();
  std::vector<const char*> argv = {binary.c_str(), "-p", prefix_dir.c_str(), "-c",
                                   conf.c_str(),   "-e", err.c_str(),        nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("FakeHub: fork failed");
  if (pid == 0) {  // only async-signal-safe calls from here on
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int errfd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(errfd, 2);
    for (int fd : {in, out, errfd})
      if (fd > 2) ::close(fd);
    ::execv(binary.c_str(), const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so a stop right after fork finds the group
  return pid;
}

bool has_exited(pid_t pid) {
  int status = 0;
  const pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

bool wait_exit(pid_t pid, Clock::duration timeout) {
  for (const auto deadline = Clock::now() + timeout; Clock::now() < deadline;) {
    if (has_exited(pid)) return true;
    std::this_thread::sleep_for(kPollInterval);
  }
  return has_exited(pid);
}

// The master writes its pid file only after binding the listen sockets: with it in place, an accepting port
// is ours and not some other process's that took the port in between.
bool nginx_ready(const Layout& lay, pid_t pid, uint16_t hub_port, uint16_t cdn_port) {
  const std::string pid_text = read_whole_file(lay.pid_file());
  return std::atol(pid_text.c_str()) == pid && port_accepts(hub_port) && port_accepts(cdn_port);
}

// Master and worker each log "reopening logs" once they have reopened (notice level).
size_t reopen_notices(const Layout& lay) {
  std::istringstream lines(read_whole_file(lay.error_log()));
  size_t n = 0;
  const std::string_view suffix = ": reopening logs";
  for (std::string line; std::getline(lines, line);)
    n +=
        line.size() >= suffix.size() && line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0;
  return n;
}

}  // namespace

std::string find_nginx() {
  if (::access("/usr/sbin/nginx", X_OK) == 0) return "/usr/sbin/nginx";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "nginx";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

std::vector<uint16_t> pick_free_ports(size_t n) {
  std::vector<std::unique_ptr<Fd>> held;
  std::vector<uint16_t> ports;
  for (size_t i = 0; i < n; ++i) {
    held.push_back(std::make_unique<Fd>(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)));
    const sockaddr_in addr = loopback(0);
    if (held.back()->get() < 0 ||
        ::bind(held.back()->get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr))
      throw std::runtime_error("FakeHub: cannot bind a free port");
    ports.push_back(bound_port(held.back()->get()));
  }
  return ports;
}

void NginxProcess::start(const std::string& binary, const Layout& lay, uint16_t hub_port, uint16_t cdn_port) {
  pid_ = spawn_nginx(binary, lay);
  wait_until_ready(lay, hub_port, cdn_port);
}

void NginxProcess::fail_start(const Layout& lay, const std::string& why) {
  const std::string tail = tail_of_file(lay.error_log());
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    wait_exit(pid_, std::chrono::seconds(2));
    pid_ = -1;
  }
  throw std::runtime_error("FakeHub: nginx " + why + "; error.log ends with:\n" + tail);
}

void NginxProcess::wait_until_ready(const Layout& lay, uint16_t hub_port, uint16_t cdn_port) {
  for (const auto deadline = Clock::now() + kStartTimeout; Clock::now() < deadline;) {
    if (has_exited(pid_)) {
      ::kill(-std::exchange(pid_, -1), SIGKILL);  // a worker it may have left behind
      fail_start(lay, "exited during startup");
    }
    if (nginx_ready(lay, pid_, hub_port, cdn_port)) return;
    std::this_thread::sleep_for(kPollInterval);
  }
  fail_start(lay, "did not accept on both ports within 10 s");
}

void NginxProcess::stop() {
  if (pid_ <= 0) return;
  const pid_t pid = std::exchange(pid_, -1);
  ::kill(pid, SIGQUIT);
  if (wait_exit(pid, kGracefulStopTimeout)) return;
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

void NginxProcess::reopen_logs(const Layout& lay) {
  const size_t before = reopen_notices(lay);
  ::kill(pid_, SIGUSR1);
  for (const auto deadline = Clock::now() + kReopenTimeout; reopen_notices(lay) < before + 2;) {
    if (Clock::now() >= deadline) throw std::runtime_error("FakeHub: nginx did not reopen its logs");
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace ma::test::detail
