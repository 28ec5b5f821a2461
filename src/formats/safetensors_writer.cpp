#include "formats/safetensors_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/json.h"
#include "io/atomic_file.h"

namespace ma {
namespace {

uint64_t tensor_bytes(const TensorToWrite& t) {
  return numel(t.shape) * dtype_bits(t.dtype) / 8;
}

}  // namespace

std::string safetensors_header_json(const std::vector<TensorToWrite>& tensors,
                                    const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string h = "{";
  if (!metadata.empty()) {
    h += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i) h += ',';
      json::append_quoted(h, metadata[i].first);
      h += ':';
      json::append_quoted(h, metadata[i].second);
    }
    h += '}';
  }
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    if (h.size() > 1) h += ',';
    json::append_quoted(h, t.name);
    h += ":{\"dtype\":\"";
    h += dtype_info(t.dtype).safetensors_name;
    h += "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i) h += ',';
      h += std::to_string(t.shape[i]);
    }
    uint64_t end = offset + tensor_bytes(t);
    h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(end) + "]}";
    offset = end;
  }
  return h + "}";
}

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string header = safetensors_header_json(tensors, metadata);
  while (header.size() % 8) header += ' ';
  std::string prefix(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) prefix[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);

  AtomicFile out(path);
  out.write(prefix);
  out.write(header);
  uint64_t offset = 8 + header.size();
  for (const auto& t : tensors) {
    uint64_t len = tensor_bytes(t);
    if (t.data.empty()) {
      offset += len;  // hole
      continue;
    }
    if (t.data.size() != len)
      throw Error(ErrorKind::Internal, path.string(), t.name, "tensor data size does not match its shape");
    out.write_at(offset, t.data);
    offset += len;
  }
  out.commit(offset);
}

}  // namespace ma
