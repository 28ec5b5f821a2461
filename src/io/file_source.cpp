#include "io/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "io/input_files.h"

namespace ma {
namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of an unknown type";
}

}  // namespace

FileSource::FileSource(const std::filesystem::path& path) : name_(path.string()) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait forever for a writer. Nothing but a regular
  // file is read, so the flag never matters after the check below.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) {
    int e = errno;
    ErrorKind kind = (e == ENOENT || e == ENOTDIR) ? ErrorKind::NotFound : ErrorKind::LocalIO;
    throw Error(kind, name_, "", std::string("cannot open: ") + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* what = file_type_name(st.st_mode);
    ::close(fd_);
    fd_ = -1;
    throw Error(ErrorKind::LocalIO, name_, "",
                std::string("is ") + what + ", not a regular file; refusing to read it");
  }
  size_ = static_cast<uint64_t>(st.st_size);
  note_input_file(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::read_exact(uint64_t offset, uint64_t len, std::string& out) const {
  if (offset > size_ || len > size_ - offset)
    throw Error(ErrorKind::Malformed, name_, "",
                "read of " + std::to_string(len) + " bytes at offset " + std::to_string(offset) +
                    " runs past the end of the file (" + std::to_string(size_) + " bytes)");
  // A reused buffer only zero-fills what it grows by; the bytes are overwritten right away.
  out.resize(len);
  read_exact(offset, len, out.data());
}

void FileSource::read_exact(uint64_t offset, uint64_t len, char* out) const {
  if (offset > size_ || len > size_ - offset)
    throw Error(ErrorKind::Malformed, name_, "",
                "read of " + std::to_string(len) + " bytes at offset " + std::to_string(offset) +
                    " runs past the end of the file (" + std::to_string(size_) + " bytes)");
  uint64_t done = 0;
  while (done < len) {
    ssize_t r = ::pread(fd_, out + done, len - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::LocalIO, name_, "", std::string("read failed: ") + std::strerror(errno));
    }
    if (r == 0)
      throw Error(
          ErrorKind::Malformed, name_, "",
          "file shrank while being read (now ends before byte " + std::to_string(offset + done) + ")");
    done += static_cast<uint64_t>(r);
  }
}

namespace {

void check_cap(const FileSource& f, uint64_t max_bytes) {
  if (f.size() > max_bytes)
    throw Error(
        ErrorKind::Limit, f.name(), "",
        "file is " + std::to_string(f.size()) + " bytes, over the cap of " + std::to_string(max_bytes));
}

}  // namespace

std::string read_small_file(const std::filesystem::path& path, uint64_t max_bytes) {
  FileSource f(path);
  check_cap(f, max_bytes);
  std::string out;
  f.read_exact(0, f.size(), out);
  return out;
}

FileBytes read_file_bytes(const std::filesystem::path& path, uint64_t max_bytes) {
  FileSource f(path);
  check_cap(f, max_bytes);
  FileBytes out;
  out.size = f.size();
  out.data.reset(new char[out.size]);  // default-initialised: not zero-filled
  f.read_exact(0, out.size, out.data.get());
  return out;
}

}  // namespace ma
