#include "formats/stated_token_ids.h"

#include <algorithm>
#include <optional>
#include <system_error>
#include <utility>

#include "core/error.h"
#include "core/json.h"
#include "core/text.h"
#include "io/file_source.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kConfigJson = "config.json";
constexpr std::string_view kGenerationConfig = "generation_config.json";
// Both are kilobytes; a cap keeps a hostile one from holding the run.
constexpr uint64_t kStatedIdsFileCap = 64ull << 20;

// An id, or a list of them (eos_token_id in newer configs); null, -1 ("none" in older configs) and other
// values state nothing.
std::vector<uint64_t> ids_in(const json::Value* v) {
  std::vector<uint64_t> out;
  if (!v) return out;
  if (!v->is_array()) {
    if (auto id = token_id(v->as_uint())) out.push_back(*id);
    return out;
  }
  for (const json::Value& item : v->items())
    if (auto id = token_id(item.as_uint())) out.push_back(*id);
  return out;
}

// The top-level <role>_token_id keys, else text_config's (a multimodal model's language model states them
// there).
StatedIds read_stated_ids(const fs::path& path, std::string_view file) {
  json::Limits limits;
  limits.max_bytes = kStatedIdsFileCap;
  limits.allow_nonfinite = true;
  const json::Document d =
      json::Document::parse(read_small_file(path, kStatedIdsFileCap), path.string(), limits);
  if (!d.root().is_object()) throw Error(ErrorKind::Malformed, path.string(), "", "is not a JSON object");
  const json::Value* text_config = d.root().find("text_config");
  StatedIds out{file, {}};
  for (size_t i = 0; i < kStatedRoles.size(); ++i) {
    const std::string key = std::string(kStatedRoles[i]) + "_token_id";
    out.ids[i] = ids_in(d.root().find(key));
    if (out.ids[i].empty() && text_config) out.ids[i] = ids_in(text_config->find(key));
  }
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
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;  // a present non-regular file is read, and reports itself
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
