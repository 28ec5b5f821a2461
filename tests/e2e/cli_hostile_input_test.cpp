// Hostile inputs around the parsers, end to end: FIFOs where files should be (must not hang), a tiny config
// asking for a million layers (must not allocate for them), Ctrl-C during the 32-bit statistics path, paths
// that are not UTF-8, weight files cut short, an index whose shards are all missing, and impossible parallel
// splits. (A second Ctrl-C ending the process: unit/interrupt_test.cpp.)
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cli_test_support.h"
#include "formats/gguf_writer.h"
#include "formats/safetensors_writer.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// A copy of the built-in example with `name` replaced by a FIFO nobody writes to.
void example_with_fifo(const fs::path& dir, const std::string& name) {
  fs::copy(example_dir(), dir, fs::copy_options::recursive);
  fs::remove(dir / name);
  fs::create_directories((dir / name).parent_path());
  ASSERT_EQ(::mkfifo((dir / name).c_str(), 0600), 0);
}

TEST(HostileInput, FifosInTheModelDirectoryAreRefusedNotWaitedOn) {
  for (const std::string name : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                                 "chat_template.jinja", "config.json"}) {
    TempDir dir;
    example_with_fifo(dir / "m", name);
    auto r = run_cli_timeout(20, quoted(dir / "m"));
    EXPECT_NE(r.exit_code, 124) << name << ": the tool waited on a FIFO";
    EXPECT_EQ(r.exit_code, 9) << name << "\n" << r.err;
    EXPECT_NE(r.err.find(name + ": is a FIFO, not a regular file"), std::string::npos) << r.err;
  }
}

TEST(HostileInput, AFifoShardNamedByTheIndexIsRefused) {
  TempDir dir;
  fs::copy(example_dir(), dir / "m", fs::copy_options::recursive);
  // Move the single file into a subdirectory named by an index, and put a FIFO there instead.
  fs::create_directories(dir / "m" / "sub");
  fs::rename(dir / "m" / "model.safetensors", dir / "m" / "real.safetensors");
  ASSERT_EQ(::mkfifo((dir / "m" / "sub" / "model-1.safetensors").c_str(), 0600), 0);
  write_file(dir / "m" / "model.safetensors.index.json",
             R"({"metadata":{},"weight_map":{"model.embed_tokens.weight":"sub/model-1.safetensors"}})");
  fs::remove(dir / "m" / "real.safetensors");
  auto r = run_cli_timeout(20, "tensors " + quoted(dir / "m"));
  EXPECT_NE(r.exit_code, 124) << "the tool waited on a FIFO shard";
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("is a FIFO"), std::string::npos) << r.err;
}

TEST(HostileInput, AMillionLayersIsALimitNotAnAllocation) {
  TempDir dir;
  // Past 2^26, the cap on every other count, and spelled as a float: still the layer limit (exit 5).
  for (const char* layers : {"1000000000000", "1e12", "1000000", "100000", "1025"}) {
    write_file(dir / "config.json", tiny_llama_config(layers));
    const auto start = std::chrono::steady_clock::now();
    auto r = run_cli("tensors " + quoted(dir / "config.json"));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 5) << layers << "\n" << r.err;
    EXPECT_NE(r.err.find("num_hidden_layers: " + std::string(layers) + " layers is implausible"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("fewer than 200"), std::string::npos) << r.err;
    EXPECT_LT(s, 2.0) << layers;
  }
  write_file(dir / "config.json", tiny_llama_config("1024"));
  EXPECT_EQ(run_cli("tensors " + quoted(dir / "config.json") + " --json").exit_code, 0);
}

// 64 layers of 20,000 experts: over the million tensors a template may hold. The error names the config that
// implies them (the cap itself knows no file).
TEST(HostileInput, TooManyExpertsNameTheConfig) {
  TempDir dir;
  write_file(dir / "config.json",
             R"({"model_type":"mixtral","hidden_size":64,"intermediate_size":64,"num_hidden_layers":64,)"
             R"("num_attention_heads":4,"num_key_value_heads":4,"num_local_experts":20000,)"
             R"("num_experts_per_tok":2,"vocab_size":100})");
  auto r = run_cli("tensors " + quoted(dir.path()));
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(
      r.err.find((dir / "config.json").string() + ": its layer and expert counts: the config implies more "
                                                  "than 1000000 tensors"),
      std::string::npos)
      << r.err;
}

// A GGUF whose metadata claims a billion layers and whose one tensor sits at layer 99,999,999: the record
// takes its layers from the tensors, and an index that high is no layer stack, so nothing is sized by either
// number.
TEST(HostileInput, AGgufLayerIndexOfAHundredMillionIsNoAllocation) {
  TempDir dir;
  write_gguf(dir / "m.gguf",
             {gguf_string("general.architecture", "llama"), gguf_u32("llama.block_count", 1000000000),
              gguf_u32("llama.embedding_length", 64), gguf_u32("llama.attention.head_count", 4)},
             {{"blk.99999999.attn_q.weight", DType::F32, {64, 64}, {}}});
  const auto start = std::chrono::steady_clock::now();
  auto r = run_cli("tensors " + quoted(dir / "m.gguf") + " --json");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(s, 2.0);
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), 4096u);
  EXPECT_TRUE(d.root().find("layers")->items().empty());

  // The same through T5's encoder stack, which the record builds beside the decoder's.
  write_gguf(dir / "t5.gguf",
             {gguf_string("general.architecture", "t5"), gguf_u32("t5.embedding_length", 64),
              gguf_u32("t5.attention.head_count", 4)},
             {{"dec.blk.0.attn_q.weight", DType::F32, {64, 64}, {}},
              {"enc.blk.99999999.attn_q.weight", DType::F32, {64, 64}, {}}});
  const auto t5_start = std::chrono::steady_clock::now();
  auto t5 = run_cli(quoted(dir / "t5.gguf") + " --json");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t5_start).count(), 2.0);
  EXPECT_EQ(t5.exit_code, 0) << t5.err;
  EXPECT_EQ(json::Document::parse(t5.out, "stdout").root().find("num_parameters")->as_uint(), 8192u);
}

// A split GGUF whose parts hold another number of tensors than the first announces (split.tensors.count) is
// refused, as llama.cpp refuses it; a tensor stored in two parts is named with both parts' paths.
TEST(HostileInput, SplitGgufPartsMustHoldWhatTheFirstAnnounces) {
  TempDir dir;
  const auto write_split = [&](uint32_t announced, const std::string& second_tensor) {
    write_gguf(
        dir / "m-00001-of-00002.gguf",
        {gguf_string("general.architecture", "llama"), gguf_u32("llama.block_count", 1),
         gguf_u32("llama.embedding_length", 8), gguf_u32("llama.attention.head_count", 2),
         gguf_u32("split.no", 0), gguf_u32("split.count", 2), gguf_u32("split.tensors.count", announced)},
        {{"blk.0.attn_q.weight", DType::F32, {8, 8}, {}}});
    write_gguf(
        dir / "m-00002-of-00002.gguf",
        {gguf_u32("split.no", 1), gguf_u32("split.count", 2), gguf_u32("split.tensors.count", announced)},
        {{second_tensor, DType::F32, {8, 8}, {}}});
  };
  const fs::path first = dir / "m-00001-of-00002.gguf";
  write_split(2, "blk.0.attn_k.weight");
  EXPECT_EQ(run_cli("tensors " + quoted(first)).exit_code, 0);
  write_split(3, "blk.0.attn_k.weight");
  auto r = run_cli("tensors " + quoted(first));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(first.string() + ": split.tensors.count: announces 3 tensors but the 2 parts hold 2"),
            std::string::npos)
      << r.err;
  write_split(2, "blk.0.attn_q.weight");
  r = run_cli("tensors " + quoted(first));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find((dir / "m-00002-of-00002.gguf").string() +
                       ": tensor 'blk.0.attn_q.weight': also stored in " + first.string()),
            std::string::npos)
      << r.err;
}

TEST(HostileInput, ExpertsTimesLayersIsCappedBeforeBuilding) {
  TempDir dir;
  write_file(
      dir / "config.json",
      R"({"model_type":"mixtral","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":4,)"
      R"("intermediate_size":128,"vocab_size":100,"num_hidden_layers":1024,"num_local_experts":4000})");
  const auto start = std::chrono::steady_clock::now();
  auto r = run_cli("tensors " + quoted(dir / "config.json"));
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("more than 1000000 tensors"), std::string::npos) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(HostileInput, CtrlCStopsTheThirtyTwoBitScanPromptly) {
  TempDir dir;
  // 16 GiB of F32 zeros in a sparse file: one tensor, read twice by the 32-bit path (several seconds).
  write_safetensors(dir / "big.safetensors", {{"w", DType::F32, {uint64_t{4} << 30}, {}}});
  const fs::path out = dir / "stats.json";
  const pid_t pid = start_cli(
      {"stats", (dir / "big.safetensors").string(), "--export", out.string(), "--quiet", "--threads", "1"});
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const Interrupted ended = interrupt_cli(pid);
  EXPECT_EQ(ended.exit_code, 130);
  EXPECT_LT(ended.seconds, 1.0) << "the scan went on after Ctrl-C";
  EXPECT_FALSE(fs::exists(out));
}

TEST(HostileInput, ErrorLinesEscapeBytesThatAreNotUtf8) {
  TempDir dir;
  auto r = run_cli("tensors " + quoted(dir / "bad\xff\x1b[31mname"));
  EXPECT_EQ(r.exit_code, 8);
  EXPECT_EQ(r.err.find('\xff'), std::string::npos) << "raw byte printed";
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "escape sequence printed";
  EXPECT_NE(r.err.find("bad\\xff\\x1b[31mname"), std::string::npos) << r.err;
  auto utf8 = run_cli("tensors " + quoted(dir / "модель"));
  EXPECT_NE(utf8.err.find("модель"), std::string::npos) << "valid UTF-8 is kept: " << utf8.err;
}

// A file named like a checkpoint whose bytes open like none (a download cut short) is read as the format its
// name claims, so its reader says what is wrong (exit 3), not the usage error for a file of no model format.
TEST(HostileInput, ATruncatedWeightFileNamedDirectlyIsMalformedNotUnknown) {
  TempDir dir;
  const std::string st = read_file(example_dir() / "model.safetensors");
  ASSERT_GT(st.size(), 1000u);
  write_file(dir / "model.safetensors", st.substr(0, 1000));
  auto r = run_cli("tensors " + quoted(dir / "model.safetensors"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("model.safetensors: header length: header of"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("extends past the end of the file (1000 bytes)"), std::string::npos) << r.err;
  struct Case {
    const char* name;
    const char* says;
  };
  for (const Case& c :
       {Case{"empty.safetensors", "file too small to be safetensors"}, Case{"model.gguf", "not a GGUF file"},
        Case{"pytorch_model.bin", "neither a zip nor a pickle"},
        Case{"checkpoint.pt", "neither a zip nor a pickle"},
        Case{"model.onnx", "not a valid ONNX protobuf"}}) {
    write_file(dir / c.name, std::string(c.name) == "empty.safetensors" ? "" : "garbage, not weights");
    auto g = run_cli("tensors " + quoted(dir / c.name));
    EXPECT_EQ(g.exit_code, 3) << c.name << "\n" << g.err;
    EXPECT_NE(g.err.find(c.says), std::string::npos) << c.name << "\n" << g.err;
  }
  write_file(dir / "notes.txt", "garbage, not weights");
  EXPECT_EQ(run_cli("tensors " + quoted(dir / "notes.txt")).exit_code, 2) << "a name of no weight format";
}

// A FIFO or a device named as the model is refused like one inside a model directory (exit 9), not waited on.
TEST(HostileInput, AFifoOrDeviceNamedAsTheModelIsRefused) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "model.safetensors").c_str(), 0600), 0);
  auto r = run_cli_timeout(20, "tensors " + quoted(dir / "model.safetensors"));
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("is a FIFO, not a regular file or directory"), std::string::npos) << r.err;
  r = run_cli_timeout(20, "/dev/zero");
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("/dev/zero: is a device"), std::string::npos) << r.err;
}

TEST(HostileInput, AnIndexWithoutItsShardsSaysItIsADryRun) {
  TempDir dir;
  fs::copy_file(example_dir() / "config.json", dir / "config.json");
  write_file(dir / "model.safetensors.index.json",
             R"({"metadata":{},"weight_map":{"model.embed_tokens.weight":"model-00001-of-00002.safetensors",)"
             R"("model.norm.weight":"model-00002-of-00002.safetensors"}})");
  auto r = run_cli("tensors " + quoted(dir.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: none of the 2 shards named by model.safetensors.index.json is present"),
            std::string::npos)
      << r.err;
  size_t notes = 0;
  for (size_t at = r.err.find("note:"); at != std::string::npos; at = r.err.find("note:", at + 1)) ++notes;
  EXPECT_EQ(notes, 1u) << r.err;
  EXPECT_NE(r.out.find("\"origin\":\"index+template\""), std::string::npos);
  EXPECT_EQ(run_cli("tensors " + quoted(dir.path()) + " --quiet").err, "");
}

TEST(HostileInput, ParallelSplitsThatCannotDivideAreRefused) {
  const std::string model = example();  // 4 heads, 2 KV heads, 2 layers, dense
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c :
       {Case{" --tp 3", "--tp: 3 cannot split this model"},
        Case{" --tp 1024", "--tp: 1024 cannot split this model"},
        Case{" --pp 3", "--pp: 3 cannot split this model: it has 2 layers"},
        Case{" --pp 4294967297", "--pp: expects an integer from 1 to 65,536"},
        Case{" --ep 2", "--ep: 2 cannot split this model: it has no routed experts"},
        Case{" --batch 1e3", "--batch: expects an integer"}, Case{" --wrf inf", "--wrf: expects a number"},
        // 0 and below break one rule, said one way (the range once read "from 0", as if 0 were allowed).
        Case{" --wrf 0", "--wrf: expects a number above 0 and at most"},
        Case{" --wrf -1", "--wrf: expects a number above 0 and at most"}}) {
    auto r = run_cli("perf " + model + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_EQ(run_cli("perf " + model + " --tp 2 --quiet").exit_code, 0);
  auto top = run_cli("compare " + model + " " + model + " --top 1e30");
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_NE(top.err.find("--top: expects an integer"), std::string::npos) << top.err;
}

}  // namespace
}  // namespace ma::test
