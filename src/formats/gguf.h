// GGUF, llama.cpp's single-file format (versions 2 and 3): a header of typed key/value metadata (the model's
// hyperparameters under "{arch}.*", its tokenizer under "tokenizer.ggml.*"), then one info record per tensor
// (name, dimensions, ggml type, offset), then the tensor data, aligned. Everything in the header is bounded
// and validated before anything is allocated from it: counts against the bytes left, lengths against the
// caps, tensor extents against the file.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/heap_pages.h"
#include "core/shape.h"
#include "io/byte_source.h"

namespace ma {

// The value types of the format, with their on-disk numbers.
enum class GgufType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};
std::string_view gguf_type_name(GgufType t);  // "u8", ..., "string", "array"

// One metadata entry. Scalars are decoded; strings and arrays stay where they are in the header (offsets into
// GgufFile::header), decoded on request: a tokenizer's 150,000 tokens are never copied unless asked for.
struct GgufKv {
  std::string key;
  GgufType type = GgufType::U8;
  GgufType element_type = GgufType::U8;  // arrays: the type of their elements
  uint64_t count = 0;                    // arrays: elements; strings: bytes
  uint64_t begin = 0, end = 0;           // the value's bytes in the header (after the type tags and count)
  // Scalars: the value in the widest form of its kind.
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  bool is_integer() const;
  bool is_float() const { return type == GgufType::F32 || type == GgufType::F64; }
};

// Where tensor data starts and each tensor is padded to, when general.alignment does not say.
inline constexpr uint64_t kGgufDefaultAlignment = 32;

struct GgufTensorInfo {
  std::string name;
  Shape shape;  // row-major, as PyTorch and safetensors write it: ggml's ne[] reversed
  DType dtype = DType::F32;
  uint64_t offset = 0;  // from the start of the data section
  uint64_t bytes = 0;
};

// The header's bytes, read once into memory that is not zero-filled first: a 70B model's 8 MB tokenizer would
// otherwise be written twice, and the zeros cost as much as the read on the 2-core development VM.
class GgufHeaderBytes {
 public:
  const char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  std::string_view view() const { return {bytes_.get(), size_}; }
  // Room for `n` bytes (address space: pages are touched only when filled, in 2 MiB pages where the kernel
  // offers them), empty.
  void reserve_fresh(size_t n);
  // Makes the size `n` (at most the capacity) and returns where the new bytes go; they are the caller's to
  // fill.
  char* grow_to(size_t n);
  void shrink_to(size_t n) { size_ = n < size_ ? n : size_; }

 private:
  HugePageBlock bytes_;
  size_t size_ = 0, capacity_ = 0;
};

struct GgufFile {
  uint32_t version = 0;
  uint64_t file_size = 0;
  uint64_t alignment = 32;       // general.alignment, or the format's default
  uint64_t data_start = 0;       // file offset of the data section
  GgufHeaderBytes header;        // bytes [0, end of the tensor infos)
  std::vector<GgufKv> metadata;  // in file order
  std::vector<GgufTensorInfo> tensors;

  const GgufKv* find(std::string_view key) const;
  // Typed lookups: nullopt when the key is absent or holds another kind of value (an unsigned read of a
  // negative integer is nullopt too).
  std::optional<uint64_t> uint_value(std::string_view key) const;
  std::optional<double> float_value(std::string_view key) const;  // floats and integers
  std::optional<bool> bool_value(std::string_view key) const;
  std::optional<std::string_view> string_value(std::string_view key) const;
  // Arrays of integers (per-layer head counts) / floats / booleans, as unsigned values or doubles; nullopt
  // for another element type.
  std::optional<std::vector<uint64_t>> uint_array(std::string_view key) const;
  std::optional<std::vector<std::string_view>> string_array(std::string_view key) const;
  // One element of an array without materialising the array (a vocabulary's 150,000 tokens): an integer
  // array's element as unsigned (nullopt if negative or not integers).
  std::optional<uint64_t> uint_element(const GgufKv& array, uint64_t index) const;
  // How many elements of an integer array equal one of `values` (a vocabulary's control tokens), in one pass;
  // 0 for another array type.
  uint64_t count_equal(const GgufKv& array, std::initializer_list<uint64_t> values) const;
  // A string array's elements at `indices`, in their order, found in one walk of the array (its strings can
  // only be walked one after another: Llama-3's special tokens lie past 128,000 of them, and a walk each cost
  // more than the rest of reading the tokenizer). nullopt for an index past the end or another array type.
  std::vector<std::optional<std::string_view>> string_elements(const GgufKv& array,
                                                               const std::vector<uint64_t>& indices) const;
  std::string_view view(uint64_t begin, uint64_t end) const {
    return header.view().substr(begin, end - begin);
  }
};

// Caps on what a header may declare; far beyond any published model (a 256k-token vocabulary with its merges
// is ~10 MB; the largest MoE checkpoints hold ~100k tensors).
struct GgufLimits {
  uint64_t max_header_bytes = 512ull << 20;
  uint64_t max_tensors = 1u << 20;
  uint64_t max_metadata = 1u << 16;
  uint64_t max_string = 64ull << 20;
  uint32_t max_array_depth = 8;
};

// Reads header, metadata and tensor infos (not the tensor data). Throws Error: Malformed (truncated, lying
// lengths, unknown value or ggml type, a tensor outside the file, overlapping tensors, duplicate names),
// Limit (a count or length over GgufLimits), Unsupported (GGUF v1, big-endian files).
GgufFile read_gguf(const ByteSource& src, const GgufLimits& limits = {});

}  // namespace ma
