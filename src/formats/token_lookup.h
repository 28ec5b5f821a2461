// Looking tokens up while a tokenizer's files are read once: what an id is, which texts and ids the report
// wants (the special tokens' texts, the ids config files state), and what each source says of them, consulted
// in transformers' order.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace ma {

// A token id: a non-negative integer the library's 32-bit ids can hold.
inline std::optional<uint64_t> token_id(std::optional<uint64_t> v) {
  return v && *v <= std::numeric_limits<uint32_t>::max() ? v : std::nullopt;
}

// What the report needs from the vocabulary, noted while each file is read once: the ids of the special
// tokens' texts, and the texts of the ids config.json and generation_config.json state. The views point at
// the special tokens' contents, which outlive the reads.
class TokenWants {
 public:
  void add_text(std::string_view text) {
    texts_.insert(text);
    first_bytes_[first_byte(text)] = true;
  }
  void add_id(uint64_t id) { ids_.insert(id); }
  // The wanted text equal to `text`, or nullptr. Most pieces of a vocabulary are ruled out by their first
  // byte (special tokens start with '<', '[' or '|'), before a hash of the piece is computed.
  const std::string_view* match(std::string_view text) const {
    if (!first_bytes_[first_byte(text)]) return nullptr;
    auto it = texts_.find(text);
    return it == texts_.end() ? nullptr : &*it;
  }
  bool has_id(uint64_t id) const { return !ids_.empty() && ids_.count(id) != 0; }

 private:
  static size_t first_byte(std::string_view s) { return s.empty() ? 256 : static_cast<unsigned char>(s[0]); }
  std::unordered_set<std::string_view> texts_;
  std::unordered_set<uint64_t> ids_;
  std::array<bool, 257> first_bytes_{};  // [256]: the empty text
};

// What one source (model.vocab, added_tokens, added_tokens_decoder) says of the wanted tokens.
struct TokenHits {
  std::unordered_map<std::string_view, uint64_t> id_of;  // keyed by TokenWants' views
  std::unordered_map<uint64_t, std::string> text_of;

  // The library reads model.vocab into a map, where a piece named twice keeps its last id (`later_wins`);
  // it adds added tokens one by one, and a text added again keeps the id it has.
  void note(const TokenWants& w, std::string_view text, uint64_t id, bool later_wins) {
    if (const std::string_view* wanted = w.match(text)) {
      if (later_wins)
        id_of.insert_or_assign(*wanted, id);
      else
        id_of.emplace(*wanted, id);
    }
    if (w.has_id(id)) {
      if (later_wins)
        text_of.insert_or_assign(id, std::string(text));
      else
        text_of.emplace(id, std::string(text));
    }
  }
};

// The sources in the order transformers consults them. A text's id: model.vocab first (the library gives an
// added token that the vocabulary holds the vocabulary's id, whatever id the file wrote beside it), then
// tokenizer.json's added_tokens, then tokenizer_config.json's added_tokens_decoder. An id's text: the added
// tokens first, as the library's id_to_token looks there first.
struct TokenLookup {
  TokenHits vocab, added, decoder;

  std::optional<uint64_t> id_of(std::string_view text) const {
    for (const TokenHits* f : {&vocab, &added, &decoder})
      if (auto it = f->id_of.find(text); it != f->id_of.end()) return it->second;
    return std::nullopt;
  }
  const std::string* text_of(uint64_t id) const {
    for (const TokenHits* f : {&added, &vocab, &decoder})
      if (auto it = f->text_of.find(id); it != f->text_of.end()) return &it->second;
    return nullptr;
  }
};

}  // namespace ma
