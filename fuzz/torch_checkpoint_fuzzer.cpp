// PyTorch checkpoints (zip and legacy), whole files: every input must either be read or raise ma::Error —
// no crash, no sanitizer report, no leak (a pickle may build cycles), and never a global outside the
// allowlist accepted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "formats/torch_checkpoint.h"
#include "io/byte_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ma::MemorySource src(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pt");
  try {
    const ma::TorchCheckpoint ck = ma::read_torch_checkpoint(src);
    // Accepted tensors lie inside the file: their first element, and all of a contiguous one.
    for (const ma::TorchCheckpointTensor& t : ck.tensors) {
      uint64_t n = 1;
      for (uint64_t d : t.shape) n *= d;
      const uint64_t bytes = n * (ma::dtype_bits(t.dtype) / 8);
      if (n > 0 && (t.data_begin > size || (t.contiguous && bytes > size - t.data_begin))) __builtin_trap();
    }
  } catch (const ma::Error&) {
  }
  return 0;
}
