// ONNX models on the Hub, end to end against the fake Hub (nginx on loopback): a repository whose weights are
// an ONNX export is analysed from its .onnx file, fetched whole (the graph: the weights are in external data
// files, sized by the listing and never fetched) and cached; what it reads equals what the same files give on
// disk; external data the repository does not hold is named; an .onnx file too large to be a graph alone
// (its initializers inline) is left unread, with a note, instead of being downloaded; models in folders are
// named with --file, read from their folder, and downloaded with their data.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "fake_hub.h"
#include "fake_hub_test_support.h"
#include "onnx_test_models.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// Seven layers where the initializers hold one: the note that contradiction gives shows the file was read.
const char* kGenaiConfig = R"({"model": {"type": "llama", "decoder": {"num_hidden_layers": 7}}})";

class HubOnnx : public SharedFakeHubTest {
 protected:
  static void SetUpTestSuite() {
    if (!create_shared_hub("")) return;
    // The tiny model with its weight in model.onnx.data, written on disk once: the local twin the Hub's
    // answers are compared with.
    onnx::ModelProto m = tiny_onnx_model();
    make_weight_external(m, "model.onnx.data", "16", "", local_dir() / "model.onnx.data");
    write_onnx(local_dir() / "model.onnx", m);
    const std::string graph = read_file(local_dir() / "model.onnx");
    const std::string data = read_file(local_dir() / "model.onnx.data");
    hub_->add_repo(
        fake_repo("ex/onnx-external", "normal",
                  {fake_file("model.onnx", graph, true), fake_file("model.onnx.data", data, true)}));
    hub_->add_repo(fake_repo("ex/onnx-no-data", "normal", {fake_file("model.onnx", graph, true)}));
    // Past the cap by one byte: never fetched, so its bytes need not be a model. Sparse, with an etag of its
    // own: nothing writes or hashes 64 MiB (slow in the sanitizer build's unoptimized test code).
    FakeFile inline_model = fake_file("model.onnx", "o", true);
    inline_model.sparse_size = (64u << 20) + 1;
    inline_model.etag = std::string(64, 'e');
    hub_->add_repo(
        fake_repo("ex/onnx-inline", "normal", {fake_file("config.json", kTinyLlamaConfig), inline_model}));
    // transformers.js's layout: the models in onnx/, each beside its data, config.json at the top; and
    // ONNX Runtime GenAI's genai_config.json beside them. Etags from the bytes: `download` checks them.
    onnx::ModelProto q = tiny_onnx_model();
    make_weight_external(q, "model.onnx_data", "0", "", folder_dir() / "model.onnx_data");
    write_onnx(folder_dir() / "model.onnx", q);
    write_file(folder_dir() / "genai_config.json", kGenaiConfig);
    write_file(folder_dir() / "config.json", kTinyLlamaConfig);
    onnx::ModelProto fp16 = tiny_onnx_model();
    make_weight_external(fp16, "model_fp16.onnx_data", "0", "", work_->path() / "fp16.data");
    // Data named as the exporter liked, not after the model: only its graph says which file it is.
    onnx::ModelProto int8 = tiny_onnx_model();
    make_weight_external(int8, "int8_weights.bin", "0", "", work_->path() / "int8.data");
    FakeRepo folders =
        fake_repo("ex/onnx-folders", "normal",
                  {fake_file("config.json", kTinyLlamaConfig),
                   fake_file("onnx/model.onnx", read_file(folder_dir() / "model.onnx"), true),
                   fake_file("onnx/model.onnx_data", read_file(folder_dir() / "model.onnx_data"), true),
                   fake_file("onnx/genai_config.json", kGenaiConfig),
                   fake_file("onnx/model_fp16.onnx", write_onnx_bytes(fp16, "fp16.onnx"), true),
                   fake_file("onnx/model_fp16.onnx_data", read_file(work_->path() / "fp16.data"), true),
                   fake_file("cpu/model.onnx", read_file(folder_dir() / "model.onnx"), true),
                   fake_file("onnx/model_int8.onnx", int8.SerializeAsString(), true),
                   fake_file("onnx/int8_weights.bin", read_file(work_->path() / "int8.data"), true)});
    for (FakeFile& f : folders.files) f.etag.clear();
    hub_->add_repo(folders);
    // One model in a folder: the model, read from there.
    hub_->add_repo(fake_repo("ex/onnx-one-folder", "normal",
                             {folders.files[0], folders.files[1], folders.files[2], folders.files[3]}));
    folders.id = "ex/onnx-folders-only";
    folders.files.erase(folders.files.begin());  // no config.json: nothing to report without a model
    hub_->add_repo(folders);
    if (auto data_dir = shared_data(); data_dir && fs::is_directory(*data_dir / "fixtures/tiny-gpt2-onnx"))
      hub_->add_repo(repo_from_directory("fx/tiny-gpt2-onnx", *data_dir / "fixtures/tiny-gpt2-onnx"));
    hub_->start();
  }
  // `m`'s bytes, kept on disk as `name` for the tests to size.
  static std::string write_onnx_bytes(const onnx::ModelProto& m, const std::string& name) {
    write_onnx(work_->path() / name, m);
    return read_file(work_->path() / name);
  }
  static fs::path folder_dir() {
    fs::create_directories(work_->path() / "folder");
    return work_->path() / "folder";
  }
  static fs::path local_dir() {
    fs::create_directories(work_->path() / "local");
    return work_->path() / "local";
  }

  CommandResult run(const std::string& args, const std::string& env = "") {
    return run_cli_env(isolated_hub_env(hub_->endpoint(), cache_.path()) + " " + env, args);
  }

  TempDir cache_;
};

TEST_F(HubOnnx, TheGraphIsFetchedWholeItsExternalDataNeverThenFromTheCache) {
  CommandResult local = run_cli("tensors '" + local_dir().string() + "' --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CommandResult r = run("tensors ex/onnx-external --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tensors_json_body(r.out), tensors_json_body(local.out));
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("origin")->as_string(), "headers");
  const json::Value& ck = *d.root().find("checkpoint");
  EXPECT_EQ(ck.find("format")->as_string(), "onnx");
  EXPECT_EQ(ck.find("parameters")->as_uint(), kTinyOnnxWeights.size());
  // The external data file counts with the size the listing gives (16 bytes of offset, then 24).
  EXPECT_EQ(ck.find("files")->as_uint(), 2u);
  EXPECT_EQ(ck.find("file_bytes")->as_uint(), fs::file_size(local_dir() / "model.onnx") + 16u + 24u);

  // One request, for the whole graph (the data file is 40 bytes); none for the data.
  const std::vector<LogEntry> log = cdn_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].status, 206);
  EXPECT_EQ(log[0].range, "bytes=0-" + std::to_string(fs::file_size(local_dir() / "model.onnx") - 1));

  // Cached: the next run fetches nothing, and an offline one reads the cached graph.
  hub_->clear_log();
  CommandResult again = run("tensors ex/onnx-external --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  hub_->wait_for_log(1);
  EXPECT_TRUE(cdn_log().empty());
  CommandResult offline = run("tensors ex/onnx-external --json", "HF_HUB_OFFLINE=1");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(tensors_json_body(offline.out), tensors_json_body(local.out));

  // The values are not on this machine: `stats` says to download them.
  CommandResult stats = run("stats ex/onnx-external");
  EXPECT_EQ(stats.exit_code, 8) << stats.err;
  EXPECT_NE(stats.err.find("modelanalyzer download ex/onnx-external"), std::string::npos) << stats.err;
}

TEST_F(HubOnnx, ExternalDataTheRepositoryDoesNotHoldIsNamed) {
  CommandResult r = run("tensors ex/onnx-no-data --json");
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("ex/onnx-no-data/model.onnx"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("external data file 'model.onnx.data' is missing"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(HubOnnx, AFileTooLargeToBeAGraphAloneIsLeftUnreadAndSaidSo) {
  CommandResult r = run("tensors ex/onnx-inline --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("model.onnx is not read: 67,108,865 bytes"), std::string::npos) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("origin")->as_string(), "template");
  EXPECT_TRUE(cdn_log().empty());
  // Named, it is an error: the report would describe the config, not the file asked for.
  CommandResult named = run("tensors ex/onnx-inline --file model.onnx --json");
  EXPECT_EQ(named.exit_code, 5) << named.err;
  EXPECT_NE(named.err.find("ex/onnx-inline/model.onnx: size: 67,108,865 bytes"), std::string::npos)
      << named.err;
  EXPECT_NE(named.err.find("modelanalyzer download ex/onnx-inline --file model.onnx"), std::string::npos)
      << named.err;
  EXPECT_EQ(named.out, "");
  EXPECT_TRUE(cdn_log().empty());
}

// Models in folders are offered, not guessed; --file names one by its path, or by its file name when only
// one file has it, and it is read from its folder (its data sized by the listing, its genai_config.json
// fetched), as the same files give on disk.
TEST_F(HubOnnx, AModelInAFolderIsNamedWithFileAndReadFromItsFolder) {
  CommandResult offered = run("tensors ex/onnx-folders --json");
  ASSERT_EQ(offered.exit_code, 0) << offered.err;
  EXPECT_NE(
      offered.err.find("the repository's ONNX models are in folders (onnx/model.onnx, onnx/model_fp16.onnx, "
                       "cpu/model.onnx, onnx/model_int8.onnx): name one with --file"),
      std::string::npos)
      << offered.err;
  EXPECT_EQ(json::Document::parse(offered.out, "stdout").root().find("origin")->as_string(), "template");

  CommandResult nothing = run("tensors ex/onnx-folders-only --json");
  EXPECT_EQ(nothing.exit_code, 8) << nothing.err;
  EXPECT_NE(nothing.err.find("its ONNX models are in folders (onnx/model.onnx, onnx/model_fp16.onnx, "
                             "cpu/model.onnx, onnx/model_int8.onnx): name one with --file"),
            std::string::npos)
      << nothing.err;

  // The local twin: config.json beside the model, as the repository's top-level one is to the analysis.
  CommandResult local = run_cli("tensors '" + folder_dir().string() + "' --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CommandResult named = run("tensors ex/onnx-folders --file onnx/model.onnx --json");
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(tensors_json_body(named.out), tensors_json_body(local.out));
  // Its folder's genai_config.json was fetched with the small files; without config.json it is what
  // describes the model (its note shows it read).
  size_t genai = 0;
  for (const auto& e : fs::recursive_directory_iterator(cache_.path()))
    genai += e.path().generic_string().ends_with("/onnx/genai_config.json");
  EXPECT_EQ(genai, 1u);
  CommandResult graph_only = run("tensors ex/onnx-folders-only --file onnx/model.onnx --json");
  ASSERT_EQ(graph_only.exit_code, 0) << graph_only.err;
  EXPECT_NE(graph_only.err.find("genai_config.json says 7 layers"), std::string::npos) << graph_only.err;

  // A /blob/ URL naming the file names the model as --file does.
  CommandResult url = run("tensors https://huggingface.co/ex/onnx-folders/blob/main/onnx/model.onnx --json");
  ASSERT_EQ(url.exit_code, 0) << url.err;
  EXPECT_EQ(tensors_json_body(url.out), tensors_json_body(local.out));

  // One model in a folder needs no naming: it is the model, read as --file reads it.
  CommandResult one = run("tensors ex/onnx-one-folder --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(tensors_json_body(one.out), tensors_json_body(local.out));

  CommandResult by_name = run("tensors ex/onnx-folders --file model_fp16.onnx --json");
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(json::Document::parse(by_name.out, "stdout").root().find("checkpoint")->find("files")->as_uint(),
            2u);

  // The report's model size is not guessed from the repository's files (int8_weights.bin is another
  // model's data): an ONNX model's data is what its graph names, counted in the checkpoint's file_bytes.
  // The model read, the others are not listed as choices.
  CommandResult report = run("ex/onnx-folders --file model_fp16.onnx --json");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  json::Document named_md = json::Document::parse(report.out, "stdout");
  EXPECT_TRUE(named_md.root().find("metadata")->find("weight_files_bytes")->is_null());
  EXPECT_TRUE(named_md.root().find("metadata")->find("onnx_models")->items().empty());

  CommandResult two = run("tensors ex/onnx-folders --file model.onnx --json");
  EXPECT_EQ(two.exit_code, 2) << two.err;
  EXPECT_NE(two.err.find("'model.onnx' is the name of 2 ONNX models (onnx/model.onnx, cpu/model.onnx)"),
            std::string::npos)
      << two.err;
  CommandResult none = run("tensors ex/onnx-folders --file onnx/model_q4.onnx --json");
  EXPECT_EQ(none.exit_code, 8) << none.err;
  EXPECT_NE(none.err.find("no ONNX model is 'onnx/model_q4.onnx'; the repository's: onnx/model.onnx"),
            std::string::npos)
      << none.err;
  EXPECT_EQ(none.out, "");
}

// The report of a repository whose ONNX models are in folders lists them as choices for --file: each one's
// transformers.js dtype by its name, and its size with the data named after it, as the listing gives them.
TEST_F(HubOnnx, TheReportListsTheModelsInFoldersWithTheirSizes) {
  CommandResult r = run("ex/onnx-folders --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  const json::Value* models = d.root().find("metadata")->find("onnx_models");
  ASSERT_NE(models, nullptr);
  ASSERT_EQ(models->items().size(), 4u);
  auto size = [](const fs::path& p) { return static_cast<uint64_t>(fs::file_size(p)); };
  const std::vector<std::tuple<std::string, std::string, uint64_t>> expected = {
      {"onnx/model.onnx", "fp32", size(folder_dir() / "model.onnx") + size(folder_dir() / "model.onnx_data")},
      {"onnx/model_fp16.onnx", "fp16", size(work_->path() / "fp16.onnx") + size(work_->path() / "fp16.data")},
      {"cpu/model.onnx", "", size(folder_dir() / "model.onnx")}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const json::Value& m = models->items()[i];
    const auto& [path, dtype, bytes] = expected[i];
    SCOPED_TRACE(path);
    EXPECT_EQ(m.find("path")->as_string(), path);
    if (dtype.empty()) {
      EXPECT_TRUE(m.find("dtype")->is_null());
    } else {
      EXPECT_EQ(m.find("dtype")->as_string(), dtype);
    }
    EXPECT_EQ(m.find("size_bytes")->as_uint(), bytes);
  }
  // Its data is named by its graph only: the listing cannot size it, and the graph alone is its size.
  EXPECT_EQ(models->items()[3].find("dtype")->as_string(), "int8");

  CommandResult console = run("ex/onnx-folders");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("4 in folders, not read: name one with --file PATH"), std::string::npos)
      << console.out;
  EXPECT_NE(console.out.find("onnx/model_fp16.onnx"), std::string::npos) << console.out;

  // With nothing else to report (no config.json, as ONNX Runtime GenAI's repositories), the listing is the
  // answer, as a -GGUF repository's quantizations are; `tensors`, which needs a model, still names them.
  CommandResult alone = run("ex/onnx-folders-only --json");
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  json::Document listing = json::Document::parse(alone.out, "stdout");
  EXPECT_EQ(listing.root().find("source")->as_string(), "ex/onnx-folders-only");
  const json::Value* listed = listing.root().find("onnx_models");
  ASSERT_NE(listed, nullptr);
  ASSERT_EQ(listed->items().size(), models->items().size());
  for (size_t i = 0; i < listed->items().size(); ++i) {
    EXPECT_EQ(listed->items()[i].find("path")->as_string(), models->items()[i].find("path")->as_string());
    EXPECT_EQ(listed->items()[i].find("size_bytes")->as_uint(),
              models->items()[i].find("size_bytes")->as_uint());
  }
  CommandResult alone_console = run("ex/onnx-folders-only");
  ASSERT_EQ(alone_console.exit_code, 0) << alone_console.err;
  EXPECT_NE(alone_console.out.find("ex/onnx-folders-only: 4 ONNX models"), std::string::npos)
      << alone_console.out;
  EXPECT_NE(alone_console.out.find("analyse one with --file PATH"), std::string::npos) << alone_console.out;
  // The listing shows them: no note on stderr repeats it (`tensors` gives one, having no table).
  EXPECT_EQ(alone_console.err.find("in folders"), std::string::npos) << alone_console.err;
  EXPECT_EQ(console.err.find("in folders"), std::string::npos) << console.err;
}

// `graph` reads a Hub model's graph as a local one's, from the .onnx fetched whole.
TEST_F(HubOnnx, GraphReadsAHubModelAsALocalOne) {
  CommandResult local = run_cli("graph '" + folder_dir().string() + "' --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CommandResult remote = run("graph ex/onnx-folders --file onnx/model.onnx --json");
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  json::Document l = json::Document::parse(local.out, "local"),
                 r = json::Document::parse(remote.out, "remote");
  for (const char* key : {"nodes", "initializer_bytes", "ir_version"}) {
    SCOPED_TRACE(key);
    ASSERT_NE(r.root().find(key), nullptr);
    EXPECT_EQ(r.root().find(key)->as_uint(), l.root().find(key)->as_uint());
  }
  EXPECT_EQ(r.root().find("ops")->find("MatMul")->as_uint(), 1u);
  // Unnamed, the repository's models in folders are asked for.
  CommandResult unnamed = run("graph ex/onnx-folders");
  EXPECT_EQ(unnamed.exit_code, 2) << unnamed.err;
  EXPECT_NE(unnamed.err.find("holds 4 ONNX models (onnx/model.onnx, onnx/model_fp16.onnx, cpu/model.onnx, "
                             "onnx/model_int8.onnx): name the one to read with --file PATH"),
            std::string::npos)
      << unnamed.err;
  CommandResult console = run("graph ex/onnx-folders --file onnx/model.onnx");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("ONNX graph: ex/onnx-folders onnx/model.onnx"), std::string::npos)
      << console.out;
  EXPECT_EQ(console.out.find(cache_.path().string()), std::string::npos) << console.out;
}

// `download --file` brings the model, its data and its folder's genai_config.json, nothing else; `stats` then
// reads the values from the snapshot.
TEST_F(HubOnnx, DownloadOfANamedModelBringsItsDataAndStatsReadsIt) {
  const fs::path out = cache_.path() / "dl";
  CommandResult r = run("download ex/onnx-folders --file onnx/model.onnx --out '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(downloaded_files(out), (std::vector<std::string>{"config.json", "onnx/genai_config.json",
                                                             "onnx/model.onnx", "onnx/model.onnx_data"}));
  // What was downloaded is that model, read as the Hub's --file reads it.
  CommandResult downloaded = run_cli("tensors '" + out.string() + "' --json");
  ASSERT_EQ(downloaded.exit_code, 0) << downloaded.err;
  CommandResult named = run("tensors ex/onnx-folders --file onnx/model.onnx --json");
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(tensors_json_body(downloaded.out), tensors_json_body(named.out));

  // Before the download, `stats` says what to download: the model with its --file.
  CommandResult before = run("stats ex/onnx-folders --file onnx/model.onnx");
  EXPECT_EQ(before.exit_code, 8) << before.err;
  EXPECT_NE(before.err.find("run `modelanalyzer download ex/onnx-folders --file onnx/model.onnx` first"),
            std::string::npos)
      << before.err;
  // Data not named after its model is found in the graph.
  const fs::path int8 = cache_.path() / "int8";
  CommandResult other =
      run("download ex/onnx-folders --file onnx/model_int8.onnx --out '" + int8.string() + "'");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(downloaded_files(int8),
            (std::vector<std::string>{"config.json", "onnx/genai_config.json", "onnx/int8_weights.bin",
                                      "onnx/model_int8.onnx"}));

  // --needed takes the model the analysis reads, the top-level one with its data.
  const fs::path needed = cache_.path() / "needed";
  hub_->clear_log();
  CommandResult top = run("download ex/onnx-external --needed --out '" + needed.string() + "'");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(downloaded_files(needed), (std::vector<std::string>{"model.onnx", "model.onnx.data"}));
  // One answer of the Hub chooses the model, names its data and lists the download.
  const std::vector<LogEntry> log = hub_->wait_for_log(3);  // the model info and the two files at least
  EXPECT_EQ(std::count_if(log.begin(), log.end(),
                          [](const LogEntry& e) { return e.uri.find("/api/models/") != std::string::npos; }),
            1);

  // One too large to fetch as a graph is the model an analysis would read once downloaded: --needed chooses
  // it (here left out again with --exclude: its sparse bytes are not the ones its etag names).
  const fs::path inline_dir = cache_.path() / "inline";
  CommandResult inline_model = run("download ex/onnx-inline --needed --exclude model.onnx --verbose --out '" +
                                   inline_dir.string() + "'");
  ASSERT_EQ(inline_model.exit_code, 0) << inline_model.err;
  EXPECT_NE(inline_model.err.find("chose 2 file(s): model.onnx, config.json"), std::string::npos)
      << inline_model.err;
  EXPECT_EQ(downloaded_files(inline_dir), std::vector<std::string>{"config.json"});

  CommandResult cached = run("download ex/onnx-folders --file onnx/model.onnx --quiet");
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  CommandResult stats = run("stats ex/onnx-folders --file onnx/model.onnx --json");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  CommandResult local = run_cli("stats '" + folder_dir().string() + "' --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  json::Document remote_stats = json::Document::parse(stats.out, "remote");
  json::Document local_stats = json::Document::parse(local.out, "local");
  const json::Value* remote_t = remote_stats.root().find("tensors");
  const json::Value* local_t = local_stats.root().find("tensors");
  ASSERT_NE(remote_t, nullptr);
  ASSERT_NE(local_t, nullptr);
  ASSERT_EQ(remote_t->items().size(), 1u);
  EXPECT_EQ(remote_t->items()[0].find("mean")->as_double(), local_t->items()[0].find("mean")->as_double());
}

// The export the reference libraries wrote (a graph and its model.onnx.data) gives from the Hub what it gives
// on disk, field for field.
TEST_F(HubOnnx, TheFixtureAnalysesAsItDoesLocally) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *data / "fixtures/tiny-gpt2-onnx";
  CommandResult local = run_cli("tensors '" + dir.string() + "' --json");
  CommandResult remote = run("tensors fx/tiny-gpt2-onnx --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(tensors_json_body(remote.out), tensors_json_body(local.out));
  EXPECT_NE(tensors_json_body(remote.out).find("\"origin\":\"headers\""), std::string::npos);
  const std::vector<LogEntry> log = cdn_log();
  ASSERT_EQ(log.size(), 1u);  // the graph, whole; never the 0.5 MB of model.onnx.data
  EXPECT_EQ(log[0].range, "bytes=0-" + std::to_string(fs::file_size(dir / "model.onnx") - 1));
}

}  // namespace
}  // namespace ma::test
