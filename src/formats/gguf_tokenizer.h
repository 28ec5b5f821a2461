// The tokenizer a GGUF file carries in its metadata (tokenizer.ggml.*: model, tokens, token types, merges,
// special token ids; tokenizer.chat_template), summarised like tokenizer.json is (formats/tokenizer.h).
#pragma once
#include <optional>

#include "formats/gguf.h"
#include "formats/tokenizer.h"

namespace ma {

// nullopt when the file has no tokenizer.ggml.model.
std::optional<TokenizerInfo> tokenizer_from_gguf(const GgufFile& g);

}  // namespace ma
