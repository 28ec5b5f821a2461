// The fake Hub's nginx process: finding the binary, the listening sockets it inherits, starting it in its own
// process group and waiting until it serves, stopping it, and one plain request to it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fake_hub_io.h"
#include "fake_hub_layout.h"

namespace ma::test::detail {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// /usr/sbin/nginx, else the first nginx on PATH; empty when there is none.
std::string find_nginx();

// Sockets listening on 127.0.0.1 at ports the kernel picks. nginx inherits them (the NGINX environment
// variable its binary upgrade uses) instead of binding the ports itself: a port closed here for nginx to bind
// later could be taken in between by any other process of a busy machine.
class Listeners {
 public:
  explicit Listeners(size_t n);
  uint16_t port(size_t i) const { return ports_.at(i); }
  std::vector<int> fds() const;

 private:
  std::vector<std::unique_ptr<Fd>> fds_;
  std::vector<uint16_t> ports_;
};

class NginxProcess {
 public:
  bool running() const { return pid_ > 0; }
  // Runs `binary` on lay.conf() with `listeners` and waits until its master has started its worker (10 s); on
  // failure kills it and throws std::runtime_error with the tail of error.log.
  void start(const std::string& binary, const Layout& lay, const Listeners& listeners);
  // Graceful (SIGQUIT), then SIGKILL to the process group after 5 s. Idempotent.
  void stop();

 private:
  [[noreturn]] void fail_start(const Layout& lay, const std::string& why);
  void wait_until_ready(const Layout& lay);

  pid_t pid_ = -1;
};

// GET `path` from 127.0.0.1:`port` over a connection of its own and read the answer to its end (10 s); false
// when that fails.
bool get_to_the_end(uint16_t port, const std::string& path);

}  // namespace ma::test::detail
