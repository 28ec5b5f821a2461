// The text of each token id, from a model's tokenizer.json (the `tokenizers` format): model.vocab as
// {"piece": id} (BPE, WordPiece, WordLevel) or [["piece", score], ...] (Unigram, the index is the id), and
// added_tokens [{"id", "content"}]. What `embeddings` shows beside a row of the embedding matrix; the summary
// of formats/tokenizer.h never builds this table.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ma {

// Strings for ids [0, ids); an id the file does not name stays empty. An empty vector when the file is
// absent. Throws Error(Malformed) naming the file and field for a wrong type, Error(Limit) past the caps
// (the file size of formats/tokenizer.cpp, 2^24 entries).
std::vector<std::string> read_token_strings(const std::filesystem::path& tokenizer_json, uint64_t ids);

}  // namespace ma
