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

// llama.cpp's token types (llama_token_type): 3 control, 4 user-defined: the tokens added to the base
// vocabulary (Llama-3's 256 reserved specials).
constexpr uint64_t kControl = 3, kUserDefined = 4;

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
    t.vocab_known = true;
    t.vocab_size = tokens->count;
    uint64_t added = 0;
    if (const GgufKv* types = g.find("tokenizer.ggml.token_type"); types && types->count == tokens->count)
      added = g.count_equal(*types, {kControl, kUserDefined});
    t.added_tokens = added;
    t.base_vocab_size = t.vocab_size - added;
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
        {std::string(roles[i]), texts[i] ? std::string(*texts[i]) : "#" + std::to_string(ids[i])});
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
