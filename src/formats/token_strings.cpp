#include "formats/token_strings.h"

#include <optional>
#include <utility>

#include "core/error.h"
#include "core/json.h"
#include "formats/tokenizer.h"
#include "io/file_source.h"

namespace ma {
namespace {

using Kind = json::Reader::Kind;

[[noreturn]] void wrong(const std::string& file, const std::string& field, const std::string& rule) {
  throw Error(ErrorKind::Malformed, file, field, rule);
}

uint64_t id_of(json::Reader& r, const std::string& file, const std::string& field) {
  if (r.peek() != Kind::Number) wrong(file, field, "must be a token id (a non-negative integer)");
  const std::optional<uint64_t> id = r.number().as_uint();
  if (!id) wrong(file, field, "must be a token id (a non-negative integer)");
  return *id;
}

void put(std::vector<std::string>& out, uint64_t id, std::string_view text) {
  if (id < out.size()) out[id] = std::string(text);
}

void read_vocab(json::Reader& r, const std::string& file, std::vector<std::string>& out) {
  uint64_t n = 0;
  const auto count = [&] {
    if (++n > kTokenizerMaxEntries)
      throw Error(ErrorKind::Limit, file, "model.vocab", "more than 2^24 entries (cap)");
  };
  if (r.peek() == Kind::Object) {
    r.begin_object();
    std::string_view key;
    while (r.next_member(key)) {
      count();
      const std::string piece(key);  // the key's view ends at the next string read
      put(out, id_of(r, file, "model.vocab['" + piece + "']"), piece);
    }
  } else if (r.peek() == Kind::Array) {
    r.begin_array();
    for (uint64_t id = 0; r.next_item(); ++id) {
      count();
      if (r.peek() != Kind::Array)
        wrong(file, "model.vocab[" + std::to_string(id) + "]", "must be [piece, score]");
      r.begin_array();
      if (!r.next_item() || r.peek() != Kind::String)
        wrong(file, "model.vocab[" + std::to_string(id) + "]", "must be [piece, score]");
      put(out, id, r.string());
      while (r.next_item()) r.skip();
    }
  } else {
    r.skip();
  }
}

// added_tokens, applied after model.vocab whatever their order in the file: the library's added token
// wins for its id.
void read_added(json::Reader& r, const std::string& file,
                std::vector<std::pair<uint64_t, std::string>>& added) {
  if (r.peek() != Kind::Array) {
    r.skip();
    return;
  }
  r.begin_array();
  for (uint64_t i = 0; r.next_item(); ++i) {
    if (i >= kTokenizerMaxEntries)
      throw Error(ErrorKind::Limit, file, "added_tokens", "more than 2^24 entries (cap)");
    if (r.peek() != Kind::Object) wrong(file, "added_tokens[" + std::to_string(i) + "]", "must be an object");
    r.begin_object();
    std::string_view key;
    std::optional<uint64_t> id;
    std::string content;
    while (r.next_member(key)) {
      if (key == "id") {
        id = id_of(r, file, "added_tokens[" + std::to_string(i) + "].id");
      } else if (key == "content" && r.peek() == Kind::String) {
        content = std::string(r.string());
      } else {
        r.skip();
      }
    }
    if (id) added.emplace_back(*id, std::move(content));
  }
}

}  // namespace

std::vector<std::string> read_token_strings(const std::filesystem::path& path, uint64_t ids) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {};
  const std::string text = read_small_file(path, kTokenizerJsonCap);
  const std::string file = path.string();
  std::vector<std::string> out(ids);
  json::Limits limits;
  limits.max_bytes = kTokenizerJsonCap;
  json::Reader r(text, file, limits);
  if (r.peek() != Kind::Object) wrong(file, "", "must be a JSON object");
  r.begin_object();
  std::string_view key;
  std::vector<std::pair<uint64_t, std::string>> added;
  while (r.next_member(key)) {
    if (key == "model" && r.peek() == Kind::Object) {
      r.begin_object();
      while (r.next_member(key)) {
        if (key == "vocab")
          read_vocab(r, file, out);
        else
          r.skip();
      }
    } else if (key == "added_tokens") {
      read_added(r, file, added);
    } else {
      r.skip();
    }
  }
  r.finish();
  for (const auto& [id, content] : added) put(out, id, content);
  return out;
}

}  // namespace ma
