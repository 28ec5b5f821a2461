// A restricted unpickler: runs a pickle program as data, never as code. It builds plain values (None, bools,
// ints, floats, strings, bytes, lists, tuples, dicts, sets) and admits exactly the globals that
// torch.load(weights_only=True) admits, in torch 1.13 or in a current torch (2.4 on): collections'
// OrderedDict and Counter, torch._utils' tensor and parameter rebuilders, the storage and tensor classes,
// torch.Size, the dtypes, layouts, devices and quantization schemes, builtins.set / complex / bytearray and
// _codecs.encode (how protocol 2 writes bytes). Any other global (os.system, builtins.eval, a custom class)
// is refused with Error(Unsafe) naming it, before anything is built. Nothing is imported or executed;
// "calling" an admitted global builds its value here: a tensor, a dict, a set, or an inert value nothing
// reads (a device, a layout). A tensor torch rebuilds in a way this reader does not read (sparse, quantized,
// meta, a new dtype in an untyped storage) becomes an Unread value, which the checkpoint reader refuses
// naming it.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace ma {

// A storage as a checkpoint's persistent id names it: its element type, its key (the zip member
// "data/<key>" or the legacy file's storage key) and its length in elements.
struct TorchStorage {
  DType dtype = DType::F32;
  std::string key;
  uint64_t numel = 0;
};

struct TorchTensor {
  std::shared_ptr<const TorchStorage> storage;
  uint64_t storage_offset = 0;  // in elements
  Shape shape;
  std::vector<uint64_t> stride;  // in elements
};

// Values live in the arena of the run that built them and point at each other without owning: a pickle may
// make a list contain itself, which must neither leak nor loop (walkers bound their depth).
struct PickleValue {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    String,
    Bytes,
    List,
    Tuple,
    Dict,
    Set,
    Global,
    Storage,
    Tensor,
    Object,  // what an admitted call made that nothing here reads (a device, a layout, complex, bytes)
    Unread   // a tensor (or its storage) torch admits but this reader does not read; `text` says so
  };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;  // Int; an integer wider than 64 bits keeps its little-endian bytes in `text`
  double number = 0;
  std::string text;  // String, Bytes; Global: "module.name"; Object: the global that made it; Unread: the
                     // rule an error gives ("a sparse tensor (torch._utils._rebuild_sparse_tensor), ...")
  std::vector<PickleValue*> items;                             // List, Tuple, Set
  std::vector<std::pair<PickleValue*, PickleValue*>> entries;  // Dict, in insertion order
  std::shared_ptr<const TorchStorage> storage;                 // Storage
  std::shared_ptr<const TorchTensor> tensor;                   // Tensor
};

struct PickleArena {
  std::deque<PickleValue> values;
};

// Fills `out` from a persistent id (BINPERSID's value); PyTorch's checkpoints name storages this way.
using PersistentLoad = std::function<void(const PickleValue& pid, PickleValue& out)>;

struct PickleLimits {
  // Every value built, memoized or not; memo keys, the stack and the MARKs on it stay below it too.
  uint64_t max_values = 2'000'000;
};

// Thrown instead of Error(Malformed) by a run told that `bytes` may be only the start of the pickle (a legacy
// checkpoint is read a prefix at a time: its pickles' length is known only by running them), when the
// program runs past the end of `bytes`: `needed` bytes from the start of `bytes` would let it go on. Any
// other fault is the program's, and a longer prefix would meet it again. Not an ma::Error: a request for
// bytes.
struct PickleNeedsMoreBytes {
  uint64_t needed = 0;
};

struct PickleResult {
  std::shared_ptr<PickleArena> arena;
  const PickleValue* value = nullptr;
  uint64_t end = 0;  // offset just past STOP: a legacy checkpoint holds several pickles in a row
};

// Runs the pickle that starts at `begin` of `bytes`. Throws Error(Unsafe) for a disallowed global or opcode,
// Error(Malformed) for a broken program, Error(Limit) above `limits`. `file` names the source in errors.
// With `bytes_are_a_prefix`, running past the end of `bytes` throws PickleNeedsMoreBytes instead.
PickleResult run_pickle(std::string_view bytes, uint64_t begin, const std::string& file,
                        const PersistentLoad& persistent_load, const PickleLimits& limits = {},
                        bool bytes_are_a_prefix = false);

}  // namespace ma
