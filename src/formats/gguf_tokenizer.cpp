#include "formats/gguf_tokenizer.h"

#include <string>
#include <string_view>

namespace ma {
namespace {

// tokenizer.ggml.model -> the `tokenizers` model type the same vocabulary has on the Hub.
std::string model_type_of(std::string_view ggml_model) {
  if (ggml_model == "gpt2" || ggml_model == "llama") return "BPE";  // "llama": SentencePiece BPE
  if (ggml_model == "bert") return "WordPiece";
  if (ggml_model == "t5") return "Unigram";
  return std::string(ggml_model);
}

// Code points of UTF-8 text (continuation bytes not counted), as the chat template's length is reported.
uint64_t code_points(std::string_view s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

// llama.cpp's token types (llama_token_type): 2 unknown, 3 control, 4 user-defined. llama.cpp's converter
// types so exactly the tokens transformers lists in added_tokens_decoder (a SentencePiece model's <unk>, <s>,
// </s>; Llama-3's 256 reserved specials; any other added token), which is what TokenizerInfo::added_tokens
// counts for every format.
constexpr uint64_t kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kByte = 6;

// transformers' tokenizer.vocab_size, the model's own vocabulary: up to its last normal or byte token. The
// added tokens past it (Llama-3's 256 reserved specials from 128,000) extend it; those among it (Llama-2's
// <unk>, <s>, </s> at 0-2) do not. Walked from the end: the tokens past the base are few.
uint64_t base_vocabulary(const GgufFile& g, const GgufKv& types) {
  for (uint64_t i = types.count; i > 0; --i)
    if (const std::optional<uint64_t> type = g.uint_element(types, i - 1); type == kNormal || type == kByte)
      return i;
  return 0;
}

}  // namespace

std::optional<TokenizerInfo> tokenizer_from_gguf(const GgufFile& g) {
  const std::optional<std::string_view> model = g.string_value("tokenizer.ggml.model");
  if (!model) return std::nullopt;
  TokenizerInfo t;
  t.model_type = model_type_of(*model);
  t.tokenizer_class = "llama.cpp " + std::string(*model);
  t.files_read.push_back("GGUF metadata (tokenizer.ggml.*)");
  // Elements are read in place: a 150,000-token vocabulary is counted, never copied.
  const GgufKv* tokens = g.find("tokenizer.ggml.tokens");
  if (tokens && (tokens->type != GgufType::Array || tokens->element_type != GgufType::String))
    tokens = nullptr;
  if (tokens) {
    // Ids are the positions in the token list.
    t.vocab_known = true;
    t.vocab_size = tokens->count;
    if (tokens->count > 0) t.token_ids.push_back({0, tokens->count});
    // Without token types (or with a list of another length) which tokens are added is unknown.
    t.base_vocab_size = t.vocab_size;
    if (const GgufKv* types = g.find("tokenizer.ggml.token_type"); types && types->count == tokens->count) {
      t.added_tokens = g.count_equal(*types, {kUnknown, kControl, kUserDefined});
      t.base_vocab_size = base_vocabulary(g, *types);
    }
  }
  if (const GgufKv* merges = g.find("tokenizer.ggml.merges"); merges && merges->type == GgufType::Array)
    t.merges = merges->count;
  static constexpr std::pair<std::string_view, std::string_view> kSpecial[] = {
      {"bos", "tokenizer.ggml.bos_token_id"},       {"eos", "tokenizer.ggml.eos_token_id"},
      {"unk", "tokenizer.ggml.unknown_token_id"},   {"pad", "tokenizer.ggml.padding_token_id"},
      {"sep", "tokenizer.ggml.seperator_token_id"},  // sic: llama.cpp's key
      {"cls", "tokenizer.ggml.cls_token_id"},       {"mask", "tokenizer.ggml.mask_token_id"},
  };
  std::vector<std::string_view> roles;
  std::vector<uint64_t> ids;
  for (const auto& [role, key] : kSpecial)
    if (const std::optional<uint64_t> id = g.uint_value(key)) {
      roles.push_back(role);
      ids.push_back(*id);
    }
  const std::vector<std::optional<std::string_view>> texts =
      tokens ? g.string_elements(*tokens, ids) : std::vector<std::optional<std::string_view>>(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    t.special_tokens.push_back(
        {std::string(roles[i]), texts[i] ? std::string(*texts[i]) : "#" + std::to_string(ids[i]), ids[i]});
  if (const auto tmpl = g.string_value("tokenizer.chat_template")) {
    t.has_chat_template = true;
    t.chat_template_length = code_points(*tmpl);
    t.chat_template_file = "GGUF metadata (tokenizer.chat_template)";
  }
  // Named templates: tokenizer.chat_template.NAME (tool_use, rag, ...).
  constexpr std::string_view kNamed = "tokenizer.chat_template.";
  for (const GgufKv& kv : g.metadata)
    if (kv.key.size() > kNamed.size() && kv.key.compare(0, kNamed.size(), kNamed) == 0 &&
        kv.type == GgufType::String)
      t.chat_template_names.push_back(kv.key.substr(kNamed.size()));
  if (!t.chat_template_names.empty() && t.has_chat_template)
    t.chat_template_names.insert(t.chat_template_names.begin(), "default");
  return t;
}

}  // namespace ma
