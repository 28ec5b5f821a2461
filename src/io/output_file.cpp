#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/input_files.h"

namespace ma {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorKind::LocalIO, path, "", what + (err ? std::string(": ") + std::strerror(err) : ""));
}

void write_all(int fd, const std::string& path, std::string_view content) {
  for (size_t done = 0; done < content.size();) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(path, "write failed", errno);
    }
    done += static_cast<size_t>(w);
  }
}

// Devices, FIFOs and pipes: written in place. O_NONBLOCK is not used: a FIFO's reader (gzip in a process
// substitution) may open it a moment later, and the shell's own `>` waits the same way.
void write_through(const std::string& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open for writing", errno);
  try {
    write_all(fd, path, content);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(path, "close failed", errno);
}

}  // namespace

bool names_stdout(const std::string& path) {
  if (path == "-") return true;
  const std::string normal = std::filesystem::path(path).lexically_normal().string();
  if (normal == "/dev/stdout" || normal == "/dev/fd/1" || normal == "/proc/self/fd/1") return true;
  // fd 1 counts only while it is open for writing: with stdout closed (>&-) the number goes to whatever is
  // opened next, a model file read or a temp file, which no output path names as stdout.
  const int flags = ::fcntl(1, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return false;
  struct stat out {};
  struct stat st {};
  if (::fstat(1, &out) != 0 || S_ISCHR(out.st_mode) || ::stat(path.c_str(), &st) != 0) return false;
  return st.st_dev == out.st_dev && st.st_ino == out.st_ino;
}

OutputBatch::OutputBatch(std::function<void(std::string_view)> to_stdout)
    : to_stdout_(std::move(to_stdout)) {}
OutputBatch::~OutputBatch() = default;
OutputBatch::OutputBatch(OutputBatch&&) noexcept = default;
OutputBatch& OutputBatch::operator=(OutputBatch&&) noexcept = default;

void OutputBatch::add(const std::string& path, std::string_view content) {
  if (names_stdout(path)) {
    // Through stdout's stdio stream, in its turn: written through /dev/stdout, the document would come
    // before what stdio still buffers; staged, a stdout redirected to a file would be renamed over.
    written_through_.emplace_back("-", content);
    return;
  }
  if (path.empty()) fail(path, "empty output file name", 0);
  auto stage = [&](const std::filesystem::path& p) {
    auto f = std::make_unique<AtomicFile>(p);
    f->write(content);
    f->seal();
    files_.push_back(std::move(f));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, "cannot inspect the output path", errno);
    stage(path);  // absent: created atomically
    return;
  }
  if (S_ISREG(st.st_mode)) {
    if (is_input_file(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)))
      throw Error(ErrorKind::Usage, path, "",
                  "is a file this run read as input; refusing to replace it with an output");
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::canonical(path, ec);  // through symlinks
    stage(ec ? std::filesystem::path(path) : target);
  } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    written_through_.emplace_back(path, content);
  } else if (S_ISDIR(st.st_mode)) {
    fail(path, "is a directory, not an output file", 0);
  } else {
    fail(path, "is a socket or block device; write to a regular file, a pipe or - (stdout)", 0);
  }
}

void OutputBatch::commit() {
  for (std::unique_ptr<AtomicFile>& f : files_) f->publish();
  files_.clear();
  std::stable_partition(written_through_.begin(), written_through_.end(),
                        [](const auto& w) { return w.first != "-"; });
  for (const auto& [path, content] : written_through_) {
    if (path != "-") {
      write_through(path, content);
    } else if (to_stdout_) {
      to_stdout_(content);
    } else if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size()) {
      fail("standard output", "write failed", errno);
    }
  }
  written_through_.clear();
}

void write_output(const std::string& path, std::string_view content) {
  OutputBatch one;
  one.add(path, content);
  one.commit();
}

}  // namespace ma
