#include "io/byte_source.h"

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

void PrefixSource::read_exact(uint64_t offset, uint64_t len, std::string& out) const {
  out.resize(len);
  read_exact(offset, len, out.data());
}

void PrefixSource::read_exact(uint64_t offset, uint64_t len, char* out) const {
  check_range(size_, offset, len, name_);
  if (offset + len > prefix_.size()) throw BytesNotFetched{offset + len};
  prefix_.copy(out, len, offset);
}

void throw_malformed(const ByteSource& src, const std::string& field, const std::string& rule) {
  throw Error(ErrorKind::Malformed, src.name(), field, rule);
}

}  // namespace ma
