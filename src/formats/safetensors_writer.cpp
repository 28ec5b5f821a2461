#include "formats/safetensors_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/json_writer.h"
#include "io/atomic_file.h"

namespace ma {
std::string safetensors_header_json(const std::vector<TensorToWrite>& tensors,
                                    const std::vector<std::pair<std::string, std::string>>& metadata) {
  JsonWriter w;
  w.begin_object();
  if (!metadata.empty()) {
    w.key("__metadata__").begin_object();
    for (const auto& [k, v] : metadata) w.key(k).value(v);
    w.end_object();
  }
  uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    const uint64_t end = offset + data_bytes(t);
    w.key(t.name).begin_object();
    w.key("dtype").value(dtype_info(t.dtype).name);
    w.key("shape").begin_array();
    for (uint64_t d : t.shape) w.value(d);
    w.end_array();
    w.key("data_offsets").begin_array().value(offset).value(end).end_array();
    w.end_object();
    offset = end;
  }
  w.end_object();
  return w.take();
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
    uint64_t len = data_bytes(t);
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
