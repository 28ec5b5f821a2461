// Where a reader's bytes come from: a local file (FileSource, pread) or bytes already in memory (a fuzz
// input, a header fetched by HTTP range). Readers of untrusted formats take a ByteSource, so one parser
// serves every origin and the same bounds checks guard each.
#pragma once
#include <cstdint>
#include <optional>
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
  // Bytes at hand without further cost: all of them, except for a prefix fetched over the network
  // (PrefixSource), which readers of sequential headers should not read ahead of.
  virtual uint64_t available() const { return size(); }
};

// Throws Error(Malformed) naming the source, the field and the rule broken: every reader's bad-input line.
[[noreturn]] void throw_malformed(const ByteSource& src, const std::string& field, const std::string& rule);

// Thrown by PrefixSource and HeadTailSource for a read of bytes not fetched so far, [begin, end): the caller
// fetches them (or more) and parses again. Not an ma::Error: it is a request for bytes, not a fault of the
// file.
struct BytesNotFetched {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// The first bytes of a remote file of `file_size` bytes (a GGUF header fetched by range requests): a reader
// sees the whole file's size, and a read beyond the prefix throws BytesNotFetched.
class PrefixSource final : public ByteSource {
 public:
  PrefixSource(std::string_view prefix, uint64_t file_size, std::string name)
      : prefix_(prefix), size_(file_size), name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  uint64_t available() const override { return prefix_.size(); }
  const std::string& name() const override { return name_; }
  void read_exact(uint64_t offset, uint64_t len, std::string& out) const override;
  void read_exact(uint64_t offset, uint64_t len, char* out) const override;

 private:
  std::string_view prefix_;
  uint64_t size_;
  std::string name_;
};

// The two ends of a remote file of `file_size` bytes, the only parts a PyTorch zip checkpoint's layout is
// read from: its head (data.pkl, which torch.save writes first) and its tail (the zip's central directory). A
// read inside either end, or anywhere once they meet, is served; any other throws BytesNotFetched.
class HeadTailSource final : public ByteSource {
 public:
  // Throws Error(Malformed) when an end is longer than the file.
  HeadTailSource(std::string_view head, std::string_view tail, uint64_t file_size, std::string name);
  uint64_t size() const override { return size_; }
  uint64_t available() const override { return head_.size(); }
  const std::string& name() const override { return name_; }
  void read_exact(uint64_t offset, uint64_t len, std::string& out) const override;
  void read_exact(uint64_t offset, uint64_t len, char* out) const override;

 private:
  // Throws Error(Malformed) past the end, BytesNotFetched for bytes of the gap.
  void check_fetched(uint64_t offset, uint64_t len) const;
  // The bytes of a range check_fetched let pass.
  void copy_fetched(uint64_t offset, uint64_t len, char* out) const;

  std::string_view head_, tail_;
  uint64_t size_;
  std::string name_;
};

// Both ends in one string, as a fetched header is held and cached: the head, the tail, then their lengths as
// two 8-byte little-endian numbers.
std::string pack_head_tail(std::string_view head, std::string_view tail);
struct HeadAndTail {
  std::string_view head, tail;
};
// The ends of a packed string; nullopt when it is not one (a cache file cut short).
std::optional<HeadAndTail> unpack_head_tail(std::string_view packed);

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
