// read_tokenizer on the real tiny-llama fixture and real tokenizer_config.json files, on small tokenizer.json
// files of each model kind written here, and on bad inputs; the tokenizer section's three renderers.
#include "formats/tokenizer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "analysis/model_report.h"
#include "core/error.h"
#include "report/markdown_writer.h"
#include "report/section_renderers.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_file;

using test::contains;

// Runs read_tokenizer on `dir`, expecting an Error of `kind` whose message holds every needle.
void expect_error(const fs::path& dir, ErrorKind kind, std::initializer_list<std::string> needles) {
  try {
    read_tokenizer(dir);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const auto& n : needles)
      EXPECT_TRUE(contains(e.what(), n)) << "missing '" << n << "' in: " << e.what();
  }
}

// One file in a fresh directory, then the same expectation.
void expect_file_error(const std::string& file, const std::string& text, ErrorKind kind,
                       std::initializer_list<std::string> needles) {
  TempDir dir;
  write_file(dir / file, text);
  SCOPED_TRACE(file + ": " + text.substr(0, 80));
  expect_error(dir.path(), kind, needles);
}

TokenizerInfo read_config_only(const std::string& tokenizer_config) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json", tokenizer_config);
  auto info = read_tokenizer(dir.path());
  EXPECT_TRUE(info.has_value());
  return info.value_or(TokenizerInfo{});
}

std::optional<fs::path> hf_config(const std::string& model) {
  auto data = test::shared_data();
  if (!data) return std::nullopt;
  fs::path p = *data / "hf-configs" / model;
  if (!fs::exists(p / "tokenizer_config.json")) return std::nullopt;
  return p;
}

TEST(Tokenizer, NoFilesIsNullopt) {
  TempDir dir;
  write_file(dir / "config.json", "{}");
  EXPECT_FALSE(read_tokenizer(dir.path()).has_value());
}

// Expected values read from the fixture's files with python3:
//   d = json.load(open("tokenizer.json")); m = d["model"]
//   m["type"] -> "BPE", len(m["vocab"]) -> 300 (ids 0..299), len(m["merges"]) -> 41,
//   added_tokens ids {0, 1, 2} ("<s>", "</s>", "<pad>"): all inside the vocabulary, so 300 ids, the base
//   vocabulary (transformers' tokenizer.vocab_size) 300, of which 3 are added tokens
//   (len(added_tokens_decoder)); tokenizer_config.json: tokenizer_class "TokenizersBackend", model_max_length
//   256, bos "<s>", eos "</s>", pad "<pad>"; len(open("chat_template.jinja").read()) -> 77.
TEST(Tokenizer, TinyLlamaFixture) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  auto info = read_tokenizer(*data / "fixtures" / "tiny-llama");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->model_type, "BPE");
  EXPECT_EQ(info->tokenizer_class, "TokenizersBackend");
  EXPECT_TRUE(info->vocab_known);
  EXPECT_EQ(info->base_vocab_size, 300u);
  EXPECT_EQ(info->added_tokens, 3u);
  EXPECT_EQ(info->vocab_size, 300u);
  EXPECT_EQ(info->merges, 41u);
  EXPECT_EQ(info->model_max_length, 256u);
  ASSERT_EQ(info->special_tokens.size(), 3u);
  EXPECT_EQ(info->special_tokens[0].role, "bos");
  EXPECT_EQ(info->special_tokens[0].content, "<s>");
  EXPECT_EQ(info->special_tokens[1].role, "eos");
  EXPECT_EQ(info->special_tokens[1].content, "</s>");
  EXPECT_EQ(info->special_tokens[2].role, "pad");
  EXPECT_EQ(info->special_tokens[2].content, "<pad>");
  EXPECT_TRUE(info->has_chat_template);
  EXPECT_EQ(info->chat_template_length, 77u);
  EXPECT_EQ(info->chat_template_file, "chat_template.jinja");
  EXPECT_EQ(info->files_read,
            (std::vector<std::string>{"tokenizer.json", "tokenizer_config.json", "chat_template.jinja"}));
}

// Six vocabulary entries (ids 0-5, the base vocabulary); added tokens 0 and 4 are inside it, 6 (listed twice)
// and 7 beyond: 8 ids, of which 4 distinct ones are added tokens (inside the vocabulary or not).
TEST(Tokenizer, WordPieceCountsDistinctAddedIdsInsideAndBeyondTheVocabulary) {
  TempDir dir;
  write_file(dir / "tokenizer.json", R"({
    "version": "1.0", "truncation": null, "padding": null,
    "added_tokens": [
      {"id": 0, "content": "[PAD]", "special": true},
      {"id": 4, "content": "[MASK]", "special": true},
      {"id": 6, "content": "[NEW]", "special": true},
      {"id": 6, "content": "[NEW]", "special": true},
      {"id": 7, "content": "[NEW2]", "special": false}],
    "normalizer": {"type": "BertNormalizer", "lowercase": true},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100,
              "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5}}})");
  auto info = read_tokenizer(dir.path());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->model_type, "WordPiece");
  EXPECT_EQ(info->base_vocab_size, 6u);
  EXPECT_EQ(info->added_tokens, 4u);
  EXPECT_EQ(info->vocab_size, 8u);
  EXPECT_FALSE(info->merges.has_value());
  EXPECT_TRUE(info->tokenizer_class.empty());
  EXPECT_FALSE(info->model_max_length.has_value());
  EXPECT_FALSE(info->has_chat_template);
  EXPECT_EQ(info->files_read, std::vector<std::string>{"tokenizer.json"});
}

TEST(Tokenizer, APieceNamedTwiceInTheVocabularyIsOneEntry) {
  // The library reads model.vocab into a map: "a" twice (once spelled with an escape) is one piece, as the
  // library's vocabulary size says.
  TempDir dir;
  write_file(dir / "tokenizer.json", R"({"model": {"type": "BPE", "merges": [],
    "vocab": {"a": 0, "b": 1, "a": 2, "\u0061": 3, "c\n": 4, "c\u000a": 5}}})");
  auto info = read_tokenizer(dir.path());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->base_vocab_size, 3u);
}

// A list of 200,000 additional special tokens, each twice (a 4 MB tokenizer_config.json): listed once each,
// at the speed of the parse. Searching the kept list for each one took minutes: a repository could stall us.
TEST(Tokenizer, AHugeListOfSpecialTokensIsListedOnceInLinearTime) {
  TempDir dir;
  std::string list;
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 100'000; ++i)
      list += std::string(list.empty() ? "" : ",") + "\"<t" + std::to_string(i) + ">\"";
  write_file(dir / "tokenizer_config.json",
             "{\"eos_token\": \"<t7>\", \"additional_special_tokens\": [" + list + "]}");
  const auto start = std::chrono::steady_clock::now();
  auto info = read_tokenizer(dir.path());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->special_tokens.size(), 100'000u);  // <t7> once, as the eos
  EXPECT_LT(seconds, 5.0);                           // quadratic, it took 34 s for 200,000 on the 2-core VM
}

// Five [piece, score] entries (ids 0-4) plus added ids 5 and 7: 7 ids, 2 of them added tokens. The config has
// no added_tokens_decoder, so transformers takes its legacy branch and reads special_tokens_map.json: the map
// overrides the config's eos, a null there removes unk, and its additional tokens are appended to the
// config's list ("<old_extra>" stays), each once.
TEST(Tokenizer, UnigramWithSpecialTokensMap) {
  TempDir dir;
  write_file(dir / "tokenizer.json",
             R"({"added_tokens": [{"id": 5, "content": "<x>"}, {"id": 7, "content": "<y>"}],
    "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": false,
              "vocab": [["<unk>", 0.0], ["\u2581a", -1.5], ["\u2581b", -2.25], ["c", -3e1], ["d", -4]]}})");
  write_file(dir / "tokenizer_config.json", R"({"tokenizer_class": "T5Tokenizer", "model_max_length": 512,
    "eos_token": "</old>", "unk_token": {"content": "<unk>", "lstrip": false, "__type": "AddedToken"},
    "additional_special_tokens": ["<old_extra>"]})");
  write_file(dir / "special_tokens_map.json", R"({"eos_token": {"content": "</s>", "special": true},
    "unk_token": null, "additional_special_tokens": ["<x>", {"content": "</s>"}, "<y>"]})");
  auto info = read_tokenizer(dir.path());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->model_type, "Unigram");
  EXPECT_EQ(info->base_vocab_size, 5u);
  EXPECT_EQ(info->added_tokens, 2u);
  EXPECT_EQ(info->vocab_size, 7u);
  EXPECT_EQ(info->tokenizer_class, "T5Tokenizer");
  EXPECT_EQ(info->model_max_length, 512u);
  // eos from the map; unk removed by the map's null; the config's additional token first, then the map's;
  // "</s>" in the additional list is listed once.
  ASSERT_EQ(info->special_tokens.size(), 4u);
  EXPECT_EQ(info->special_tokens[0].role, "eos");
  EXPECT_EQ(info->special_tokens[0].content, "</s>");
  EXPECT_FALSE(info->special_tokens[0].id.has_value()) << "no file read names </s>";
  EXPECT_EQ(info->special_tokens[1].role, "additional");
  EXPECT_EQ(info->special_tokens[1].content, "<old_extra>");
  EXPECT_EQ(info->special_tokens[2].content, "<x>");
  EXPECT_EQ(info->special_tokens[2].id, 5u);
  EXPECT_EQ(info->special_tokens[3].content, "<y>");
  EXPECT_EQ(info->special_tokens[3].id, 7u);
  EXPECT_EQ(info->files_read,
            (std::vector<std::string>{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}));
}

// Early `tokenizers` files have no model.type: the kind follows from the fields, as the library infers it.
TEST(Tokenizer, ModelTypeInferredWithoutTypeField) {
  struct Case {
    const char* model;
    const char* type;
  };
  for (const Case& c : {Case{R"({"vocab": {"a": 0, "b": 1}, "merges": ["a b"]})", "BPE"},
                        Case{R"({"vocab": [["a", 0.0]], "unk_id": 0})", "Unigram"},
                        Case{R"({"vocab": {"a": 0}, "max_input_chars_per_word": 100})", "WordPiece"}}) {
    TempDir dir;
    write_file(dir / "tokenizer.json", std::string(R"({"model": )") + c.model + "}");
    auto info = read_tokenizer(dir.path());
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->model_type, c.type) << c.model;
  }
}

TEST(Tokenizer, ModelMaxLengthSentinelsAreUnset) {
  // int(1e30) as transformers writes it, sys.maxsize, the float literal, Infinity and null: no limit.
  for (const char* v :
       {"1000000000000000019884624838656", "9223372036854775807", "1e30", "Infinity", "null"}) {
    SCOPED_TRACE(v);
    EXPECT_FALSE(
        read_config_only(std::string(R"({"model_max_length": )") + v + "}").model_max_length.has_value());
  }
  EXPECT_EQ(read_config_only(R"({"model_max_length": 2048})").model_max_length, 2048u);
  EXPECT_EQ(read_config_only(R"({"model_max_length": 2048.0})").model_max_length, 2048u);
  EXPECT_EQ(read_config_only(R"({"model_max_length": 131072})").model_max_length, 131072u);
}

TEST(Tokenizer, ChatTemplateAsList) {
  // "default" is the one transformers applies: its length is reported, whatever its position.
  TokenizerInfo info = read_config_only(R"({"chat_template": [
      {"name": "tool_use", "template": "0123456789"}, {"name": "default", "template": "\u00e9t\u00e9"}]})");
  EXPECT_TRUE(info.has_chat_template);
  EXPECT_EQ(info.chat_template_length, 3u) << "code points, not the 5 bytes of UTF-8";
  EXPECT_EQ(info.chat_template_names, (std::vector<std::string>{"tool_use", "default"}));
  EXPECT_EQ(info.chat_template_file, "tokenizer_config.json");
  // Without a "default", the first.
  info = read_config_only(
      R"({"chat_template": [{"name": "a", "template": "xy"}, {"name": "b", "template": "z"}]})");
  EXPECT_EQ(info.chat_template_length, 2u);
  // An empty list is no template.
  EXPECT_FALSE(read_config_only(R"({"chat_template": []})").has_chat_template);
}

// Read with python3 from the file: [(t["name"], len(t["template"])) for t in c["chat_template"]] ->
// [("default", 1204), ("tool_use", 3911), ("rag", 3695)]; model_max_length 1000000000000000019884624838656
// (the sentinel); tokenizer_class "CohereTokenizer"; bos "<BOS_TOKEN>", eos "<|END_OF_TURN_TOKEN|>", pad
// "<PAD>", unk null.
TEST(Tokenizer, RealCohereConfigWithTemplateList) {
  auto dir = hf_config("CohereForAI__c4ai-command-r-v01");
  if (!dir) GTEST_SKIP() << "no ../shared/data";
  auto info = read_tokenizer(*dir);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->tokenizer_class, "CohereTokenizer");
  EXPECT_FALSE(info->vocab_known);
  EXPECT_FALSE(info->model_max_length.has_value());
  EXPECT_EQ(info->chat_template_length, 1204u);
  EXPECT_EQ(info->chat_template_names, (std::vector<std::string>{"default", "tool_use", "rag"}));
  ASSERT_EQ(info->special_tokens.size(), 3u);
  EXPECT_EQ(info->special_tokens[0].content, "<BOS_TOKEN>");
  EXPECT_EQ(info->special_tokens[1].content, "<|END_OF_TURN_TOKEN|>");
  EXPECT_EQ(info->special_tokens[2].role, "pad");
}

// "role content" of each special token, in order.
std::vector<std::string> role_lines(const TokenizerInfo& info) {
  std::vector<std::string> out;
  for (const SpecialToken& t : info.special_tokens) out.push_back(t.role + " " + t.content);
  return out;
}

// Gemma 4's tokenizer_config.json (written by transformers 5) names 18 roles of its own at the top level,
// each a "<role>_token" key holding the token; read with python3: [(k[:-6], v) for k, v in c.items() if
// k.endswith("_token") and isinstance(v, str) and k[:-6] not in standard] -> audio "<|audio|>", boa
// "<|audio>", boi "<|image>", ... think "<|think|>"; plus bos, eos, unk, pad, mask and extra_special_tokens
// ["<|video|>"]: 24 special tokens, the model's own listed by their role.
TEST(Tokenizer, RealGemma4ConfigNamesItsOwnRoles) {
  auto dir = hf_config("google__gemma-4-31B-it");
  if (!dir) GTEST_SKIP() << "no ../shared/data";
  auto info = read_tokenizer(*dir);
  ASSERT_TRUE(info.has_value());
  const std::vector<std::string> got = role_lines(*info);
  ASSERT_EQ(got.size(), 24u);
  EXPECT_EQ(got[4], "mask <mask>");
  EXPECT_EQ(got[5], "audio <|audio|>");
  EXPECT_EQ(got[12], "escape <|\"|>");
  EXPECT_EQ(got[22], "think <|think|>");
  EXPECT_EQ(got[23], "additional <|video|>");
}

// A role of the model's own named twice (top level and extra_special_tokens, as Gemma 3 saves them) is
// listed once; special_tokens_map.json (read: no added_tokens_decoder) overrides it like any role; flags
// ending in "_token" (add_bos_token) are not tokens.
TEST(Tokenizer, ModelSpecificRolesAreListedOnceAndOverridable) {
  test::TempDir dir;
  write_file(dir / "tokenizer_config.json", R"({"bos_token": "<bos>", "add_bos_token": true,
    "boi_token": "<start_of_image>", "image_token": "<image_soft_token>",
    "extra_special_tokens": {"image_token": "<image_soft_token>"}})");
  write_file(dir / "special_tokens_map.json", R"({"boi_token": "<boi>"})");
  auto info = read_tokenizer(dir.path());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(role_lines(*info),
            (std::vector<std::string>{"bos <bos>", "boi <boi>", "image <image_soft_token>"}));
}

// Read with python3: len(c["chat_template"]) -> 4168, model_max_length 131072, tokenizer_class
// "Qwen2Tokenizer", bos null, eos "<|im_end|>", pad "<|endoftext|>", 13 additional_special_tokens of which
// "<|im_end|>" repeats the eos: 2 + 12 = 14 special tokens.
TEST(Tokenizer, RealQwen3Config) {
  auto dir = hf_config("Qwen__Qwen3-30B-A3B");
  if (!dir) GTEST_SKIP() << "no ../shared/data";
  auto info = read_tokenizer(*dir);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->tokenizer_class, "Qwen2Tokenizer");
  EXPECT_EQ(info->model_max_length, 131072u);
  EXPECT_EQ(info->chat_template_length, 4168u);
  ASSERT_EQ(info->special_tokens.size(), 14u);
  EXPECT_EQ(info->special_tokens[0].role, "eos");
  EXPECT_EQ(info->special_tokens[0].content, "<|im_end|>");
  EXPECT_EQ(info->special_tokens[1].role, "pad");
  EXPECT_EQ(info->special_tokens[2].content, "<|im_start|>");
}

// Every tokenizer_config.json in hf-configs reads without error (types as real files write them).
TEST(Tokenizer, EveryRealTokenizerConfigReads) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  int n = 0;
  for (const auto& e : fs::directory_iterator(*data / "hf-configs")) {
    if (!fs::exists(e.path() / "tokenizer_config.json")) continue;
    SCOPED_TRACE(e.path().filename().string());
    EXPECT_NO_THROW({
      auto info = read_tokenizer(e.path());
      EXPECT_TRUE(info.has_value());
    });
    ++n;
  }
  EXPECT_GT(n, 50);
}

TEST(Tokenizer, ChatTemplateFilesBesideTheConfig) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json", R"({"chat_template": "short"})");
  write_file(dir / "chat_template.json", R"({"chat_template": "from the processor file"})");
  auto info = read_tokenizer(dir.path());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->chat_template_file, "tokenizer_config.json") << "the config's template wins over .json";
  EXPECT_EQ(info->chat_template_length, 5u);
  write_file(dir / "chat_template.jinja", "{{ x }}\n");
  info = read_tokenizer(dir.path());
  EXPECT_EQ(info->chat_template_file, "chat_template.jinja") << "as in transformers, .jinja wins";
  EXPECT_EQ(info->chat_template_length, 8u);

  TempDir only;
  write_file(only / "chat_template.json", R"({"chat_template": "abc"})");
  info = read_tokenizer(only.path());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->chat_template_length, 3u);
  EXPECT_EQ(info->files_read, std::vector<std::string>{"chat_template.json"});
}

// Row J5: a path named inside a file is never opened (reading it would fail: it does not exist).
TEST(Tokenizer, PathsInsideFilesAreNeverFollowed) {
  TokenizerInfo info = read_config_only(
      R"({"tokenizer_file": "../../../etc/passwd", "chat_template_file": "/nonexistent/x.jinja",
          "vocab_file": "/x"})");
  EXPECT_FALSE(info.has_chat_template);
  EXPECT_EQ(info.files_read, std::vector<std::string>{"tokenizer_config.json"});
}

TEST(Tokenizer, MalformedJsonNamesTheFile) {
  expect_file_error("tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0,)", ErrorKind::Malformed,
                    {"tokenizer.json", "end of input"});
  expect_file_error("tokenizer_config.json", "{\"bos_token\": \"<s>\"} trailing", ErrorKind::Malformed,
                    {"tokenizer_config.json"});
  expect_file_error("special_tokens_map.json", "{'bos_token': '<s>'}", ErrorKind::Malformed,
                    {"special_tokens_map.json"});
  expect_file_error("chat_template.json", "", ErrorKind::Malformed, {"chat_template.json"});
  expect_file_error("tokenizer.json", "\xEF\xBB\xBF{}", ErrorKind::Malformed,
                    {"tokenizer.json", "byte-order mark"});
  expect_file_error("tokenizer.json", "{\"model\": {\"type\": \"B\xff\"}}", ErrorKind::Malformed,
                    {"tokenizer.json"});
}

TEST(Tokenizer, WrongTypesNameTheField) {
  expect_file_error("tokenizer.json", "[]", ErrorKind::Malformed,
                    {"tokenizer.json", "must be a JSON object"});
  expect_file_error("tokenizer.json", R"({"model": {"vocab": "a b c"}})", ErrorKind::Malformed,
                    {"model.vocab", "found a string"});
  expect_file_error("tokenizer.json", R"({"model": {"type": 3}})", ErrorKind::Malformed, {"model.type"});
  expect_file_error("tokenizer.json", R"({"model": {"type": "Unigram", "vocab": ["a", "b"]}})",
                    ErrorKind::Malformed, {"model.vocab[]"});
  expect_file_error("tokenizer.json", R"({"model": {"merges": {"a": "b"}}})", ErrorKind::Malformed,
                    {"model.merges"});
  expect_file_error("tokenizer.json", R"({"added_tokens": {"id": 1}})", ErrorKind::Malformed,
                    {"added_tokens"});
  expect_file_error("tokenizer.json", R"({"added_tokens": [{"id": -1, "content": "x"}]})",
                    ErrorKind::Malformed, {"added_tokens[].id", "-1"});
  expect_file_error("tokenizer.json", R"({"added_tokens": [{"id": "5", "content": "x"}]})",
                    ErrorKind::Malformed, {"added_tokens[].id"});
  expect_file_error("tokenizer.json", R"({"added_tokens": [{"content": "x"}]})", ErrorKind::Malformed,
                    {"added_tokens[0]", "no \"id\""});
  expect_file_error("tokenizer_config.json", R"({"bos_token": 1})", ErrorKind::Malformed,
                    {"tokenizer_config.json", "bos_token"});
  expect_file_error("tokenizer_config.json", R"({"eos_token": {"lstrip": true}})", ErrorKind::Malformed,
                    {"eos_token", "content"});
  expect_file_error("tokenizer_config.json", R"({"tokenizer_class": ["A"]})", ErrorKind::Malformed,
                    {"tokenizer_class"});
  expect_file_error("tokenizer_config.json", R"({"model_max_length": "2048"})", ErrorKind::Malformed,
                    {"model_max_length"});
  expect_file_error("tokenizer_config.json", R"({"model_max_length": -1})", ErrorKind::Malformed,
                    {"model_max_length"});
  expect_file_error("tokenizer_config.json", R"({"model_max_length": 2048.5})", ErrorKind::Malformed,
                    {"model_max_length", "not an integer"});
  expect_file_error("tokenizer_config.json", R"({"chat_template": 42})", ErrorKind::Malformed,
                    {"chat_template"});
  expect_file_error("tokenizer_config.json", R"({"chat_template": [{"name": "default"}]})",
                    ErrorKind::Malformed, {"chat_template[0]"});
  expect_file_error("tokenizer_config.json", R"({"chat_template": ["x"]})", ErrorKind::Malformed,
                    {"chat_template[]"});
  expect_file_error("tokenizer_config.json", R"({"additional_special_tokens": "<x>"})", ErrorKind::Malformed,
                    {"additional_special_tokens"});
  expect_file_error("tokenizer_config.json", R"({"added_tokens_decoder": []})", ErrorKind::Malformed,
                    {"added_tokens_decoder"});
}

// Row J1: deep nesting anywhere, also in parts that are only skipped, is an error at parse time.
TEST(Tokenizer, DeepNestingIsAnError) {
  std::string deep = R"({"normalizer": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  expect_file_error("tokenizer.json", deep, ErrorKind::Malformed, {"tokenizer.json", "nesting"});
  std::string deep_token = R"({"bos_token": {"x": )" + std::string(5000, '[') + std::string(5000, ']') + "}}";
  expect_file_error("tokenizer_config.json", deep_token, ErrorKind::Malformed, {"nesting"});
}

// Row J2: a file over its cap is refused from its size, before it is read (a sparse file costs no disk).
TEST(Tokenizer, OversizedFilesHitTheCap) {
  TempDir dir;
  write_file(dir / "tokenizer.json", "{}");
  fs::resize_file(dir / "tokenizer.json", (256ull << 20) + 1);
  expect_error(dir.path(), ErrorKind::Limit, {"tokenizer.json", "cap"});
  TempDir dir2;
  write_file(dir2 / "chat_template.jinja", "x");
  fs::resize_file(dir2 / "chat_template.jinja", (16ull << 20) + 1);
  expect_error(dir2.path(), ErrorKind::Limit, {"chat_template.jinja"});
}

TEST(Tokenizer, DirectoryInPlaceOfAFileIsAnError) {
  TempDir dir;
  fs::create_directory(dir / "tokenizer.json");
  expect_error(dir.path(), ErrorKind::LocalIO, {"tokenizer.json"});
}

// ---- renderers ----

TokenizerInfo sample() {
  TokenizerInfo t;
  t.tokenizer_class = "PreTrainedTokenizerFast";
  t.model_type = "BPE";
  t.vocab_known = true;
  t.base_vocab_size = 128000;
  t.added_tokens = 256;
  t.vocab_size = 128256;
  t.token_ids = {{0, 128256}};
  t.merges = 280147;
  t.special_tokens = {{"bos", "<|begin_of_text|>", 128000},
                      {"eos", "<|eot_id|>", 128009},
                      {"additional", "a`b\x1b[31m", std::nullopt}};
  t.has_chat_template = true;
  t.chat_template_length = 3827;
  t.chat_template_file = "tokenizer_config.json";
  t.model_max_length = 131072;
  t.files_read = {"tokenizer.json", "tokenizer_config.json"};
  return t;
}

TEST(TokenizerRender, JsonCarriesEveryFigure) {
  JsonWriter w;
  w.begin_object();
  write_json(w, std::optional<TokenizerInfo>(sample()), 128512);  // 256 rows beyond the vocabulary
  w.end_object();
  json::Document d = json::Document::parse(w.take(), "out.json");
  const json::Value* t = d.root().find("tokenizer");
  ASSERT_TRUE(t && t->is_object());
  EXPECT_EQ(t->find("tokenizer_type")->as_string(), "PreTrainedTokenizerFast") << "seed 002: the class";
  EXPECT_EQ(t->find("tokenizer_class")->as_string(), "PreTrainedTokenizerFast");
  EXPECT_EQ(t->find("model_type")->as_string(), "BPE");
  EXPECT_EQ(t->find("vocab_size")->as_uint(), 128256u);
  EXPECT_EQ(t->find("base_vocab_size")->as_uint(), 128000u);
  EXPECT_EQ(t->find("added_tokens")->as_uint(), 256u);
  EXPECT_EQ(t->find("merges")->as_uint(), 280147u);
  EXPECT_EQ(t->find("model_max_length")->as_uint(), 131072u);
  EXPECT_EQ(t->find("bos_token")->as_string(), "<|begin_of_text|>");
  EXPECT_EQ(t->find("eos_token")->as_string(), "<|eot_id|>");
  ASSERT_EQ(t->find("special_tokens")->items().size(), 3u);
  EXPECT_EQ(t->find("special_tokens")->items()[2].find("role")->as_string(), "additional");
  EXPECT_EQ(t->find("special_tokens")->items()[2].find("content")->as_string(), "a`b\x1b[31m");
  EXPECT_EQ(t->find("special_tokens")->items()[0].find("id")->as_uint(), 128000u);
  EXPECT_TRUE(t->find("special_tokens")->items()[2].find("id")->is_null()) << "an unresolved id is null";
  EXPECT_EQ(t->find("max_token_id")->as_uint(), 128255u);
  EXPECT_TRUE(t->find("has_chat_template")->as_bool());
  EXPECT_EQ(t->find("chat_template_length")->as_uint(), 3827u);
  EXPECT_EQ(t->find("files")->items().size(), 2u);
  EXPECT_EQ(t->find("rows_without_token")->as_uint(), 256u);
  EXPECT_EQ(t->find("tokens_without_row")->as_uint(), 0u);
}

// The tokenizer's vocabulary against the model's embedding rows: tokens with ids beyond the rows are ones the
// model cannot embed; equal counts give 0 and 0; an unknown side gives null.
TEST(TokenizerRender, VocabularyAgainstTheEmbeddingRows) {
  auto gap = [](uint64_t rows) {
    JsonWriter w;
    w.begin_object();
    write_json(w, std::optional<TokenizerInfo>(sample()), rows);
    w.end_object();
    return json::Document::parse(w.take(), "out.json");
  };
  const json::Document fewer = gap(128000);
  EXPECT_EQ(fewer.root().find("tokenizer")->find("tokens_without_row")->as_uint(), 256u);
  const json::Document equal = gap(128256);
  EXPECT_EQ(equal.root().find("tokenizer")->find("rows_without_token")->as_uint(), 0u);
  const json::Document unknown = gap(0);
  EXPECT_TRUE(unknown.root().find("tokenizer")->find("rows_without_token")->is_null());
}

TEST(TokenizerRender, JsonUnknownsAreNull) {
  TokenizerInfo t;
  t.tokenizer_class = "LlamaTokenizer";
  t.files_read = {"tokenizer_config.json"};
  JsonWriter w;
  w.begin_object();
  write_json(w, std::optional<TokenizerInfo>(t), 0);
  write_json(w, std::optional<TokenizerInfo>(), 0);  // a second key, only to check the nullopt form
  w.end_object();
  std::string out = w.take();
  EXPECT_TRUE(contains(out, R"("vocab_size":null)")) << out;
  EXPECT_TRUE(contains(out, R"("added_tokens":null)")) << out;
  EXPECT_TRUE(contains(out, R"("max_token_id":null)")) << out;
  EXPECT_TRUE(contains(out, R"("model_max_length":null)")) << out;
  EXPECT_TRUE(contains(out, R"("chat_template_length":null)")) << out;
  EXPECT_TRUE(contains(out, R"("model_type":null)")) << out;
  EXPECT_TRUE(contains(out, R"("tokenizer":null)")) << out;
}

TEST(TokenizerRender, ConsoleSummaryAndDetailed) {
  ModelReport r;
  ConsoleWriter summary(false);
  render_console(summary, sample(), r, RenderOptions{false});
  std::string s = summary.take();
  EXPECT_TRUE(contains(s, "PreTrainedTokenizerFast")) << s;
  EXPECT_TRUE(contains(s, "128,256 (128,000 base + 256 added)")) << s;
  EXPECT_TRUE(contains(s, "bos <|begin_of_text|> (id 128000), eos <|eot_id|> (id 128009)")) << s;
  EXPECT_TRUE(contains(s, "131,072")) << s;
  EXPECT_TRUE(contains(s, "Yes (3,827 characters")) << s;
  ConsoleWriter detailed(false);
  render_console(detailed, sample(), r, RenderOptions{true});
  std::string d = detailed.take();
  EXPECT_TRUE(contains(d, "bos token")) << d;
  EXPECT_TRUE(contains(d, "<|begin_of_text|> (id 128000)")) << d;
  EXPECT_TRUE(contains(d, "280,147")) << d;
  EXPECT_FALSE(contains(d, "\x1b")) << "a token's escape sequence must not reach the terminal";
  EXPECT_TRUE(contains(d, "\\x1b[31m")) << d;
}

TEST(TokenizerRender, MarkdownShowsTokensAsCode) {
  ModelReport r;
  MarkdownWriter w;
  render_document(w, sample(), r);
  std::string md = w.take();
  EXPECT_TRUE(contains(md, "## Tokenizer")) << md;
  EXPECT_TRUE(contains(md, "`<|begin_of_text|>`") || contains(md, "`<\\|begin_of_text\\|>`")) << md;
  EXPECT_TRUE(contains(md, "``a`b\\x1b[31m``")) << md;
  EXPECT_TRUE(contains(md, "128,256")) << md;
}

}  // namespace
}  // namespace ma
