// File helpers of the fake Hub: an owned file descriptor, whole-file reads and writes, a file's tail.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace ma::test::detail {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string read_whole_file(const std::filesystem::path& p);
// Creates the parent directories; throws std::runtime_error when the write fails.
void write_whole_file(const std::filesystem::path& p, std::string_view content);
std::string tail_of_file(const std::filesystem::path& p, size_t max_bytes = 4000);

}  // namespace ma::test::detail
