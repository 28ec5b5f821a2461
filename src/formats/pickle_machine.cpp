#include "formats/pickle_machine.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>

#include "core/checked.h"
#include "core/error.h"
#include "core/shape.h"

namespace ma {
namespace {

// What torch.load(weights_only=True) admits: the union of torch 1.13's _get_allowed_globals and a current
// torch's (2.4 on adds torch.device, builtins.set, complex and bytearray, _codecs.encode,
// collections.Counter, the newer dtypes and rebuilders), so that a file either loads is read and one both
// refuse is refused.

// Called, they build here what torch builds: a dict, a set, a tensor, a tuple (Machine::call).
constexpr std::string_view kBuiltCallables[] = {"collections.OrderedDict",
                                                "collections.Counter",
                                                "builtins.set",
                                                "torch._utils._rebuild_tensor",
                                                "torch._utils._rebuild_tensor_v2",
                                                "torch._utils._rebuild_parameter",
                                                "torch._utils._rebuild_parameter_with_state",
                                                "torch.nn.parameter.Parameter",
                                                "torch._tensor._rebuild_from_type_v2",
                                                "torch.Size"};

// Called, they build a tensor this reader does not read: an Unread value saying what it is.
struct UnreadRebuilder {
  std::string_view global, what;
};
constexpr UnreadRebuilder kUnreadRebuilders[] = {
    {"torch._utils._rebuild_sparse_tensor", "a sparse tensor"},
    {"torch._utils._rebuild_sparse_csr_tensor", "a sparse compressed tensor"},
    {"torch._utils._rebuild_qtensor", "a quantized tensor"},
    {"torch._utils._rebuild_meta_tensor_no_storage", "a meta tensor (no data)"},
    {"torch._utils._rebuild_tensor_v3", "a tensor of a newer dtype (float8, uint16 to uint64)"},
    {"torch._utils._rebuild_wrapper_subclass", "a tensor subclass"},
    {"torch._utils._rebuild_device_tensor_from_numpy", "a tensor rebuilt from a numpy array"},
    {"torch._utils._rebuild_device_tensor_from_cpu_tensor", "a tensor of a device without storages"},
};

// Called, they build a value nothing here reads (a device, a layout, a complex number, bytes).
constexpr std::string_view kInertCallables[] = {"torch.device", "torch.serialization._get_layout",
                                                "builtins.complex", "builtins.bytearray", "_codecs.encode"};

// Values themselves, never called: the dtypes, the quantization schemes, the tensor and storage classes.
// str(dtype) of every dtype either torch admits (1.13: the float, int and complex ones; current: every
// dtype with a storage class, the newer ones, and int1..int7 / uint1..uint7).
constexpr std::string_view kDtypeNames[] = {"float16",
                                            "float32",
                                            "float64",
                                            "bfloat16",
                                            "complex32",
                                            "complex64",
                                            "complex128",
                                            "int8",
                                            "int16",
                                            "int32",
                                            "int64",
                                            "uint8",
                                            "uint16",
                                            "uint32",
                                            "uint64",
                                            "bool",
                                            "qint8",
                                            "quint8",
                                            "qint32",
                                            "quint4x2",
                                            "quint2x4",
                                            "float8_e5m2",
                                            "float8_e4m3fn",
                                            "float8_e5m2fnuz",
                                            "float8_e4m3fnuz",
                                            "float8_e8m0fnu",
                                            "float4_e2m1fn_x2",
                                            "bits8",
                                            "bits16",
                                            "bits1x8",
                                            "bits2x4",
                                            "bits4x2",
                                            "int1",
                                            "int2",
                                            "int3",
                                            "int4",
                                            "int5",
                                            "int6",
                                            "int7",
                                            "uint1",
                                            "uint2",
                                            "uint3",
                                            "uint4",
                                            "uint5",
                                            "uint6",
                                            "uint7"};

constexpr std::string_view kQuantizationSchemes[] = {"per_tensor_affine", "per_tensor_symmetric",
                                                     "per_channel_affine", "per_channel_symmetric",
                                                     "per_channel_affine_float_qparams"};

template <size_t N>
bool names_one_of(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// torch._tensor_classes: torch.<T>Tensor, and the same under torch.cuda, torch.sparse and torch.cuda.sparse
// (no sparse bool tensor).
bool is_tensor_class(std::string_view g) {
  if (g == "torch.Tensor") return true;
  bool sparse = false, in_torch = false;
  for (std::string_view prefix : {"torch.cuda.sparse.", "torch.sparse.", "torch.cuda.", "torch."})
    if (g.starts_with(prefix)) {
      sparse = prefix.find("sparse") != std::string_view::npos;
      in_torch = true;
      g.remove_prefix(prefix.size());
      break;
    }
  if (!in_torch || !g.ends_with("Tensor")) return false;
  g.remove_suffix(6);
  for (std::string_view t : {"Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "BFloat16"})
    if (g == t) return true;
  return g == "Bool" && !sparse;
}

// torch._storage_classes: torch.<T>Storage (quantized and complex ones included), torch.cuda.<T>Storage
// (no quantized ones), UntypedStorage and TypedStorage (torch 1.13 defines them in torch.storage; a current
// torch writes torch.UntypedStorage, the name of its C type).
bool is_storage_class(std::string_view g) {
  for (std::string_view s : {"torch.storage.UntypedStorage", "torch.storage.TypedStorage",
                             "torch.UntypedStorage", "torch.TypedStorage"})
    if (g == s) return true;
  if (g.starts_with("torch.cuda.")) {
    g.remove_prefix(11);
    return dtype_from_torch_storage(g).has_value() || g == "ComplexDoubleStorage";
  }
  if (!g.starts_with("torch.")) return false;
  g.remove_prefix(6);
  return dtype_from_torch_storage(g).has_value() || torch_storage_without_dtype(g);
}

bool admitted(std::string_view g) {
  if (names_one_of(kBuiltCallables, g) || names_one_of(kInertCallables, g) || is_tensor_class(g) ||
      is_storage_class(g))
    return true;
  for (const UnreadRebuilder& r : kUnreadRebuilders)
    if (r.global == g) return true;
  const std::string_view name = g.starts_with("torch.") ? g.substr(6) : std::string_view();
  return names_one_of(kDtypeNames, name) || names_one_of(kQuantizationSchemes, name);
}

class Machine {
 public:
  Machine(std::string_view bytes, uint64_t at, const std::string& file, const PersistentLoad& load,
          const PickleLimits& limits, bool prefix)
      : b_(bytes),
        at_(at),
        file_(file),
        load_(load),
        limits_(limits),
        prefix_(prefix),
        arena_(std::make_shared<PickleArena>()) {}

  PickleResult run() {
    for (;;) {
      const uint64_t op_at = at_;
      const uint8_t op = byte();
      if (op == '.') {  // STOP
        PickleValue* v = pop(op_at);
        if (!stack_.empty() || !marks_.empty()) fail(op_at, "STOP leaves values on the stack");
        return {arena_, v, at_};
      }
      step(op, op_at);
    }
  }

 private:
  [[noreturn]] void fail(uint64_t at, const std::string& rule) const {
    throw Error(ErrorKind::Malformed, file_, "pickle", rule, at);
  }
  [[noreturn]] void refuse(uint64_t at, const std::string& rule) const {
    throw Error(ErrorKind::Unsafe, file_, "pickle", rule, at);
  }

  // The program needs bytes up to `end`, past those it was given: in a prefix, a request for them.
  void need(uint64_t end) const {
    if (prefix_) throw PickleNeedsMoreBytes{end};
  }
  uint8_t byte() {
    if (at_ >= b_.size()) {
      need(at_ + 1);
      fail(at_, "ends before STOP");
    }
    return static_cast<uint8_t>(b_[at_++]);
  }
  std::string_view take(uint64_t n) {
    if (n > b_.size() - at_) {
      need(checked_add(at_, n).value_or(UINT64_MAX));
      fail(at_, "an argument of " + std::to_string(n) + " bytes runs past the end");
    }
    std::string_view s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  uint64_t unsigned_le(int bytes) {
    std::string_view s = take(static_cast<uint64_t>(bytes));
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[static_cast<size_t>(i)]);
    return v;
  }
  std::string_view line() {
    const size_t nl = b_.find('\n', at_);
    if (nl == std::string_view::npos && b_.size() - at_ <= 4096) need(b_.size() + 1);
    if (nl == std::string_view::npos || nl - at_ > 4096) fail(at_, "a text argument has no end of line");
    std::string_view s = b_.substr(at_, nl - at_);
    at_ = nl + 1;
    return s;
  }

  PickleValue* make(PickleValue::Kind k) {
    charge(1);
    PickleValue& v = arena_->values.emplace_back();
    v.kind = k;
    return &v;
  }
  // Every value built and every (key, value) pair copied counts against the cap: OrderedDict(pairs) called
  // K times on one memoized list of N pairs builds K x N entries from a few bytes each (a 200 KB file made
  // 1.6 GB of dicts), where every other opcode's entries cost the file bytes that name them.
  void charge(uint64_t n) {
    built_ += n;
    if (built_ > limits_.max_values)
      throw Error(ErrorKind::Limit, file_, "pickle",
                  "builds more than " + std::to_string(limits_.max_values) + " values", at_);
  }
  PickleValue* pop(uint64_t at) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
      fail(at, "pops an empty stack");
    PickleValue* v = stack_.back();
    stack_.pop_back();
    return v;
  }
  PickleValue* top(uint64_t at) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
      fail(at, "reads an empty stack");
    return stack_.back();
  }
  // The values above the last MARK, which is removed.
  std::vector<PickleValue*> pop_mark(uint64_t at) {
    if (marks_.empty()) fail(at, "needs a MARK");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<PickleValue*> out(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return out;
  }
  // DUP pushes without building a value: the stack is bounded on its own.
  void push(PickleValue* v) {
    if (stack_.size() >= limits_.max_values)
      throw Error(ErrorKind::Limit, file_, "pickle", "a stack deeper than the cap on values", at_);
    stack_.push_back(v);
  }

  // Writers number memo entries 0, 1, 2, ...: a vector, bounded like the values themselves.
  void put(uint64_t key, uint64_t at) {
    if (key >= limits_.max_values)
      throw Error(ErrorKind::Limit, file_, "pickle", "memo key " + std::to_string(key) + " beyond the cap",
                  at);
    if (key >= memo_.size()) memo_.resize(key + 1, nullptr);
    memo_[key] = top(at);
  }
  void get(uint64_t key, uint64_t at) {
    if (key >= memo_.size() || !memo_[key])
      fail(at, "reads memo entry " + std::to_string(key) + ", which was never stored");
    push(memo_[key]);
  }

  void push_int(int64_t v) {
    PickleValue* p = make(PickleValue::Kind::Int);
    p->integer = v;
    push(p);
  }
  void push_text(PickleValue::Kind k, std::string_view s) {
    PickleValue* p = make(k);
    p->text.assign(s);
    push(p);
  }
  void push_tuple(std::vector<PickleValue*> items) {
    PickleValue* p = make(PickleValue::Kind::Tuple);
    p->items = std::move(items);
    push(p);
  }
  // LONG1 / LONG4: little-endian two's complement; wider than 64 bits kept as bytes.
  void push_long(std::string_view bytes) {
    PickleValue* p = make(PickleValue::Kind::Int);
    if (bytes.size() > 8) {
      p->text.assign(bytes);
    } else if (!bytes.empty()) {
      uint64_t v = 0;
      for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
      if (bytes.size() < 8 && (static_cast<uint8_t>(bytes.back()) & 0x80)) v |= ~0ull << (8 * bytes.size());
      p->integer = static_cast<int64_t>(v);
    }
    push(p);
  }
  void push_global(std::string module, std::string_view name, uint64_t at) {
    if (module == "__builtin__") module = "builtins";  // protocol 2 writes Python 2's name (fix_imports)
    std::string g = std::move(module);
    g += '.';
    g += name;
    if (!admitted(g))
      refuse(at,
             "global '" + printable(g) +
                 "' is not allowed: only what torch.load(weights_only=True) admits is read, nothing is run");
    push_text(PickleValue::Kind::Global, g);
  }

  static void set_item(PickleValue* dict, PickleValue* key, PickleValue* value) {
    dict->entries.emplace_back(key, value);
  }

  uint64_t non_negative(const PickleValue* v, const char* what, uint64_t at) const {
    if (!v || v->kind != PickleValue::Kind::Int || !v->text.empty() || v->integer < 0)
      fail(at, std::string(what) + " must be a non-negative integer");
    return static_cast<uint64_t>(v->integer);
  }
  std::vector<uint64_t> dims(const PickleValue* v, const char* what, uint64_t at) const {
    if (!v || v->kind != PickleValue::Kind::Tuple) fail(at, std::string(what) + " must be a tuple");
    if (v->items.size() > kMaxTensorRank)
      fail(at, std::string(what) + " has more than " + std::to_string(kMaxTensorRank) + " dimensions");
    std::vector<uint64_t> out;
    for (const PickleValue* d : v->items) out.push_back(non_negative(d, what, at));
    return out;
  }

  // torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks[, metadata]),
  // and _rebuild_tensor(storage, storage_offset, size, stride) before it: a view whose every element must
  // lie inside its storage. A storage this reader does not read makes a tensor it does not read.
  PickleValue* rebuild_tensor(const std::vector<PickleValue*>& a, uint64_t at) {
    if (a.size() >= 4 && a[0]->kind == PickleValue::Kind::Unread) return a[0];
    if (a.size() < 4 || a[0]->kind != PickleValue::Kind::Storage)
      fail(at, "a tensor rebuilder needs (storage, offset, size, stride, ...)");
    auto t = std::make_shared<TorchTensor>();
    t->storage = a[0]->storage;
    t->storage_offset = non_negative(a[1], "storage offset", at);
    t->shape = dims(a[2], "size", at);
    t->stride = dims(a[3], "stride", at);
    if (t->stride.size() != t->shape.size()) fail(at, "size and stride differ in length");
    // The last element the view reaches: offset + sum (size_i - 1) x stride_i, without overflow.
    std::optional<uint64_t> last = t->storage_offset;
    for (size_t i = 0; i < t->shape.size() && last; ++i)
      if (t->shape[i] > 0) {
        const std::optional<uint64_t> span = checked_mul(t->shape[i] - 1, t->stride[i]);
        last = span ? checked_add(*last, *span) : std::nullopt;
      }
    const std::optional<uint64_t> numel = checked_numel(t->shape);
    if (!numel || !last) fail(at, "a tensor's size or strides overflow 64 bits");
    if (*numel > 0 && *last >= t->storage->numel)
      fail(at, "a tensor view reaches element " + std::to_string(*last) + " of a storage of " +
                   std::to_string(t->storage->numel));
    PickleValue* v = make(PickleValue::Kind::Tensor);
    v->tensor = std::move(t);
    return v;
  }

  // A tensor torch builds and this reader does not read: `what` it is, and the global that builds it.
  PickleValue* unread(std::string_view what, const std::string& global) {
    PickleValue* v = make(PickleValue::Kind::Unread);
    v->text = std::string(what) + " (" + printable(global) +
              "), which torch.load(weights_only=True) admits: not read";
    return v;
  }

  // A dict's entries copied into a new one (OrderedDict(d), Counter(d)): each copied pair counts as a value.
  PickleValue* copy_of_dict(const PickleValue* from) {
    PickleValue* d = make(PickleValue::Kind::Dict);
    charge(from->entries.size());
    d->entries = from->entries;
    return d;
  }

  PickleValue* call(const PickleValue* callable, const PickleValue* args, uint64_t at) {
    using K = PickleValue::Kind;
    if (callable->kind != K::Global) fail(at, "REDUCE calls something that is not a global");
    if (args->kind != K::Tuple) fail(at, "REDUCE arguments are not a tuple");
    const std::string& g = callable->text;
    const std::vector<PickleValue*>& a = args->items;
    if (g == "collections.OrderedDict" || g == "collections.Counter") {
      // torch.save writes OrderedDict() and fills it by SETITEMS; OrderedDict(pairs) holds the pairs, and
      // OrderedDict(d) or Counter(d) the entries of d, as torch.load reads them.
      if (a.empty()) return make(K::Dict);
      if (a.size() == 1 && a[0]->kind == K::Dict) return copy_of_dict(a[0]);
      if (g == "collections.Counter") fail(at, "Counter takes one dict");
      if (a.size() != 1 || (a[0]->kind != K::List && a[0]->kind != K::Tuple))
        fail(at, "OrderedDict takes one list of (key, value) pairs");
      PickleValue* d = make(K::Dict);
      charge(a[0]->items.size());
      for (const PickleValue* pair : a[0]->items) {
        if (pair->kind != K::Tuple || pair->items.size() != 2)
          fail(at, "OrderedDict takes one list of (key, value) pairs");
        set_item(d, pair->items[0], pair->items[1]);
      }
      return d;
    }
    if (g == "builtins.set") {  // protocol 2 writes a set as set([items])
      PickleValue* v = make(K::Set);
      if (a.empty()) return v;
      if (a.size() != 1 || (a[0]->kind != K::List && a[0]->kind != K::Tuple && a[0]->kind != K::Set))
        fail(at, "set takes one list of items");
      charge(a[0]->items.size());
      v->items = a[0]->items;
      return v;
    }
    if (g == "torch._utils._rebuild_tensor_v2" || g == "torch._utils._rebuild_tensor")
      return rebuild_tensor(a, at);
    if (g == "torch._utils._rebuild_parameter" || g == "torch._utils._rebuild_parameter_with_state" ||
        g == "torch.nn.parameter.Parameter") {
      if (g == "torch.nn.parameter.Parameter" && a.empty()) return unread("an empty parameter", g);
      if (a.empty() || (a[0]->kind != K::Tensor && a[0]->kind != K::Unread)) fail(at, g + " needs a tensor");
      return a[0];
    }
    if (g == "torch._tensor._rebuild_from_type_v2") {
      // (func, new_type, args, state): a tensor with Python attributes is func(*args), the attributes aside.
      if (a.size() != 4 || a[0]->kind != K::Global || a[1]->kind != K::Global || a[2]->kind != K::Tuple)
        fail(at, "_rebuild_from_type_v2 needs (function, type, arguments, state)");
      if (a[0]->text == g) fail(at, "_rebuild_from_type_v2 rebuilding through itself");
      return call(a[0], a[2], at);
    }
    if (g == "torch.Size") {
      if (a.size() != 1 || a[0]->kind != K::Tuple) fail(at, "torch.Size needs one tuple");
      return a[0];
    }
    for (const UnreadRebuilder& r : kUnreadRebuilders)
      if (r.global == g) return unread(r.what, g);
    if (is_tensor_class(g)) return unread("a tensor built by calling its class", g);
    if (names_one_of(kInertCallables, g) || is_storage_class(g)) {
      PickleValue* v = make(K::Object);
      v->text = g;
      return v;
    }
    fail(at, "'" + printable(g) + "' cannot be called");
  }

  void step(uint8_t op, uint64_t at) {
    using K = PickleValue::Kind;
    switch (op) {
      case 0x80:  // PROTO
        if (byte() > 5) fail(at, "unknown pickle protocol");
        return;
      case 0x95:  // FRAME: a length hint only
        take(8);
        return;
      case '(':
        // Bounded like the stack: a MARK costs one byte in the file and eight here.
        if (marks_.size() >= limits_.max_values)
          throw Error(
              ErrorKind::Limit, file_, "pickle",
              "MARKs nested deeper than the cap on values (" + std::to_string(limits_.max_values) + ")", at);
        marks_.push_back(stack_.size());
        return;
      case '0':
        pop(at);
        return;
      case '1':
        pop_mark(at);
        return;
      case '2':
        push(top(at));
        return;
      case 'N':
        push(make(K::None));
        return;
      case 0x88:
      case 0x89: {
        PickleValue* v = make(K::Bool);
        v->boolean = op == 0x88;
        push(v);
        return;
      }
      case 'J':
        push_int(static_cast<int32_t>(unsigned_le(4)));
        return;
      case 'K':
        push_int(static_cast<int64_t>(unsigned_le(1)));
        return;
      case 'M':
        push_int(static_cast<int64_t>(unsigned_le(2)));
        return;
      case 0x8a:
        push_long(take(unsigned_le(1)));
        return;
      case 0x8b:
        push_long(take(unsigned_le(4)));
        return;
      case 'G': {
        const uint64_t bits = __builtin_bswap64(unsigned_le(8));  // big-endian IEEE 754
        PickleValue* v = make(K::Float);
        v->number = std::bit_cast<double>(bits);
        push(v);
        return;
      }
      case 'X':
        push_text(K::String, take(unsigned_le(4)));
        return;
      case 0x8c:
        push_text(K::String, take(unsigned_le(1)));
        return;
      case 0x8d:
        push_text(K::String, take(unsigned_le(8)));
        return;
      case 'T':  // Python 2 str
        push_text(K::String, take(unsigned_le(4)));
        return;
      case 'U':
        push_text(K::String, take(unsigned_le(1)));
        return;
      case 'B':
        push_text(K::Bytes, take(unsigned_le(4)));
        return;
      case 'C':
        push_text(K::Bytes, take(unsigned_le(1)));
        return;
      case 0x8e:
        push_text(K::Bytes, take(unsigned_le(8)));
        return;
      case ')':
        push_tuple({});
        return;
      case 0x85:
      case 0x86:
      case 0x87: {
        std::vector<PickleValue*> items(op - 0x84);
        for (size_t i = items.size(); i-- > 0;) items[i] = pop(at);
        push_tuple(std::move(items));
        return;
      }
      case 't':
        push_tuple(pop_mark(at));
        return;
      case ']':
        push(make(K::List));
        return;
      case 'l': {
        PickleValue* v = make(K::List);
        v->items = pop_mark(at);
        push(v);
        return;
      }
      case 'a': {
        PickleValue* item = pop(at);
        PickleValue* list = top(at);
        if (list->kind != K::List) fail(at, "APPEND to something that is not a list");
        list->items.push_back(item);
        return;
      }
      case 'e': {
        std::vector<PickleValue*> items = pop_mark(at);
        PickleValue* list = top(at);
        if (list->kind != K::List) fail(at, "APPENDS to something that is not a list");
        list->items.insert(list->items.end(), items.begin(), items.end());
        return;
      }
      case '}':
        push(make(K::Dict));
        return;
      case 'd': {
        std::vector<PickleValue*> kv = pop_mark(at);
        if (kv.size() % 2) fail(at, "DICT with an odd number of items");
        PickleValue* v = make(K::Dict);
        for (size_t i = 0; i < kv.size(); i += 2) set_item(v, kv[i], kv[i + 1]);
        push(v);
        return;
      }
      case 's': {
        PickleValue* value = pop(at);
        PickleValue* key = pop(at);
        PickleValue* dict = top(at);
        if (dict->kind != K::Dict) fail(at, "SETITEM on something that is not a dict");
        set_item(dict, key, value);
        return;
      }
      case 'u': {
        std::vector<PickleValue*> kv = pop_mark(at);
        PickleValue* dict = top(at);
        if (dict->kind != K::Dict || kv.size() % 2) fail(at, "SETITEMS needs a dict and key/value pairs");
        for (size_t i = 0; i < kv.size(); i += 2) set_item(dict, kv[i], kv[i + 1]);
        return;
      }
      case 0x8f:
        push(make(K::Set));
        return;
      case 0x90: {
        std::vector<PickleValue*> items = pop_mark(at);
        PickleValue* set = top(at);
        if (set->kind != K::Set) fail(at, "ADDITEMS to something that is not a set");
        set->items.insert(set->items.end(), items.begin(), items.end());
        return;
      }
      case 0x91: {
        PickleValue* v = make(K::Set);
        v->items = pop_mark(at);
        push(v);
        return;
      }
      case 'q':
        put(unsigned_le(1), at);
        return;
      case 'r':
        put(unsigned_le(4), at);
        return;
      case 0x94:
        put(memo_.size(), at);
        return;
      case 'h':
        get(unsigned_le(1), at);
        return;
      case 'j':
        get(unsigned_le(4), at);
        return;
      case 'c': {
        std::string module(line());
        push_global(std::move(module), line(), at);
        return;
      }
      case 0x93: {
        PickleValue* name = pop(at);
        PickleValue* module = pop(at);
        if (name->kind != K::String || module->kind != K::String) fail(at, "STACK_GLOBAL needs two strings");
        push_global(module->text, name->text, at);
        return;
      }
      case 'R': {
        PickleValue* args = pop(at);
        PickleValue* callable = pop(at);
        push(call(callable, args, at));
        return;
      }
      case 'b': {  // BUILD: the state of an OrderedDict (its _metadata), which changes no tensor. On a
                   // tensor torch.load would re-set its storage, offset, size and stride (set_(*state)):
                   // torch.save never writes that, and a view read otherwise than torch reads it is refused.
        pop(at);
        const PickleValue* obj = top(at);
        if (obj->kind == K::Tensor || obj->kind == K::Unread)
          fail(at, "BUILD on a tensor, which would re-set its view: not read");
        if (obj->kind != K::Dict) fail(at, "BUILD on a value that takes no state");
        return;
      }
      case 'Q': {
        PickleValue* pid = pop(at);
        PickleValue* v = make(K::None);
        if (!load_) fail(at, "a persistent id where none is expected");
        load_(*pid, *v);
        push(v);
        return;
      }
      case 0x81: {  // NEWOBJ: torch.load admits it for Parameter(*args) alone, which is Parameter's call
        PickleValue* args = pop(at);
        PickleValue* cls = pop(at);
        if (cls->kind != K::Global || cls->text != "torch.nn.parameter.Parameter")
          refuse(at, "opcode 0x81 instantiates a class: not allowed, nothing is run");
        push(call(cls, args, at));
        return;
      }
      case 'i':
      case 'o':
      case 0x92:
        refuse(at, "opcode 0x" + hex(op) + " instantiates a class: not allowed, nothing is run");
      case 0x82:
      case 0x83:
      case 0x84:
        refuse(at, "opcode 0x" + hex(op) + " (extension registry) is not allowed");
      default:
        fail(at, "opcode 0x" + hex(op) + " is not one a state dict uses");
    }
  }

  static std::string hex(uint8_t op) {
    static constexpr char kDigits[] = "0123456789abcdef";
    return {kDigits[op >> 4], kDigits[op & 15]};
  }

  std::string_view b_;
  uint64_t at_;
  const std::string& file_;
  const PersistentLoad& load_;
  PickleLimits limits_;
  bool prefix_;  // b_ may be only the start of the program (PickleNeedsMoreBytes)
  std::shared_ptr<PickleArena> arena_;
  uint64_t built_ = 0;  // values made and pairs copied (charge)
  std::vector<PickleValue*> stack_;
  std::vector<size_t> marks_;
  std::vector<PickleValue*> memo_;
};

}  // namespace

PickleResult run_pickle(std::string_view bytes, uint64_t begin, const std::string& file,
                        const PersistentLoad& persistent_load, const PickleLimits& limits,
                        bool bytes_are_a_prefix) {
  if (begin > bytes.size()) throw Error(ErrorKind::Malformed, file, "pickle", "starts past the end");
  return Machine(bytes, begin, file, persistent_load, limits, bytes_are_a_prefix).run();
}

}  // namespace ma
