#include "formats/gguf_writer.h"

#include <cstring>

#include "core/error.h"
#include "io/atomic_file.h"

namespace ma {
namespace {

void put(std::string& out, uint64_t v, unsigned bytes) {
  for (unsigned k = 0; k < bytes; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
}
void put_string(std::string& out, const std::string& s) {
  put(out, s.size(), 8);
  out += s;
}

std::string array_head(GgufType element, uint64_t count) {
  std::string p;
  put(p, static_cast<uint32_t>(element), 4);
  put(p, count, 8);
  return p;
}

uint64_t alignment_of(const std::vector<GgufValueToWrite>& metadata) {
  for (const GgufValueToWrite& v : metadata)
    if (v.key == "general.alignment" && v.type == GgufType::U32 && v.payload.size() == 4) {
      uint32_t a;
      std::memcpy(&a, v.payload.data(), 4);
      return a;
    }
  return kGgufDefaultAlignment;
}

}  // namespace

GgufValueToWrite gguf_u32(std::string key, uint32_t v) {
  GgufValueToWrite w{std::move(key), GgufType::U32, {}};
  put(w.payload, v, 4);
  return w;
}
GgufValueToWrite gguf_u64(std::string key, uint64_t v) {
  GgufValueToWrite w{std::move(key), GgufType::U64, {}};
  put(w.payload, v, 8);
  return w;
}
GgufValueToWrite gguf_i32(std::string key, int32_t v) {
  GgufValueToWrite w{std::move(key), GgufType::I32, {}};
  put(w.payload, static_cast<uint32_t>(v), 4);
  return w;
}
GgufValueToWrite gguf_f32(std::string key, float v) {
  GgufValueToWrite w{std::move(key), GgufType::F32, {}};
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put(w.payload, bits, 4);
  return w;
}
GgufValueToWrite gguf_bool(std::string key, bool v) {
  GgufValueToWrite w{std::move(key), GgufType::Bool, {}};
  put(w.payload, v ? 1 : 0, 1);
  return w;
}
GgufValueToWrite gguf_string(std::string key, const std::string& v) {
  GgufValueToWrite w{std::move(key), GgufType::String, {}};
  put_string(w.payload, v);
  return w;
}
GgufValueToWrite gguf_u32_array(std::string key, const std::vector<uint32_t>& v) {
  GgufValueToWrite w{std::move(key), GgufType::Array, array_head(GgufType::U32, v.size())};
  for (uint32_t x : v) put(w.payload, x, 4);
  return w;
}
GgufValueToWrite gguf_i32_array(std::string key, const std::vector<int32_t>& v) {
  GgufValueToWrite w{std::move(key), GgufType::Array, array_head(GgufType::I32, v.size())};
  for (int32_t x : v) put(w.payload, static_cast<uint32_t>(x), 4);
  return w;
}
GgufValueToWrite gguf_bool_array(std::string key, const std::vector<bool>& v) {
  GgufValueToWrite w{std::move(key), GgufType::Array, array_head(GgufType::Bool, v.size())};
  for (bool x : v) put(w.payload, x ? 1 : 0, 1);
  return w;
}
GgufValueToWrite gguf_string_array(std::string key, const std::vector<std::string>& v) {
  GgufValueToWrite w{std::move(key), GgufType::Array, array_head(GgufType::String, v.size())};
  for (const std::string& x : v) put_string(w.payload, x);
  return w;
}

std::string gguf_header_bytes(const std::vector<GgufValueToWrite>& metadata,
                              const std::vector<TensorToWrite>& tensors, uint32_t version) {
  const uint64_t alignment = alignment_of(metadata);
  std::string h = "GGUF";
  put(h, version, 4);
  put(h, tensors.size(), 8);
  put(h, metadata.size(), 8);
  for (const GgufValueToWrite& v : metadata) {
    put_string(h, v.key);
    put(h, static_cast<uint32_t>(v.type), 4);
    h += v.payload;
  }
  uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    put_string(h, t.name);
    put(h, t.shape.size(), 4);
    for (size_t d = t.shape.size(); d-- > 0;) put(h, t.shape[d], 8);  // ggml's ne[]: innermost first
    const int32_t type = dtype_info(t.dtype).ggml_type;
    if (type < 0) throw Error(ErrorKind::Internal, "", t.name, "dtype has no ggml type");
    put(h, static_cast<uint32_t>(type), 4);
    put(h, offset, 8);
    offset += (data_bytes(t) + alignment - 1) / alignment * alignment;
  }
  return h;
}

void write_gguf(const std::filesystem::path& path, const std::vector<GgufValueToWrite>& metadata,
                const std::vector<TensorToWrite>& tensors) {
  const uint64_t alignment = alignment_of(metadata);
  const std::string header = gguf_header_bytes(metadata, tensors);
  AtomicFile out(path);
  out.write(header);
  uint64_t offset = (header.size() + alignment - 1) / alignment * alignment;
  for (const TensorToWrite& t : tensors) {
    const uint64_t len = data_bytes(t);
    if (!t.data.empty()) {
      if (t.data.size() != len)
        throw Error(ErrorKind::Internal, path.string(), t.name, "tensor data size does not match its shape");
      out.write_at(offset, t.data);
    }
    offset += (len + alignment - 1) / alignment * alignment;
  }
  out.commit(offset);  // the last tensor padded too, as llama.cpp writes it (its reader expects the padding)
}

}  // namespace ma
