// A scripted HTTP/1.1 server on 127.0.0.1 for the Hub client's tests of answers the fake Hub (nginx,
// fake_hub.h) is not made to give: a mirror's own ETag, a token echoed in a header or a redirect, a body
// longer than the listing says, a bare 404, a transfer held open mid-body. Each request is handed to the
// test's handler, which writes the whole answer itself. Header-only: the standard library and POSIX.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace ma::test {

struct CannedRequest {
  std::string method, path;
  std::map<std::string, std::string> headers;  // names lower-case
};

class CannedServer {
 public:
  // Writes the answer to `fd`; returns false to close the connection after it.
  using Handler = std::function<bool(const CannedRequest&, int fd)>;

  explicit CannedServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listen_fd_, 64) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("CannedServer: cannot listen on 127.0.0.1");
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~CannedServer() {
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    acceptor_.join();
    {
      std::lock_guard lock(mutex_);
      for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
    }
    for (std::thread& t : workers_) t.join();
    ::close(listen_fd_);
  }
  CannedServer(const CannedServer&) = delete;
  CannedServer& operator=(const CannedServer&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Request lines seen so far ("GET /path range=bytes=0-99"), in arrival order.
  std::vector<std::string> log() const {
    std::lock_guard lock(mutex_);
    return log_;
  }

  static bool write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // A whole answer with Content-Length.
  static bool send(int fd, int status, const std::vector<std::pair<std::string, std::string>>& headers,
                   std::string_view body = {}) {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " X\r\n";
    for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    return write_all(fd, head) && write_all(fd, body);
  }
  // `data` as a file: its Range honoured (206 with Content-Range), else 200 with all of it.
  static bool send_file(int fd, const CannedRequest& req, std::string_view data,
                        std::vector<std::pair<std::string, std::string>> headers = {}) {
    const auto range = req.headers.find("range");
    if (range == req.headers.end() || range->second.rfind("bytes=", 0) != 0 || data.empty())
      return send(fd, 200, headers, data);
    const std::string spec = range->second.substr(6);
    const size_t dash = spec.find('-');
    const uint64_t first = std::stoull(spec.substr(0, dash));
    uint64_t last = dash + 1 < spec.size() ? std::stoull(spec.substr(dash + 1)) : data.size() - 1;
    if (last >= data.size()) last = data.size() - 1;
    if (first > last) return send(fd, 416, headers);
    headers.emplace_back("Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(last) +
                                              "/" + std::to_string(data.size()));
    return send(fd, 206, headers, data.substr(first, last - first + 1));
  }

 private:
  void accept_loop() {
    for (;;) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping_) return;
        continue;
      }
      std::lock_guard lock(mutex_);
      open_.push_back(fd);
      workers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    std::string buffer;
    char chunk[4096];
    for (;;) {
      size_t end;
      while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) return finish(fd);
        buffer.append(chunk, static_cast<size_t>(n));
      }
      CannedRequest req;
      const std::string head = buffer.substr(0, end);
      buffer.erase(0, end + 4);
      size_t line_end = head.find("\r\n");
      const std::string request_line = head.substr(0, line_end);
      const size_t sp1 = request_line.find(' '), sp2 = request_line.rfind(' ');
      req.method = request_line.substr(0, sp1);
      req.path = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
      while (line_end != std::string::npos) {
        const size_t from = line_end + 2;
        line_end = head.find("\r\n", from);
        const std::string line =
            head.substr(from, line_end == std::string::npos ? std::string::npos : line_end - from);
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        size_t v = colon + 1;
        while (v < line.size() && line[v] == ' ') ++v;
        req.headers[name] = line.substr(v);
      }
      {
        std::lock_guard lock(mutex_);
        const auto range = req.headers.find("range");
        log_.push_back(req.method + " " + req.path +
                       (range == req.headers.end() ? std::string() : " range=" + range->second));
      }
      if (!handler_(req, fd)) return finish(fd);
    }
  }

  void finish(int fd) {
    std::lock_guard lock(mutex_);
    ::shutdown(fd, SHUT_RDWR);
    std::erase(open_, fd);
    ::close(fd);
  }

  Handler handler_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<int> open_;
  std::vector<std::thread> workers_;
  std::vector<std::string> log_;
};

}  // namespace ma::test
