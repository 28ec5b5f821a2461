#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.h"

namespace ma {
namespace {

[[noreturn]] void io_error(const std::filesystem::path& p, const char* what) {
  throw Error(ErrorKind::LocalIO, p.string(), "", std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path final_path) : final_path_(std::move(final_path)) {
  std::string templ = final_path_.string() + ".tmp-XXXXXX";
  fd_ = ::mkstemp(templ.data());
  if (fd_ < 0) io_error(final_path_, "cannot create temporary file");
  temp_path_ = templ;
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void AtomicFile::write_at(uint64_t offset, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (w < 0) {
      if (errno == EINTR) continue;
      io_error(final_path_, "write failed");
    }
    done += static_cast<size_t>(w);
  }
  if (offset + bytes.size() > end_) end_ = offset + bytes.size();
}

void AtomicFile::write(std::string_view bytes) {
  write_at(end_, bytes);
}

void AtomicFile::commit(uint64_t final_size) {
  if (::ftruncate(fd_, static_cast<off_t>(final_size)) != 0) io_error(final_path_, "cannot set file size");
  if (::fchmod(fd_, 0644) != 0) io_error(final_path_, "cannot set permissions");
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(temp_path_.c_str());
    io_error(final_path_, "close failed");
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    int e = errno;
    ::unlink(temp_path_.c_str());
    errno = e;
    io_error(final_path_, "cannot rename into place");
  }
}

void AtomicFile::commit() {
  commit(end_);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile f(path);
  f.write(content);
  f.commit();
}

}  // namespace ma
