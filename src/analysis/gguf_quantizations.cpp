#include "analysis/gguf_quantizations.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/error.h"
#include "formats/gguf.h"
#include "io/byte_source.h"
#include "io/file_source.h"
#include "model/gguf_record.h"

namespace ma {
namespace {

void add_part(const GgufFile& g, GgufQuantization& q, std::map<DType, GgufTypeShare>& types) {
  if (q.file_type.empty())
    if (std::optional<uint64_t> t = g.uint_value("general.file_type")) q.file_type = gguf_file_type_name(*t);
  for (const GgufTensorInfo& t : g.tensors) {
    GgufTypeShare& s = types[t.dtype];
    s.dtype = t.dtype;
    ++s.tensors;
    s.parameters += numel(t.shape);
    s.bytes += t.bytes;
  }
}

}  // namespace

std::vector<GgufQuantization> summarize_gguf_models(const std::vector<GgufModelChoice>& models) {
  std::vector<GgufQuantization> out;
  std::optional<Error> first_error;
  for (const GgufModelChoice& m : models) {
    GgufQuantization q;
    q.file = m.file;
    q.size_bytes = m.bytes;
    q.parts = m.parts.size() + m.parts_on_disk.size();
    std::map<DType, GgufTypeShare> types;
    try {
      if (m.error) throw *m.error;
      for (const FetchedHeader& h : m.parts) {
        try {
          add_part(read_gguf(PrefixSource(h.prefix, h.file_size, h.name)), q, types);
        } catch (const BytesNotFetched&) {
          throw Error(ErrorKind::Malformed, h.name, "header", "the fetched header is incomplete");
        }
      }
      for (const std::filesystem::path& p : m.parts_on_disk) add_part(read_gguf(FileSource(p)), q, types);
    } catch (const Error& e) {
      if (!is_input_fault(e)) throw;  // the disk or the network, not the model
      if (!first_error) first_error = e;
      GgufQuantization unreadable;
      unreadable.file = m.file;
      unreadable.size_bytes = m.bytes;
      unreadable.error = e.message();
      out.push_back(std::move(unreadable));
      continue;
    }
    for (auto& [dtype, s] : types) {
      q.parameters += s.parameters;
      q.tensor_bytes += s.bytes;
      q.types.push_back(s);
    }
    std::stable_sort(q.types.begin(), q.types.end(), [](const GgufTypeShare& a, const GgufTypeShare& b) {
      return a.parameters > b.parameters;
    });
    q.bits_per_weight =
        q.parameters ? 8.0 * static_cast<double>(q.tensor_bytes) / static_cast<double>(q.parameters) : 0;
    out.push_back(std::move(q));
  }
  if (first_error &&
      std::all_of(out.begin(), out.end(), [](const GgufQuantization& q) { return !q.error.empty(); }))
    throw *first_error;
  return out;
}

}  // namespace ma
