// GGUF models on the Hub, end to end against the fake Hub (nginx on loopback): a repository of quantizations
// is listed when no file is chosen, `--file` picks one by name or quantization, and only its header crosses
// the network (range requests growing until it parses), then comes from the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "fake_hub.h"
#include "fake_hub_test_support.h"
#include "formats/gguf_writer.h"
#include "gguf_test_models.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// A GGUF whose header is real (with a tokenizer of `tokens` entries, so that it outgrows the first read when
// asked to) and whose data is a hole the fake Hub writes sparse.
FakeFile gguf_file(const std::string& path, DType type, uint32_t tokens, char etag) {
  TinyGguf m{.hidden = 256, .ffn = 512, .matrix_type = type, .with_data = false};
  std::vector<GgufValueToWrite> kv = tiny_gguf_metadata(m);
  std::vector<std::string> vocab(tokens);
  for (uint32_t i = 0; i < tokens; ++i) vocab[i] = "token-number-" + std::to_string(i);
  kv.push_back(gguf_string_array("tokenizer.ggml.tokens", vocab));
  const std::vector<TensorToWrite> tensors = tiny_gguf_tensors(m);
  std::string header = gguf_header_bytes(kv, tensors);
  header.resize((header.size() + 31) / 32 * 32, '\0');
  uint64_t data = 0;
  for (const TensorToWrite& t : tensors) data += (dtype_bytes(numel(t.shape), t.dtype) + 31) / 32 * 32;
  FakeFile f;
  f.path = path;
  f.content = header;
  f.sparse_size = header.size() + data;
  f.lfs = true;
  f.etag = std::string(64, etag);  // never hashed: only headers are read
  return f;
}

// The two parts of a split model (split.no / split.count as llama.cpp's gguf-split writes them), named
// `prefix` + "00001-of-00002.gguf" (a folder in the prefix puts them in it).
std::vector<FakeFile> split_files(const std::string& prefix = "split-") {
  const TinyGguf m{.hidden = 256, .ffn = 512, .with_data = false};
  std::vector<TensorToWrite> tensors = tiny_gguf_tensors(m);
  const size_t half = tensors.size() / 2;
  std::vector<FakeFile> out;
  for (unsigned part = 0; part < 2; ++part) {
    std::vector<GgufValueToWrite> kv = part == 0 ? tiny_gguf_metadata(m) : std::vector<GgufValueToWrite>{};
    kv.push_back(gguf_u32("split.no", part));
    kv.push_back(gguf_u32("split.count", 2));
    std::vector<TensorToWrite> mine(tensors.begin() + (part ? half : 0),
                                    part ? tensors.end() : tensors.begin() + half);
    FakeFile f;
    f.path = prefix + "0000" + std::to_string(part + 1) + "-of-00002.gguf";
    f.content = gguf_header_bytes(kv, mine);
    f.content.resize((f.content.size() + 31) / 32 * 32, '\0');
    uint64_t data = 0;
    for (const TensorToWrite& t : mine) data += (dtype_bytes(numel(t.shape), t.dtype) + 31) / 32 * 32;
    f.sparse_size = f.content.size() + data;
    f.lfs = true;
    f.etag = std::string(64, part ? 'f' : 'e');
    out.push_back(std::move(f));
  }
  return out;
}

// unsloth's layout: a folder per quantization, a split model's parts inside its folder, a projector beside.
FakeRepo gguf_folders_repo() {
  FakeRepo r;
  r.id = "ex/folders-GGUF";
  r.files = split_files("Q4_K_M/big-Q4_K_M-");
  r.files.push_back(gguf_file("Q8_0/tiny-Q8_0.gguf", DType::Q8_0, 10, '3'));
  r.files.push_back(gguf_file("Q8_0/mmproj-tiny-f16.gguf", DType::F16, 10, '4'));
  return r;
}

// bartowski's names: Q6_K beside Q6_K_L, F16 beside BF16. The Q6_K_L model's matrices are Q8_0 here, so a
// test tells from the types read which model was chosen.
const std::vector<std::pair<std::string, DType>> kTagFiles = {{"tiny-BF16.gguf", DType::BF16},
                                                              {"tiny-F16.gguf", DType::F16},
                                                              {"tiny-Q6_K.gguf", DType::Q6_K},
                                                              {"tiny-Q6_K_L.gguf", DType::Q8_0}};
FakeRepo gguf_tags_repo() {
  FakeRepo r;
  r.id = "ex/tags-GGUF";
  // The fake CDN serves a file by its etag: each must be one no other repository's file has.
  const std::string etags = "7890";
  for (size_t k = 0; k < kTagFiles.size(); ++k)
    r.files.push_back(gguf_file(kTagFiles[k].first, kTagFiles[k].second, 10, etags[k]));
  return r;
}

// Quantizations whose bytes hash to their etags, to download: two files and a split model in a folder.
FakeRepo gguf_downloadable_repo() {
  FakeRepo r;
  r.id = "ex/dl-GGUF";
  FakeFile readme;
  readme.path = "README.md";
  readme.content = "# tiny\n";
  r.files = {readme, gguf_file("tiny.Q4_K_M.gguf", DType::Q4_K, 10, 'x'),
             gguf_file("tiny.Q8_0.gguf", DType::Q8_0, 10, 'x')};
  for (FakeFile& f : split_files("Q5_K_M/big-Q5_K_M-")) r.files.push_back(std::move(f));
  for (FakeFile& f : r.files) f.etag.clear();  // computed from the bytes: a download checks them
  return r;
}

class HubGguf : public SharedFakeHubTest {
 protected:
  static void SetUpTestSuite() {
    if (!create_shared_hub("")) return;
    FakeRepo quants;
    quants.id = "ex/tiny-GGUF";
    // 200,000 tokens: a ~5 MB header, more than the first 2 MiB range request.
    quants.files = {gguf_file("tiny.Q4_K_M.gguf", DType::Q4_K, 200000, 'a'),
                    gguf_file("tiny.Q8_0.gguf", DType::Q8_0, 10, 'b'),
                    gguf_file("mmproj-tiny-f16.gguf", DType::F16, 10, 'c')};
    hub_->add_repo(quants);
    FakeRepo one;
    one.id = "ex/one-GGUF";
    one.files = {gguf_file("one.Q8_0.gguf", DType::Q8_0, 10, 'd')};
    hub_->add_repo(one);
    FakeRepo split;
    split.id = "ex/split-GGUF";
    split.files = split_files();
    hub_->add_repo(split);
    // Two readable quantizations beside a split model whose second part is missing from the repository.
    FakeRepo broken;
    broken.id = "ex/broken-GGUF";
    broken.files = {gguf_file("tiny.Q4_K_M.gguf", DType::Q4_K, 10, '1'),
                    gguf_file("tiny.Q8_0.gguf", DType::Q8_0, 10, '2'), split_files().front()};
    hub_->add_repo(broken);
    hub_->add_repo(gguf_folders_repo());
    hub_->add_repo(gguf_tags_repo());
    // The original's safetensors beside its quantizations, and a repository of safetensors only.
    FakeRepo mixed = repo_from_directory("ex/mixed", example_dir());
    mixed.files.push_back(gguf_file("tiny.Q4_K_M.gguf", DType::Q4_K, 10, '5'));
    mixed.files.push_back(gguf_file("tiny.Q8_0.gguf", DType::Q8_0, 10, '6'));
    hub_->add_repo(mixed);
    hub_->add_repo(repo_from_directory("ex/plain", example_dir()));
    hub_->add_repo(gguf_downloadable_repo());
    hub_->start();
  }
  CommandResult run(const std::string& args) {
    return run_cli_env(isolated_hub_env(hub_->endpoint(), cache_.path()), args);
  }
  uint64_t cdn_bytes() {
    uint64_t n = 0;
    for (const LogEntry& e : hub_->log())
      if (e.server == "cdn") n += e.bytes_sent;
    return n;
  }

  TempDir cache_;
};

const uint64_t kParameters = tiny_gguf_parameters({.hidden = 256, .ffn = 512});

size_t count_of(const std::vector<LogEntry>& log, const std::string& server) {
  size_t n = 0;
  for (const LogEntry& e : log) n += e.server == server;
  return n;
}

TEST_F(HubGguf, TheOnlyModelIsReadFromItsHeader) {
  CommandResult r = run("ex/one-GGUF --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), kParameters);
  EXPECT_EQ(d.root().find("weights_format")->as_string(), "gguf");
  EXPECT_EQ(d.root().find("quantization")->find("method")->as_string(), "gguf");
  EXPECT_EQ(count_of(hub_->log(), "cdn"), 1u);  // one range request held the whole header
}

// The report on a repository of quantizations is the listing the Hub's file viewer shows, from each model's
// header: file type, size, bits per weight and the type mix, with figures the writer's own tensors give.
TEST_F(HubGguf, TheReportListsEveryQuantizationWithItsTypeMix) {
  CommandResult r = run("ex/tiny-GGUF --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 2u);  // the mmproj projector is not a model
  for (const json::Value& m : models) {
    const std::string file(m.find("file")->as_string());
    SCOPED_TRACE(file);
    const DType type = file == "tiny.Q4_K_M.gguf" ? DType::Q4_K : DType::Q8_0;
    const TinyGguf tiny{.hidden = 256, .ffn = 512, .matrix_type = type, .with_data = false};
    uint64_t bytes = 0, typed = 0;
    for (const TensorToWrite& t : tiny_gguf_tensors(tiny)) {
      bytes += dtype_bytes(numel(t.shape), t.dtype);
      if (t.dtype == type) typed += numel(t.shape);
    }
    EXPECT_EQ(m.find("parameters")->as_uint(), kParameters);
    EXPECT_EQ(m.find("tensor_bytes")->as_uint(), bytes);
    EXPECT_DOUBLE_EQ(m.find("bits_per_weight")->as_double(),
                     8.0 * static_cast<double>(bytes) / static_cast<double>(kParameters));
    const json::Value& first = m.find("types")->items().at(0);  // most parameters first: the matrices' type
    EXPECT_EQ(first.find("dtype")->as_string(), dtype_info(type).short_name);
    EXPECT_EQ(first.find("parameters")->as_uint(), typed);
    EXPECT_EQ(m.find("parts")->as_uint(), 1u);
  }
  CommandResult console = run("ex/tiny-GGUF");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("2 GGUF models"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("analyse one with --file"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("tiny.Q8_0.gguf"), std::string::npos) << console.out;
}

TEST_F(HubGguf, SeveralQuantizationsAreListedThenChosen) {
  CommandResult list = run("tensors ex/tiny-GGUF --json");
  EXPECT_EQ(list.exit_code, 2) << list.err;
  EXPECT_NE(list.err.find("holds 2 GGUF models: tiny.Q4_K_M.gguf ("), std::string::npos) << list.err;
  EXPECT_NE(list.err.find("tiny.Q8_0.gguf ("), std::string::npos) << list.err;
  EXPECT_EQ(list.err.find("mmproj"), std::string::npos) << list.err;
  EXPECT_NE(list.err.find("--file"), std::string::npos) << list.err;

  hub_->clear_log();
  CommandResult q4 = run("tensors ex/tiny-GGUF --file q4_k_m --json");
  ASSERT_EQ(q4.exit_code, 0) << q4.err;
  json::Document d = json::Document::parse(q4.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), kParameters);
  EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), "gguf");
  // The ~5 MB header took more than the first 2 MiB request; no tensor data crossed (the file is ~8 MB).
  const std::vector<LogEntry> log = hub_->log();
  EXPECT_GE(count_of(log, "cdn"), 2u);
  EXPECT_LT(cdn_bytes(), 6u << 20);

  // Cached: a second run reads no header again.
  hub_->clear_log();
  CommandResult again = run("tensors ex/tiny-GGUF --file tiny.Q4_K_M.gguf --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(count_of(hub_->log(), "cdn"), 0u);

  CommandResult none = run("tensors ex/tiny-GGUF --file Q2_K --json");
  EXPECT_EQ(none.exit_code, 8);  // not found, as a missing file
  EXPECT_NE(none.err.find("no GGUF model matches 'Q2_K'"), std::string::npos) << none.err;

  // The same choice as a suffix of the id (llama.cpp's -hf, Ollama's hf.co/), at a revision too; --file
  // naming another is refused.
  for (const char* id : {"ex/tiny-GGUF:Q8_0", "ex/tiny-GGUF@main:q8_0"}) {
    CommandResult q8 = run(std::string("tensors ") + id + " --json");
    ASSERT_EQ(q8.exit_code, 0) << id << "\n" << q8.err;
    EXPECT_NE(q8.out.find("\"dtype\":\"q8_0\""), std::string::npos) << id;  // the Q8_0 model's matrices
    EXPECT_EQ(q8.out.find("\"dtype\":\"q4_k\""), std::string::npos) << id;
  }
  CommandResult unmatched = run("tensors ex/tiny-GGUF:Q2_K --json");  // named as the user wrote it
  EXPECT_EQ(unmatched.exit_code, 8);
  EXPECT_NE(unmatched.err.find("ex/tiny-GGUF: :Q2_K: no GGUF model matches 'Q2_K'"), std::string::npos)
      << unmatched.err;
  CommandResult both = run("tensors ex/tiny-GGUF:Q8_0 --file Q4_K_M --json");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--file: names Q4_K_M where the model id names :Q8_0"), std::string::npos)
      << both.err;
}

// One model that cannot be read (a split model missing its second part) is named in the listing; the other
// quantizations are listed, where the whole listing failed with the one model's error.
TEST_F(HubGguf, AnUnreadableModelIsNamedAndTheOthersListed) {
  CommandResult r = run("ex/broken-GGUF --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 3u);
  size_t readable = 0;
  for (const json::Value& m : models) {
    const std::string file(m.find("file")->as_string());
    if (file.starts_with("split-")) {
      EXPECT_NE(m.find("error")->as_string().find("split-00002-of-00002.gguf"), std::string::npos) << r.out;
      // Its size is unknown, not the first part's bytes as if they were all of it.
      EXPECT_TRUE(m.find("size_bytes")->is_null()) << r.out;
    } else {
      EXPECT_TRUE(m.find("error")->is_null()) << file << "\n" << r.out;
      EXPECT_EQ(m.find("parameters")->as_uint(), kParameters) << file;
      ++readable;
    }
  }
  EXPECT_EQ(readable, 2u);
  CommandResult console = run("ex/broken-GGUF");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("unreadable: "), std::string::npos) << console.out;
  const size_t row = console.out.find("split-00001-of-00002.gguf");
  ASSERT_NE(row, std::string::npos) << console.out;
  const std::string line = console.out.substr(row, console.out.find('\n', row) - row);
  EXPECT_NE(line.find("  ?  "), std::string::npos) << line;
  EXPECT_EQ(line.find(" B "), std::string::npos) << line;
  // Chosen, the broken model still fails with its own error.
  CommandResult chosen = run("tensors ex/broken-GGUF --file split --json");
  EXPECT_EQ(chosen.exit_code, 8) << chosen.err;
}

TEST_F(HubGguf, ASplitModelIsReadFromEveryPartsHeader) {
  CommandResult r = run("tensors ex/split-GGUF --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), kParameters);
  EXPECT_EQ(d.root().find("checkpoint")->find("files")->as_uint(), 2u);
  EXPECT_EQ(count_of(hub_->log(), "cdn"), 2u);  // one range request per part
}

// A folder per quantization: every model is listed with its path, a split one's parts found in its folder;
// where only top-level files were seen, and a repository of folders held "no GGUF file" (exit 8).
TEST_F(HubGguf, ModelsInFoldersAreListedAndChosen) {
  CommandResult r = run("ex/folders-GGUF --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 2u) << r.out;  // the projector is not a model
  EXPECT_EQ(models[0].find("file")->as_string(), "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf");
  EXPECT_EQ(models[0].find("parts")->as_uint(), 2u);
  uint64_t split_bytes = 0;  // the bytes the fake Hub serves for the two parts
  for (const FakeFile& f : split_files("Q4_K_M/big-Q4_K_M-")) split_bytes += f.sparse_size;
  EXPECT_EQ(models[0].find("size_bytes")->as_uint(), split_bytes);
  EXPECT_EQ(models[0].find("parameters")->as_uint(), kParameters);
  EXPECT_EQ(models[1].find("file")->as_string(), "Q8_0/tiny-Q8_0.gguf");
  EXPECT_EQ(models[1].find("parameters")->as_uint(), kParameters);
  CommandResult console = run("ex/folders-GGUF");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("Q8_0/tiny-Q8_0.gguf"), std::string::npos) << console.out;

  CommandResult q8 = run("tensors ex/folders-GGUF:Q8_0 --json");
  ASSERT_EQ(q8.exit_code, 0) << q8.err;
  EXPECT_NE(q8.out.find("\"dtype\":\"q8_0\""), std::string::npos);
  CommandResult split = run("tensors ex/folders-GGUF:Q4_K_M --json");
  ASSERT_EQ(split.exit_code, 0) << split.err;
  json::Document sd = json::Document::parse(split.out, "stdout");
  EXPECT_EQ(sd.root().find("num_parameters")->as_uint(), kParameters);
  EXPECT_EQ(sd.root().find("checkpoint")->find("files")->as_uint(), 2u);
}

// ":Q6_K" beside Q6_K_L and ":F16" beside BF16 name one model each: the quantization tag is matched exactly
// before any part of a name (both were "ambiguous", and Q6_K could not be chosen at all).
TEST_F(HubGguf, ATagMatchesItsQuantizationExactly) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ex/tags-GGUF:Q6_K", "q6_k"},
      {"ex/tags-GGUF:q6_k_l", "q8_0"},
      {"ex/tags-GGUF:F16", "f16"},
      {"ex/tags-GGUF:BF16", "bf16"},
      {"ex/tags-GGUF:tiny-Q6_K", "q6_k"},
      {"ex/tags-GGUF --file tiny-Q6_K.gguf", "q6_k"},
      {"ex/tags-GGUF --file tiny-F16", "f16"}};
  for (const auto& [model, type] : cases) {
    CommandResult r = run("tensors " + model + " --json");
    ASSERT_EQ(r.exit_code, 0) << model << "\n" << r.err;
    for (const char* other : {"q6_k", "q8_0", "f16", "bf16"})
      EXPECT_EQ(r.out.find(std::string("\"dtype\":\"") + other + "\"") != std::string::npos, type == other)
          << model << " read " << other;
  }
  CommandResult several = run("tensors ex/tags-GGUF:Q6 --json");
  EXPECT_EQ(several.exit_code, 2) << several.err;
  EXPECT_NE(several.err.find("tiny-Q6_K.gguf ("), std::string::npos) << several.err;
  EXPECT_NE(several.err.find("tiny-Q6_K_L.gguf ("), std::string::npos) << several.err;
}

// A GGUF model named in a repository that also holds safetensors is the model analysed: the safetensors are
// never read (the report showed their 151,872 parameters under the GGUF's name). A name no GGUF matches is
// "not found" before any file is fetched, also where the repository holds no GGUF at all.
TEST_F(HubGguf, ANamedGgufWinsOverTheSafetensorsBesideIt) {
  CommandResult r = run("ex/mixed:Q4_K_M --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), kParameters);
  EXPECT_EQ(d.root().find("weights_format")->as_string(), "gguf");
  EXPECT_EQ(d.root().find("metadata")->find("weight_files_bytes")->as_uint(),
            gguf_file("tiny.Q4_K_M.gguf", DType::Q4_K, 10, '5').sparse_size);
  for (const LogEntry& e : hub_->log())
    EXPECT_EQ(e.uri.find("model.safetensors"), std::string::npos) << e.uri;
  CommandResult q8 = run("tensors ex/mixed --file q8_0 --json");
  ASSERT_EQ(q8.exit_code, 0) << q8.err;
  EXPECT_NE(q8.out.find("\"dtype\":\"q8_0\""), std::string::npos);

  for (const char* model : {"ex/plain --file nonexistent.gguf", "ex/mixed --file nonexistent.gguf"}) {
    hub_->clear_log();
    CommandResult none = run(std::string(model) + " --json");
    EXPECT_EQ(none.exit_code, 8) << model << "\n" << none.err;
    EXPECT_NE(none.err.find("--file: no GGUF model matches 'nonexistent.gguf'"), std::string::npos)
        << none.err;
    EXPECT_EQ(hub_->log().size(), 1u) << model;  // the file list, nothing else
  }
  CommandResult plain = run("ex/plain --file nonexistent.gguf");
  EXPECT_NE(plain.err.find("the repository holds no GGUF file"), std::string::npos) << plain.err;
}

// A /blob/ or /resolve/ URL naming a .gguf file analyses that model, not the repository's listing.
TEST_F(HubGguf, AFileUrlNamesTheModelToAnalyse) {
  CommandResult r = run("tensors https://huggingface.co/ex/tiny-GGUF/blob/main/tiny.Q8_0.gguf --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"dtype\":\"q8_0\""), std::string::npos);
  EXPECT_EQ(r.out.find("\"dtype\":\"q4_k\""), std::string::npos);
  CommandResult report = run("https://huggingface.co/ex/tiny-GGUF/resolve/main/tiny.Q4_K_M.gguf --json");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  json::Document d = json::Document::parse(report.out, "stdout");
  EXPECT_EQ(d.root().find("gguf_models"), nullptr);
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), kParameters);
}

// `download org/x-GGUF:TAG` fetches that model's files, every part of a split one, and nothing else (it
// fetched every quantization: 100 GB and more on a real -GGUF repository).
TEST_F(HubGguf, DownloadOfANamedModelFetchesItsPartsOnly) {
  const fs::path q8 = cache_.path() / "q8";
  CommandResult r = run("download ex/dl-GGUF:Q8_0 --out '" + q8.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(downloaded_files(q8), std::vector<std::string>{"tiny.Q8_0.gguf"});
  EXPECT_EQ(count_of(hub_->log(), "cdn"), 1u);
  // The file list the model was chosen from is the one the download takes: the Hub is asked for it once.
  const std::vector<LogEntry> log = hub_->log();
  EXPECT_EQ(std::count_if(log.begin(), log.end(),
                          [](const LogEntry& e) { return e.uri.starts_with("/api/models/"); }),
            1);
  EXPECT_EQ(fs::file_size(q8 / "tiny.Q8_0.gguf"),
            gguf_file("tiny.Q8_0.gguf", DType::Q8_0, 10, 'x').sparse_size);

  const fs::path q5 = cache_.path() / "q5";
  CommandResult split = run("download ex/dl-GGUF:q5_k_m --out '" + q5.string() + "'");
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_EQ(downloaded_files(q5), (std::vector<std::string>{"Q5_K_M/big-Q5_K_M-00001-of-00002.gguf",
                                                            "Q5_K_M/big-Q5_K_M-00002-of-00002.gguf"}));

  const fs::path q4 = cache_.path() / "q4";
  CommandResult file =
      run("download ex/dl-GGUF --file Q4_K_M --include README.md --out '" + q4.string() + "'");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(downloaded_files(q4), (std::vector<std::string>{"README.md", "tiny.Q4_K_M.gguf"}));

  // Into the cache: the snapshot holds that model, which the analysis then reads offline from disk.
  CommandResult cached = run("download ex/dl-GGUF:Q8_0 --quiet");
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  const fs::path snapshot = cached.out.substr(0, cached.out.find('\n'));
  EXPECT_EQ(files_under(snapshot), std::vector<std::string>{"tiny.Q8_0.gguf"});
  CommandResult offline = run("tensors ex/dl-GGUF:Q8_0 --offline --json");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_NE(offline.out.find("\"dtype\":\"q8_0\""), std::string::npos);
}

// A /resolve/ or /blob/ URL names one file: that file is downloaded, whatever the repository holds.
TEST_F(HubGguf, DownloadOfAFileUrlFetchesThatFileOnly) {
  const fs::path one = cache_.path() / "one";
  CommandResult r = run("download https://huggingface.co/ex/dl-GGUF/resolve/main/tiny.Q4_K_M.gguf --out '" +
                        one.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(downloaded_files(one), std::vector<std::string>{"tiny.Q4_K_M.gguf"});
  const fs::path readme = cache_.path() / "readme";
  CommandResult blob =
      run("download 'https://huggingface.co/ex/dl-GGUF/blob/main/README.md' --out '" + readme.string() + "'");
  ASSERT_EQ(blob.exit_code, 0) << blob.err;
  EXPECT_EQ(downloaded_files(readme), std::vector<std::string>{"README.md"});
  CommandResult absent = run("download https://huggingface.co/ex/dl-GGUF/resolve/main/absent.gguf --out '" +
                             (cache_.path() / "absent").string() + "'");
  EXPECT_EQ(absent.exit_code, 8) << absent.err;
  EXPECT_NE(absent.err.find("absent.gguf"), std::string::npos) << absent.err;
}

// A name no model matches downloads nothing (exit 8); one several match alike is a usage error (exit 2).
TEST_F(HubGguf, DownloadOfAModelNothingMatchesFetchesNothing) {
  const fs::path out = cache_.path() / "none";
  CommandResult none = run("download ex/dl-GGUF:Q2_K --out '" + out.string() + "'");
  EXPECT_EQ(none.exit_code, 8) << none.err;
  EXPECT_NE(none.err.find("no GGUF model matches 'Q2_K'"), std::string::npos) << none.err;
  CommandResult several = run("download ex/dl-GGUF:tiny --out '" + out.string() + "'");
  EXPECT_EQ(several.exit_code, 2) << several.err;
  // What an analysis reads is one model: of several, --needed asks which, as the analysis does.
  CommandResult needed = run("download ex/dl-GGUF --needed --out '" + out.string() + "'");
  EXPECT_EQ(needed.exit_code, 2) << needed.err;
  EXPECT_NE(needed.err.find("holds 3 GGUF models"), std::string::npos) << needed.err;
  EXPECT_NE(needed.err.find("choose one with --file"), std::string::npos) << needed.err;
  EXPECT_EQ(count_of(hub_->log(), "cdn"), 0u);
  EXPECT_TRUE(files_under(out).empty());
}

}  // namespace
}  // namespace ma::test
