#include "formats/tokenizer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "core/error.h"
#include "core/json.h"
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

// ---- tokenizer.json ----

struct ModelSection {
  std::string type;
  std::optional<uint64_t> vocab;
  std::optional<uint64_t> merges;
  bool vocab_is_array = false;
  bool has_wordpiece_fields = false;
};

void read_model(Source& s, ModelSection& m) {
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "type") {
      if (auto t = s.opt_string("model.type")) m.type = *t;
    } else if (key == "vocab") {
      Kind k = s.reader.peek();
      uint64_t n = 0;
      if (k == Kind::Object) {  // BPE, WordPiece, WordLevel: {"piece": id}
        // The library reads the vocab into a map, where a piece named twice is one entry: count pieces, not
        // members. Keys with escapes live in the reader's scratch buffer until the next string: keep a copy.
        std::unordered_set<std::string_view> pieces;
        std::deque<std::string> unescaped;
        s.reader.begin_object();
        while (s.reader.next_member(key)) {
          s.count_entry("model.vocab", n);
          pieces.insert(s.reader.in_text(key) ? key : std::string_view(unescaped.emplace_back(key)));
          s.reader.skip();
        }
        n = pieces.size();
      } else if (k == Kind::Array) {  // Unigram: [["piece", score], ...]
        m.vocab_is_array = true;
        s.reader.begin_array();
        while (s.reader.next_item()) {
          s.count_entry("model.vocab", n);
          if (s.reader.peek() != Kind::Array)
            s.wrong_type("model.vocab[]", "a [piece, score] array", s.reader.peek());
          s.reader.skip();
        }
      } else if (k == Kind::Null) {
        s.reader.null();
        continue;
      } else {
        s.wrong_type("model.vocab", "an object or an array", k);
      }
      m.vocab = n;
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

// added_tokens: [{"id": 128000, "content": "<|begin_of_text|>", "special": true, ...}]; collects the ids.
void read_added_tokens(Source& s, std::vector<uint64_t>& ids) {
  if (!s.expect("added_tokens", Kind::Array, "an array")) return;
  s.reader.begin_array();
  uint64_t n = 0;
  std::string_view key;
  while (s.reader.next_item()) {
    s.count_entry("added_tokens", n);
    if (!s.expect("added_tokens[]", Kind::Object, "an object", false)) continue;
    s.reader.begin_object();
    std::optional<uint64_t> id;
    bool has_content = false;
    while (s.reader.next_member(key)) {
      if (key == "id") {
        Kind k = s.reader.peek();
        if (k != Kind::Number) s.wrong_type("added_tokens[].id", "a non-negative integer", k);
        json::Number num = s.reader.number();
        id = num.as_uint();
        if (!id) s.fail("added_tokens[].id", "'" + std::string(num.raw) + "' is not a non-negative integer");
      } else if (key == "content") {
        has_content = s.expect("added_tokens[].content", Kind::String, "a string", false);
        s.reader.skip();
      } else {
        s.reader.skip();
      }
    }
    if (!id) s.fail("added_tokens[" + std::to_string(n - 1) + "]", "has no \"id\"");
    if (!has_content) s.fail("added_tokens[" + std::to_string(n - 1) + "]", "has no \"content\"");
    ids.push_back(*id);
  }
}

void read_tokenizer_json(const fs::path& path, TokenizerInfo& info) {
  Source s = open_json(path, kTokenizerJsonCap);
  s.begin_document("tokenizer.json");
  ModelSection model;
  std::vector<uint64_t> added_ids;
  std::string_view key;
  while (s.reader.next_member(key)) {
    if (key == "added_tokens") {
      read_added_tokens(s, added_ids);
    } else if (key == "model") {
      if (s.expect("model", Kind::Object, "an object")) {
        s.reader.begin_object();
        read_model(s, model);
      }
    } else {
      s.reader.skip();
    }
  }
  s.reader.finish();
  info.model_type = model.type;
  if (!model.vocab) return;
  // Added tokens usually repeat ids inside the vocabulary (Llama's <s>, </s>) or extend it (Llama-3's 256
  // reserved tokens); only the distinct ids past the base vocabulary grow it.
  std::sort(added_ids.begin(), added_ids.end());
  added_ids.erase(std::unique(added_ids.begin(), added_ids.end()), added_ids.end());
  uint64_t base = *model.vocab;
  info.vocab_known = true;
  info.base_vocab_size = base;
  info.added_tokens =
      static_cast<uint64_t>(added_ids.end() - std::lower_bound(added_ids.begin(), added_ids.end(), base));
  info.vocab_size = base + info.added_tokens;
  info.merges = model.merges;
}

// ---- tokenizer_config.json, special_tokens_map.json, chat templates ----

struct SpecialTokens {
  // Per kRoles: unset (not mentioned), or mentioned with a content or with null.
  std::array<std::optional<std::optional<std::string>>, kRoles.size()> named;
  // A model's own roles, in file order: any other "<role>_token" key that holds a token (transformers 5
  // saves them so: Gemma 4's boi_token, audio_token, eot_token ...), or null.
  std::vector<std::pair<std::string, std::optional<std::string>>> model_specific;
  std::optional<std::vector<SpecialToken>> additional;  // additional_special_tokens / extra_special_tokens
};

// Sets a model-specific role, in place when a file named it already (special_tokens_map.json overrides).
void set_model_specific(SpecialTokens& sp, std::string role, std::optional<std::string> content) {
  for (auto& [r, c] : sp.model_specific)
    if (r == role) {
      c = std::move(content);
      return;
    }
  sp.model_specific.emplace_back(std::move(role), std::move(content));
}

struct ChatTemplate {
  std::string file;
  uint64_t length = 0;
  std::vector<std::string> names;
};

// A token written as "<s>", as {"content": "<s>", "lstrip": false, ...} (AddedToken), or null.
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
std::vector<SpecialToken> read_token_list(Source& s, const std::string& field) {
  std::vector<SpecialToken> out;
  Kind k = s.reader.peek();
  uint64_t n = 0;
  if (k == Kind::Array) {
    s.reader.begin_array();
    while (s.reader.next_item()) {
      s.count_entry(field, n);
      if (auto c = token_content(s, field + "[]")) out.push_back({"additional", *c});
    }
  } else if (k == Kind::Object) {
    s.reader.begin_object();
    std::string_view key;
    while (s.reader.next_member(key)) {
      s.count_entry(field, n);
      std::string role(key);
      if (role.size() > 6 && role.ends_with("_token")) role.resize(role.size() - 6);
      if (auto c = token_content(s, field + "." + std::string(key))) out.push_back({role, *c});
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
bool read_special_key(Source& s, std::string_view key, SpecialTokens& sp) {
  if (auto i = role_index(key)) {
    sp.named[*i] = token_content(s, std::string(key));
    return true;
  }
  if (key == "additional_special_tokens" || key == "extra_special_tokens") {
    std::string field(key);
    std::vector<SpecialToken> list = read_token_list(s, field);
    if (!sp.additional) sp.additional.emplace();
    sp.additional->insert(sp.additional->end(), list.begin(), list.end());
    return true;
  }
  // Another "<role>_token" holding a token's text (or null): a role of the model's own. Flags such as
  // add_bos_token (a boolean) are other settings, and other values are left unread.
  const Kind k = s.reader.peek();
  if (key.size() > 6 && key.ends_with("_token") && (k == Kind::String || k == Kind::Null)) {
    set_model_specific(sp, std::string(key.substr(0, key.size() - 6)), token_content(s, std::string(key)));
    return true;
  }
  return false;
}

void read_tokenizer_config(const fs::path& path, TokenizerInfo& info, SpecialTokens& sp,
                           std::optional<ChatTemplate>& tpl) {
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
      if (s.expect("added_tokens_decoder", Kind::Object, "an object")) s.reader.skip();
    } else if (!read_special_key(s, key, sp)) {
      s.reader.skip();
    }
  }
  s.reader.finish();
}

// special_tokens_map.json overrides tokenizer_config.json, as in transformers' from_pretrained.
void read_special_tokens_map(const fs::path& path, SpecialTokens& sp) {
  Source s = open_json(path, kConfigCap);
  s.begin_document("special_tokens_map.json");
  SpecialTokens over;
  std::string_view key;
  while (s.reader.next_member(key))
    if (!read_special_key(s, key, over)) s.reader.skip();
  s.reader.finish();
  for (size_t i = 0; i < kRoles.size(); ++i)
    if (over.named[i]) sp.named[i] = over.named[i];
  for (auto& [role, content] : over.model_specific) set_model_specific(sp, role, content);
  if (over.additional) sp.additional = over.additional;
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

std::vector<SpecialToken> flatten(const SpecialTokens& sp) {
  std::vector<SpecialToken> out;
  for (size_t i = 0; i < kRoles.size(); ++i)
    if (sp.named[i] && *sp.named[i]) out.push_back({std::string(kRoles[i]), **sp.named[i]});
  // Lists repeat tokens (Qwen's additional tokens include its eos <|im_end|>; Gemma 3 names its image tokens
  // both at the top level and in extra_special_tokens); each is listed once. A set: a list of hundreds of
  // thousands (a 5 MB file) searched token by token took minutes.
  std::unordered_set<std::string> seen;
  for (const SpecialToken& t : out) seen.insert(t.content);
  for (const auto& [role, content] : sp.model_specific)
    if (content && seen.insert(*content).second) out.push_back({role, *content});
  if (!sp.additional) return out;
  for (const SpecialToken& t : *sp.additional)
    if (seen.insert(t.content).second) out.push_back(t);
  return out;
}

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);  // a present non-regular file is read, and FileSource reports it
}

}  // namespace

std::optional<TokenizerInfo> read_tokenizer(const fs::path& dir) {
  TokenizerInfo info;
  SpecialTokens special;
  std::optional<ChatTemplate> tpl;
  auto path = [&](std::string_view name) { return dir / std::string(name); };
  auto note = [&](std::string_view name) { info.files_read.emplace_back(name); };

  if (present(path(kTokenizerJson))) {
    read_tokenizer_json(path(kTokenizerJson), info);
    note(kTokenizerJson);
  }
  if (present(path(kTokenizerConfig))) {
    read_tokenizer_config(path(kTokenizerConfig), info, special, tpl);
    note(kTokenizerConfig);
  }
  if (present(path(kSpecialTokensMap))) {
    read_special_tokens_map(path(kSpecialTokensMap), special);
    note(kSpecialTokensMap);
  }
  // transformers prefers chat_template.jinja over the config's chat_template; a processor's
  // chat_template.json is the fallback.
  if (present(path(kChatTemplateJinja))) {
    tpl = read_chat_template_jinja(path(kChatTemplateJinja));
    note(kChatTemplateJinja);
  } else if (present(path(kChatTemplateJson))) {
    if (auto t = read_chat_template_json(path(kChatTemplateJson)); t && !tpl) tpl = std::move(t);
    note(kChatTemplateJson);
  }
  if (info.files_read.empty()) return std::nullopt;

  info.special_tokens = flatten(special);
  if (tpl) {
    info.has_chat_template = true;
    info.chat_template_length = tpl->length;
    info.chat_template_file = tpl->file;
    info.chat_template_names = std::move(tpl->names);
  }
  return info;
}

}  // namespace ma
