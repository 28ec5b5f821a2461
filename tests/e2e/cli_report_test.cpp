// End-to-end: the report command's options, exports and exit codes (seed 002 §7).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "cli_test_support.h"
#include "core/json.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::example;

TEST(CliReport, ExportsJsonAndMarkdownAtomically) {
  test::TempDir tmp;
  auto r = test::run_cli(example() + " --quiet --skip-tokenizer --export '" + (tmp / "a.json").string() +
                         "' --export-markdown '" + (tmp / "a.md").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << "--quiet prints nothing but errors: " << r.out;
  auto doc = json::Document::parse(test::read_file(tmp / "a.json"), "a.json");
  EXPECT_EQ(*doc.root().find("num_parameters")->as_uint(), 151872u);
  EXPECT_EQ(*doc.root().find("num_parameters_active")->as_uint(), 151872u)
      << "dense: every parameter is active";
  EXPECT_TRUE(doc.root().find("analysis_timestamp")->is_string());
  std::string md = test::read_file(tmp / "a.md");
  EXPECT_EQ(md.rfind("# Model analysis: ", 0), 0u) << md.substr(0, 80);
  EXPECT_NE(md.find("151,872"), std::string::npos);
  for (const auto& e : fs::directory_iterator(tmp.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "temporary file left behind";
}

// Markdown viewers render HTML: text from the model is written as entities there, as the HTML page escapes
// it, and a | in it does not split a table cell.
TEST(CliReport, MarkdownShowsModelTextAsText) {
  test::TempDir tmp;
  fs::create_directories(tmp / "m");
  test::write_file(tmp / "m" / "config.json",
                   R"({"model_type": "llama", "architectures": ["<img onerror=x>|&amp"],
    "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4,
    "vocab_size": 100})");
  auto r = test::run_cli(test::quoted(tmp / "m") + " --export-markdown -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("<img"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("&lt;img onerror=x>\\|&amp;amp"), std::string::npos) << r.out;
}

// A config's strings are untrusted: an OSC 52 sequence (set the clipboard) in architectures, an OSC 0 and a
// CSI in hidden_act, a C1 CSI in quant_method reach neither the terminal nor the Markdown raw: each control
// is shown escaped (\x1b), in the report, its Markdown and the tensors listing alike.
TEST(CliReport, ConfigStringsNeverDriveTheTerminal) {
  test::TempDir tmp;
  fs::create_directories(tmp / "m");
  test::write_file(
      tmp / "m" / "config.json",
      R"({"model_type": "llama", "architectures": ["\u001b]52;c;cm0gLXJmIH4K\u0007LlamaForCausalLM"],
    "hidden_act": "\u001b]0;PWNED\u0007\u001b[31msilu", "quantization_config": {"quant_method": "\u009b2Jfp8"},
    "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4,
    "vocab_size": 100})");
  for (const std::string& command : {test::quoted(tmp / "m") + " --skip-tokenizer",
                                     test::quoted(tmp / "m") + " --skip-tokenizer --detailed",
                                     test::quoted(tmp / "m") + " --skip-tokenizer --export-markdown -",
                                     "tensors " + test::quoted(tmp / "m")}) {
    auto r = test::run_cli(command);
    SCOPED_TRACE(command);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << r.out;
    if (!command.starts_with("tensors")) {  // which names the architecture the template resolved
      EXPECT_NE(r.out.find("\\x1b]52;c;cm0gLXJmIH4K\\x07LlamaForCausalLM"), std::string::npos) << r.out;
    }
  }
}

// "." names the directory it is: the report's title and model_name are that directory's name.
TEST(CliReport, TheCurrentDirectoryIsNamedByItsName) {
  const test::CommandResult r = test::run_cli_in(test::example_dir(), ". --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string name = test::example_dir().filename().string();
  EXPECT_NE(r.out.find("\"model_name\":\"" + name + "\""), std::string::npos) << r.out.substr(0, 300);
  EXPECT_NE(test::run_cli_in(test::example_dir(), ". --skip-tokenizer").out.find("MODEL: " + name + "\n"),
            std::string::npos);
}

TEST(CliReport, JsonOnStdoutMatchesTheExport) {
  test::TempDir tmp;
  auto r = test::run_cli(example() + " --json --skip-tokenizer --export '" + (tmp / "a.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, test::read_file(tmp / "a.json"));
}

TEST(CliReport, SeveralModelsGiveAComparison) {
  auto r = test::run_cli(example() + " " + example() + " --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("COMPARISON"), std::string::npos) << r.out;
  auto j = test::run_cli(example() + " " + example() + " --skip-tokenizer --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = json::Document::parse(j.out, "stdout");
  ASSERT_TRUE(doc.root().is_array());
  EXPECT_EQ(doc.root().items().size(), 2u);
}

// An export of several models names the export flag given.
TEST(CliReport, SeveralModelsWithAnExportNameTheFlagGiven) {
  test::TempDir tmp;
  for (const char* flag : {"--export", "--export-markdown", "--html"}) {
    auto r = test::run_cli(example() + " " + example() + " " + flag + " " + test::quoted(tmp / "out"));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(std::string(flag) + ": exports one model"), std::string::npos) << r.err;
  }
}

// Naming the diagram's file asks for the diagram (it was ignored without --visualize, exit 0, no file).
TEST(CliReport, VizOutputDrawsTheDiagram) {
  test::TempDir tmp;
  auto r = test::run_cli(example() + " --skip-tokenizer --quiet --viz-output " + test::quoted(tmp / "d.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::read_file(tmp / "d.svg").find("<svg"), std::string::npos);
}

// Two models of one directory name each get a diagram file: the second replaced the first, and the notes
// said both were written.
TEST(CliReport, DiagramsOfModelsOfOneNameAreKeptApart) {
  test::TempDir tmp;
  fs::create_directories(tmp / "a");
  fs::create_directories(tmp / "b");
  fs::copy(test::example_dir(), tmp / "a" / "model", fs::copy_options::recursive);
  fs::copy(test::example_dir(), tmp / "b" / "model", fs::copy_options::recursive);
  auto r = test::run_cli_in(tmp.path(), "a/model b/model --skip-tokenizer --visualize");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(tmp / "model_architecture.png"));
  EXPECT_TRUE(fs::exists(tmp / "model_2_architecture.png"));
  EXPECT_NE(r.err.find("diagram written to model_2_architecture.png"), std::string::npos) << r.err;
}

// A tiny T5 of `encoder_layers` encoder and 2 decoder layers.
std::string tiny_t5_config(int encoder_layers) {
  return R"({"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "d_model": 64, "d_ff": 128,
    "d_kv": 16, "num_layers": )" +
         std::to_string(encoder_layers) + R"(, "num_decoder_layers": 2, "num_heads": 4, "vocab_size": 1000,
    "feed_forward_proj": "relu", "tie_word_embeddings": true})";
}

// An encoder-decoder's layers in the comparison table are the report's "N encoder + M decoder", not the
// decoder's count alone.
TEST(CliReport, ComparisonCountsBothStacksOfAnEncoderDecoder) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", tiny_t5_config(3));
  auto r = test::run_cli(test::quoted(tmp.path()) + " " + example() + " --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" 3 encoder + 2 decoder "), std::string::npos) << r.out;
}

// Seed 001's "Ratio: 3.10x larger": each model's parameters over the first's, in the table and the JSON.
TEST(CliReport, ComparisonGivesTheRatioToTheFirstModel) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"],
    "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 1000, "torch_dtype": "bfloat16"})");
  const std::string models = example() + " '" + tmp.path().string() + "'";
  auto j = test::run_cli(models + " --skip-tokenizer --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = json::Document::parse(j.out, "stdout");
  const auto& items = doc.root().items();
  ASSERT_EQ(items.size(), 2u);
  const double first = static_cast<double>(*items[0].find("num_parameters")->as_uint());
  const double second = static_cast<double>(*items[1].find("num_parameters")->as_uint());
  EXPECT_DOUBLE_EQ(items[0].find("num_parameters_vs_first")->as_double(), 1.0);
  EXPECT_DOUBLE_EQ(items[1].find("num_parameters_vs_first")->as_double(), second / first);
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2fx", second / first);
  auto console = test::run_cli(models + " --skip-tokenizer");
  EXPECT_NE(console.out.find(ratio), std::string::npos) << ratio << "\n" << console.out;
  EXPECT_EQ(console.out.find(tmp.path().string()), std::string::npos)
      << "a local model is named, not its path";
  // A single model's report has no ratio.
  EXPECT_EQ(test::run_cli(example() + " --json").out.find("num_parameters_vs_first"), std::string::npos);
  // A model smaller than the first keeps three significant digits (0.0023 was printed "0.00x").
  const double smaller = first / second;
  ASSERT_LT(smaller, 1.0);
  std::snprintf(ratio, sizeof ratio, "%.*fx", 2 - static_cast<int>(std::floor(std::log10(smaller))), smaller);
  auto reversed = test::run_cli("'" + tmp.path().string() + "' " + example() + " --skip-tokenizer");
  EXPECT_NE(reversed.out.find(ratio), std::string::npos) << ratio << "\n" << reversed.out;
}

// The example's maximum context is 256 tokens: a longer --context is sized as asked, with one warning.
TEST(CliReport, ContextBeyondTheModelsMaximumWarns) {
  auto r = test::run_cli(example() + " --context 100000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::occurrences(r.err, "--context 100,000 is beyond the model's maximum context of 256"), 1u)
      << r.err;
  EXPECT_EQ(test::run_cli(example() + " --context 256").err.find("beyond"), std::string::npos);
  // plan, serve and perf say so too, each naming what made the context.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plan " + example() + " --gpu h200 --context 300", "--context 300 is beyond"},
      {"serve " + example() + " --isl 200 --osl 100", "--isl 200 + --osl 100 = 300 is beyond"},
      {"perf " + example() + " --kv-len 256", "--kv-len 256 + the new token is beyond"},
      {"perf " + example() + " --mode prefill --seq 300", "--seq 300 is beyond"},
  };
  for (const auto& [args, said] : cases) {
    auto c = test::run_cli(args);
    EXPECT_EQ(c.exit_code, 0) << args << "\n" << c.err;
    EXPECT_EQ(test::occurrences(c.err, said + " the model's maximum context of 256"), 1u) << args << "\n"
                                                                                          << c.err;
  }
  EXPECT_EQ(test::run_cli("perf " + example() + " --kv-len 255").err.find("beyond"), std::string::npos);
}

// A family name with its own parentheses takes its maker after a comma, never "(DeciLM) (NVIDIA)".
TEST(CliReport, FamilyLineHasNoDoubledParentheses) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  auto r = test::run_cli(test::quoted(*data / "hf-configs" / "nvidia__Llama-3_3-Nemotron-Super-49B-v1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Nemotron-NAS (DeciLM), NVIDIA"), std::string::npos) << r.out;
  EXPECT_NE(test::run_cli(example()).out.find("LLaMA (Meta)"), std::string::npos);
}

// Every export says which tool wrote it, beside the analysis date.
TEST(CliReport, JsonNamesTheToolVersion) {
  auto r = test::run_cli(example() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("tool_version")->as_string(), "modelanalyzer " MA_VERSION);
  EXPECT_FALSE(d.root().find("analysis_timestamp")->as_string().empty());
  EXPECT_TRUE(d.root().find("architecture")->find("use_cache")->as_bool());
  EXPECT_EQ(d.root().find("command_line")->as_string(),
            "modelanalyzer " + test::example_dir().string() + " --json");
  // Every JSON export carries the same three keys.
  for (const std::string& command : {"tensors " + example() + " --json", "stats " + example() + " --json"}) {
    auto c = test::run_cli(command);
    ASSERT_EQ(c.exit_code, 0) << command << ": " << c.err;
    const json::Document e = json::Document::parse(c.out, command);
    EXPECT_EQ(e.root().find("tool_version")->as_string(), "modelanalyzer " MA_VERSION) << command;
    EXPECT_FALSE(e.root().find("analysis_timestamp")->as_string().empty()) << command;
    EXPECT_EQ(e.root().find("command_line")->as_string().rfind("modelanalyzer ", 0), 0u) << command;
  }
}

// --verbose on every subcommand: stage lines on stderr, each with the time since start; none otherwise, and
// none under --quiet.
TEST(CliReport, VerboseTracesTheStagesOfEveryCommand) {
  for (const std::string& command :
       {example(), "tensors " + example(), "stats " + example(), "compare " + example() + " " + example(),
        "perf " + example() + " --hw h200"}) {
    auto r = test::run_cli(command + " --verbose");
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_NE(r.err.find("modelanalyzer: ["), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find(" ms] "), std::string::npos) << command << ": " << r.err;
    EXPECT_EQ(test::run_cli(command).err.find("modelanalyzer: ["), std::string::npos) << command;
    EXPECT_EQ(test::run_cli(command + " --verbose --quiet").err.find("modelanalyzer: ["), std::string::npos)
        << command;
  }
}

// A snapshot huggingface_hub wrote (refs/main, snapshots/{commit}/ links into blobs/, no file list of ours)
// is read offline as the files it holds: the same inventory as the directory itself, with a note.
TEST(CliReport, OfflineReadsASnapshotAnotherToolWrote) {
  test::TempDir cache;
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  const auto repo = cache / "hub" / "models--org--tiny";  // isolated_hub_env: HF_HUB_CACHE is {dir}/hub
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "snapshots" / commit);
  test::write_file(repo / "refs" / "main", commit);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(test::example_dir() / f, repo / "blobs" / f);
    fs::create_symlink(fs::path("../../blobs") / f, repo / "snapshots" / commit / f);
  }
  const std::string env = test::isolated_hub_env("http://127.0.0.1:9", cache.path()) + " HF_HUB_OFFLINE=1";
  auto r = test::run_cli_env(env, "tensors org/tiny --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("read from the files of the cache snapshot 0123456789ab"), std::string::npos) << r.err;
  auto local = test::run_cli("tensors " + example() + " --json");
  const auto a = json::Document::parse(r.out, "snapshot"), b = json::Document::parse(local.out, "local");
  EXPECT_EQ(*a.root().find("num_parameters")->as_uint(), *b.root().find("num_parameters")->as_uint());
  EXPECT_EQ(a.root().find("tensors")->items().size(), b.root().find("tensors")->items().size());
  // No snapshot for another ref: a clear error, not a guess.
  EXPECT_EQ(test::run_cli_env(env, "tensors org/tiny@dev").exit_code, 8);
}

// stats reads the weights of downloaded snapshots only: a revision never downloaded is exit 8 saying what to
// run (it once said "offline", though nothing was), and the snapshot that is there is read.
TEST(CliReport, StatsOfARevisionNotDownloadedSaysToDownloadIt) {
  test::TempDir cache;
  const std::string commit = "89abcdef0123456789abcdef0123456789abcdef";
  const auto repo = cache / "hub" / "models--org--tiny";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / commit);
  test::write_file(repo / "refs" / "main", commit);
  for (const char* f : {"config.json", "model.safetensors"})
    fs::copy_file(test::example_dir() / f, repo / "snapshots" / commit / f);
  const std::string env = test::isolated_hub_env("http://127.0.0.1:9", cache.path());
  auto absent = test::run_cli_env(env, "stats org/tiny@v2");
  EXPECT_EQ(absent.exit_code, 8) << absent.err;
  EXPECT_NE(absent.err.find(
                "org/tiny@v2 is not downloaded: run `modelanalyzer download org/tiny@v2 --needed` first"),
            std::string::npos)
      << absent.err;
  EXPECT_EQ(absent.err.find("offline"), std::string::npos) << absent.err;
  auto present = test::run_cli_env(env, "stats org/tiny --json");
  EXPECT_EQ(present.exit_code, 0) << present.err;
}

// Kernel support is the architecture's: Gemma-2's attn_logit_softcapping rules SDPA out (no soft-capping
// hook) and leaves FlashAttention-2 (softcap), in console and JSON alike.
TEST(CliReport, KernelSupportFollowsTheArchitecture) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", R"({"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"],
    "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000, "attn_logit_softcapping": 50.0,
    "torch_dtype": "bfloat16"})");
  auto r = test::run_cli("'" + tmp.path().string() + "' --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  std::map<std::string, bool> supported;
  for (const json::Value& k : doc.root().find("attention")->find("kernels")->items())
    supported[std::string(k.find("kernel")->as_string())] = k.find("supported")->as_bool();
  EXPECT_EQ(supported, (std::map<std::string, bool>{{"FlashAttention-2", true}, {"SDPA", false}}));
  auto console = test::run_cli("'" + tmp.path().string() + "' --skip-tokenizer");
  EXPECT_NE(console.out.find("SDPA                      no — no hook for logit soft-capping (50)"),
            std::string::npos)
      << console.out;
}

// The diagram's path is said (on stderr, with the other notes), except under --quiet.
TEST(CliReport, VisualizeSaysWhereTheDiagramWent) {
  test::TempDir tmp;
  const std::string svg = (tmp / "arch.svg").string();
  auto r = test::run_cli(example() + " --visualize --viz-output '" + svg + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: diagram written to " + svg), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(svg));
  auto quiet = test::run_cli(example() + " --visualize --viz-output '" + svg + "' --quiet");
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_TRUE(quiet.err.empty()) << quiet.err;
}

// An encoder-decoder's diagrams: the decoder's kind of layer is written whole (broken after a " + ", it was
// cut to "Attention + Cross-attenti…"), the layer pattern names the cross-attention, and the input fits its
// box.
TEST(CliReport, EncoderDecoderDiagramsCutNoLabel) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", tiny_t5_config(2));
  for (const char* style : {"detailed", "simple"}) {
    auto r = test::run_cli(test::quoted(tmp.path()) + " --skip-tokenizer --visualize --viz-style " + style +
                           " --viz-output -");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* cut : {"Cross-attenti…", "token…", "target ids…"})
      EXPECT_EQ(r.out.find(cut), std::string::npos) << style << ": " << cut;
    EXPECT_NE(r.out.find("source + target ids"), std::string::npos) << style;
    if (std::string(style) == "detailed") {
      EXPECT_NE(r.out.find(">Cross-attention + MLP<"), std::string::npos);
      EXPECT_NE(r.out.find("identical: MHA attention + cross-attention + MLP"), std::string::npos);
    }
  }
}

TEST(CliReport, BadOptionsAreUsageErrorsAndWriteNothing) {
  test::TempDir tmp;
  std::string out = " --export '" + (tmp / "x.json").string() + "'";
  for (const char* bad : {" --batch 0", " --batch x", " --context -5", " --kv-dtype q3", " --viz-style fancy",
                          " --frob", " --export"}) {
    auto r = test::run_cli(example() + bad + (std::string(bad) == " --export" ? "" : out));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp / "x.json"));
  auto missing = test::run_cli("'" + (tmp / "nope").string() + "'" + out);
  EXPECT_EQ(missing.exit_code, 8);
  EXPECT_FALSE(fs::exists(tmp / "x.json")) << "no export when the analysis fails";
}

TEST(CliReport, TokenIsNeverPrinted) {
  test::TempDir tmp;
  const std::string sentinel = "hf_SENTINELtoken1234567890";
  auto r = test::run_cli(example() + " --token " + sentinel + " --json --export '" +
                         (tmp / "a.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(sentinel), std::string::npos);
  EXPECT_EQ(r.err.find(sentinel), std::string::npos);
  EXPECT_EQ(test::read_file(tmp / "a.json").find(sentinel), std::string::npos);
}

}  // namespace
}  // namespace ma

namespace ma {
namespace {

// Catalogue rows J1/J3/J4 as they reach the report: one clear line, a documented exit code, no crash.
TEST(CliReport, HostileConfigsAreCleanErrors) {
  test::TempDir tmp;
  struct Case {
    std::string config;
    int exit_code;
    std::string needle;
  };
  const std::vector<Case> cases = {
      // Past the layer cap however far: the limit (exit 5), as 1,025 layers is.
      {R"({"model_type":"llama","num_hidden_layers":1000000000000})", 5, "num_hidden_layers"},
      {R"({"model_type":"llama","hidden_size":"4096"})", 3, "hidden_size"},
      {R"({"model_type":"llama","num_attention_heads":0})", 3, "num_attention_heads"},
      {R"({"model_type":"llama","vocab_size":1e400})", 3, "out of range"},
      {"{\"model_type\":\"llama\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}", 3,
       "nesting"},
      {R"({"model_type":"llama",)", 3, "JSON"},
      {R"([1,2,3])", 3, "JSON object"},
  };
  for (const Case& c : cases) {
    test::write_file(tmp / "config.json", c.config);
    auto r = test::run_cli("'" + tmp.path().string() + "' --skip-tokenizer");
    EXPECT_EQ(r.exit_code, c.exit_code) << c.config.substr(0, 80) << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("config.json"), std::string::npos) << "names the file: " << r.err;
  }
  // Missing fields take the family's defaults (LlamaConfig: 32 layers of 4096).
  test::write_file(tmp / "config.json", R"({"model_type":"llama"})");
  auto ok = test::run_cli("'" + tmp.path().string() + "' --json --skip-tokenizer");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto doc = json::Document::parse(ok.out, "stdout");
  EXPECT_EQ(*doc.root().find("architecture")->find("num_hidden_layers")->as_uint(), 32u);
}

}  // namespace
}  // namespace ma

namespace ma {
namespace {

// An architecture without a template: the report still names it and reads its tokenizer and context, says
// "unsupported architecture", and leaves parameters and memory unknown (null), never zero or guessed.
TEST(CliReport, UnsupportedArchitectureIsReportedNotGuessed) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", R"({"model_type": "chatglm", "architectures": ["ChatGLMModel"],
    "num_layers": 28, "hidden_size": 4096, "seq_length": 32768, "torch_dtype": "float16"})");
  auto r = test::run_cli("'" + tmp.path().string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("unsupported architecture: chatglm"), std::string::npos) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(doc.root().find("model_family")->as_string(), "ChatGLM");
  EXPECT_TRUE(doc.root().find("num_parameters")->is_null());
  EXPECT_TRUE(doc.root().find("memory")->is_null());
  auto console = test::run_cli("'" + tmp.path().string() + "'");
  EXPECT_NE(console.out.find("parameters                unknown"), std::string::npos) << console.out;
  // The tensor inventory cannot exist without a template: that command refuses.
  EXPECT_EQ(test::run_cli("tensors '" + tmp.path().string() + "'").exit_code, 10);
}

// The console report lists the tokenizer's warnings in its Tokenizer section. On a terminal that shows stdout
// and stderr alike (run here under script(1), which gives the command a pseudo-terminal) they appear once, in
// the section, not also as warning lines above the report; with stdout redirected, stderr still has them.
TEST(CliReport, TokenizerWarningsShowOnceOnATerminal) {
  if (!test::have_tool("script")) GTEST_SKIP() << "script(1) is not installed";
  test::TempDir tmp;
  fs::copy(test::example_dir(), tmp.path(), fs::copy_options::recursive);
  test::write_file(tmp / "tokenizer_config.json",
                   R"({"tokenizer_class": "LlamaTokenizer", "bos_token": ""})");
  const std::string warning = "sets bos_token to \"\" (an empty string)";
  auto count = [&](const std::string& text) {
    size_t n = 0;
    for (size_t at = text.find(warning); at != std::string::npos; at = text.find(warning, at + 1)) ++n;
    return n;
  };
  const std::string command = test::cli_binary() + " " + test::quoted(tmp.path());
  const test::CommandResult tty =
      test::run_shell("NO_COLOR=1 script -qec " + test::quoted(command) + " /dev/null");
  ASSERT_EQ(tty.exit_code, 0) << tty.out << tty.err;
  EXPECT_NE(tty.out.find("TOKENIZER"), std::string::npos) << tty.out;
  EXPECT_EQ(count(tty.out), 1u) << tty.out;
  const test::CommandResult piped = test::run_cli(test::quoted(tmp.path()));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(count(piped.err), 1u) << piped.err;
  EXPECT_EQ(count(piped.out), 1u) << piped.out;
}

}  // namespace
}  // namespace ma
