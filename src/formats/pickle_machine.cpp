#include "formats/pickle_machine.h"

#include <array>
#include <bit>
#include <cstring>

#include "core/checked.h"
#include "core/error.h"
#include "core/shape.h"

namespace ma {
namespace {

// The globals torch.load(weights_only=True) admits for state dicts and training checkpoints.
constexpr std::array<std::string_view, 5> kAdmittedCallables = {
    "collections.OrderedDict", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state", "torch.Size"};

bool admitted(std::string_view global) {
  for (std::string_view g : kAdmittedCallables)
    if (g == global) return true;
  constexpr std::string_view kTorch = "torch.";
  if (!global.starts_with(kTorch)) return false;
  const std::string_view name = global.substr(kTorch.size());
  return dtype_from_torch_storage(name).has_value() || torch_storage_without_dtype(name);
}

class Machine {
 public:
  Machine(std::string_view bytes, uint64_t at, const std::string& file, const PersistentLoad& load,
          const PickleLimits& limits)
      : b_(bytes),
        at_(at),
        file_(file),
        load_(load),
        limits_(limits),
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

  uint8_t byte() {
    if (at_ >= b_.size()) fail(at_, "ends before STOP");
    return static_cast<uint8_t>(b_[at_++]);
  }
  std::string_view take(uint64_t n) {
    if (n > b_.size() - at_) fail(at_, "an argument of " + std::to_string(n) + " bytes runs past the end");
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

  // torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks[, metadata]):
  // a view whose every element must lie inside its storage.
  PickleValue* rebuild_tensor(const std::vector<PickleValue*>& a, uint64_t at) {
    if (a.size() < 4 || a[0]->kind != PickleValue::Kind::Storage)
      fail(at, "_rebuild_tensor_v2 needs (storage, offset, size, stride, ...)");
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

  PickleValue* call(const PickleValue* callable, const PickleValue* args, uint64_t at) {
    if (callable->kind != PickleValue::Kind::Global) fail(at, "REDUCE calls something that is not a global");
    if (args->kind != PickleValue::Kind::Tuple) fail(at, "REDUCE arguments are not a tuple");
    const std::string& g = callable->text;
    const std::vector<PickleValue*>& a = args->items;
    if (g == "collections.OrderedDict") {
      // torch.save writes OrderedDict() and fills it by SETITEMS; OrderedDict(pairs) holds the pairs too,
      // as torch.load reads it.
      PickleValue* d = make(PickleValue::Kind::Dict);
      if (a.empty()) return d;
      if (a.size() != 1 || (a[0]->kind != PickleValue::Kind::List && a[0]->kind != PickleValue::Kind::Tuple))
        fail(at, "OrderedDict takes one list of (key, value) pairs");
      charge(a[0]->items.size());
      for (const PickleValue* pair : a[0]->items) {
        if (pair->kind != PickleValue::Kind::Tuple || pair->items.size() != 2)
          fail(at, "OrderedDict takes one list of (key, value) pairs");
        set_item(d, pair->items[0], pair->items[1]);
      }
      return d;
    }
    if (g == "torch._utils._rebuild_tensor_v2") return rebuild_tensor(a, at);
    if (g == "torch._utils._rebuild_parameter" || g == "torch._utils._rebuild_parameter_with_state") {
      if (a.empty() || a[0]->kind != PickleValue::Kind::Tensor) fail(at, g + " needs a tensor");
      return a[0];
    }
    if (g == "torch.Size") {
      if (a.size() != 1 || a[0]->kind != PickleValue::Kind::Tuple) fail(at, "torch.Size needs one tuple");
      return a[0];
    }
    fail(at, "'" + g + "' cannot be called");
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
        if (obj->kind == K::Tensor) fail(at, "BUILD on a tensor, which would re-set its view: not read");
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
      case 'i':
      case 'o':
      case 0x81:
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
  std::shared_ptr<PickleArena> arena_;
  uint64_t built_ = 0;  // values made and pairs copied (charge)
  std::vector<PickleValue*> stack_;
  std::vector<size_t> marks_;
  std::vector<PickleValue*> memo_;
};

}  // namespace

PickleResult run_pickle(std::string_view bytes, uint64_t begin, const std::string& file,
                        const PersistentLoad& persistent_load, const PickleLimits& limits) {
  if (begin > bytes.size()) throw Error(ErrorKind::Malformed, file, "pickle", "starts past the end");
  return Machine(bytes, begin, file, persistent_load, limits).run();
}

}  // namespace ma
