// PyTorch checkpoints (zip and legacy), whole files and their layouts from two ends: every input must either
// be read or raise ma::Error (or, from the ends, ask for bytes between them) — no crash, no sanitizer report,
// no leak (a pickle may build cycles), and never a global outside the allowlist accepted.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/error.h"
#include "formats/torch_checkpoint.h"
#include "io/byte_source.h"

namespace {

// The layout as a Hub file's is read (TorchRead::Layout from its two ends): a quarter of the input at each
// end, so that reads of the gap ask for bytes, and both halves, which meet; then the same tensors as the
// whole file's read, when both are accepted.
void read_layouts(std::string_view input, const std::optional<ma::TorchCheckpoint>& whole) {
  for (size_t end : {input.size() / 4, input.size() / 2}) {
    try {
      const ma::HeadTailSource ends(input.substr(0, end), input.substr(input.size() - end), input.size(),
                                    "fuzz.pt");
      const ma::TorchCheckpoint layout = ma::read_torch_checkpoint(ends, ma::TorchRead::Layout);
      if (!whole) continue;
      if (layout.tensors.size() != whole->tensors.size()) __builtin_trap();
      for (size_t i = 0; i < layout.tensors.size(); ++i)
        if (layout.tensors[i].path != whole->tensors[i].path ||
            layout.tensors[i].shape != whole->tensors[i].shape ||
            layout.tensors[i].dtype != whole->tensors[i].dtype)
          __builtin_trap();
    } catch (const ma::Error&) {
    } catch (const ma::BytesNotFetched&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const ma::MemorySource src(input, "fuzz.pt");
  std::optional<ma::TorchCheckpoint> whole;
  try {
    whole = ma::read_torch_checkpoint(src);
    // Accepted tensors lie inside the file: their first element, and all of a contiguous one.
    for (const ma::TorchCheckpointTensor& t : whole->tensors) {
      uint64_t n = 1;
      for (uint64_t d : t.shape) n *= d;
      const uint64_t bytes = n * (ma::dtype_bits(t.dtype) / 8);
      if (n > 0 && (t.data_begin > size || (t.contiguous && bytes > size - t.data_begin))) __builtin_trap();
    }
  } catch (const ma::Error&) {
  }
  read_layouts(input, whole);
  return 0;
}
