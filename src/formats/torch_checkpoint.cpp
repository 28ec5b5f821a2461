#include "formats/torch_checkpoint.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/checked.h"
#include "core/error.h"
#include "core/text.h"
#include "formats/pickle_machine.h"
#include "formats/zip_directory.h"

namespace ma {
namespace {

using K = PickleValue::Kind;

constexpr uint64_t kMaxPickleBytes = 256ull << 20;  // data.pkl of a 46,000-tensor checkpoint is ~5 MB
constexpr uint64_t kMaxTensors = 1'000'000;
constexpr uint64_t kMaxDepth = 64;
constexpr uint64_t kLegacyProtocol = 1001;
// torch.serialization.MAGIC_NUMBER = 0x1950a86a20f9469cfc6c, as LONG1 writes it (little-endian).
constexpr std::string_view kLegacyMagic("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10);

uint64_t element_bytes(DType d) {
  return dtype_bits(d) / 8;
}

// The storages of one checkpoint by key: one object per key, so tensors sharing a storage point at it.
class Storages {
 public:
  explicit Storages(const ByteSource& src) : src_(src) {}

  // A persistent id ('storage', torch.<X>Storage, key, location, numel[, view_metadata]).
  void load(const PickleValue& pid, PickleValue& out) {
    const std::vector<PickleValue*>& f = pid.items;
    if (pid.kind != K::Tuple || f.size() < 5 || f[0]->kind != K::String || f[0]->text != "storage" ||
        f[1]->kind != K::Global || f[2]->kind != K::String || f[4]->kind != K::Int || f[4]->integer < 0)
      throw_malformed(src_, "pickle", "a persistent id that is not ('storage', type, key, location, numel)");
    if (f.size() > 5 && f[5]->kind != K::None)
      throw Error(ErrorKind::Unsupported, src_.name(), "pickle",
                  "a legacy storage view (view_metadata): not read");
    const std::string& type = f[1]->text;
    const std::string_view storage = std::string_view(type).substr(type.rfind('.') + 1);
    // A storage torch reads whose element type this reader does not (complex128, quantized, or untyped: a
    // current torch keeps its newer dtypes, float8 and uint16 to uint64, in untyped storages, the dtype an
    // argument of _rebuild_tensor_v3) makes a tensor that is not read, refused where the walk finds its name.
    const bool untyped = storage == "UntypedStorage" || storage == "TypedStorage";
    const std::optional<DType> dtype = untyped ? std::nullopt : dtype_from_torch_storage(storage);
    if (!dtype && (untyped || torch_storage_without_dtype(storage))) {
      out.kind = K::Unread;
      out.text = "a tensor of " + printable(type) +
                 ": a storage torch.load(weights_only=True) reads, whose " +
                 (untyped ? "element type (a newer dtype, given to _rebuild_tensor_v3)" : "element type") +
                 " is not read here";
      return;
    }
    if (!dtype) throw_malformed(src_, "pickle", "'" + printable(type) + "' is not a storage type");
    auto [it, fresh] = by_key_.try_emplace(f[2]->text);
    if (fresh) {
      auto s = std::make_shared<TorchStorage>();
      s->dtype = *dtype;
      s->key = f[2]->text;
      s->numel = static_cast<uint64_t>(f[4]->integer);
      if (!checked_mul(s->numel, element_bytes(s->dtype)))
        throw_malformed(src_, "storage " + printable(s->key), "its size overflows 64 bits");
      it->second = std::move(s);
    } else if (it->second->dtype != *dtype || it->second->numel != static_cast<uint64_t>(f[4]->integer)) {
      throw_malformed(src_, "storage " + printable(f[2]->text), "named twice with different types or sizes");
    }
    out.kind = K::Storage;
    out.storage = it->second;
  }

  const std::unordered_map<std::string, std::shared_ptr<const TorchStorage>>& all() const { return by_key_; }

 private:
  const ByteSource& src_;
  std::unordered_map<std::string, std::shared_ptr<const TorchStorage>> by_key_;
};

struct Found {
  std::string path;
  const TorchTensor* tensor;
};

// A tensor's name is its path of keys; state-dict keys are short. These bound what a small pickle can make
// the walk do: a memoized 1 MB key named by 10,000 entries would be 10 GB of names to copy and check. The
// paths of every container and tensor together are at most 16x the pickle's bytes (plus 1 MiB), and 256 MiB:
// a state dict spells each name in full in the pickle, a training checkpoint adds a short prefix, while
// memoized references to a 4 KB key cost 2 bytes each (a 135 KB file made 260 MB of names, 1.4 GB copied).
constexpr size_t kMaxPathBytes = 4096;
constexpr uint64_t kMaxPathBytesInAll = 256ull << 20;
uint64_t path_budget(uint64_t pickle_bytes) {
  return std::min(kMaxPathBytesInAll, 16 * pickle_bytes + (1 << 20));
}

// A path in a message: escaped, and cut short (the field names where, it need not spell all of it).
std::string shown_path(std::string_view path) {
  return path.size() <= 200 ? printable(path) : printable(path.substr(0, 200)) + "...";
}

struct Walk {
  const ByteSource& src;
  uint64_t max_path_bytes;               // path_budget
  std::set<const PickleValue*> seen;     // containers walked (a pickle may share one, or make a cycle)
  std::set<const PickleValue*> checked;  // keys whose text was checked (the memo lets entries share one)
  uint64_t path_bytes = 0;
  std::vector<Found> out;

  std::string child(const std::string& path, std::string_view key) {
    std::string c = path.empty() ? std::string(key) : path + "." + std::string(key);
    if (c.size() > kMaxPathBytes)
      throw Error(ErrorKind::Limit, src.name(), "key '" + shown_path(c) + "'", "a path of keys over 4 KiB");
    path_bytes += c.size();
    if (path_bytes > max_path_bytes)
      throw Error(ErrorKind::Limit, src.name(), "key '" + shown_path(c) + "'",
                  "the paths of keys pass " + std::to_string(max_path_bytes) +
                      " bytes in all (16x the pickle's bytes plus 1 MiB, at most 256 MiB)");
    return c;
  }

  // Every tensor reachable from `v`, by dotted path. A container reached a second time is not walked again,
  // so shared or cyclic structures stay linear; values that are neither containers nor tensors get no path.
  void operator()(const PickleValue* v, const std::string& path, uint64_t depth) {
    if (v->kind == K::Unread)
      throw Error(ErrorKind::Unsupported, src.name(),
                  path.empty() ? "the saved object" : "tensor '" + shown_path(path) + "'", v->text);
    if (v->kind == K::Tensor) {
      if (out.size() >= kMaxTensors)
        throw Error(ErrorKind::Limit, src.name(), "tensors", "more than 1,000,000 tensors");
      out.push_back({path, v->tensor.get()});
      return;
    }
    const bool container = v->kind == K::Dict || v->kind == K::List || v->kind == K::Tuple;
    if (!container || !seen.insert(v).second) return;
    if (depth > kMaxDepth)
      throw Error(ErrorKind::Limit, src.name(), "key '" + shown_path(path) + "'",
                  "nested deeper than 64 levels");
    auto holds_tensors = [](const PickleValue* x) {
      return x->kind == K::Tensor || x->kind == K::Unread || x->kind == K::Dict || x->kind == K::List ||
             x->kind == K::Tuple;
    };
    if (v->kind == K::Dict) {
      for (const auto& [key, value] : v->entries) {
        if (!holds_tensors(value)) continue;
        const std::string name = key->kind == K::String ? key->text
                                 : key->kind == K::Int  ? std::to_string(key->integer)
                                                        : "?";
        if (key->kind == K::String && checked.insert(key).second) {
          const std::string field = "key '" + shown_path(path.empty() ? name : path + "." + name) + "'";
          if (name.size() > kMaxPathBytes)
            throw Error(ErrorKind::Limit, src.name(), field, "a key over 4 KiB");
          if (!is_plain_text(name)) throw_malformed(src, field, "not UTF-8 text without control characters");
        }
        (*this)(value, child(path, name), depth + 1);
      }
    } else {
      for (size_t i = 0; i < v->items.size(); ++i)
        if (holds_tensors(v->items[i])) (*this)(v->items[i], child(path, std::to_string(i)), depth + 1);
    }
  }
};

// The state dict: of the saved dict and the dicts among its values (one level down), the one that holds the
// most tensors directly, the saved dict on a tie. A training checkpoint may keep a tensor or two beside its
// state dicts (PyTorch's own tutorial saves the loss as one): they do not make the whole file the model.
std::string state_dict_path(const PickleValue* root) {
  auto direct = [](const PickleValue* d) {
    size_t n = 0;
    if (d->kind == K::Dict)
      for (const auto& e : d->entries) n += e.second->kind == K::Tensor;
    return n;
  };
  if (root->kind != K::Dict) return "";
  std::string best;
  size_t most = direct(root);
  for (const auto& [key, value] : root->entries)
    if (key->kind == K::String && direct(value) > most) {
      most = direct(value);
      best = key->text;
    }
  return best;
}

// Its elements fill [offset, offset + numel) of the storage in some order: sorted by stride, each dimension
// steps over exactly the ones before it (dimensions of size 1 aside).
bool is_dense(const TorchTensor& t) {
  std::vector<std::pair<uint64_t, uint64_t>> dims;  // (stride, size)
  for (size_t i = 0; i < t.shape.size(); ++i)
    if (t.shape[i] != 1) dims.emplace_back(t.stride[i], t.shape[i]);
  std::sort(dims.begin(), dims.end());
  uint64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

bool is_contiguous(const TorchTensor& t) {
  uint64_t expected = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    if (t.shape[i] != 1 && t.stride[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

}  // namespace

std::string view_key(std::string_view storage, uint64_t offset, const Shape& shape,
                     const std::vector<uint64_t>& stride) {
  std::string key(storage);
  key += '\0' + std::to_string(offset);
  for (uint64_t d : shape) key += ',' + std::to_string(d);
  key += ';';
  for (uint64_t d : stride) key += ',' + std::to_string(d);
  return key;
}

namespace {

TorchCheckpoint assemble(const ByteSource& src, const PickleValue* root, uint64_t pickle_bytes,
                         std::string format, const std::unordered_map<std::string, uint64_t>& storage_data) {
  // The state dict is walked first: a container reached twice is walked once, under the first path that
  // reaches it, and a dict saved under two keys ({"swa": {"averaged": sd}, "model_state_dict": sd}) must be
  // found under the state dict's.
  const std::string state_dict = state_dict_path(root);
  Walk walk{src, path_budget(pickle_bytes), {}, {}, 0, {}};
  if (!state_dict.empty())
    for (const auto& [key, value] : root->entries)
      if (key->kind == K::String && key->text == state_dict) {
        walk.seen.insert(root);
        walk(value, walk.child("", state_dict), 1);
        walk.seen.erase(root);
        break;
      }
  walk(root, "", 0);
  const std::vector<Found>& found = walk.out;
  // One name, one tensor: a dict that sets a key twice (Python keeps the last), or keys 0 and "0" (both
  // named "0"), would otherwise be counted twice.
  std::set<std::string_view> names;
  for (const Found& f : found)
    if (!names.insert(f.path).second)
      throw_malformed(src, "tensor '" + shown_path(f.path) + "'",
                      "two tensors have this name (a key set twice?)");
  TorchCheckpoint ck;
  ck.format = std::move(format);
  ck.state_dict_path = state_dict;
  // The storages and views met so far: a tensor is tied to an earlier one with the same view.
  std::set<const TorchStorage*> storages;
  std::unordered_set<std::string> views;
  for (const Found& f : found) {
    const TorchTensor& t = *f.tensor;
    auto data = storage_data.find(t.storage->key);
    if (data == storage_data.end())
      throw_malformed(src, f.path, "its storage '" + printable(t.storage->key) + "' is not in the file");
    TorchCheckpointTensor out;
    out.path = f.path;
    out.dtype = t.storage->dtype;
    out.shape = t.shape;
    out.stride = t.stride;
    out.storage_offset = t.storage_offset;
    out.storage_key = t.storage->key;
    out.storage_numel = t.storage->numel;
    out.data_begin = data->second + t.storage_offset * element_bytes(out.dtype);
    out.contiguous = is_contiguous(t);
    out.dense = out.contiguous || is_dense(t);
    out.shares_storage = !storages.insert(t.storage.get()).second;
    out.tied = !views
                    .insert(view_key(std::to_string(reinterpret_cast<uintptr_t>(t.storage.get())),
                                     t.storage_offset, t.shape, t.stride))
                    .second;
    if (!out.shares_storage) ck.storage_bytes += t.storage->numel * element_bytes(out.dtype);
    ck.tensors.push_back(std::move(out));
  }
  return ck;
}

// ---- zip format: <prefix>/data.pkl, <prefix>/data/<key>, maybe <prefix>/byteorder

TorchCheckpoint read_zip(const ByteSource& src, TorchRead what) {
  const ZipDirectory dir = read_zip_directory(src);
  // torch reads the archive's folder from the directory's first member and its pickle from
  // <folder>/data.pkl (PyTorchStreamReader): another data.pkl in the zip is not what torch.load runs.
  if (dir.entries.empty()) throw_malformed(src, "data.pkl", "an empty zip: not a PyTorch zip checkpoint");
  const std::string& first = dir.entries.front().name;
  const size_t slash = first.find('/');
  if (slash == std::string::npos)
    throw_malformed(src, "member " + printable(first),
                    "the first member is in no folder: torch.load takes the archive's folder from it");
  const std::string prefix = first.substr(0, slash + 1);
  const ZipEntry* pkl = dir.find(prefix + "data.pkl");
  if (!pkl)
    throw_malformed(src, printable(prefix) + "data.pkl",
                    "no data.pkl in the archive's folder (the first member's): not a PyTorch zip checkpoint");
  if (const ZipEntry* order = dir.find(prefix + "byteorder")) {
    std::string value;
    src.read_exact(zip_member_data_offset(src, *order), std::min<uint64_t>(order->size, 16), value);
    // The reliability catalogue's P15: a big-endian file or a garbage value is not read as it is (exit 3).
    if (value != "little")
      throw Error(ErrorKind::Malformed, src.name(), "byteorder",
                  "'" + printable(value) + "': " +
                      (value == "big" ? "a big-endian checkpoint; only little-endian is read"
                                      : "neither 'little' nor 'big'"));
  }
  const uint64_t program_at = zip_member_data_offset(src, *pkl);
  // A member that runs past the end of the file is a malformed directory (exit 3), whatever its size says.
  if (pkl->size > src.size() || program_at > src.size() - pkl->size)
    throw_malformed(src, printable(pkl->name),
                    "its " + std::to_string(pkl->size) + " bytes run past the end of the file");
  if (pkl->size > kMaxPickleBytes)
    throw Error(ErrorKind::Limit, src.name(), printable(pkl->name), "a pickle over 256 MiB");
  std::string program;
  src.read_exact(program_at, pkl->size, program);
  Storages storages(src);
  // The machine counts bytes in the member; the error names the file, so its offset is the file's (where a
  // hex editor finds the refused global), not the member's.
  const PickleResult r = [&] {
    try {
      return run_pickle(program, 0, src.name(),
                        [&](const PickleValue& pid, PickleValue& out) { storages.load(pid, out); });
    } catch (const Error& e) {
      if (!e.offset() || e.file() != src.name()) throw;
      throw Error(e.kind(), e.file(), e.field(), e.rule(), program_at + *e.offset());
    }
  }();
  std::unordered_map<std::string, uint64_t> data;
  std::vector<ZipMemberData> members{{pkl, program_at}};
  for (const auto& [key, s] : storages.all()) {
    const ZipEntry* e = dir.find(prefix + "data/" + key);
    if (!e)
      throw_malformed(src, "storage " + printable(key),
                      "no member " + printable(prefix) + "data/" + printable(key));
    if (e->size < s->numel * element_bytes(s->dtype))
      throw_malformed(src, "storage " + printable(key),
                      "member holds " + std::to_string(e->size) + " bytes, fewer than its " +
                          std::to_string(s->numel) + " elements");
    // Without its local header a member's bytes are known to begin no earlier than their floor: the
    // tensors' offsets stay relative to their storages, and the floors are what the overlap check sees.
    data[key] = what == TorchRead::Data ? zip_member_data_offset(src, *e) : 0;
    members.push_back({e, what == TorchRead::Data ? data[key] : zip_member_data_floor(src, *e)});
  }
  // torch.save writes each storage once, in a member of its own: storages sharing bytes are a file built to
  // make a few megabytes read as terabytes.
  check_members_disjoint(src, std::move(members));
  return assemble(src, r.value, program.size(), "pytorch zip", data);
}

// ---- legacy format: pickles of the magic number, the protocol version, sys_info, the object and the storage
// keys; then per key, in that order, its element count (8 bytes) and its bytes.

struct LegacyPickles {
  PickleResult object;
  std::vector<std::string> keys;
  uint64_t end = 0;
};

// `prefix`: `bytes` may be only the start of the file (PickleNeedsMoreBytes when a pickle runs past them).
LegacyPickles parse_legacy(const ByteSource& src, std::string_view bytes, Storages& storages, bool prefix) {
  const auto no_ids = PersistentLoad();
  PickleResult magic = run_pickle(bytes, 0, src.name(), no_ids, {}, prefix);
  if (magic.value->kind != K::Int || magic.value->text != kLegacyMagic)
    throw_malformed(src, "magic number", "not a PyTorch checkpoint (no zip, no legacy magic number)");
  PickleResult protocol = run_pickle(bytes, magic.end, src.name(), no_ids, {}, prefix);
  if (protocol.value->kind != K::Int || protocol.value->integer != static_cast<int64_t>(kLegacyProtocol))
    throw_malformed(src, "protocol version", "not 1001");
  PickleResult sys_info = run_pickle(bytes, protocol.end, src.name(), no_ids, {}, prefix);
  if (sys_info.value->kind == K::Dict)
    for (const auto& [k, v] : sys_info.value->entries)
      if (k->kind == K::String && k->text == "little_endian" && v->kind == K::Bool && !v->boolean)
        throw Error(ErrorKind::Unsupported, src.name(), "sys_info", "a big-endian checkpoint: not read");
  LegacyPickles out;
  out.object = run_pickle(
      bytes, sys_info.end, src.name(), [&](const PickleValue& pid, PickleValue& v) { storages.load(pid, v); },
      {}, prefix);
  PickleResult keys = run_pickle(bytes, out.object.end, src.name(), no_ids, {}, prefix);
  if (keys.value->kind != K::List) throw_malformed(src, "storage keys", "not a list");
  for (const PickleValue* k : keys.value->items) {
    if (k->kind != K::String) throw_malformed(src, "storage keys", "a key that is not a string");
    out.keys.push_back(k->text);
  }
  out.end = keys.end;
  return out;
}

TorchCheckpoint read_legacy(const ByteSource& src, TorchRead what) {
  // The pickles come first and their length is known only by running them: read a prefix, and a larger one
  // (4x, or as far as the pickle asked) when a pickle runs past its end. Only running out of bytes asks for
  // more: any other fault a longer prefix would meet again, so it ends the read at once, and the runs cost
  // at most 4/3 of the last (at most six, the last over the whole file or the 256 MiB cap).
  std::string bytes;
  std::optional<Storages> storages;
  std::optional<LegacyPickles> p;
  for (uint64_t want = 1 << 20; !p;) {
    const uint64_t len = std::min({want, src.size(), kMaxPickleBytes});
    src.read_exact(0, len, bytes);
    storages.emplace(src);
    try {
      p = parse_legacy(src, bytes, *storages, len < src.size());
    } catch (const PickleNeedsMoreBytes& more) {
      if (len == kMaxPickleBytes)
        throw Error(ErrorKind::Limit, src.name(), "pickle", "pickles over 256 MiB before the storages");
      want = std::max(want * 4, more.needed);
    }
  }
  std::unordered_map<std::string, uint64_t> data;
  uint64_t at = p->end;
  std::string count;
  for (const std::string& key : p->keys) {
    auto s = storages->all().find(key);
    if (s == storages->all().end())
      throw_malformed(src, "storage " + printable(key), "listed but never used");
    if (at > src.size() || src.size() - at < 8)
      throw_malformed(src, "storage " + printable(key),
                      "its 8-byte element count lies past the end of the file");
    // Layout: the count is taken to be what the tensors say, and the storages are still laid out back to
    // back inside the file; the counts themselves lie between the storages, not at the file's ends.
    uint64_t n = s->second->numel;
    if (what == TorchRead::Data) {
      src.read_exact(at, 8, count);
      n = 0;
      for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(count[static_cast<size_t>(i)]);
    }
    if (n != s->second->numel)
      throw_malformed(
          src, "storage " + printable(key),
          "holds " + std::to_string(n) + " elements, its tensors say " + std::to_string(s->second->numel));
    const uint64_t size = n * element_bytes(s->second->dtype);
    if (at + 8 > src.size() || size > src.size() - at - 8)
      throw_malformed(src, "storage " + printable(key), "runs past the end of the file");
    data[key] = what == TorchRead::Data ? at + 8 : 0;
    at += 8 + size;
  }
  return assemble(src, p->object.value, p->end, "pytorch legacy", data);
}

}  // namespace

bool looks_like_torch_checkpoint(const ByteSource& src) {
  if (looks_like_zip(src)) return true;
  if (src.size() < 2) return false;
  std::string head;
  src.read_exact(0, std::min<uint64_t>(src.size(), 16), head);
  // Protocol 2 and later open with PROTO; torch.save writes 2. Protocols 0 and 1, which torch never writes
  // but torch.load reads, open with an opcode instead: a GLOBAL's "module\n" line, a MARK before another
  // opcode, an empty dict or list memoised. Such a file is read as a pickle too, so that a hand-made one
  // calling os.system is refused for its global (exit 4), not called no pickle.
  const auto first = static_cast<uint8_t>(head[0]);
  if (first == 0x80) return static_cast<uint8_t>(head[1]) <= 5;
  if (first == 'c') return head.find('\n') != std::string::npos;
  if (first == '(') return std::string_view("cdltSIVFLNJK(]}").find(head[1]) != std::string_view::npos;
  if (first == '}' || first == ']') return head[1] == 'q' || head[1] == '(';
  return false;
}

TorchCheckpoint read_torch_checkpoint(const ByteSource& src, TorchRead what) {
  if (looks_like_zip(src)) return read_zip(src, what);
  if (!looks_like_torch_checkpoint(src))
    throw_malformed(src, "", "neither a zip nor a pickle: not a PyTorch checkpoint");
  return read_legacy(src, what);
}

}  // namespace ma
