// Reading local files with pread: no mmap, so a file truncated under us yields an error, never SIGBUS.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "io/byte_source.h"

namespace ma {

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& path);  // throws Error(NotFound / LocalIO)
  ~FileSource();
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }
  // Reads exactly `len` bytes at `offset` into `out` (resized); throws Error(Malformed) if the file is
  // shorter.
  void read_exact(uint64_t offset, uint64_t len, std::string& out) const override;
  void read_exact(uint64_t offset, uint64_t len, char* out) const override;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string name_;
};

// Whole small file (config.json, index) with a size cap; throws Error(Limit) above it.
std::string read_small_file(const std::filesystem::path& path, uint64_t max_bytes);

// A whole file in memory that is not zero-filled before the read overwrites it: for files of megabytes read
// once (DeepSeek-V3's 4 MB index), where filling fresh memory with zeros first cost 1.8 of the 6.5 ms the
// read took on the 2-core development VM.
struct FileBytes {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  std::string_view view() const { return {data.get(), size}; }
};
FileBytes read_file_bytes(const std::filesystem::path& path, uint64_t max_bytes);

}  // namespace ma
