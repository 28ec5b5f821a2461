#include "formats/gguf.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_set>

#include "core/checked.h"
#include "core/error.h"
#include "core/heap_pages.h"
#include "core/text.h"

namespace ma {
namespace {

constexpr uint32_t kMaxDims = 4;          // ggml's GGML_MAX_DIMS
constexpr uint64_t kFirstRead = 1 << 20;  // most headers without a large vocabulary fit

// Bytes of one element of a fixed-size value type; 0 for strings and arrays.
uint64_t fixed_size(GgufType t) {
  switch (t) {
    case GgufType::U8:
    case GgufType::I8:
    case GgufType::Bool:
      return 1;
    case GgufType::U16:
    case GgufType::I16:
      return 2;
    case GgufType::U32:
    case GgufType::I32:
    case GgufType::F32:
      return 4;
    case GgufType::U64:
    case GgufType::I64:
    case GgufType::F64:
      return 8;
    case GgufType::String:
    case GgufType::Array:
      return 0;
  }
  return 0;
}

// A little-endian unsigned integer of `bytes` (1, 2, 4 or 8) bytes. Each width is one load: the walk over a
// vocabulary's lengths runs this hundreds of thousands of times.
uint64_t load_le(const char* p, unsigned bytes) {
  const auto load = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof v);
    const uint64_t u = v;
    if constexpr (std::endian::native == std::endian::big) return __builtin_bswap64(u) >> (64 - 8 * sizeof v);
    return u;
  };
  switch (bytes) {
    case 1:
      return static_cast<unsigned char>(*p);
    case 2:
      return load(uint16_t{});
    case 4:
      return load(uint32_t{});
    default:
      return load(uint64_t{});
  }
}

// Reads the header front to back into a buffer that grows on demand, so a file is read once and only as far
// as its header goes.
class HeaderReader {
 public:
  HeaderReader(const ByteSource& src, GgufHeaderBytes& buf, const GgufLimits& limits)
      : src_(src), buf_(buf), limits_(limits) {}

  uint64_t pos() const { return pos_; }
  const char* at() const { return buf_.data() + pos_; }

  // pos_ never passes buf_.size(), so the common case is one comparison, inlined; reading more is not.
  void need(uint64_t n, const std::string& field) {
    if (n > buf_.size() - pos_) grow(n, field);
  }
  uint64_t uint(unsigned bytes, const std::string& field) {
    need(bytes, field);
    const uint64_t v = load_le(at(), bytes);
    pos_ += bytes;
    return v;
  }
  void skip(uint64_t n, const std::string& field) {
    need(n, field);
    pos_ += n;
  }
  // `n` bools, each 0 or 1 as the spec says (ggml reads any other byte as true): another is a damaged file.
  void skip_bools(uint64_t n, const std::string& field) {
    need(n, field);
    for (uint64_t k = 0; k < n; ++k)
      if (static_cast<uint8_t>(at()[k]) > 1)
        throw Error(
            ErrorKind::Malformed, name(), field,
            "a bool of " + std::to_string(static_cast<uint8_t>(at()[k])) + " (the format allows 0 and 1)");
    pos_ += n;
  }
  // A length-prefixed string: its bytes' offsets.
  std::pair<uint64_t, uint64_t> string(const std::string& field) {
    const uint64_t len = uint(8, field);
    check_string_length(len, field);
    const uint64_t begin = pos_;
    skip(len, field);
    return {begin, pos_};
  }
  // `count` strings one after another (a vocabulary, its merges), under string()'s rules.
  void skip_strings(uint64_t count, const std::string& field) {
    for (uint64_t k = 0; k < count; ++k) {
      need(8, field);
      const uint64_t len = load_le(at(), 8);
      pos_ += 8;
      check_string_length(len, field);
      need(len, field);
      pos_ += len;
    }
  }
  // No count may promise more elements than the bytes left in the file could hold.
  void check_count(uint64_t count, uint64_t min_bytes_each, const std::string& field) const {
    const uint64_t left = src_.size() - std::min<uint64_t>(src_.size(), pos_);
    if (min_bytes_each && count > left / min_bytes_each)
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "declares " + std::to_string(count) + " elements, more than the " + std::to_string(left) +
                      " bytes left in the file can hold");
  }
  const std::string& name() const { return src_.name(); }

 private:
  // Called with pos_ just past the length. A length the bytes left cannot hold is a damaged file (exit 3),
  // checked before the cap: only a string that is really there can be too long to read (exit 5).
  void check_string_length(uint64_t len, const std::string& field) const {
    if (len > src_.size() - pos_) string_past_end(len, field);
    if (len > limits_.max_string) string_too_long(len, field);
  }
  [[noreturn, gnu::noinline]] void string_past_end(uint64_t len, const std::string& field) const {
    throw Error(ErrorKind::Malformed, src_.name(), field,
                "a string of " + std::to_string(len) + " bytes runs past the end of the file (" +
                    std::to_string(src_.size() - pos_) + " bytes left)",
                pos_ - 8);
  }
  [[noreturn, gnu::noinline]] void string_too_long(uint64_t len, const std::string& field) const {
    throw Error(ErrorKind::Limit, src_.name(), field,
                "a string of " + std::to_string(len) + " bytes (cap " +
                    std::to_string(limits_.max_string >> 20) + " MiB)");
  }

  [[gnu::noinline]] void grow(uint64_t n, const std::string& field) {
    const auto end = checked_add(pos_, n);
    if (!end || *end > src_.size())
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "the file ends inside the header (needs " + std::to_string(n) + " more bytes at offset " +
                      std::to_string(pos_) + " of " + std::to_string(src_.size()) + ")",
                  pos_);
    if (*end > limits_.max_header_bytes)
      throw Error(ErrorKind::Limit, src_.name(), field,
                  "the header exceeds " + std::to_string(limits_.max_header_bytes >> 20) + " MiB");
    // The whole possible header is reserved once (address space only: untouched pages cost nothing), so
    // growing never copies; each byte of the header is then touched once, by the read that fills it. On a VM
    // where a first touch costs ~15 us per 4 KiB page this was most of the time a large tokenizer takes:
    // the room asks for 2 MiB pages.
    const uint64_t cap = std::min(src_.size(), limits_.max_header_bytes);
    if (buf_.capacity() < cap) {
      buf_.reserve_fresh(cap);
    }
    // Steps of kFirstRead: with the room reserved a step costs one read, and at most one step is read ahead.
    uint64_t grown = std::max({*end, static_cast<uint64_t>(buf_.size()) + kFirstRead, kFirstRead});
    // No read-ahead beyond what a fetched prefix holds: only bytes the header needs may cost a request.
    grown = std::min({grown, cap, std::max(*end, src_.available())});
    const size_t old = buf_.size();
    src_.read_exact(old, grown - old, buf_.grow_to(grown));
  }

  const ByteSource& src_;
  GgufHeaderBytes& buf_;
  const GgufLimits& limits_;
  uint64_t pos_ = 0;
};

GgufType value_type(HeaderReader& r, const std::string& field) {
  const uint64_t t = r.uint(4, field);
  if (t > static_cast<uint32_t>(GgufType::F64))
    throw Error(ErrorKind::Malformed, r.name(), field, "unknown value type " + std::to_string(t));
  return static_cast<GgufType>(t);
}

// Skips over one value of type `t` (walking strings and nested arrays) and, for scalars, decodes it.
void read_value(HeaderReader& r, GgufType t, GgufKv* kv, uint32_t depth, const GgufLimits& limits,
                const std::string& field) {
  if (t == GgufType::String) {
    auto [b, e] = r.string(field);
    if (kv) {
      kv->begin = b;
      kv->end = e;
      kv->count = e - b;
    }
    return;
  }
  if (t == GgufType::Array) {
    if (depth >= limits.max_array_depth)
      throw Error(ErrorKind::Limit, r.name(), field,
                  "arrays nested deeper than " + std::to_string(limits.max_array_depth));
    const GgufType elem = value_type(r, field);
    const uint64_t count = r.uint(8, field);
    if (kv) {
      kv->element_type = elem;
      kv->count = count;
      kv->begin = r.pos();
    }
    const uint64_t size = fixed_size(elem);
    // Every string holds at least its 8-byte length; every array its type and count.
    r.check_count(count, size ? size : elem == GgufType::String ? 8 : 12, field);
    if (elem == GgufType::Bool) {
      r.skip_bools(count, field);
    } else if (size) {
      r.skip(count * size, field);
    } else if (elem == GgufType::String) {
      r.skip_strings(count, field);
    } else {
      for (uint64_t k = 0; k < count; ++k) read_value(r, elem, nullptr, depth + 1, limits, field);
    }
    if (kv) kv->end = r.pos();
    return;
  }
  const unsigned size = static_cast<unsigned>(fixed_size(t));
  const uint64_t bits = r.uint(size, field);
  // The spec's bools are 0 and 1 (ggml reads any other byte as true): another is a damaged file.
  if (t == GgufType::Bool && bits > 1)
    throw Error(ErrorKind::Malformed, r.name(), field,
                "a bool of " + std::to_string(bits) + " (the format allows 0 and 1)");
  if (!kv) return;
  kv->end = r.pos();
  kv->begin = kv->end - size;
  switch (t) {
    case GgufType::I8:
      kv->i = static_cast<int8_t>(bits);
      break;
    case GgufType::I16:
      kv->i = static_cast<int16_t>(bits);
      break;
    case GgufType::I32:
      kv->i = static_cast<int32_t>(bits);
      break;
    case GgufType::I64:
      kv->i = static_cast<int64_t>(bits);
      break;
    case GgufType::F32: {
      float f;
      const uint32_t b32 = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b32, 4);
      kv->f = f;
      return;
    }
    case GgufType::F64:
      std::memcpy(&kv->f, &bits, 8);
      return;
    default:  // unsigned and bool
      kv->u = bits;
      kv->i = bits > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(bits);
      return;
  }
  kv->u = kv->i < 0 ? 0 : static_cast<uint64_t>(kv->i);
}

void check_version(uint32_t version, const std::string& name) {
  if (version == 2 || version == 3) return;
  const uint32_t swapped = __builtin_bswap32(version);
  if (swapped >= 1 && swapped <= 3)  // the reliability catalogue's G3: a file we cannot read as it is, exit 3
    throw Error(ErrorKind::Malformed, name, "version",
                "the file appears big-endian (a GGUF for s390x); only little-endian files are read");
  if (version == 1)
    throw Error(ErrorKind::Unsupported, name, "version",
                "GGUF version 1 (August 2023, 32-bit counts) is not read; convert the model again");
  // A later version of the format is a number just above 3; anything else is not a version at all.
  if (version > 3 && version < 256)
    throw Error(ErrorKind::Unsupported, name, "version",
                "GGUF version " + std::to_string(version) + " (versions 2 and 3 are read)");
  throw Error(ErrorKind::Malformed, name, "version",
              "holds " + std::to_string(version) + ", not a GGUF version: a damaged file, or not GGUF");
}

GgufTensorInfo read_tensor_info(HeaderReader& r, GgufFile& f, uint64_t index) {
  GgufTensorInfo t;
  std::string field = "tensor #" + std::to_string(index);
  auto [nb, ne] = r.string(field);
  t.name = f.view(nb, ne);
  if (t.name.empty()) throw Error(ErrorKind::Malformed, r.name(), field, "a tensor without a name");
  if (!is_plain_text(t.name))
    throw Error(ErrorKind::Malformed, r.name(), tensor_field(t.name),
                "the name is not UTF-8 text without control characters");
  field = tensor_field(t.name);
  const uint64_t n_dims = r.uint(4, field);
  if (n_dims == 0 || n_dims > kMaxDims)
    throw Error(ErrorKind::Malformed, r.name(), field,
                "has " + std::to_string(n_dims) + " dimensions (1 to 4 allowed)");
  uint64_t dims[kMaxDims] = {};
  for (uint64_t d = 0; d < n_dims; ++d) {
    dims[d] = r.uint(8, field);
    if (dims[d] > static_cast<uint64_t>(INT64_MAX))
      throw Error(ErrorKind::Malformed, r.name(), field, "a dimension above 2^63");
  }
  const uint64_t type = r.uint(4, field);
  const std::optional<DType> dtype =
      type <= UINT32_MAX ? dtype_from_ggml(static_cast<uint32_t>(type)) : std::nullopt;
  if (!dtype)
    throw Error(ErrorKind::Malformed, r.name(), field,
                "unknown or removed ggml type " + std::to_string(type));
  t.dtype = *dtype;
  t.offset = r.uint(8, field);
  t.shape.assign(std::make_reverse_iterator(dims + n_dims), std::make_reverse_iterator(dims));
  const std::optional<uint64_t> n = checked_numel(t.shape);
  if (!n) throw Error(ErrorKind::Malformed, r.name(), field, "element count overflows 64 bits");
  const DTypeInfo& info = dtype_info(t.dtype);
  if (dims[0] % info.block_elements != 0)
    throw Error(ErrorKind::Malformed, r.name(), field,
                "rows of " + std::to_string(dims[0]) + " elements are not whole " + std::string(info.name) +
                    " blocks of " + std::to_string(info.block_elements));
  if (!checked_mul(*n, info.block_elements > 1 ? info.block_bytes : info.bits))
    throw Error(ErrorKind::Malformed, r.name(), field, "byte size overflows 64 bits");
  t.bytes = dtype_bytes(*n, t.dtype);
  if (t.offset % f.alignment != 0)
    throw Error(ErrorKind::Malformed, r.name(), field,
                "data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                    std::to_string(f.alignment));
  return t;
}

void read_alignment(GgufFile& f, const std::string& name) {
  const GgufKv* a = f.find("general.alignment");
  if (!a) return;
  if (a->type != GgufType::U32 || a->u == 0 || (a->u & (a->u - 1)) != 0)
    throw Error(ErrorKind::Malformed, name, "general.alignment", "must be a u32 power of two");
  f.alignment = a->u;
}

// Tensors inside the data section and not overlapping one another (the format lays them out back to back).
void check_extents(const GgufFile& f, const std::string& name) {
  const uint64_t data_bytes = f.file_size - f.data_start;
  std::vector<const GgufTensorInfo*> by_offset;
  by_offset.reserve(f.tensors.size());
  for (const GgufTensorInfo& t : f.tensors) {
    const auto end = checked_add(t.offset, t.bytes);
    if (!end || *end > data_bytes)
      throw Error(ErrorKind::Malformed, name, tensor_field(t.name),
                  "data [" + std::to_string(t.offset) + ", +" + std::to_string(t.bytes) +
                      ") runs past the end of the file (data section of " + std::to_string(data_bytes) +
                      " bytes)");
    by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const GgufTensorInfo* a, const GgufTensorInfo* b) { return a->offset < b->offset; });
  // Each tensor against the furthest end before it (the tensor reaching it), not only its neighbour: an empty
  // tensor between two that overlap would hide them.
  const GgufTensorInfo* reaching = nullptr;
  for (const GgufTensorInfo* t : by_offset) {
    if (reaching && t->bytes && t->offset < reaching->offset + reaching->bytes)
      throw Error(ErrorKind::Malformed, name, tensor_field(t->name),
                  "overlaps the data of '" + printable(reaching->name) + "'");
    if (!reaching || t->offset + t->bytes > reaching->offset + reaching->bytes) reaching = t;
  }
}

}  // namespace

std::string_view gguf_type_name(GgufType t) {
  static constexpr std::string_view kNames[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                                "bool", "string", "array", "u64", "i64", "f64"};
  const auto k = static_cast<size_t>(t);
  return k < std::size(kNames) ? kNames[k] : "?";
}

bool GgufKv::is_integer() const {
  return type != GgufType::String && type != GgufType::Array && type != GgufType::Bool && !is_float();
}

GgufFile read_gguf(const ByteSource& src, const GgufLimits& limits) {
  GgufFile f;
  f.file_size = src.size();
  HeaderReader r(src, f.header, limits);
  r.need(4, "magic");
  if (f.header.view().substr(0, 4) != "GGUF")
    throw Error(ErrorKind::Malformed, src.name(), "magic", "not a GGUF file (no 'GGUF' magic)");
  r.skip(4, "magic");
  f.version = static_cast<uint32_t>(r.uint(4, "version"));
  check_version(f.version, src.name());
  const uint64_t n_tensors = r.uint(8, "tensor_count");
  const uint64_t n_kv = r.uint(8, "metadata_kv_count");
  if (n_tensors > limits.max_tensors)
    throw Error(ErrorKind::Limit, src.name(), "tensor_count",
                std::to_string(n_tensors) + " tensors (cap " + std::to_string(limits.max_tensors) + ")");
  if (n_kv > limits.max_metadata)
    throw Error(ErrorKind::Limit, src.name(), "metadata_kv_count",
                std::to_string(n_kv) + " entries (cap " + std::to_string(limits.max_metadata) + ")");
  r.check_count(n_kv, 12, "metadata_kv_count");  // key length + type at least
  r.check_count(n_tensors, 24, "tensor_count");  // name length + dims + type + offset at least

  f.metadata.reserve(n_kv);
  std::unordered_set<std::string_view> keys;
  for (uint64_t k = 0; k < n_kv; ++k) {
    const std::string where = "metadata entry #" + std::to_string(k);
    auto [kb, ke] = r.string(where);
    GgufKv kv;
    kv.key = f.view(kb, ke);
    if (kv.key.empty()) throw Error(ErrorKind::Malformed, src.name(), where, "an empty key");
    const std::string field = "metadata '" + printable(kv.key) + "'";
    kv.type = value_type(r, field);
    read_value(r, kv.type, &kv, 0, limits, field);
    f.metadata.push_back(std::move(kv));
  }
  for (const GgufKv& kv : f.metadata)
    if (!keys.insert(kv.key).second)
      throw Error(ErrorKind::Malformed, src.name(), "metadata '" + printable(kv.key) + "'", "appears twice");
  read_alignment(f, src.name());

  f.tensors.reserve(n_tensors);
  for (uint64_t k = 0; k < n_tensors; ++k) f.tensors.push_back(read_tensor_info(r, f, k));
  std::unordered_set<std::string_view> names;
  for (const GgufTensorInfo& t : f.tensors)
    if (!names.insert(t.name).second)
      throw Error(ErrorKind::Malformed, src.name(), tensor_field(t.name), "appears twice");

  f.header.shrink_to(r.pos());
  const uint64_t padded = (r.pos() + f.alignment - 1) / f.alignment * f.alignment;
  f.data_start = std::min(padded, f.file_size);
  if (!f.tensors.empty() && padded > f.file_size)
    throw Error(ErrorKind::Malformed, src.name(), "tensor data", "the file ends before its data section");
  check_extents(f, src.name());
  return f;
}

void GgufHeaderBytes::reserve_fresh(size_t n) {
  bytes_ = allocate_huge_page_block(n);
  capacity_ = n;
  size_ = 0;
}

char* GgufHeaderBytes::grow_to(size_t n) {
  char* fresh = bytes_.get() + size_;
  size_ = n;
  return fresh;
}

// ---- Lookups ----

const GgufKv* GgufFile::find(std::string_view key) const {
  for (const GgufKv& kv : metadata)
    if (kv.key == key) return &kv;
  return nullptr;
}

std::optional<uint64_t> GgufFile::uint_value(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (!kv || !kv->is_integer() || kv->i < 0) return std::nullopt;
  return kv->u;
}

std::optional<double> GgufFile::float_value(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (!kv) return std::nullopt;
  if (kv->is_float()) return kv->f;
  if (kv->is_integer()) return static_cast<double>(kv->i);
  return std::nullopt;
}

std::optional<bool> GgufFile::bool_value(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (!kv || kv->type != GgufType::Bool) return std::nullopt;
  return kv->u != 0;
}

std::optional<std::string_view> GgufFile::string_value(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (!kv || kv->type != GgufType::String) return std::nullopt;
  return view(kv->begin, kv->end);
}

std::optional<std::vector<uint64_t>> GgufFile::uint_array(std::string_view key) const {
  const GgufKv* kv = find(key);
  const GgufType t = kv ? kv->element_type : GgufType::String;
  if (!kv || kv->type != GgufType::Array || !fixed_size(t) || t == GgufType::F32 || t == GgufType::F64)
    return std::nullopt;
  std::vector<uint64_t> out(kv->count);
  for (uint64_t k = 0; k < kv->count; ++k) {
    const std::optional<uint64_t> v = uint_element(*kv, k);  // nullopt: a negative element
    if (!v) return std::nullopt;
    out[k] = *v;
  }
  return out;
}

std::optional<uint64_t> GgufFile::uint_element(const GgufKv& kv, uint64_t index) const {
  const GgufType t = kv.element_type;
  const unsigned size = static_cast<unsigned>(fixed_size(t));
  if (kv.type != GgufType::Array || !size || t == GgufType::F32 || t == GgufType::F64 || index >= kv.count)
    return std::nullopt;
  const uint64_t v = load_le(header.data() + kv.begin + index * size, size);
  const bool is_signed = t == GgufType::I8 || t == GgufType::I16 || t == GgufType::I32 || t == GgufType::I64;
  if (is_signed && (v >> (8 * size - 1)) & 1) return std::nullopt;
  return v;
}

uint64_t GgufFile::count_equal(const GgufKv& kv, std::initializer_list<uint64_t> values) const {
  const GgufType t = kv.element_type;
  const unsigned size = static_cast<unsigned>(fixed_size(t));
  if (kv.type != GgufType::Array || !size || t == GgufType::F32 || t == GgufType::F64) return 0;
  uint64_t n = 0;
  const char* p = header.data() + kv.begin;
  for (uint64_t k = 0; k < kv.count; ++k) {
    const uint64_t v = load_le(p + k * size, size);
    for (uint64_t want : values) n += v == want;
  }
  return n;
}

std::vector<std::optional<std::string_view>> GgufFile::string_elements(
    const GgufKv& kv, const std::vector<uint64_t>& indices) const {
  std::vector<std::optional<std::string_view>> out(indices.size());
  if (kv.type != GgufType::Array || kv.element_type != GgufType::String) return out;
  std::vector<size_t> order(indices.size());  // positions of `indices`, by index
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return indices[a] < indices[b]; });
  uint64_t p = kv.begin, k = 0;  // element k starts at p; bounds were checked when the header was read
  for (size_t i : order) {
    if (indices[i] >= kv.count) break;
    for (; k < indices[i]; ++k) p += 8 + load_le(header.data() + p, 8);
    out[i] = view(p + 8, p + 8 + load_le(header.data() + p, 8));
  }
  return out;
}

std::optional<std::vector<std::string_view>> GgufFile::string_array(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (!kv || kv->type != GgufType::Array || kv->element_type != GgufType::String) return std::nullopt;
  std::vector<std::string_view> out;
  out.reserve(kv->count);
  uint64_t p = kv->begin;
  for (uint64_t k = 0; k < kv->count; ++k) {  // bounds were checked when the header was read
    const uint64_t len = load_le(header.data() + p, 8);
    out.push_back(view(p + 8, p + 8 + len));
    p += 8 + len;
  }
  return out;
}

}  // namespace ma
