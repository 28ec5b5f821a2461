// Where a command writes an output file (--export, --csv, --plot, ...).
//
// A regular file, or a name that does not exist yet, is written atomically (AtomicFile: temp file beside it,
// fsync, rename): readers never see half a file, and a failure leaves the old one. A symlink to a regular
// file is resolved first, so the link survives and its target is replaced. Anything else that exists — a
// character device (/dev/null, /dev/stdout, a terminal), a FIFO, a process substitution `>(gzip > x.gz)` — is
// opened for writing without O_CREAT or O_TRUNC and written through: renaming over it would replace the
// device node or pipe with a regular file (as root, that corrupts /dev). Directories and sockets are refused.
// "-" means standard output, and so does any name of it (names_stdout).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ma {

class AtomicFile;

// Whether an output path means standard output: "-", its names /dev/stdout, /dev/fd/1 and /proc/self/fd/1,
// or the very file or pipe that standard output is (same device and inode; a character device only by those
// names, so /dev/null or a terminal named alongside a redirected stdout stays a file of its own). Such an
// output is written as "-" is: through stdout in its turn, counted as stdout's one document.
bool names_stdout(const std::string& path);

// Throws Error(LocalIO) naming the path when the target is refused or a write fails (ENOSPC on /dev/full).
void write_output(const std::string& path, std::string_view content);

// The outputs of one command, made to appear together: each regular file is written and flushed beside its
// place when added, and none is renamed into place until every one is (commit). A failure before then (a
// full disk, a missing directory, a path refused) leaves every old file as it was and no temp file behind.
// Devices and pipes cannot be staged: they are written through after the files are in place, and "-"
// (standard output, through `to_stdout`) last.
class OutputBatch {
 public:
  // `to_stdout`: where "-" goes; by default written to stdout, a failed write throwing as write_output.
  explicit OutputBatch(std::function<void(std::string_view)> to_stdout = {});
  ~OutputBatch();
  OutputBatch(OutputBatch&&) noexcept;
  OutputBatch& operator=(OutputBatch&&) noexcept;

  // Throws as write_output: a refused target, a failed write of a regular file's temp copy.
  void add(const std::string& path, std::string_view content);
  void commit();

 private:
  std::function<void(std::string_view)> to_stdout_;
  std::vector<std::unique_ptr<AtomicFile>> files_;
  std::vector<std::pair<std::string, std::string>> written_through_;  // devices and pipes, then "-"
};

}  // namespace ma
