// safetensors header reading and validation, equivalent to the reference implementation's
// `SafeTensors::read_metadata` (see reference/anchors-reliability.md §1) and stricter where it is lax:
// duplicate names and a tensor named __metadata__ are rejected. Only the header is read; tensor data is
// never touched.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/stored_tensor.h"

namespace ma {

inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;  // the reference's MAX_HEADER_SIZE
inline constexpr uint64_t kSafetensorsMaxTensors = 10'000'000;

struct SafetensorsHeader {
  std::vector<StoredTensor> tensors;  // in header order
  std::vector<std::pair<std::string, std::string>> metadata;
  uint64_t header_length = 0;  // N, the JSON length after the 8-byte prefix
  uint64_t file_size = 0;
  uint64_t data_offset() const { return 8 + header_length; }
};

// Validates `header_json` (the N bytes after the prefix) against a file of `file_size` bytes.
// `source` names the file in errors. Throws ma::Error.
SafetensorsHeader parse_safetensors_header(std::string_view header_json, uint64_t file_size,
                                           std::string_view source);

// Validates a whole file held in memory (fuzzing, remote prefixes that hold the complete header).
SafetensorsHeader parse_safetensors_bytes(std::string_view file, std::string_view source);

// Reads and validates the header of a local .safetensors file.
SafetensorsHeader read_safetensors_header(const std::string& path);

// The file's first bytes (at least 8 when the file has them; up to 64 help recognise impostors): returns the
// header length N after checking it against the cap and the file size.
uint64_t safetensors_header_length(std::string_view first_bytes, uint64_t file_size, std::string_view source);

}  // namespace ma
