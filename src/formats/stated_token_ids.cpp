#include "formats/stated_token_ids.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/error.h"
#include "core/json.h"
#include "core/text.h"
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

// An id, or a list of them (eos_token_id in newer configs); null, -1 ("none" in older configs) and other
// values state nothing.
std::vector<uint64_t> read_ids(json::Reader& r) {
  std::vector<uint64_t> out;
  const json::Reader::Kind kind = r.peek();
  if (kind == json::Reader::Kind::Number) {
    if (auto id = token_id(r.number().as_uint())) out.push_back(*id);
  } else if (kind == json::Reader::Kind::Array) {
    r.begin_array();
    while (r.next_item())
      if (r.peek() == json::Reader::Kind::Number) {
        if (auto id = token_id(r.number().as_uint())) out.push_back(*id);
      } else {
        r.skip();
      }
  } else {
    r.skip();
  }
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
// the last of duplicate keys wins.
Ids read_role_ids(json::Reader& r) {
  Ids ids;
  r.begin_object();
  std::string_view key;
  while (r.next_member(key)) {
    const size_t role = role_of_key(key);
    if (role < kStatedRoles.size())
      ids[role] = read_ids(r);
    else
      r.skip();
  }
  return ids;
}

// The top-level <role>_token_id keys, else text_config's (a multimodal model's language model states them
// there).
StatedIds read_stated_ids(const fs::path& path, std::string_view file) {
  const uint64_t cap = file == kConfigJson ? kConfigJsonCap : kGenerationConfigCap;
  json::Limits limits;
  limits.max_bytes = cap;
  limits.allow_nonfinite = true;
  const std::string text = read_small_file(path, cap);
  const std::string name = path.string();  // the reader keeps a view of it for its errors: it must outlive r
  json::Reader r(text, name, limits);
  if (r.peek() != json::Reader::Kind::Object)
    throw Error(ErrorKind::Malformed, name, "", "is not a JSON object");
  r.begin_object();
  StatedIds out{file, {}};
  Ids text_config;
  std::string_view key;
  while (r.next_member(key)) {
    if (key == "text_config") {
      // The last text_config is the one read: one that is no object states nothing.
      text_config = r.peek() == json::Reader::Kind::Object ? read_role_ids(r) : (r.skip(), Ids{});
      continue;
    }
    const size_t role = role_of_key(key);
    if (role < kStatedRoles.size())
      out.ids[role] = read_ids(r);
    else
      r.skip();
  }
  r.finish();
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
      out.push_back(read_stated_ids(path, file));
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
