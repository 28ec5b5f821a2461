#include "io/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
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

// The process's umask, read once while the program starts (static initialisation, before main and any
// thread): umask() reads it only by setting it, and a thread creating a file between the two calls would get
// the wrong mode. mkstemp creates the temp file rw-------, so a new output's mode is set from this.
mode_t read_umask() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}
const mode_t g_umask = read_umask();

// The live temp files, for remove_temp_files_at_signal: Ctrl-C or SIGTERM ends most commands with _exit(130)
// from the handler (cli/interrupt.cpp), which runs no destructor, and a kill during the writing of a 6 MB CSV
// left its temp file behind. Fixed slots of fixed buffers, so the handler allocates nothing and reads only
// what was written before it could run. A slot is kFree, kFilling (its path being written: the handler
// skips it), kLive, or kRemoving (taken by the handler, which alone may then read its path: a slot cannot be
// freed and refilled under it). More live temp files than slots (downloads in many threads) go
// unregistered: the only loss is their cleanup on a signal.
enum SlotState : int { kFree, kFilling, kLive, kRemoving };
struct TempSlot {
  std::atomic<int> state{kFree};
  std::array<char, PATH_MAX> path{};
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
constexpr int kTempSlots = 128;
std::array<TempSlot, kTempSlots> g_temp_slots;

int claim_slot() {
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = kFree;
    if (g_temp_slots[static_cast<size_t>(i)].state.compare_exchange_strong(expected, kFilling)) return i;
  }
  return -1;
}

// SIGINT and SIGTERM held off in this thread while the temp file is created and registered, so a signal
// cannot end the process between the two (it is delivered, and the file removed, once they are unblocked).
class InterruptsDeferred {
 public:
  InterruptsDeferred() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    blocked_ = ::pthread_sigmask(SIG_BLOCK, &s, &old_) == 0;
  }
  ~InterruptsDeferred() {
    if (blocked_) ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  InterruptsDeferred(const InterruptsDeferred&) = delete;
  InterruptsDeferred& operator=(const InterruptsDeferred&) = delete;

 private:
  sigset_t old_{};
  bool blocked_ = false;
};

}  // namespace

void remove_temp_files_at_signal() noexcept {
  for (TempSlot& slot : g_temp_slots) {
    int expected = kLive;
    if (slot.state.compare_exchange_strong(expected, kRemoving)) ::unlink(slot.path.data());
  }
}

AtomicFile::AtomicFile(std::filesystem::path final_path, Durability durability)
    : final_path_(std::move(final_path)), durability_(durability) {
  std::string templ = final_path_.string() + ".tmp-XXXXXX";
  const InterruptsDeferred deferred;
  fd_ = ::mkstemp(templ.data());
  if (fd_ < 0) io_error(final_path_, "cannot create temporary file");
  temp_path_ = templ;
  if (templ.size() < PATH_MAX) slot_ = claim_slot();
  if (slot_ >= 0) {
    TempSlot& slot = g_temp_slots[static_cast<size_t>(slot_)];
    std::memcpy(slot.path.data(), templ.c_str(), templ.size() + 1);
    slot.state.store(kLive);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!published_) ::unlink(temp_path_.c_str());  // written, sealed or not: never left behind
  forget_temp();
}

// After the rename or unlink: a signal between the two finds the name gone, and unlink fails harmlessly.
void AtomicFile::forget_temp() noexcept {
  if (slot_ < 0) return;
  int expected = kLive;  // kRemoving: the handler has it and the process is ending; leave it so
  g_temp_slots[static_cast<size_t>(slot_)].state.compare_exchange_strong(expected, kFree);
  slot_ = -1;
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
  // A replaced file keeps its permissions; a new one gets what open(O_CREAT, 0666) would give it, the
  // umask applied (rw-r--r-- under the usual 022, rw------- under 077), as the shell's `>` does.
  struct stat old {};
  const mode_t mode = ::stat(final_path_.c_str(), &old) == 0 && S_ISREG(old.st_mode) ? (old.st_mode & 07777)
                                                                                     : (0666 & ~g_umask);
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
  forget_temp();
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
