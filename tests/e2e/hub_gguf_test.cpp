// GGUF models on the Hub, end to end against the fake Hub (nginx on loopback): a repository of quantizations
// is listed when no file is chosen, `--file` picks one by name or quantization, and only its header crosses
// the network (range requests growing until it parses), then comes from the cache.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_support.h"
#include "core/json.h"
#include "fake_hub.h"
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

// The two parts of a split model (split.no / split.count as llama.cpp's gguf-split writes them).
std::vector<FakeFile> split_files() {
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
    f.path = "split-0000" + std::to_string(part + 1) + "-of-00002.gguf";
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

class HubGguf : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!FakeHub::available()) return;
    work_ = new TempDir();
    hub_ = new FakeHub(work_->path() / "hub", "");
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
    hub_->start();
  }
  static void TearDownTestSuite() {
    delete hub_;
    delete work_;
    hub_ = nullptr;
    work_ = nullptr;
  }
  void SetUp() override {
    if (!hub_) GTEST_SKIP() << "nginx not installed: the Hub client's end-to-end tests need it";
    hub_->clear_log();
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

  static FakeHub* hub_;
  static TempDir* work_;
  TempDir cache_;
};

FakeHub* HubGguf::hub_ = nullptr;
TempDir* HubGguf::work_ = nullptr;

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
  EXPECT_EQ(none.exit_code, 2);
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
  EXPECT_EQ(unmatched.exit_code, 2);
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

}  // namespace
}  // namespace ma::test
