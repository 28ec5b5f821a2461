// The fake Hub's nginx process: finding the binary, picking free ports, starting it in its own process group
// and waiting until it serves, stopping it, and having it reopen its logs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fake_hub_layout.h"

namespace ma::test::detail {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// /usr/sbin/nginx, else the first nginx on PATH; empty when there is none.
std::string find_nginx();

// Ports the kernel hands out for 127.0.0.1:0; the sockets stay open until all are chosen, so they differ.
std::vector<uint16_t> pick_free_ports(size_t n);

class NginxProcess {
 public:
  bool running() const { return pid_ > 0; }
  // Runs `binary` on lay.conf() and waits until both ports accept (10 s); on failure kills it and throws
  // std::runtime_error with the tail of error.log.
  void start(const std::string& binary, const Layout& lay, uint16_t hub_port, uint16_t cdn_port);
  // Graceful (SIGQUIT), then SIGKILL to the process group after 5 s. Idempotent.
  void stop();
  // SIGUSR1; returns once master and worker have reopened their logs (5 s, then throws std::runtime_error).
  void reopen_logs(const Layout& lay);

 private:
  [[noreturn]] void fail_start(const Layout& lay, const std::string& why);
  void wait_until_ready(const Layout& lay, uint16_t hub_port, uint16_t cdn_port);

  pid_t pid_ = -1;
};

}  // namespace ma::test::detail
