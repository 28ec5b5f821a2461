#include "io/byte_source.h"

#include "core/error.h"

namespace ma {

void MemorySource::read_exact(uint64_t offset, uint64_t len, std::string& out) const {
  if (offset > bytes_.size() || len > bytes_.size() - offset)
    throw Error(ErrorKind::Malformed, name_, "",
                "read of " + std::to_string(len) + " bytes at offset " + std::to_string(offset) +
                    " runs past the end (" + std::to_string(bytes_.size()) + " bytes)");
  out.assign(bytes_.substr(offset, len));
}

}  // namespace ma
