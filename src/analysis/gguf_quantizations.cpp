#include "analysis/gguf_quantizations.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/parallel.h"
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

// One model's row; an error of the model itself (is_input_fault) becomes the row's, any other is thrown.
GgufQuantization summarize_gguf_model(const GgufModelChoice& m, std::optional<Error>& fault) {
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
    fault = e;
    GgufQuantization unreadable;
    unreadable.file = m.file;
    unreadable.size_bytes = m.bytes;
    unreadable.error = e.message();
    return unreadable;
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
  return q;
}

}  // namespace

std::vector<GgufQuantization> summarize_gguf_models(const std::vector<GgufModelChoice>& models) {
  // Each header parsed on its own core: a 70B model's is 9 MB (its tokenizer), a few milliseconds each.
  std::vector<GgufQuantization> out(models.size());
  std::vector<std::optional<Error>> faults(models.size());
  parallel_for(models.size(), [&](size_t k) { out[k] = summarize_gguf_model(models[k], faults[k]); });
  if (std::all_of(out.begin(), out.end(), [](const GgufQuantization& q) { return !q.error.empty(); }))
    for (const std::optional<Error>& f : faults)
      if (f) throw *f;
  return out;
}

}  // namespace ma
