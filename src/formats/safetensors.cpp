#include "formats/safetensors.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/byte_count.h"
#include "core/checked.h"
#include "core/error.h"
#include "core/json.h"
#include "core/name_index.h"
#include "core/text.h"
#include "io/file_source.h"

namespace ma {
namespace {

[[noreturn]] void malformed(std::string_view source, const std::string& field, const std::string& rule) {
  throw Error(ErrorKind::Malformed, std::string(source), field, rule);
}

// Files users mistake for safetensors: name them instead of reporting an absurd header length.
void reject_known_impostors(std::string_view first_bytes, std::string_view source) {
  auto starts = [&](std::string_view p) { return first_bytes.substr(0, p.size()) == p; };
  if (starts("version https://git-lfs"))
    malformed(source, "",
              "this is a Git LFS pointer file, not safetensors data; fetch the real file (git lfs pull)");
  std::string lower;
  for (char c : first_bytes.substr(0, 16))
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("<!doctype", 0) == 0 || lower.rfind("<html", 0) == 0)
    malformed(source, "", "this is an HTML page (an error page saved as a file?), not safetensors data");
}

uint64_t read_u64_le(std::string_view b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[static_cast<size_t>(i)]);
  return v;
}

// A non-negative integer array element of a tensor entry ('shape' dims, 'data_offsets').
uint64_t read_index(json::Reader& r, std::string_view source, const std::string& name, const char* what) {
  if (r.peek() != json::Reader::Kind::Number)
    malformed(source, tensor_field(name), std::string(what) + " must hold non-negative integers");
  json::Number n = r.number();
  auto u = n.as_uint();
  if (!u)
    malformed(source, tensor_field(name),
              std::string(what) + " must hold non-negative integers, found " + printable(n.raw));
  return *u;
}

void read_metadata(json::Reader& r, std::string_view source, SafetensorsHeader& h) {
  if (r.peek() != json::Reader::Kind::Object)
    malformed(source, "__metadata__", "must be an object of strings");
  r.begin_object();
  std::string_view key;
  while (r.next_member(key)) {
    std::string k(key);
    if (r.peek() != json::Reader::Kind::String)
      malformed(source, "__metadata__." + printable(k), "metadata values must be strings");
    h.metadata.emplace_back(std::move(k), std::string(r.string()));
  }
}

void check_entry(StoredTensor& t, std::string_view source);

// A tensor name must be plain text (core/text.h), as every reader requires, so that the console and the JSON
// show it unchanged: an escaped ESC or newline would otherwise drive the terminal or forge a table row. A
// name the reader returned from the header's own text had no escape, hence no byte below 0x20, and needs the
// full check only when it holds DEL or non-ASCII bytes (which may spell a C1 control); names are ASCII.
void check_name(const json::Reader& r, std::string_view name, std::string_view source) {
  bool plain_ascii = r.in_text(name);
  for (const char c : name) plain_ascii &= static_cast<unsigned char>(c) < 0x7F;
  if (!plain_ascii && !is_plain_text(name))
    malformed(source, tensor_field(name), "the name is not UTF-8 text without control characters");
}

// One tensor entry {"dtype": .., "shape": [..], "data_offsets": [b, e]}, read straight into a StoredTensor.
StoredTensor read_tensor_entry(json::Reader& r, std::string_view source, std::string name) {
  StoredTensor t;
  t.name = std::move(name);
  if (r.peek() != json::Reader::Kind::Object)
    malformed(source, tensor_field(t.name), "tensor entry must be an object");
  r.begin_object();
  bool has_dtype = false, has_shape = false;
  int offsets = -1;
  std::string_view field;
  while (r.next_member(field)) {
    if (field == "dtype") {
      if (has_dtype) malformed(source, tensor_field(t.name), "duplicate field 'dtype'");
      has_dtype = true;
      if (r.peek() != json::Reader::Kind::String)
        malformed(source, tensor_field(t.name), "missing or non-string 'dtype'");
      std::string_view d = r.string();
      auto dt = dtype_from_safetensors(d);
      if (!dt)
        malformed(source, tensor_field(t.name),
                  "unknown dtype '" + printable(d) + "'; known: " + std::string(dtype_known_names()));
      t.dtype = *dt;
    } else if (field == "shape") {
      if (has_shape) malformed(source, tensor_field(t.name), "duplicate field 'shape'");
      has_shape = true;
      if (r.peek() != json::Reader::Kind::Array)
        malformed(source, tensor_field(t.name), "missing or non-array 'shape'");
      r.begin_array();
      // Dims go to a stack buffer first so the shape is allocated once, at its exact size.
      uint64_t dims[8];
      size_t rank = 0;
      while (r.next_item()) {
        if (rank == std::size(dims)) {  // more than 8 dimensions: rare, but allowed by the format
          t.shape.insert(t.shape.end(), dims, dims + rank);
          rank = 0;
        }
        if (t.shape.size() + rank == kMaxTensorRank)
          malformed(source, tensor_field(t.name),
                    "'shape' has more than " + std::to_string(kMaxTensorRank) + " dimensions");
        dims[rank++] = read_index(r, source, t.name, "'shape'");
      }
      t.shape.insert(t.shape.end(), dims, dims + rank);
    } else if (field == "data_offsets") {
      if (offsets >= 0) malformed(source, tensor_field(t.name), "duplicate field 'data_offsets'");
      offsets = 0;
      if (r.peek() != json::Reader::Kind::Array)
        malformed(source, tensor_field(t.name),
                  "'data_offsets' must be an array of two integers [begin, end]");
      r.begin_array();
      while (r.next_item()) {
        uint64_t v = read_index(r, source, t.name, "'data_offsets'");
        if (offsets == 0)
          t.data_begin = v;
        else if (offsets == 1)
          t.data_end = v;
        ++offsets;
      }
    } else {
      r.skip();  // unknown fields are ignored, as the reference implementation does
    }
  }
  if (!has_dtype) malformed(source, tensor_field(t.name), "missing or non-string 'dtype'");
  if (!has_shape) malformed(source, tensor_field(t.name), "missing or non-array 'shape'");
  if (offsets != 2)
    malformed(source, tensor_field(t.name), "'data_offsets' must be an array of two integers [begin, end]");
  check_entry(t, source);
  return t;
}

// The rules an entry's values obey together, whichever way it was read.
void check_entry(StoredTensor& t, std::string_view source) {
  if (t.data_end < t.data_begin)
    malformed(source, tensor_field(t.name),
              "invalid data_offsets: end " + std::to_string(t.data_end) + " is before begin " +
                  std::to_string(t.data_begin));
  auto n = checked_numel(t.shape);
  auto bits = n ? checked_mul(*n, dtype_bits(t.dtype)) : std::nullopt;
  if (!bits)
    malformed(source, tensor_field(t.name),
              "shape " + shape_to_string(t.shape) + " overflows 64-bit size arithmetic");
  if (*bits % 8 != 0)
    malformed(source, tensor_field(t.name),
              "sub-byte tensor of " + std::to_string(*bits) + " bits does not end on a byte boundary");
  t.numel = *n;
  if (t.data_end - t.data_begin != *bits / 8)
    malformed(source, tensor_field(t.name),
              "declares " + std::to_string(t.data_end - t.data_begin) + " bytes but shape " +
                  shape_to_string(t.shape) + " of " + std::string(dtype_info(t.dtype).name) + " implies " +
                  std::to_string(*bits / 8));
}

// A plain decimal integer at the front of `s` (no sign, no leading zero, at most 19 digits: below 2^64),
// consumed; false for any other spelling. The digits go through locals: `v`, a uint64_t, may alias the
// string_view's size_t, and a loop that wrote it made the compiler reload `s` on every digit (the 184,421
// numbers of DeepSeek-V3's headers took 23.1 million instructions that way, 17.8 million this way; eight
// digits at a time with SWAR took 18.6: the numbers are short, 6.9 digits on average).
bool take_plain_uint(std::string_view& s, uint64_t& v) {
  const char* const text = s.data();
  const size_t limit = std::min<size_t>(s.size(), 20);
  size_t n = 0;
  uint64_t value = 0;
  for (; n < limit && text[n] >= '0' && text[n] <= '9'; ++n)
    value = value * 10 + static_cast<uint64_t>(text[n] - '0');
  if (n == 0 || n == 20 || (n > 1 && text[0] == '0')) return false;
  v = value;
  s.remove_prefix(n);
  return true;
}

// The literal's length is a constant here, so the comparison compiles to a few loads, not a memcmp call:
// reading DeepSeek-V3's 163 headers takes 7% less.
template <size_t N>
bool take(std::string_view& s, const char (&literal)[N]) {
  constexpr size_t n = N - 1;
  if (s.size() < n || std::memcmp(s.data(), literal, n) != 0) return false;
  s.remove_prefix(n);
  return true;
}

// The dtype of the entry before, by its spelling: a header's entries nearly all share one, and looking a
// spelling up in the dtype table took ~110 instructions (5.2 million of DeepSeek-V3's headers' reading).
struct LastDtype {
  std::string_view spelling;
  DType dtype = DType::F32;
};

// The spelling every safetensors writer uses for an entry, byte for byte:
// {"dtype":"BF16","shape":[7168,2048],"data_offsets":[0,29360128]} with no space, no escape and plain
// integers, read without the general reader's per-token bookkeeping (DeepSeek-V3's 163 headers hold 46,183 of
// them). Returns the bytes it took, or 0 for any other spelling, which the general path then reads under the
// same rules: so an entry means the same whichever way it is read.
size_t read_canonical_entry(std::string_view text, StoredTensor& t, LastDtype& last) {
  std::string_view s = text;
  if (!take(s, R"({"dtype":")")) return 0;
  const size_t quote = s.find('"');
  if (quote == std::string_view::npos || s.substr(0, quote).find('\\') != std::string_view::npos) return 0;
  const std::string_view spelling = s.substr(0, quote);
  // An empty spelling matches the memo's initial one: it goes to the table, which refuses it.
  if (spelling.empty() || spelling != last.spelling) {
    const std::optional<DType> dtype = dtype_from_safetensors(spelling);
    if (!dtype) return 0;
    last = {spelling, *dtype};
  }
  t.dtype = last.dtype;
  s.remove_prefix(quote);
  if (!take(s, R"(","shape":[)")) return 0;
  uint64_t dims[8];
  size_t rank = 0;
  if (!take(s, "]")) {
    do {
      if (rank == std::size(dims) || !take_plain_uint(s, dims[rank++])) return 0;
    } while (take(s, ","));
    if (!take(s, "]")) return 0;
  }
  if (!take(s, R"(,"data_offsets":[)") || !take_plain_uint(s, t.data_begin) || !take(s, ",") ||
      !take_plain_uint(s, t.data_end) || !take(s, "]}"))
    return 0;
  t.shape.assign(dims, dims + rank);
  return text.size() - s.size();
}

}  // namespace

uint64_t safetensors_header_length(std::string_view first_bytes, uint64_t file_size,
                                   std::string_view source) {
  reject_known_impostors(first_bytes, source);
  if (first_bytes.size() < 8 || file_size < 8)
    malformed(source, "",
              "file too small to be safetensors (" + std::to_string(file_size) + " bytes; need at least 8)");
  uint64_t n = read_u64_le(first_bytes);
  if (n > kSafetensorsMaxHeader)
    throw Error(ErrorKind::Limit, std::string(source), "header length",
                "header length " + std::to_string(n) + " exceeds the cap of " +
                    std::to_string(kSafetensorsMaxHeader) + " bytes");
  if (n > file_size - 8)
    malformed(source, "header length",
              "header of " + std::to_string(n) + " bytes extends past the end of the file (" +
                  std::to_string(file_size) + " bytes); truncated download?");
  return n;
}

SafetensorsHeader parse_safetensors_header(std::string_view header_json, uint64_t file_size,
                                           std::string_view source) {
  SafetensorsHeader h;
  h.header_length = header_json.size();
  h.file_size = file_size;
  json::Limits limits;
  limits.max_bytes = kSafetensorsMaxHeader;
  json::check_document_size(header_json, source, limits);
  json::Reader r(header_json, source, limits, 8);  // the JSON follows the 8-byte length
  if (r.peek() != json::Reader::Kind::Object) malformed(source, "header", "the header must be a JSON object");
  r.begin_object();
  // Reserve (a little over) once: every tensor entry is one JSON object. Growing a vector of 280 entries by
  // doubling would touch twice the memory it keeps.
  const size_t objects = count_byte(header_json, '{');
  h.tensors.reserve(std::min<size_t>(objects, kSafetensorsMaxTensors));
  bool seen_metadata = false;
  LastDtype last_dtype;
  std::string_view key;
  while (r.next_member(key)) {
    if (key == "__metadata__") {
      if (seen_metadata) malformed(source, "__metadata__", "duplicate __metadata__ entry");
      seen_metadata = true;
      read_metadata(r, source, h);
      continue;
    }
    if (h.tensors.size() >= kSafetensorsMaxTensors)
      throw Error(ErrorKind::Limit, std::string(source), "header",
                  "more than " + std::to_string(kSafetensorsMaxTensors) + " tensors");
    check_name(r, key, source);
    StoredTensor t;
    if (const size_t n = read_canonical_entry(r.unread(), t, last_dtype)) {
      r.skip_read(n);
      t.name = key;
      check_entry(t, source);
      h.tensors.push_back(std::move(t));
    } else {
      h.tensors.push_back(read_tensor_entry(r, source, std::string(key)));
    }
  }
  r.finish();

  // Duplicate names (the reference silently keeps the last one): one pass of a hash index. Sorting the
  // names instead compared their long shared prefixes over and over (a fifth of parsing DeepSeek-V3's
  // headers).
  const NameIndex names(
      static_cast<uint32_t>(h.tensors.size()),
      [](const void* c, uint32_t i) { return std::string_view(static_cast<const StoredTensor*>(c)[i].name); },
      h.tensors.data());
  if (const std::optional<uint32_t> dup = names.first_duplicate())
    malformed(source, tensor_field(h.tensors[*dup].name), "duplicate tensor name in header");

  // Tensors must tile the data area exactly: no holes, no overlaps, each byte owned once. Writers store them
  // in offset order, so the sort is needed only when they did not.
  std::vector<uint32_t> order(h.tensors.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto by_offset = [&](uint32_t a, uint32_t b) {
    const auto& x = h.tensors[a];
    const auto& y = h.tensors[b];
    return x.data_begin != y.data_begin ? x.data_begin < y.data_begin : x.data_end < y.data_end;
  };
  if (!std::is_sorted(order.begin(), order.end(), by_offset))
    std::sort(order.begin(), order.end(), by_offset);
  uint64_t expected = 0;
  for (uint32_t i : order) {
    const StoredTensor& t = h.tensors[i];
    if (t.data_begin != expected)
      malformed(source, tensor_field(t.name),
                t.data_begin < expected
                    ? "tensor data overlaps the previous tensor (begin " + std::to_string(t.data_begin) +
                          " < " + std::to_string(expected) + ")"
                    : "hole in tensor data before this tensor (begin " + std::to_string(t.data_begin) +
                          ", previous end " + std::to_string(expected) + ")");
    expected = t.data_end;
  }
  auto covered = checked_add(8 + h.header_length, expected);
  if (!covered || *covered != file_size)
    malformed(source, "data",
              "data area is " + std::to_string(file_size - 8 - h.header_length) +
                  " bytes but the header describes " + std::to_string(expected) +
                  (covered && *covered < file_size ? " (trailing bytes after the last tensor)"
                                                   : " (file truncated?)"));
  return h;
}

SafetensorsHeader parse_safetensors_bytes(std::string_view file, std::string_view source) {
  uint64_t n = safetensors_header_length(file.substr(0, 64), file.size(), source);
  return parse_safetensors_header(file.substr(8, n), file.size(), source);
}

SafetensorsHeader read_safetensors_header(const std::string& path) {
  FileSource f(path);
  // Enough bytes to recognise a Git LFS pointer or an HTML page saved under a .safetensors name.
  char first[64];
  uint64_t first_len = std::min<uint64_t>(f.size(), sizeof first);
  f.read_exact(0, first_len, first);
  uint64_t n = safetensors_header_length(std::string_view(first, first_len), f.size(), path);
  // Reused across the shards a thread reads: fresh memory is what costs most on this path.
  thread_local std::string buf;
  f.read_exact(8, n, buf);
  return parse_safetensors_header(buf, f.size(), path);
}

}  // namespace ma
