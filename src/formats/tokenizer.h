// What a model's tokenizer files say: tokenizer.json (the `tokenizers` library's format),
// tokenizer_config.json, special_tokens_map.json and a chat template beside them (chat_template.jinja /
// chat_template.json). Summarised without building the vocabulary: a 10 MB tokenizer.json is read with the
// pull JSON reader, its vocabulary and merges are only counted, values it does not need are skipped. The ids
// config.json and generation_config.json give generate() (bos/eos/pad_token_id) are read beside them, only
// to be compared with the tokenizer's own special tokens.
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
  std::string content;  // e.g. "<|begin_of_text|>"; "" when a file sets the role to an empty string
  // The id transformers resolves the token to: tokenizer.json's model.vocab, then its added_tokens, then
  // tokenizer_config.json's added_tokens_decoder (GGUF: the tokenizer.ggml.*_token_id key). nullopt when no
  // file read names the token.
  std::optional<uint64_t> id;
};

// Token ids [first, end): the vocabulary's ids, as sorted disjoint runs (one run for a vocabulary numbered
// 0..n-1).
struct TokenIdRange {
  uint64_t first = 0, end = 0;
};

// The vocabulary is split in one way for every format: `added_tokens` counts the distinct ids the tokenizer
// registers as added or special tokens, whether they sit inside the model's own vocabulary (Llama-2's <s>,
// BERT's [CLS]) or extend it (Llama-3's 256 reserved tokens); transformers'
// len(tokenizer.added_tokens_decoder) is the reference. From tokenizer.json's added_tokens and
// tokenizer_config.json's added_tokens_decoder; from GGUF, the tokens typed unknown, control or user-defined,
// which are the ones llama.cpp's converter takes from transformers' added tokens. base_vocab_size is
// transformers' tokenizer.vocab_size, the model's own vocabulary (tokenizer.json's model.vocab; in GGUF, up
// to the last normal or byte token): vocab_size - base_vocab_size added tokens extend it, the others sit
// inside it.
struct TokenizerInfo {
  std::string tokenizer_class;  // tokenizer_config.json "tokenizer_class", e.g. "PreTrainedTokenizerFast"
  std::string model_type;       // tokenizer.json model.type: BPE, WordPiece, Unigram, WordLevel
  // True when tokenizer.json has a model.vocab (or a GGUF its token list): only then are vocab_size and
  // base_vocab_size known (both stay 0 otherwise).
  bool vocab_known = false;
  uint64_t vocab_size = 0;       // distinct token ids (transformers' len(tokenizer))
  uint64_t base_vocab_size = 0;  // transformers' tokenizer.vocab_size (see above)
  // nullopt when no file lists added tokens (a tokenizer_config.json without added_tokens_decoder and no
  // tokenizer.json: they live in tokenizer.model or added_tokens.json, which are not read).
  std::optional<uint64_t> added_tokens;
  // The ids the files name: the whole vocabulary when vocab_known, else the added tokens alone (a
  // tokenizer_config.json's added_tokens_decoder). What the model's embedding rows are compared with: by id,
  // not by count, since an added token's id can lie past a gap.
  std::vector<TokenIdRange> token_ids;
  std::optional<uint64_t> merges;  // BPE: entries in model.merges
  // Named roles first (bos, eos, unk, pad, sep, cls, mask), then additional / extra tokens in file order.
  std::vector<SpecialToken> special_tokens;
  bool has_chat_template = false;     // tokenizer_config.json chat_template, chat_template.jinja or .json
  uint64_t chat_template_length = 0;  // characters (code points) of the default template
  std::string chat_template_file;     // which file the template came from
  std::vector<std::string> chat_template_names;  // names when the template is a list of {name, template}
  std::optional<uint64_t> model_max_length;      // absent when unset or a "no limit" sentinel (int(1e30))
  // Which of the files were read (special_tokens_map.json only where transformers reads it: beside a
  // tokenizer_config.json without added_tokens_decoder, or alone).
  std::vector<std::string> files_read;
  // What is wrong with the files, one sentence each: empty special tokens; bos/eos/pad ids in config.json or
  // generation_config.json that name another token than the tokenizer's; a generation config that could not
  // be read for that comparison.
  std::vector<std::string> warnings;
};

// Reads the tokenizer files of a model directory. nullopt when none is present. Throws Error(Malformed)
// for a malformed file or a field of the wrong type (naming the file and field), Error(Limit) for files over
// their caps. Only the fixed file names above are opened; nothing named inside the files is. config.json and
// generation_config.json are read only for their token ids: a problem with them is a warning, not an error
// (transformers too loads a model whose generation config it cannot read).
std::optional<TokenizerInfo> read_tokenizer(const std::filesystem::path& dir);

// How many ids `info.token_ids` holds, and how many of them are `n` or more (at or beyond n embedding rows).
uint64_t token_id_count(const TokenizerInfo& info);
uint64_t token_ids_from(const TokenizerInfo& info, uint64_t n);

}  // namespace ma
