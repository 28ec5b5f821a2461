// Special-token ids as transformers resolves them, the bos/eos/pad ids of config.json and
// generation_config.json checked against them, one meaning of "added tokens" for tokenizer.json,
// tokenizer_config.json and GGUF, the embedding rows compared by id, special_tokens_map.json read only in
// transformers' legacy case, and empty special tokens flagged. Small tokenizer files are written here; the
// real fixture and Hub configs are read when ../shared/data is present (their expected values are read from
// the files themselves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "core/json.h"
#include "formats/gguf.h"
#include "formats/gguf_tokenizer.h"
#include "formats/gguf_writer.h"
#include "formats/tokenizer.h"
#include "io/byte_source.h"
#include "report/section_renderers.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::TempDir;
using test::write_file;

TokenizerInfo ids_read(const fs::path& dir) {
  std::optional<TokenizerInfo> info = read_tokenizer(dir);
  EXPECT_TRUE(info.has_value()) << dir;
  return info.value_or(TokenizerInfo{});
}

const SpecialToken* ids_token(const TokenizerInfo& info, const std::string& role) {
  for (const SpecialToken& t : info.special_tokens)
    if (t.role == role) return &t;
  return nullptr;
}

std::string ids_all_warnings(const TokenizerInfo& info) {
  std::string out;
  for (const std::string& w : info.warnings) out += w + "\n";
  return out;
}

// The tokenizer section's JSON object, with `rows` embedding rows.
json::Document ids_json(const TokenizerInfo& info, uint64_t rows) {
  JsonWriter w;
  w.begin_object();
  write_json(w, std::optional<TokenizerInfo>(info), rows);
  w.end_object();
  return json::Document::parse(w.take(), "tokenizer.json export");
}

std::string ids_console(const TokenizerInfo& info, uint64_t rows, bool detailed) {
  ModelReport r;
  r.architecture.vocab_size = rows;
  ConsoleWriter w(false);
  render_console(w, info, r, RenderOptions{detailed});
  return w.take();
}

// A tokenizer.json of `n` pieces "t0".."t{n-1}" with ids 0..n-1 (the first ones named by `names`), and the
// given added_tokens.
std::string ids_tokenizer_json(uint64_t n, const std::vector<std::string>& names, const std::string& added) {
  std::string vocab;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string piece = i < names.size() ? names[i] : "t" + std::to_string(i);
    vocab += (i ? "," : "") + ("\"" + piece + "\": " + std::to_string(i));
  }
  return R"({"added_tokens": [)" + added + R"(], "model": {"type": "BPE", "merges": [], "vocab": {)" + vocab +
         "}}}";
}

// ---- #3: ids, and the configs' ids against them ----

// Expected values from the fixture's own files: each special token's id is its model.vocab id in
// tokenizer.json; config.json and generation_config.json state bos/eos ids whose pieces differ from the
// tokenizer's bos and eos (bos_token_id 1 is "</s>"), which the reader must say in one line per role.
TEST(TokenizerSpecialIds, TinyLlamaIdsAndTheConfigsMismatch) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const fs::path dir = *data / "fixtures" / "tiny-llama";
  const json::Document tok = test::parse_json_file(dir / "tokenizer.json");
  const json::Document config = test::parse_json_file(dir / "config.json");
  const json::Document generation = test::parse_json_file(dir / "generation_config.json");
  std::map<std::string, uint64_t> id_of;
  std::map<uint64_t, std::string> piece_of;
  for (const json::Member& m : tok.root().find("model")->find("vocab")->members()) {
    id_of[std::string(m.key)] = *m.value.as_uint();
    piece_of[*m.value.as_uint()] = std::string(m.key);
  }
  const TokenizerInfo info = ids_read(dir);
  ASSERT_EQ(info.special_tokens.size(), 3u);
  for (const SpecialToken& t : info.special_tokens) {
    ASSERT_TRUE(id_of.count(t.content)) << t.content;
    EXPECT_EQ(t.id, id_of[t.content]) << t.role;
  }
  size_t mismatches = 0;
  for (const std::string role : {"bos", "eos"}) {
    const std::string key = role + "_token_id";
    const uint64_t stated = *config.root().find(key)->as_uint();
    ASSERT_EQ(generation.root().find(key)->as_uint(), stated) << "the fixture's two files agree";
    const SpecialToken* t = ids_token(info, role);
    ASSERT_NE(t, nullptr);
    if (piece_of[stated] == t->content) continue;
    ++mismatches;
    const std::string line = "config.json and generation_config.json give " + key + " " +
                             std::to_string(stated) + " (\"" + piece_of[stated] +
                             "\"), but the tokenizer's " + role + " token is \"" + t->content + "\" (id " +
                             std::to_string(id_of[t->content]) + ")";
    EXPECT_NE(std::find(info.warnings.begin(), info.warnings.end(), line), info.warnings.end())
        << "missing: " << line << "\nin:\n"
        << ids_all_warnings(info);
  }
  EXPECT_EQ(mismatches, 2u) << "the fixture's bos and eos ids both name other tokens";
  EXPECT_EQ(info.warnings.size(), mismatches) << ids_all_warnings(info);

  // Shown with the id in the console and in the JSON, the warnings in both.
  const std::string summary = ids_console(info, 0, false);
  EXPECT_TRUE(contains(summary, "bos <s> (id " + std::to_string(id_of["<s>"]) + ")")) << summary;
  EXPECT_TRUE(contains(summary, "warning")) << summary;
  const json::Document d = ids_json(info, 0);
  const json::Value& tj = *d.root().find("tokenizer");
  EXPECT_EQ(tj.find("special_tokens")->items()[0].find("id")->as_uint(), id_of["<s>"]);
  EXPECT_EQ(tj.find("warnings")->items().size(), mismatches);
}

// model.vocab's id wins over the id an added token states for the same text (the library gives the
// vocabulary's id); a text only in added_tokens has its id there; one only in tokenizer_config.json's
// added_tokens_decoder has that id; one no file names has none.
TEST(TokenizerSpecialIds, ResolvedInTransformersOrder) {
  TempDir dir;
  write_file(dir / "tokenizer.json",
             ids_tokenizer_json(4, {"<unk>", "<s>"},
                                R"({"id": 9, "content": "<s>"}, {"id": 4, "content": "<eot>"})"));
  write_file(dir / "tokenizer_config.json",
             R"({"bos_token": "<s>", "eos_token": "<eot>", "pad_token": "<pad>",
    "unk_token": "<nowhere>", "added_tokens_decoder": {"7": {"content": "<pad>", "special": true}}})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_EQ(ids_token(info, "bos")->id, 1u);
  EXPECT_EQ(ids_token(info, "eos")->id, 4u);
  EXPECT_EQ(ids_token(info, "pad")->id, 7u);
  EXPECT_FALSE(ids_token(info, "unk")->id.has_value());
  const json::Document d = ids_json(info, 0);
  for (const json::Value& t : d.root().find("tokenizer")->find("special_tokens")->items()) {
    if (t.find("role")->as_string() == "unk") {
      EXPECT_TRUE(t.find("id")->is_null()) << "unresolved: null";
    }
  }
}

// A Unigram vocabulary is a list: an entry's index is its id.
TEST(TokenizerSpecialIds, UnigramIdsAreIndexes) {
  TempDir dir;
  write_file(dir / "tokenizer.json", R"({"model": {"type": "Unigram", "unk_id": 0,
    "vocab": [["<unk>", 0.0], ["a", -1.0], ["</s>", 0.0], ["<s>", 0.0]]}})");
  write_file(dir / "tokenizer_config.json", R"({"bos_token": "<s>", "eos_token": "</s>"})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_EQ(ids_token(info, "bos")->id, 3u);
  EXPECT_EQ(ids_token(info, "eos")->id, 2u);
}

// The files' ids against the tokenizer's: files stating the same ids share a line; a list (eos in newer
// files) that holds the tokenizer's id is no mismatch; files stating different ids each get their line.
TEST(TokenizerSpecialIds, ConfigIdsNamingAnotherTokenAreWarned) {
  TempDir dir;
  write_file(dir / "tokenizer.json", ids_tokenizer_json(5, {"<s>", "</s>", "<pad>"}, ""));
  write_file(dir / "tokenizer_config.json",
             R"({"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"})");
  write_file(dir / "config.json", R"({"bos_token_id": 1, "eos_token_id": 1, "pad_token_id": 3})");
  write_file(dir / "generation_config.json",
             R"({"bos_token_id": 1, "eos_token_id": [2, 1], "pad_token_id": 2})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_EQ(
      info.warnings,
      (std::vector<std::string>{
          "config.json and generation_config.json give bos_token_id 1 (\"</s>\"), but the tokenizer's bos "
          "token is \"<s>\" (id 0)",
          "config.json gives pad_token_id 3 (\"t3\"), but the tokenizer's pad token is \"<pad>\" (id 2)"}))
      << ids_all_warnings(info);
}

// A multimodal config states its language model's ids in text_config; null and -1 state nothing.
TEST(TokenizerSpecialIds, TextConfigIdsAndNoneValues) {
  TempDir dir;
  write_file(dir / "tokenizer.json", ids_tokenizer_json(4, {"<s>", "</s>", "<pad>"}, ""));
  write_file(dir / "tokenizer_config.json",
             R"({"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"})");
  write_file(dir / "config.json",
             R"({"pad_token_id": -1, "eos_token_id": null, "text_config": {"bos_token_id": 2}})");
  const TokenizerInfo info = ids_read(dir.path());
  ASSERT_EQ(info.warnings.size(), 1u) << ids_all_warnings(info);
  EXPECT_TRUE(contains(info.warnings[0], "config.json gives bos_token_id 2 (\"<pad>\")")) << info.warnings[0];
}

// With a tokenizer_config.json alone, ids come from added_tokens_decoder: an eos there (granite-7b-lab's
// <|endoftext|>) against a config id no file read names is still a mismatch; an id the files cannot place
// against a token without an id is not judged.
TEST(TokenizerSpecialIds, ConfigOnlyTokenizers) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json", R"({"eos_token": "<|endoftext|>", "bos_token": "<s>",
    "added_tokens_decoder": {"32000": {"content": "<|endoftext|>"}}})");
  write_file(dir / "config.json", R"({"bos_token_id": 1, "eos_token_id": 2})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_EQ(info.warnings, (std::vector<std::string>{
                               "config.json gives eos_token_id 2 (not in the tokenizer files read), but the "
                               "tokenizer's eos token is \"<|endoftext|>\" (id 32000)"}))
      << ids_all_warnings(info);
}

// transformers loads a model whose generation config it cannot read: the comparison is skipped with a
// warning, the report goes on.
TEST(TokenizerSpecialIds, AnUnreadableGenerationConfigIsAWarning) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json", R"({"eos_token": "</s>"})");
  write_file(dir / "generation_config.json", "{\"eos_token_id\": ");
  const TokenizerInfo info = ids_read(dir.path());
  ASSERT_EQ(info.warnings.size(), 1u);
  EXPECT_TRUE(contains(info.warnings[0], "generation_config.json could not be read")) << info.warnings[0];
}

// Real Hub configs: the ids of added_tokens_decoder against config.json and generation_config.json, expected
// values read from the three files.
TEST(TokenizerSpecialIds, RealConfigsWhoseIdsNameAnotherToken) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  for (const auto& [model, role] : {std::pair<std::string, std::string>{"ibm__granite-7b-lab", "eos"},
                                    std::pair<std::string, std::string>{"adept__fuyu-8b", "bos"}}) {
    SCOPED_TRACE(model);
    const fs::path dir = *data / "hf-configs" / model;
    if (!fs::exists(dir / "tokenizer_config.json")) GTEST_SKIP() << "no " << model;
    const json::Document tc = test::parse_json_file(dir / "tokenizer_config.json");
    const json::Document config = test::parse_json_file(dir / "config.json");
    const std::string content(tc.root().find(role + "_token")->as_string());
    std::optional<uint64_t> tokenizer_id;
    for (const json::Member& m : tc.root().find("added_tokens_decoder")->members())
      if (m.value.find("content")->as_string() == content) tokenizer_id = std::stoull(std::string(m.key));
    ASSERT_TRUE(tokenizer_id);
    const uint64_t stated = *config.root().find(role + "_token_id")->as_uint();
    ASSERT_NE(stated, *tokenizer_id);
    const TokenizerInfo info = ids_read(dir);
    EXPECT_EQ(ids_token(info, role)->id, tokenizer_id);
    const std::string start = role + "_token_id " + std::to_string(stated) + " (";
    const std::string end = "but the tokenizer's " + role + " token is \"" + content + "\" (id " +
                            std::to_string(*tokenizer_id) + ")";
    EXPECT_TRUE(std::any_of(info.warnings.begin(), info.warnings.end(), [&](const std::string& w) {
      return contains(w, "config.json") && contains(w, start) && contains(w, end);
    })) << ids_all_warnings(info);
  }
}

// ---- #4: embedding rows against the token ids ----

// 300 pieces (ids 0..299) and one added token at id 600, the eos; 512 rows: 600 has no row although
// 301 tokens < 512 rows, and 512 - 300 rows have no token.
TEST(TokenizerSpecialIds, TokensWithoutARowAreCountedById) {
  constexpr uint64_t kPieces = 300, kRows = 512, kFar = 600;
  TempDir dir;
  write_file(
      dir / "tokenizer.json",
      ids_tokenizer_json(kPieces, {}, R"({"id": )" + std::to_string(kFar) + R"(, "content": "<|im_end|>"})"));
  write_file(dir / "tokenizer_config.json", R"({"eos_token": "<|im_end|>"})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_EQ(ids_token(info, "eos")->id, kFar);
  const json::Document d = ids_json(info, kRows);
  const json::Value& t = *d.root().find("tokenizer");
  EXPECT_EQ(t.find("vocab_size")->as_uint(), kPieces + 1);
  EXPECT_EQ(t.find("max_token_id")->as_uint(), kFar);
  EXPECT_EQ(t.find("tokens_without_row")->as_uint(), 1u);
  EXPECT_EQ(t.find("rows_without_token")->as_uint(), kRows - kPieces);
  const std::string console = ids_console(info, kRows, false);
  EXPECT_TRUE(
      contains(console, "1 token has an id at or beyond the model's 512 embedding rows (the largest is 600)"))
      << console;
  EXPECT_TRUE(contains(console, "212 of the model's 512 embedding rows have no token")) << console;

  // Contiguous ids past the rows: each one beyond is a token without a row, and no row is unused.
  const json::Document fewer = ids_json(info, 256);
  EXPECT_EQ(fewer.root().find("tokenizer")->find("tokens_without_row")->as_uint(), kPieces - 256 + 1);
  EXPECT_EQ(fewer.root().find("tokenizer")->find("rows_without_token")->as_uint(), 0u);
}

// A tokenizer_config.json alone: its added tokens' ids are compared with the rows, the unused rows are
// unknown (null).
TEST(TokenizerSpecialIds, AddedTokensAloneAgainstTheRows) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json", R"({"added_tokens_decoder": {"0": {"content": "<unk>"},
    "1": {"content": "<s>"}, "32000": {"content": "<|endoftext|>"}}})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_FALSE(info.vocab_known);
  EXPECT_EQ(info.added_tokens, 3u);
  const json::Document d = ids_json(info, 32000);
  const json::Value& t = *d.root().find("tokenizer");
  EXPECT_EQ(t.find("tokens_without_row")->as_uint(), 1u);
  EXPECT_TRUE(t.find("rows_without_token")->is_null());
  EXPECT_TRUE(t.find("vocab_size")->is_null());
  EXPECT_EQ(t.find("added_tokens")->as_uint(), 3u);
  const std::string console = ids_console(info, 32000, false);
  EXPECT_TRUE(contains(console, "1 added token has an id at or beyond the model's 32,000 embedding rows"))
      << console;
}

// ---- #8: special_tokens_map.json only in transformers' legacy case ----

TEST(TokenizerSpecialIds, SpecialTokensMapIsIgnoredBesideAddedTokensDecoder) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json", R"({"eos_token": "</s>", "additional_special_tokens": ["<a>"],
    "added_tokens_decoder": {"1": {"content": "</s>"}}})");
  write_file(dir / "special_tokens_map.json",
             R"({"eos_token": "<pad>", "additional_special_tokens": ["<b>"]})");
  const TokenizerInfo info = ids_read(dir.path());
  EXPECT_EQ(ids_token(info, "eos")->content, "</s>");
  ASSERT_EQ(info.special_tokens.size(), 2u);
  EXPECT_EQ(info.special_tokens[1].content, "<a>");
  EXPECT_EQ(info.files_read, std::vector<std::string>{"tokenizer_config.json"});

  // Without added_tokens_decoder (the legacy branch) the map's eos wins and its list is appended.
  TempDir legacy;
  write_file(legacy / "tokenizer_config.json",
             R"({"eos_token": "</s>", "additional_special_tokens": ["<a>"]})");
  write_file(legacy / "special_tokens_map.json",
             R"({"eos_token": "<pad>", "additional_special_tokens": ["<b>"]})");
  const TokenizerInfo old = ids_read(legacy.path());
  EXPECT_EQ(ids_token(old, "eos")->content, "<pad>");
  ASSERT_EQ(old.special_tokens.size(), 3u);
  EXPECT_EQ(old.special_tokens[1].content, "<a>");
  EXPECT_EQ(old.special_tokens[2].content, "<b>");
  EXPECT_EQ(old.files_read, (std::vector<std::string>{"tokenizer_config.json", "special_tokens_map.json"}));
}

// ---- #9: one meaning of added_tokens ----

// The same vocabulary as tokenizer.json and as GGUF metadata: SentencePiece-style (<unk>, <s>, </s> added
// inside the vocabulary, typed unknown and control by llama.cpp's converter) and Llama-3-style (two
// control tokens past the base vocabulary). Both formats give the same vocab, base and added counts: base
// is transformers' tokenizer.vocab_size (model.vocab; in GGUF up to the last normal token), added its
// len(added_tokens_decoder), inside the base or beyond it.
TEST(TokenizerSpecialIds, AddedTokensMeanTheSameInTokenizerJsonAndGguf) {
  struct Case {
    std::vector<std::string> pieces;
    std::vector<int32_t> gguf_types;
    uint64_t model_vocab;  // pieces in model.vocab; the rest are added beyond it
    std::vector<uint64_t> added_ids;
  };
  const Case cases[] = {
      {{"<unk>", "<s>", "</s>", "a", "b"}, {2, 3, 3, 1, 1}, 5, {0, 1, 2}},
      {{"a", "b", "c", "<|begin|>", "<|end|>"}, {1, 1, 1, 3, 3}, 3, {3, 4}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pieces.front());
    TempDir dir;
    std::string added;
    for (uint64_t id : c.added_ids)
      added += (added.empty() ? "" : ",") + (R"({"id": )" + std::to_string(id) + R"(, "content": ")" +
                                             c.pieces[id] + R"(", "special": true})");
    std::vector<std::string> in_vocab(c.pieces.begin(),
                                      c.pieces.begin() + static_cast<std::ptrdiff_t>(c.model_vocab));
    write_file(dir / "tokenizer.json", ids_tokenizer_json(c.model_vocab, in_vocab, added));
    const TokenizerInfo from_json = ids_read(dir.path());

    const std::vector<GgufValueToWrite> kv = {gguf_string("tokenizer.ggml.model", "llama"),
                                              gguf_string_array("tokenizer.ggml.tokens", c.pieces),
                                              gguf_i32_array("tokenizer.ggml.token_type", c.gguf_types)};
    write_gguf(dir / "t.gguf", kv, {});
    const std::string bytes = test::read_file(dir / "t.gguf");
    const GgufFile g = read_gguf(MemorySource(bytes, "t.gguf"));
    const std::optional<TokenizerInfo> from_gguf = tokenizer_from_gguf(g);
    ASSERT_TRUE(from_gguf);

    EXPECT_EQ(from_json.added_tokens, c.added_ids.size());
    EXPECT_EQ(from_json.vocab_size, c.pieces.size());
    EXPECT_EQ(from_json.base_vocab_size, c.model_vocab);
    EXPECT_EQ(from_gguf->added_tokens, from_json.added_tokens);
    EXPECT_EQ(from_gguf->vocab_size, from_json.vocab_size);
    EXPECT_EQ(from_gguf->base_vocab_size, from_json.base_vocab_size);
    const uint64_t beyond = c.pieces.size() - c.model_vocab;
    const std::string label =
        beyond ? "(" + std::to_string(c.model_vocab) + " base + " + std::to_string(beyond) + " added)"
               : "(" + std::to_string(c.added_ids.size()) + " added tokens among them)";
    EXPECT_TRUE(contains(ids_console(from_json, 0, false), label)) << ids_console(from_json, 0, false);
    EXPECT_TRUE(contains(ids_console(*from_gguf, 0, false), label)) << ids_console(*from_gguf, 0, false);
  }
}

// ---- #10: empty special tokens ----

TEST(TokenizerSpecialIds, EmptySpecialTokensAreWarnedAndShownQuoted) {
  TempDir dir;
  write_file(dir / "tokenizer_config.json",
             R"({"tokenizer_class": "LLaMATokenizer", "bos_token": "", "eos_token": "", "unk_token": ""})");
  const TokenizerInfo info = ids_read(dir.path());
  ASSERT_EQ(info.special_tokens.size(), 3u);
  EXPECT_EQ(info.special_tokens[0].content, "");
  ASSERT_EQ(info.warnings.size(), 1u) << ids_all_warnings(info);
  EXPECT_TRUE(
      contains(info.warnings[0], "tokenizer_config.json sets bos_token, eos_token and unk_token to \"\""))
      << info.warnings[0];
  const std::string summary = ids_console(info, 0, false);
  EXPECT_TRUE(contains(summary, R"(bos "", eos "", unk "")")) << summary;
  const std::string detailed = ids_console(info, 0, true);
  EXPECT_TRUE(contains(detailed, "bos token                 \"\"")) << detailed;
  const json::Document d = ids_json(info, 0);
  EXPECT_EQ(d.root().find("tokenizer")->find("bos_token")->as_string(), "");
  EXPECT_EQ(d.root().find("tokenizer")->find("warnings")->items().size(), 1u);
}

// decapoda-research/llama-7b-hf: the keys its tokenizer_config.json sets to "" are the ones warned of.
TEST(TokenizerSpecialIds, RealDecapodaConfigWithEmptyTokens) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const fs::path dir = *data / "hf-configs" / "decapoda-research__llama-7b-hf";
  if (!fs::exists(dir / "tokenizer_config.json")) GTEST_SKIP() << "no decapoda-research__llama-7b-hf";
  const json::Document tc = test::parse_json_file(dir / "tokenizer_config.json");
  std::vector<std::string> empty;
  for (const json::Member& m : tc.root().members())
    if (m.value.is_string() && m.value.as_string().empty() && std::string_view(m.key).ends_with("_token"))
      empty.push_back(std::string(m.key));
  ASSERT_FALSE(empty.empty());
  const TokenizerInfo info = ids_read(dir);
  const std::string all = ids_all_warnings(info);
  EXPECT_TRUE(contains(all, "tokenizer_config.json sets ")) << all;
  for (const std::string& key : empty) EXPECT_TRUE(contains(all, key)) << key << " in " << all;
}

}  // namespace
}  // namespace ma
