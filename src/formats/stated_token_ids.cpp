#include "formats/stated_token_ids.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "core/error.h"
#include "core/json.h"
#include "core/text.h"
#include "core/units.h"
#include "formats/model_files.h"
#include "io/file_source.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kConfigJson = "config.json";
constexpr std::string_view kGenerationConfig = "generation_config.json";
// Read as a stream that keeps only the ids, a file costs its bytes read once, never a document held in memory
// (a 16 MB config of zeros took 1.7 GB as one). config.json is capped as the config reader caps it (16 MiB:
// ImageNet-21k's 21,843 labels, named twice, make 1.5 MB; the largest in ../shared/data, a vision model's
// 1,000, 70 KB); generation_config.json, a few hundred bytes in every model, at 1 MiB.
constexpr uint64_t kConfigJsonCap = 16ull << 20;
constexpr uint64_t kGenerationConfigCap = 1ull << 20;

using Ids = std::array<std::vector<uint64_t>, kStatedRoles.size()>;

// What a value that is no token id reads as in a warning: a number as written, else its kind.
std::string value_text(json::Reader& r) {
  const json::Reader::Kind kind = r.peek();
  if (kind == json::Reader::Kind::Number) return std::string(r.number().raw);
  r.skip();
  switch (kind) {
    case json::Reader::Kind::String:
      return "a string";
    case json::Reader::Kind::Bool:
      return "a boolean";
    case json::Reader::Kind::Array:
      return "a list";
    default:
      return "an object";
  }
}

// One stated id: a token id is kept; null and -1 ("none" in older configs) state nothing; anything else (2.5,
// -3, "2", a nested list) states nothing either, and is named in `unread`, since the comparison it left out
// may be the one that mattered.
void read_one_id(json::Reader& r, const std::string& where, std::vector<uint64_t>& ids,
                 std::vector<std::string>& unread) {
  if (r.peek() == json::Reader::Kind::Null) return r.null();
  if (r.peek() == json::Reader::Kind::Number) {
    const json::Number n = r.number();
    if (const std::optional<uint64_t> id = token_id(n.as_uint())) return ids.push_back(*id);
    if (n.as_int() == -1) return;
    unread.push_back(where + ": " + printable(n.raw) + " is no token id (a whole number from 0 to " +
                     with_thousands(std::numeric_limits<uint32_t>::max()) +
                     "): not compared with the tokenizer's");
    return;
  }
  unread.push_back(where + ": " + value_text(r) + " is no token id: not compared with the tokenizer's");
}

// An id, or a list of them (eos_token_id in newer configs).
std::vector<uint64_t> read_ids(json::Reader& r, const std::string& where, std::vector<std::string>& unread) {
  std::vector<uint64_t> out;
  if (r.peek() != json::Reader::Kind::Array) {
    read_one_id(r, where, out, unread);
    return out;
  }
  r.begin_array();
  while (r.next_item()) read_one_id(r, where, out, unread);
  return out;
}

// The index in kStatedRoles of a "<role>_token_id" key; kStatedRoles.size() for any other key.
size_t role_of_key(std::string_view key) {
  constexpr std::string_view kSuffix = "_token_id";
  for (size_t i = 0; i < kStatedRoles.size(); ++i)
    if (key.size() == kStatedRoles[i].size() + kSuffix.size() && key.starts_with(kStatedRoles[i]) &&
        key.ends_with(kSuffix))
      return i;
  return kStatedRoles.size();
}

// The <role>_token_id members of the object the reader is at, everything else skipped. Like Python's json,
// the last of duplicate keys wins. `where`: the file and the path to the object ("config.json:
// text_config.").
Ids read_role_ids(json::Reader& r, const std::string& where, std::vector<std::string>& unread) {
  Ids ids;
  r.begin_object();
  std::string_view key;
  while (r.next_member(key)) {
    const size_t role = role_of_key(key);
    if (role < kStatedRoles.size())
      ids[role] = read_ids(r, where + std::string(key), unread);
    else
      r.skip();
  }
  return ids;
}

// The top-level <role>_token_id keys, else text_config's (a multimodal model's language model states them
// there). Ids that are no token ids are named in `unread`.
StatedIds read_stated_ids(const fs::path& path, std::string_view file, std::vector<std::string>& unread) {
  const uint64_t cap = file == kConfigJson ? kConfigJsonCap : kGenerationConfigCap;
  json::Limits limits;
  limits.max_bytes = cap;
  limits.allow_nonfinite = true;
  const std::string text = read_small_file(path, cap);
  const std::string name = path.string();  // the reader keeps a view of it for its errors: it must outlive r
  json::Reader r(text, name, limits);
  if (r.peek() != json::Reader::Kind::Object)
    throw Error(ErrorKind::Malformed, name, "", "is not a JSON object");
  StatedIds out{file, {}};
  Ids text_config;
  const std::string where = std::string(file) + ": ";
  std::vector<std::string> text_config_unread;
  r.begin_object();
  std::string_view key;
  while (r.next_member(key)) {
    if (key == "text_config") {
      // The last text_config is the one read: one that is no object states nothing.
      text_config_unread.clear();
      text_config = r.peek() == json::Reader::Kind::Object
                        ? read_role_ids(r, where + "text_config.", text_config_unread)
                        : (r.skip(), Ids{});
      continue;
    }
    const size_t role = role_of_key(key);
    if (role < kStatedRoles.size())
      out.ids[role] = read_ids(r, where + std::string(key), unread);
    else
      r.skip();
  }
  r.finish();
  unread.insert(unread.end(), text_config_unread.begin(), text_config_unread.end());
  for (size_t i = 0; i < kStatedRoles.size(); ++i)
    if (out.ids[i].empty()) out.ids[i] = std::move(text_config[i]);
  return out;
}

// A token's text in a message: quoted, cut after 60 characters.
std::string quote_token(std::string_view text) {
  constexpr uint64_t kMaxChars = 60;
  size_t end = 0;
  for (uint64_t chars = 0; end < text.size(); ++end)
    if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80 && ++chars > kMaxChars) break;
  return "\"" + std::string(text.substr(0, end)) + (end < text.size() ? "...\"" : "\"");
}

const SpecialToken* named_token(const std::vector<SpecialToken>& tokens, std::string_view role) {
  for (const SpecialToken& t : tokens)
    if (t.role == role) return &t;
  return nullptr;
}

// Whether `ids` name the token `t`: unknown when an id is neither t's nor has a text the files give.
std::optional<bool> names_token(const std::vector<uint64_t>& ids, const SpecialToken& t,
                                const TokenLookup& l) {
  bool decidable = true;
  for (uint64_t id : ids) {
    const std::string* text = l.text_of(id);
    if ((t.id && *t.id == id) || (text && *text == t.content)) return true;
    decidable = decidable && (t.id || text);
  }
  if (!decidable) return std::nullopt;
  return false;
}

// "1 (\"</s>\")", or "[2 (\"<pad>\"), 7 (not in the tokenizer files read)]" for a list.
std::string stated_ids_text(const std::vector<uint64_t>& ids, const TokenLookup& l) {
  std::vector<std::string> parts;
  for (uint64_t id : ids) {
    const std::string* text = l.text_of(id);
    parts.push_back(std::to_string(id) + " (" +
                    (text ? quote_token(*text) : "not in the tokenizer files read") + ")");
  }
  if (parts.size() == 1) return parts.front();
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "[" : ", ") + p;
  return out + "]";
}

}  // namespace

std::vector<StatedIds> read_all_stated_ids(const fs::path& dir, std::vector<std::string>& problems) {
  std::vector<StatedIds> out;
  for (std::string_view file : {kConfigJson, kGenerationConfig}) {
    const fs::path path = dir / std::string(file);
    // A present name is read, and one that cannot be (a FIFO, a broken or looping link) reports itself.
    if (!path_is_present(path)) continue;
    try {
      std::vector<std::string> unread;
      out.push_back(read_stated_ids(path, file, unread));
      problems.insert(problems.end(), unread.begin(), unread.end());
    } catch (const Error& e) {
      problems.push_back(std::string(file) + " could not be read, so its token ids are not compared with " +
                         "the tokenizer's: " + e.message());
    }
  }
  return out;
}

void compare_stated_ids(const std::vector<StatedIds>& stated, const std::vector<SpecialToken>& tokens,
                        const TokenLookup& l, std::vector<std::string>& warnings) {
  for (size_t r = 0; r < kStatedRoles.size(); ++r) {
    const SpecialToken* t = named_token(tokens, kStatedRoles[r]);
    if (!t) continue;
    std::vector<std::pair<std::vector<std::string>, const std::vector<uint64_t>*>> groups;
    for (const StatedIds& s : stated) {
      if (s.ids[r].empty()) continue;
      auto g =
          std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return *x.second == s.ids[r]; });
      if (g == groups.end())
        groups.push_back({{std::string(s.file)}, &s.ids[r]});
      else
        g->first.push_back(std::string(s.file));
    }
    for (const auto& [files, ids] : groups) {
      const std::optional<bool> named = names_token(*ids, *t, l);
      if (!named || *named) continue;
      const std::string role(kStatedRoles[r]);
      warnings.push_back(join_with_and(files) + (files.size() > 1 ? " give " : " gives ") + role +
                         "_token_id " + stated_ids_text(*ids, l) + ", but the tokenizer's " + role +
                         " token is " + quote_token(t->content) +
                         (t->id ? " (id " + std::to_string(*t->id) + ")" : ""));
    }
  }
}

}  // namespace ma
