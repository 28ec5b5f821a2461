// ONNX models, whole: every input must either be read or raise ma::Error — no crash, no sanitizer report, no
// unbounded allocation (the parse runs inside the reader's arena budget) — and every initializer accepted
// must lie inside its file: the model's own bytes, or an external data file the fuzzer says holds 4,096.
// Shape inference (ONNX's own) runs on whatever parses, and the graph summary on what was accepted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/onnx_graph.h"
#include "core/error.h"
#include "formats/checkpoint.h"
#include "formats/onnx_model.h"
#include "io/byte_source.h"

namespace {
constexpr uint64_t kExternalSize = 4096;
std::optional<uint64_t> external_size(const std::string&) {
  return kExternalSize;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ma::MemorySource src(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.onnx");
  try {
    ma::OnnxModel m = ma::read_onnx(src, external_size);
    ma::Checkpoint ck;
    ck.files.resize(1 + m.external_files.size());
    for (ma::StoredTensor& t : m.initializers) {
      const uint64_t limit = t.file_index == 0 ? size : kExternalSize;
      if (!t.encoded && (t.data_begin > t.data_end || t.data_end > limit)) __builtin_trap();
      if (t.file_index >= ck.files.size()) __builtin_trap();
      ck.files[t.file_index].tensors.push_back(std::move(t));
    }
    m.initializers.clear();
    (void)ma::summarize_onnx_graph(m, ck);
  } catch (const ma::Error&) {
  }
  return 0;
}
