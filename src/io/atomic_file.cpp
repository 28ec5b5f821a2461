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

// The rename itself is durable only once the directory is flushed. Best effort: some filesystems refuse
// fsync on a directory, and the file is complete either way.
void sync_directory_of(const std::filesystem::path& p) {
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path final_path, Durability durability)
    : final_path_(std::move(final_path)), durability_(durability) {
  std::string templ = final_path_.string() + ".tmp-XXXXXX";
  fd_ = ::mkstemp(templ.data());
  if (fd_ < 0) io_error(final_path_, "cannot create temporary file");
  temp_path_ = templ;
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!published_) ::unlink(temp_path_.c_str());  // written, sealed or not: never left behind
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

void AtomicFile::seal(uint64_t final_size) {
  if (::ftruncate(fd_, static_cast<off_t>(final_size)) != 0) io_error(final_path_, "cannot set file size");
  // A replaced file keeps its permissions; a new one gets rw-r--r-- as before.
  struct stat old {};
  const mode_t mode =
      ::stat(final_path_.c_str(), &old) == 0 && S_ISREG(old.st_mode) ? (old.st_mode & 07777) : 0644;
  if (::fchmod(fd_, mode) != 0) io_error(final_path_, "cannot set permissions");
  const bool durable = durability_ == Durability::Durable;
  if (durable && ::fsync(fd_) != 0) io_error(final_path_, "cannot flush to disk");  // data before the name
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(temp_path_.c_str());
    io_error(final_path_, "close failed");
  }
  fd_ = -1;
}

void AtomicFile::publish() {
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    int e = errno;
    ::unlink(temp_path_.c_str());
    errno = e;
    io_error(final_path_, "cannot rename into place");
  }
  published_ = true;
  if (durability_ == Durability::Durable) sync_directory_of(final_path_);
}

void AtomicFile::seal() {
  seal(end_);
}

void AtomicFile::commit(uint64_t final_size) {
  seal(final_size);
  publish();
}

void AtomicFile::commit() {
  commit(end_);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           Durability durability) {
  AtomicFile f(path, durability);
  f.write(content);
  f.commit();
}

}  // namespace ma
