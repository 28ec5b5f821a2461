#include "formats/tokenizer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/error.h"
#include "core/json.h"
#include "core/text.h"
#include "formats/model_files.h"
#include "formats/stated_token_ids.h"
#include "formats/token_lookup.h"
#include "io/file_source.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using Kind = json::Reader::Kind;

// Caps beside tokenizer.h's: configs and templates are kilobytes, a few megabytes with a large
// added_tokens_decoder.
constexpr uint64_t kConfigCap = 64ull << 20;
constexpr uint64_t kTemplateCap = 16ull << 20;
// transformers writes int(1e30) (VERY_LARGE_INTEGER) for "no limit", some repos sys.maxsize (2^63-1); no real
// tokenizer limit comes near 10^18.
constexpr double kNoLimitThreshold = 1e18;

constexpr std::string_view kTokenizerJson = "tokenizer.json";
constexpr std::string_view kTokenizerConfig = "tokenizer_config.json";
constexpr std::string_view kSpecialTokensMap = "special_tokens_map.json";
constexpr std::string_view kChatTemplateJinja = "chat_template.jinja";
constexpr std::string_view kChatTemplateJson = "chat_template.json";

// The roles transformers names "<role>_token", in the order the report lists them.
constexpr std::array<std::string_view, 7> kRoles = {"bos", "eos", "unk", "pad", "sep", "cls", "mask"};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return "a boolean";
    case Kind::Number:
      return "a number";
    case Kind::String:
      return "a string";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
  }
  return "?";
}

// One file being read: its name for messages and the pull reader over its text.
struct Source {
  std::string text;
  std::string name;
  json::Reader reader;

  Source(std::string t, std::string n, uint64_t cap)
      : text(std::move(t)), name(std::move(n)), reader(text, name, limits(cap)) {
    json::check_document_size(text, name, limits(cap));
  }
  // The reader points into `text` and `name`: never copied or moved.
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  static json::Limits limits(uint64_t cap) {
    json::Limits l;
    l.max_bytes = cap;
    l.allow_nonfinite = true;  // written by Python's json, which emits NaN / Infinity
    return l;
  }
  [[noreturn]] void wrong_type(const std::string& field, std::string_view expected, Kind got) {
    throw Error(ErrorKind::Malformed, name, field,
                "expected " + std::string(expected) + ", found " + kind_name(got), reader.offset());
  }
  [[noreturn]] void fail(const std::string& field, const std::string& rule) {
    throw Error(ErrorKind::Malformed, name, field, rule, reader.offset());
  }
  // The next value must be of kind `k` (or null when `null_ok`); returns false for null (consumed).
  bool expect(const std::string& field, Kind k, std::string_view expected, bool null_ok = true) {
    Kind got = reader.peek();
    if (got == Kind::Null && null_ok) {
      reader.null();
      return false;
    }
    if (got != k) wrong_type(field, expected, got);
    return true;
  }
  std::optional<std::string> opt_string(const std::string& field) {
    if (!expect(field, Kind::String, "a string")) return std::nullopt;
    return std::string(reader.string());
  }
  void count_entry(const std::string& field, uint64_t& n) {
    if (++n > kTokenizerMaxEntries)
      throw Error(ErrorKind::Limit, name, field,
                  "more than " + std::to_string(kTokenizerMaxEntries) + " entries (cap)", reader.offset());
  }
  // The document must be an object; reads its first member key.
  void begin_document(std::string_view what) {
    Kind k = reader.peek();
    if (k != Kind::Object) fail("", std::string(what) + " must be a JSON object, found " + kind_name(k));
    reader.begin_object();
  }
};

Source open_json(const fs::path& path, uint64_t cap) {
  return Source(read_small_file(path, cap), path.string(), cap);
}

uint64_t count_code_points(std::string_view s) {
  uint64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

uint64_t read_id(Source& s, const std::string& field) {
  Kind k = s.reader.peek();
  if (k != Kind::Number) s.wrong_type(field, "a non-negative integer", k);
  json::Number num = s.reader.number();
  std::optional<uint64_t> id = token_id(num.as_uint());
  if (!id) s.fail(field, "'" + std::string(num.raw) + "' is not a token id (a non-negative 32-bit integer)");
  return *id;
}

// "128000" as an id (added_tokens_decoder's keys).
std::optional<uint64_t> parse_id(std::string_view text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty()) return std::nullopt;
  return token_id(v);
}

// ---- ids ----

// Sorted disjoint runs of `ids`, sorted and deduplicated in place.
std::vector<TokenIdRange> runs_of(std::vector<uint64_t>& ids) {
  if (!std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());  // files list ids in order
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<TokenIdRange> out;
  for (uint64_t id : ids) {
    if (!out.empty() && out.back().end == id)
      ++out.back().end;
    else
      out.push_back({id, id + 1});
  }
  return out;
}

// The union of two lists of runs.
std::vector<TokenIdRange> merge_runs(std::vector<TokenIdRange> a, const std::vector<TokenIdRange>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end(),
            [](const TokenIdRange& x, const TokenIdRange& y) { return x.first < y.first; });
  std::vector<TokenIdRange> out;
  for (const TokenIdRange& r : a) {
    if (!out.empty() && r.first <= out.back().end)
      out.back().end = std::max(out.back().end, r.end);
    else
      out.push_back(r);
  }
  return out;
}

// ---- tokenizer.json ----

struct ModelSection {
  std::string type;
  std::optional<std::vector<TokenIdRange>> vocab;  // the ids of model.vocab
  std::optional<uint64_t> merges;
  bool vocab_is_array = false;
  bool has_wordpiece_fields = false;
};

// model.vocab as {"piece": id} (BPE, WordPiece, WordLevel). The library reads it into a map, where a piece
// named twice is one entry with its last id. Keys with escapes live in the reader's scratch buffer until the
// next string: those are kept in a copy.
std::vector<TokenIdRange> read_vocab_object(Source& s, const TokenWants& w, TokenHits& found) {
  static const std::string kField = "model.vocab";
  std::unordered_map<std::string_view, uint64_t> pieces;
  std::deque<std::string> unescaped;
  std::vector<uint64_t> ids;  // in file order, one per piece while no piece repeats
  bool repeated = false;
  uint64_t n = 0;
  std::string_view key;
  s.reader.begin_object();
  while (s.reader.next_member(key)) {
    s.count_entry(kField, n);
    const std::string_view piece =
        s.reader.in_text(key) ? key : std::string_view(unescaped.emplace_back(key));
    const uint64_t id = read_id(s, kField);
    if (auto [it, inserted] = pieces.try_emplace(piece, id); inserted) {
      ids.push_back(id);
    } else {
      it->second = id;
      repeated = true;
    }
    found.note(w, piece, id, true);
  }
  if (repeated) {  // a repeated piece keeps only its last id
    ids.clear();
    for (const auto& entry : pieces) ids.push_back(entry.second);
  }
  return runs_of(ids);
}

// model.vocab as [["piece", score], ...] (Unigram): an entry's index is its id.
std::vector<TokenIdRange> read_vocab_array(Source& s, const TokenWants& w, TokenHits& found) {
  uint64_t n = 0;
  s.reader.begin_array();
  while (s.reader.next_item()) {
    s.count_entry("model.vocab", n);
    if (s.reader.peek() != Kind::Array)
      s.wrong_type("model.vocab[]", "a [piece, score] array", s.reader.peek());
    s.reader.begin_array();
    if (!s.reader.next_item() || s.reader.peek() != Kind::String)
      s.fail("model.vocab[" + std::to_string(n - 1) + "]", "must be [piece, score]");
    found.note(w, s.reader.string(), n - 1, true);
    while (s.reader.next_item()) s.reader.skip();
  }
  if (n == 0) return {};
  return {TokenIdRange{0, n}};
}

void read_model(Source& s, ModelSection& m, const TokenWants& w, TokenHits& found) {
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "type") {
      if (auto t = s.opt_string("model.type")) m.type = *t;
    } else if (key == "vocab") {
      Kind k = s.reader.peek();
      if (k == Kind::Object) {
        m.vocab = read_vocab_object(s, w, found);
      } else if (k == Kind::Array) {
        m.vocab_is_array = true;
        m.vocab = read_vocab_array(s, w, found);
      } else if (k == Kind::Null) {
        s.reader.null();
      } else {
        s.wrong_type("model.vocab", "an object or an array", k);
      }
    } else if (key == "merges") {
      if (!s.expect("model.merges", Kind::Array, "an array")) continue;
      uint64_t n = 0;
      s.reader.begin_array();
      while (s.reader.next_item()) {
        s.count_entry("model.merges", n);
        s.reader.skip();
      }
      m.merges = n;
    } else if (key == "max_input_chars_per_word") {
      m.has_wordpiece_fields = true;
      s.reader.skip();
    } else {
      s.reader.skip();
    }
  }
  // Files written by early `tokenizers` versions have no "type"; the library tells the models apart by
  // their fields, and so do we.
  if (m.type.empty() && m.vocab) {
    if (m.merges)
      m.type = "BPE";
    else if (m.vocab_is_array)
      m.type = "Unigram";
    else if (m.has_wordpiece_fields)
      m.type = "WordPiece";
  }
}

// An added token of tokenizer.json or of tokenizer_config.json's added_tokens_decoder.
struct AddedTokenEntry {
  uint64_t id = 0;
  std::string content;
};

// added_tokens: [{"id": 128000, "content": "<|begin_of_text|>", "special": true, ...}].
void read_added_tokens(Source& s, std::vector<AddedTokenEntry>& out) {
  if (!s.expect("added_tokens", Kind::Array, "an array")) return;
  s.reader.begin_array();
  uint64_t n = 0;
  std::string_view key;
  while (s.reader.next_item()) {
    s.count_entry("added_tokens", n);
    if (!s.expect("added_tokens[]", Kind::Object, "an object", false)) continue;
    s.reader.begin_object();
    std::optional<uint64_t> id;
    std::optional<std::string> content;
    while (s.reader.next_member(key)) {
      if (key == "id") {
        id = read_id(s, "added_tokens[].id");
      } else if (key == "content") {
        s.expect("added_tokens[].content", Kind::String, "a string", false);
        content = std::string(s.reader.string());
      } else {
        s.reader.skip();
      }
    }
    if (!id) s.fail("added_tokens[" + std::to_string(n - 1) + "]", "has no \"id\"");
    if (!content) s.fail("added_tokens[" + std::to_string(n - 1) + "]", "has no \"content\"");
    out.push_back({*id, std::move(*content)});
  }
}

struct TokenizerJsonRead {
  ModelSection model;
  std::vector<AddedTokenEntry> added;
};

TokenizerJsonRead read_tokenizer_json(const fs::path& path, const TokenWants& w, TokenHits& vocab) {
  Source s = open_json(path, kTokenizerJsonCap);
  s.begin_document("tokenizer.json");
  TokenizerJsonRead out;
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "added_tokens") {
      read_added_tokens(s, out.added);
    } else if (key == "model") {
      if (s.expect("model", Kind::Object, "an object")) {
        s.reader.begin_object();
        read_model(s, out.model, w, vocab);
      }
    } else {
      s.reader.skip();
    }
  }
  s.reader.finish();
  return out;
}

// ---- tokenizer_config.json, special_tokens_map.json, chat templates ----

// A special token as a file names it.
struct SpecialEntry {
  std::string role;
  std::optional<std::string> content;  // nullopt: null in the file, which unsets the role
  std::string_view file;               // tokenizer_config.json or special_tokens_map.json
  std::string key;                     // the key that named it ("bos_token", "additional_special_tokens")
};

struct SpecialTokens {
  std::array<std::optional<SpecialEntry>, kRoles.size()> named;  // per kRoles; unset: not mentioned
  // A model's own roles, in file order: any other "<role>_token" key that holds a token (transformers 5
  // saves them so: Gemma 4's boi_token, audio_token, eot_token ...), or null.
  std::vector<SpecialEntry> model_specific;
  std::optional<std::vector<SpecialEntry>> additional;  // additional_special_tokens / extra_special_tokens
};

// Sets a model-specific role, in place when a file named it already (special_tokens_map.json overrides).
void set_model_specific(SpecialTokens& sp, SpecialEntry e) {
  for (SpecialEntry& have : sp.model_specific)
    if (have.role == e.role) {
      have = std::move(e);
      return;
    }
  sp.model_specific.push_back(std::move(e));
}

struct ChatTemplate {
  std::string file;
  uint64_t length = 0;
  std::vector<std::string> names;
};

// A token written as "<s>", as {"content": "<s>", "lstrip": false, ...} (AddedToken), or null. "" is kept:
// it is a broken file's value, which the report shows and warns of.
std::optional<std::string> token_content(Source& s, const std::string& field) {
  Kind k = s.reader.peek();
  if (k == Kind::String) return std::string(s.reader.string());
  if (k == Kind::Null) {
    s.reader.null();
    return std::nullopt;
  }
  if (k != Kind::Object) s.wrong_type(field, "a string or an object with \"content\"", k);
  s.reader.begin_object();
  std::optional<std::string> content;
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "content") {
      if (!s.expect(field + ".content", Kind::String, "a string", false)) continue;
      content = std::string(s.reader.string());
    } else {
      s.reader.skip();
    }
  }
  if (!content) s.fail(field, "token object has no \"content\"");
  return content;
}

// additional_special_tokens: ["<a>", {"content": "<b>"}]; extra_special_tokens (transformers 5) also
// {"image_token": "<image>"}, whose keys name the role.
std::vector<SpecialEntry> read_token_list(Source& s, const std::string& field, std::string_view file) {
  std::vector<SpecialEntry> out;
  Kind k = s.reader.peek();
  uint64_t n = 0;
  if (k == Kind::Array) {
    s.reader.begin_array();
    while (s.reader.next_item()) {
      s.count_entry(field, n);
      if (auto c = token_content(s, field + "[]")) out.push_back({"additional", std::move(c), file, field});
    }
  } else if (k == Kind::Object) {
    s.reader.begin_object();
    std::string_view key;
    while (s.reader.next_member(key)) {
      s.count_entry(field, n);
      std::string role(key);
      if (role.size() > 6 && role.ends_with("_token")) role.resize(role.size() - 6);
      if (auto c = token_content(s, field + "." + role)) out.push_back({role, std::move(c), file, field});
    }
  } else if (k == Kind::Null) {
    s.reader.null();
  } else {
    s.wrong_type(field, "an array or an object", k);
  }
  return out;
}

// chat_template: "{% for ... %}" or [{"name": "default", "template": "..."}, {"name": "tool_use", ...}].
std::optional<ChatTemplate> read_chat_template(Source& s, std::string_view file) {
  Kind k = s.reader.peek();
  if (k == Kind::Null) {
    s.reader.null();
    return std::nullopt;
  }
  ChatTemplate t;
  t.file = file;
  if (k == Kind::String) {
    t.length = count_code_points(s.reader.string());
    return t;
  }
  if (k != Kind::Array) s.wrong_type("chat_template", "a string or a list of {name, template}", k);
  s.reader.begin_array();
  std::optional<uint64_t> first_length, default_length;
  uint64_t n = 0;
  while (s.reader.next_item()) {
    s.count_entry("chat_template", n);
    s.expect("chat_template[]", Kind::Object, "an object with name and template", false);
    s.reader.begin_object();
    std::optional<std::string> name;
    std::optional<uint64_t> length;
    std::string_view key;
    while (s.reader.next_member(key)) {
      if (key == "name") {
        s.expect("chat_template[].name", Kind::String, "a string", false);
        name = std::string(s.reader.string());
      } else if (key == "template") {
        s.expect("chat_template[].template", Kind::String, "a string", false);
        length = count_code_points(s.reader.string());
      } else {
        s.reader.skip();
      }
    }
    if (!name || !length)
      s.fail("chat_template[" + std::to_string(n - 1) + "]", "needs \"name\" and \"template\"");
    if (!first_length) first_length = length;
    if (*name == "default") default_length = length;
    t.names.push_back(std::move(*name));
  }
  if (!first_length) return std::nullopt;  // an empty list: no template
  // transformers applies the template named "default" unless told otherwise.
  t.length = default_length ? *default_length : *first_length;
  return t;
}

// model_max_length: an integer, null, or a "no limit" sentinel (reported as unset).
std::optional<uint64_t> read_max_length(Source& s) {
  if (!s.expect("model_max_length", Kind::Number, "a number")) return std::nullopt;
  json::Number n = s.reader.number();
  if (std::isnan(n.value) || n.negative)
    s.fail("model_max_length", "'" + std::string(n.raw) + "' is not a non-negative length");
  if (!(n.value < kNoLimitThreshold)) return std::nullopt;
  if (auto u = n.as_uint()) return *u == 0 ? std::nullopt : std::optional<uint64_t>(*u);
  if (n.value != std::floor(n.value))
    s.fail("model_max_length", "'" + std::string(n.raw) + "' is not an integer");
  auto u = static_cast<uint64_t>(n.value);  // an integral float such as 2048.0
  return u == 0 ? std::nullopt : std::optional<uint64_t>(u);
}

std::optional<size_t> role_index(std::string_view key) {
  if (!key.ends_with("_token")) return std::nullopt;
  key.remove_suffix(6);
  for (size_t i = 0; i < kRoles.size(); ++i)
    if (kRoles[i] == key) return i;
  return std::nullopt;
}

// Reads the special-token keys every one of these files may hold; returns false for other keys (unread).
bool read_special_key(Source& s, std::string_view key, SpecialTokens& sp, std::string_view file) {
  if (auto i = role_index(key)) {
    std::string k(key);
    sp.named[*i] = SpecialEntry{std::string(kRoles[*i]), token_content(s, k), file, k};
    return true;
  }
  if (key == "additional_special_tokens" || key == "extra_special_tokens") {
    std::string field(key);
    std::vector<SpecialEntry> list = read_token_list(s, field, file);
    if (!sp.additional) sp.additional.emplace();
    sp.additional->insert(sp.additional->end(), std::make_move_iterator(list.begin()),
                          std::make_move_iterator(list.end()));
    return true;
  }
  // Another "<role>_token" holding a token's text (or null): a role of the model's own. Flags such as
  // add_bos_token (a boolean) are other settings, and other values are left unread.
  const Kind k = s.reader.peek();
  if (key.size() > 6 && key.ends_with("_token") && (k == Kind::String || k == Kind::Null)) {
    std::string field(key);
    set_model_specific(sp,
                       SpecialEntry{field.substr(0, field.size() - 6), token_content(s, field), file, field});
    return true;
  }
  return false;
}

// added_tokens_decoder: {"128000": {"content": "<|begin_of_text|>", "special": true, ...}}: the added
// tokens by id, as transformers (since 4.34) saves them.
void read_added_tokens_decoder(Source& s, std::vector<AddedTokenEntry>& out) {
  s.reader.begin_object();
  uint64_t n = 0;
  std::string_view key;
  while (s.reader.next_member(key)) {
    s.count_entry("added_tokens_decoder", n);
    const std::string field =
        "added_tokens_decoder." + std::string(key);  // the key dies with the next string
    const std::optional<uint64_t> id = parse_id(key);
    if (!id) s.fail(field, "the key is not a token id (a non-negative 32-bit integer)");
    std::optional<std::string> content = token_content(s, field);
    if (!content) s.fail(field, "is null, not a token");
    out.push_back({*id, std::move(*content)});
  }
}

// What tokenizer_config.json adds beside the TokenizerInfo fields it sets.
struct TokenizerConfigRead {
  // Present (an object): transformers' modern format, which also decides that special_tokens_map.json is
  // not read.
  std::optional<std::vector<AddedTokenEntry>> added_tokens_decoder;
};

void read_tokenizer_config(const fs::path& path, TokenizerInfo& info, SpecialTokens& sp,
                           std::optional<ChatTemplate>& tpl, TokenizerConfigRead& config) {
  Source s = open_json(path, kConfigCap);
  s.begin_document("tokenizer_config.json");
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "tokenizer_class") {
      if (auto c = s.opt_string("tokenizer_class")) info.tokenizer_class = *c;
    } else if (key == "model_max_length") {
      info.model_max_length = read_max_length(s);
    } else if (key == "chat_template") {
      tpl = read_chat_template(s, kTokenizerConfig);
    } else if (key == "added_tokens_decoder") {
      if (s.expect("added_tokens_decoder", Kind::Object, "an object"))
        read_added_tokens_decoder(s, config.added_tokens_decoder.emplace());
    } else if (!read_special_key(s, key, sp, kTokenizerConfig)) {
      s.reader.skip();
    }
  }
  s.reader.finish();
}

// special_tokens_map.json, which transformers (since 4.34, PreTrainedTokenizerBase._from_pretrained) reads
// only in its legacy branch, for a tokenizer_config.json without added_tokens_decoder or none at all. There
// a role it names replaces the config's (null unsets it), and its additional tokens are appended to the
// config's list, not put in its place.
void read_special_tokens_map(const fs::path& path, SpecialTokens& sp) {
  Source s = open_json(path, kConfigCap);
  s.begin_document("special_tokens_map.json");
  SpecialTokens over;
  std::string_view key;
  while (s.reader.next_member(key))
    if (!read_special_key(s, key, over, kSpecialTokensMap)) s.reader.skip();
  s.reader.finish();
  for (size_t i = 0; i < kRoles.size(); ++i)
    if (over.named[i]) sp.named[i] = std::move(over.named[i]);
  for (SpecialEntry& e : over.model_specific) set_model_specific(sp, std::move(e));
  if (!over.additional) return;
  if (!sp.additional) sp.additional.emplace();
  sp.additional->insert(sp.additional->end(), std::make_move_iterator(over.additional->begin()),
                        std::make_move_iterator(over.additional->end()));
}

// chat_template.json (written by processors): {"chat_template": "..."}.
std::optional<ChatTemplate> read_chat_template_json(const fs::path& path) {
  Source s = open_json(path, kConfigCap);
  s.begin_document("chat_template.json");
  std::optional<ChatTemplate> tpl;
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "chat_template")
      tpl = read_chat_template(s, kChatTemplateJson);
    else
      s.reader.skip();
  }
  s.reader.finish();
  return tpl;
}

ChatTemplate read_chat_template_jinja(const fs::path& path) {
  std::string text = read_small_file(path, kTemplateCap);
  return ChatTemplate{std::string(kChatTemplateJinja), count_code_points(text), {}};
}

// The special tokens with a content, each once: named roles, the model's own, then the additional ones.
std::vector<SpecialEntry> flatten(const SpecialTokens& sp) {
  std::vector<SpecialEntry> out;
  for (const std::optional<SpecialEntry>& e : sp.named)
    if (e && e->content) out.push_back(*e);
  // Lists repeat tokens (Qwen's additional tokens include its eos <|im_end|>; Gemma 3 names its image tokens
  // both at the top level and in extra_special_tokens); each is listed once. A set: a list of hundreds of
  // thousands (a 5 MB file) searched token by token took minutes.
  std::unordered_set<std::string> seen;
  for (const SpecialEntry& e : out) seen.insert(*e.content);
  for (const SpecialEntry& e : sp.model_specific)
    if (e.content && seen.insert(*e.content).second) out.push_back(e);
  if (!sp.additional) return out;
  for (const SpecialEntry& e : *sp.additional)
    if (seen.insert(*e.content).second) out.push_back(e);
  return out;
}

// A present name is read, and FileSource reports what it is not (a dangling or looping link, a FIFO).
bool present(const fs::path& p) {
  return path_is_present(p);
}

// ---- the vocabulary ----

// Counts the vocabulary and the added tokens (tokenizer.h says how they split it), and notes the added
// tokens' texts and ids for the look-ups.
void summarize_vocabulary(TokenizerInfo& info, const std::optional<TokenizerJsonRead>& json,
                          const TokenizerConfigRead& config, const TokenWants& w, TokenLookup& lookup) {
  std::vector<uint64_t> added_ids;
  if (json)
    for (const AddedTokenEntry& t : json->added) {
      added_ids.push_back(t.id);
      lookup.added.note(w, t.content, t.id, false);
    }
  if (config.added_tokens_decoder)
    for (const AddedTokenEntry& t : *config.added_tokens_decoder) {
      added_ids.push_back(t.id);
      lookup.decoder.note(w, t.content, t.id, false);
    }
  const std::vector<TokenIdRange> added = runs_of(added_ids);
  // Without tokenizer.json or added_tokens_decoder, the added tokens are in files not read (tokenizer.model,
  // added_tokens.json): unknown, not none.
  if (json || config.added_tokens_decoder) info.added_tokens = added_ids.size();
  if (json) info.model_type = json->model.type;
  if (!json || !json->model.vocab) {
    info.token_ids = added;
    return;
  }
  info.vocab_known = true;
  info.token_ids = merge_runs(*json->model.vocab, added);
  info.vocab_size = token_id_count(info);
  // transformers' tokenizer.vocab_size: the model's own vocabulary, without the added tokens beyond it.
  for (const TokenIdRange& r : *json->model.vocab) info.base_vocab_size += r.end - r.first;
  info.merges = json->model.merges;
}

// ---- warnings ----

// Empty special tokens (decapoda-research/llama-7b-hf's bos, eos and unk ""): no text encodes to them and no
// id belongs to them, the known breakage of early LLaMA conversions. One line per file.
void warn_empty_tokens(const std::vector<SpecialEntry>& entries, std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string_view, std::vector<std::string>>> by_file;
  for (const SpecialEntry& e : entries) {
    if (!e.content || !e.content->empty()) continue;
    auto it = std::find_if(by_file.begin(), by_file.end(), [&](const auto& f) { return f.first == e.file; });
    if (it == by_file.end()) {
      by_file.emplace_back(e.file, std::vector<std::string>{});
      it = by_file.end() - 1;
    }
    if (std::find(it->second.begin(), it->second.end(), e.key) == it->second.end())
      it->second.push_back(e.key);
  }
  for (const auto& [file, keys] : by_file)
    warnings.push_back(
        std::string(file) + " sets " + join_with_and(keys) +
        " to \"\" (an empty string): an empty special token has no id, and no input encodes to it");
}

}  // namespace

uint64_t token_id_count(const TokenizerInfo& info) {
  uint64_t n = 0;
  for (const TokenIdRange& r : info.token_ids) n += r.end - r.first;
  return n;
}

uint64_t token_ids_from(const TokenizerInfo& info, uint64_t n) {
  uint64_t count = 0;
  for (const TokenIdRange& r : info.token_ids) {
    const uint64_t first = std::max(r.first, n);
    if (r.end > first) count += r.end - first;
  }
  return count;
}

std::optional<TokenizerInfo> read_tokenizer(const fs::path& dir) {
  auto path = [&](std::string_view name) { return dir / std::string(name); };
  const bool has_json = present(path(kTokenizerJson)), has_config = present(path(kTokenizerConfig)),
             has_map = present(path(kSpecialTokensMap)), has_jinja = present(path(kChatTemplateJinja)),
             has_template_json = !has_jinja && present(path(kChatTemplateJson));
  if (!has_json && !has_config && !has_map && !has_jinja && !has_template_json) return std::nullopt;

  // The special tokens first, then tokenizer.json once, looking up their ids (and the texts of the ids the
  // configs state) as its vocabulary goes by.
  TokenizerInfo info;
  SpecialTokens special;
  TokenizerConfigRead config;
  std::optional<ChatTemplate> tpl;
  if (has_config) read_tokenizer_config(path(kTokenizerConfig), info, special, tpl, config);
  const bool map_read = has_map && !config.added_tokens_decoder;
  if (map_read) read_special_tokens_map(path(kSpecialTokensMap), special);
  const std::vector<SpecialEntry> entries = flatten(special);
  for (const SpecialEntry& e : entries) info.special_tokens.push_back({e.role, *e.content, std::nullopt});

  std::vector<std::string> problems;
  const std::vector<StatedIds> stated = read_all_stated_ids(dir, problems);
  TokenWants wanted;
  for (const SpecialToken& t : info.special_tokens) wanted.add_text(t.content);
  for (const StatedIds& s : stated)
    for (const std::vector<uint64_t>& ids : s.ids)
      for (uint64_t id : ids) wanted.add_id(id);
  TokenLookup lookup;
  std::optional<TokenizerJsonRead> json;
  if (has_json) json = read_tokenizer_json(path(kTokenizerJson), wanted, lookup.vocab);
  summarize_vocabulary(info, json, config, wanted, lookup);
  for (SpecialToken& t : info.special_tokens) t.id = lookup.id_of(t.content);

  warn_empty_tokens(entries, info.warnings);
  compare_stated_ids(stated, info.special_tokens, lookup, info.warnings);
  info.warnings.insert(info.warnings.end(), problems.begin(), problems.end());

  // transformers prefers chat_template.jinja over the config's chat_template; a processor's
  // chat_template.json is the fallback.
  if (has_jinja) {
    tpl = read_chat_template_jinja(path(kChatTemplateJinja));
  } else if (has_template_json) {
    if (auto t = read_chat_template_json(path(kChatTemplateJson)); t && !tpl) tpl = std::move(t);
  }
  if (tpl) {
    info.has_chat_template = true;
    info.chat_template_length = tpl->length;
    info.chat_template_file = tpl->file;
    info.chat_template_names = std::move(tpl->names);
  }
  for (auto [name, read] : {std::pair{kTokenizerJson, has_json}, std::pair{kTokenizerConfig, has_config},
                            std::pair{kSpecialTokensMap, map_read}, std::pair{kChatTemplateJinja, has_jinja},
                            std::pair{kChatTemplateJson, has_template_json}})
    if (read) info.files_read.emplace_back(name);
  return info;
}

}  // namespace ma
