#include "io/byte_source.h"

#include <algorithm>

#include "core/error.h"

namespace ma {

namespace {

void check_range(uint64_t size, uint64_t offset, uint64_t len, const std::string& name) {
  if (offset > size || len > size - offset)
    throw Error(ErrorKind::Malformed, name, "",
                "read of " + std::to_string(len) + " bytes at offset " + std::to_string(offset) +
                    " runs past the end (" + std::to_string(size) + " bytes)");
}

}  // namespace

void MemorySource::read_exact(uint64_t offset, uint64_t len, std::string& out) const {
  check_range(bytes_.size(), offset, len, name_);
  out.assign(bytes_.substr(offset, len));
}

void MemorySource::read_exact(uint64_t offset, uint64_t len, char* out) const {
  check_range(bytes_.size(), offset, len, name_);
  bytes_.copy(out, len, offset);
}

// The string overloads of the remote sources check before they allocate: a hostile header asking for
// hundreds of MB of bytes not fetched must not have them allocated first.
void PrefixSource::read_exact(uint64_t offset, uint64_t len, std::string& out) const {
  check_range(size_, offset, len, name_);
  if (offset + len > prefix_.size()) throw BytesNotFetched{.begin = offset, .end = offset + len};
  out.assign(prefix_.substr(offset, len));
}

void PrefixSource::read_exact(uint64_t offset, uint64_t len, char* out) const {
  check_range(size_, offset, len, name_);
  if (offset + len > prefix_.size()) throw BytesNotFetched{.begin = offset, .end = offset + len};
  prefix_.copy(out, len, offset);
}

HeadTailSource::HeadTailSource(std::string_view head, std::string_view tail, uint64_t file_size,
                               std::string name)
    : head_(head), tail_(tail), size_(file_size), name_(std::move(name)) {
  if (head_.size() > size_ || tail_.size() > size_)
    throw Error(ErrorKind::Malformed, name_, "fetched bytes",
                "an end of " + std::to_string(std::max(head_.size(), tail_.size())) +
                    " bytes is longer than the file (" + std::to_string(size_) + " bytes)");
}

void HeadTailSource::check_fetched(uint64_t offset, uint64_t len) const {
  check_range(size_, offset, len, name_);
  const uint64_t tail_begin = size_ - tail_.size();
  if (offset + len > head_.size() && offset < tail_begin && head_.size() < tail_begin)
    throw BytesNotFetched{.begin = offset, .end = offset + len};
}

void HeadTailSource::read_exact(uint64_t offset, uint64_t len, std::string& out) const {
  check_fetched(offset, len);
  out.resize(len);
  copy_fetched(offset, len, out.data());
}

void HeadTailSource::read_exact(uint64_t offset, uint64_t len, char* out) const {
  check_fetched(offset, len);
  copy_fetched(offset, len, out);
}

void HeadTailSource::copy_fetched(uint64_t offset, uint64_t len, char* out) const {
  const uint64_t tail_begin = size_ - tail_.size();
  if (offset + len <= head_.size()) {
    head_.copy(out, len, offset);
  } else if (offset >= tail_begin) {
    tail_.copy(out, len, offset - tail_begin);
  } else {  // the ends meet (check_fetched): the head's part, then the tail's
    const uint64_t from_head = head_.size() - offset;
    head_.copy(out, from_head, offset);
    tail_.copy(out + from_head, len - from_head, head_.size() - tail_begin);
  }
}

std::string pack_head_tail(std::string_view head, std::string_view tail) {
  std::string out;
  out.reserve(head.size() + tail.size() + 16);
  out.append(head).append(tail);
  for (uint64_t n : {uint64_t{head.size()}, uint64_t{tail.size()}})
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out;
}

std::optional<HeadAndTail> unpack_head_tail(std::string_view packed) {
  if (packed.size() < 16) return std::nullopt;
  uint64_t n[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    for (int i = 7; i >= 0; --i)
      n[k] =
          (n[k] << 8) | static_cast<uint8_t>(
                            packed[packed.size() - 16 + 8 * static_cast<size_t>(k) + static_cast<size_t>(i)]);
  const uint64_t body = packed.size() - 16;
  if (n[0] > body || n[1] != body - n[0]) return std::nullopt;
  return HeadAndTail{packed.substr(0, n[0]), packed.substr(n[0], n[1])};
}

void throw_malformed(const ByteSource& src, const std::string& field, const std::string& rule) {
  throw Error(ErrorKind::Malformed, src.name(), field, rule);
}

}  // namespace ma
