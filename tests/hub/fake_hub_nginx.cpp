// The fake Hub's nginx process: find the binary, inherited listeners, start/wait/stop, one plain request.
#include "fake_hub_nginx.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
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
constexpr int kRequestTimeoutS = 10;

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

// fork + exec in its own process group (so a forced stop reaches the workers too), output to files, the
// listeners inherited: open across exec and named in NGINX ("3;4;").
pid_t spawn_nginx(const std::string& binary, const Layout& lay, const std::vector<int>& listen_fds) {
  const std::string prefix_dir = lay.work.string() + "/", conf = lay.conf().string(),
                    err = lay.error_log().string();
  const std::string out_file = (lay.work / "nginx.stdout").string(),
                    err_file = (lay.work / "nginx.stderr").string();
  std::vector<const char*> argv = {binary.c_str(), "-p", prefix_dir.c_str(), "-c",
                                   conf.c_str(),   "-e", err.c_str(),        nullptr};
  std::string inherited = "NGINX=";
  for (int fd : listen_fds) inherited += std::to_string(fd) + ";";
  std::vector<const char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("NGINX=", 0) != 0) envp.push_back(*e);
  envp.push_back(inherited.c_str());
  envp.push_back(nullptr);
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
    for (int fd : listen_fds) ::fcntl(fd, F_SETFD, 0);
    ::execve(binary.c_str(), const_cast<char* const*>(argv.data()), const_cast<char* const*>(envp.data()));
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

// Ready once the master has written its pid file and started its worker. Not before: the master blocks
// signals only when it enters its loop, after writing the pid file, and a signal that arrives in between is
// noted but not acted on until the next one (a SIGQUIT would wait for the SIGKILL after 5 s). The listeners
// accept from the start: connections wait in their backlog until the worker takes them.
bool nginx_ready(const Layout& lay, pid_t pid) {
  const std::string pid_text = read_whole_file(lay.pid_file());
  const std::string id = std::to_string(pid);
  return std::atol(pid_text.c_str()) == pid &&
         read_whole_file(lay.error_log()).find(id + "#" + id + ": start worker process ") !=
             std::string::npos;
}

// Non-blocking (nginx accepts from it in its event loop), and above 2, so that the child's dup2 onto
// stdin/stdout/stderr cannot replace it.
int socket_above_stdio() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

uint16_t bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("FakeHub: getsockname failed");
  return ntohs(addr.sin_port);
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

Listeners::Listeners(size_t n) {
  for (size_t i = 0; i < n; ++i) {
    fds_.push_back(std::make_unique<Fd>(socket_above_stdio()));
    const int fd = fds_.back()->get();
    const sockaddr_in addr = loopback(0);
    if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd, 511) != 0)
      throw std::runtime_error("FakeHub: cannot listen on a free port");
    ports_.push_back(bound_port(fd));
  }
}

std::vector<int> Listeners::fds() const {
  std::vector<int> out;
  for (const auto& fd : fds_) out.push_back(fd->get());
  return out;
}

void NginxProcess::start(const std::string& binary, const Layout& lay, const Listeners& listeners) {
  pid_ = spawn_nginx(binary, lay, listeners.fds());
  wait_until_ready(lay);
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

void NginxProcess::wait_until_ready(const Layout& lay) {
  for (const auto deadline = Clock::now() + kStartTimeout; Clock::now() < deadline;) {
    if (has_exited(pid_)) {
      ::kill(-std::exchange(pid_, -1), SIGKILL);  // a worker it may have left behind
      fail_start(lay, "exited during startup");
    }
    if (nginx_ready(lay, pid_)) return;
    std::this_thread::sleep_for(kPollInterval);
  }
  fail_start(lay, "did not start its worker within 10 s");
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

bool get_to_the_end(uint16_t port, const std::string& path) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const timeval limit{kRequestTimeoutS, 0};
  const sockaddr_in addr = loopback(port);
  if (fd.get() < 0 || ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) != 0 ||
      ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit) != 0 ||
      ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    return false;
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
    return false;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd.get(), buf, sizeof buf, 0)) != 0;)
    if (n < 0 && errno != EINTR) return false;
  return true;
}

}  // namespace ma::test::detail
