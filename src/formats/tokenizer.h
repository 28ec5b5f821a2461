// What a model's tokenizer files say: tokenizer.json (the `tokenizers` library's format),
// tokenizer_config.json, special_tokens_map.json and a chat template beside them (chat_template.jinja /
// chat_template.json). Summarised without building the vocabulary: a 10 MB tokenizer.json is read with the
// pull JSON reader, its vocabulary and merges are only counted, values it does not need are skipped.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ma {

// Caps on a tokenizer.json (row J2 of the reliability catalogue), for every reader of it. The largest real
// files are ~35 MB (Gemma's 262k vocabulary); real vocabularies stay under 300k entries, and 16M is far
// beyond any and bounds the added-token id list.
inline constexpr uint64_t kTokenizerJsonCap = 256ull << 20;
inline constexpr uint64_t kTokenizerMaxEntries = 1ull << 24;

struct SpecialToken {
  std::string role;  // bos, eos, unk, pad, sep, cls, mask, "additional", or an extra token's name ("image")
  std::string content;  // e.g. "<|begin_of_text|>"
};

struct TokenizerInfo {
  std::string tokenizer_class;  // tokenizer_config.json "tokenizer_class", e.g. "PreTrainedTokenizerFast"
  std::string model_type;       // tokenizer.json model.type: BPE, WordPiece, Unigram, WordLevel
  // True when tokenizer.json has a model.vocab: only then are base_vocab_size, added_tokens and vocab_size
  // known (all three stay 0 otherwise).
  bool vocab_known = false;
  uint64_t base_vocab_size = 0;  // entries in model.vocab
  uint64_t added_tokens = 0;  // distinct ids of tokenizer.json added_tokens at or beyond the base vocabulary
  uint64_t vocab_size = 0;    // base + added
  std::optional<uint64_t> merges;  // BPE: entries in model.merges
  // Named roles first (bos, eos, unk, pad, sep, cls, mask), then additional / extra tokens in file order.
  std::vector<SpecialToken> special_tokens;
  bool has_chat_template = false;     // tokenizer_config.json chat_template, chat_template.jinja or .json
  uint64_t chat_template_length = 0;  // characters (code points) of the default template
  std::string chat_template_file;     // which file the template came from
  std::vector<std::string> chat_template_names;  // names when the template is a list of {name, template}
  std::optional<uint64_t> model_max_length;      // absent when unset or a "no limit" sentinel (int(1e30))
  std::vector<std::string> files_read;           // which of the files were present
};

// Reads the tokenizer files of a model directory. nullopt when none is present. Throws Error(Malformed)
// for a malformed file or a field of the wrong type (naming the file and field), Error(Limit) for files over
// their caps. Only the fixed file names above are opened; nothing named inside the files is.
std::optional<TokenizerInfo> read_tokenizer(const std::filesystem::path& dir);

}  // namespace ma
