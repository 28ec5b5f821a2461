// A file written under a temporary name in the destination directory and renamed into place on commit(), so
// readers never see a half-written file; destroyed without commit(), the temp file is removed. For regular
// files only: command outputs go through write_output (io/output_file.h), which writes devices and pipes in
// place.
//
// Durable files are flushed to disk before the rename and their directory after it, so a power loss leaves
// the old file or the new one, never an empty one (rename alone orders nothing on most filesystems). That
// costs about 3 ms a file here, so caches whose reader checks what it reads (and fetches again what is cut
// short) may skip it: 163 cached safetensors headers would otherwise add half a second to a Hub analysis.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace ma {

enum class Durability : uint8_t { Durable, Checked };  // Checked: no fsync; the reader validates the content

class AtomicFile {
 public:
  // Throws Error(LocalIO).
  explicit AtomicFile(std::filesystem::path final_path, Durability durability = Durability::Durable);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);  // appends at the current end of what was written
  void write_at(uint64_t offset, std::string_view bytes);
  // Sets the final size (extending with a hole if needed), flushes and renames into place.
  void commit(uint64_t final_size);
  void commit();  // final size = bytes written so far
  // commit() in two halves, for files that must appear together (OutputBatch): seal() sets the size,
  // flushes and closes the temp file (where a full disk shows), publish() renames it into place.
  void seal();
  void publish();

 private:
  void seal(uint64_t final_size);
  void forget_temp() noexcept;  // the temp file is gone (renamed or removed): out of the signal registry
  std::filesystem::path final_path_, temp_path_;
  Durability durability_;
  int fd_ = -1;
  uint64_t end_ = 0;
  bool published_ = false;
  int slot_ = -1;  // in the registry remove_temp_files_at_signal reads; -1: not registered
};

// For a signal handler about to _exit (cli/interrupt.cpp), which runs no destructor: removes the temp file of
// every AtomicFile not yet renamed into place or destroyed, in any thread, so an interrupted command leaves
// no *.tmp-XXXXXX beside its outputs. Async-signal-safe: atomics and unlink() on paths stored when each
// temp file was created, nothing allocated.
void remove_temp_files_at_signal() noexcept;

// Convenience: write a whole small file atomically.
void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           Durability durability = Durability::Durable);

}  // namespace ma
