// Where a reader's bytes come from: a local file (FileSource, pread) or bytes already in memory (a fuzz
// input, a header fetched by HTTP range). Readers of untrusted formats take a ByteSource, so one parser
// serves every origin and the same bounds checks guard each.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ma {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // What error messages call the source (a path).
  virtual const std::string& name() const = 0;
  // Exactly `len` bytes at `offset` into `out` (resized); throws Error(Malformed) past the end.
  virtual void read_exact(uint64_t offset, uint64_t len, std::string& out) const = 0;
  // The same into a caller's buffer of at least `len` bytes (no allocation, no zero-filling first).
  virtual void read_exact(uint64_t offset, uint64_t len, char* out) const = 0;
};

// Bytes the caller keeps alive for the source's lifetime.
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}
  uint64_t size() const override { return bytes_.size(); }
  const std::string& name() const override { return name_; }
  void read_exact(uint64_t offset, uint64_t len, std::string& out) const override;
  void read_exact(uint64_t offset, uint64_t len, char* out) const override;

 private:
  std::string_view bytes_;
  std::string name_;
};

}  // namespace ma
