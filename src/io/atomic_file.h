// A file written under a temporary name in the destination directory and renamed into place on commit();
// destroyed without commit(), it is removed, so readers never see a half-written file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace ma {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path final_path);  // throws Error(LocalIO)
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);  // appends at the current end of what was written
  void write_at(uint64_t offset, std::string_view bytes);
  // Sets the final size (extending with a hole if needed), flushes and renames into place.
  void commit(uint64_t final_size);
  void commit();  // final size = bytes written so far

 private:
  std::filesystem::path final_path_, temp_path_;
  int fd_ = -1;
  uint64_t end_ = 0;
};

// Convenience: write a whole small file atomically.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace ma
