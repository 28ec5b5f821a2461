// PyTorch checkpoints through the command line: counts equal to what torch's writers recorded
// (EXPECTED.json), the format named in tensors --json, storages counted once and ties named, statistics equal
// to those of the same weights as safetensors, and malicious pickles refused with exit 4 and one line, with
// nothing run.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include "cli_test_support.h"
#include "core/json.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> fixtures() {
  const auto data = test::shared_data();
  return data ? std::optional<fs::path>(*data / "fixtures") : std::nullopt;
}

json::Document tensors_json(const fs::path& model) {
  const auto r = test::run_cli("tensors " + test::quoted(model) + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "stdout");
}

TEST(CliPytorch, CountsEqualWhatTorchRecorded) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  for (const auto& [dir, key, format] :
       {std::tuple{"tiny-llama-fp32-bin", "num_params", "pytorch zip"},
        std::tuple{"tiny-gpt2-legacy-bin", "num_params", "pytorch legacy"},
        std::tuple{"tiny-llama-bin-sharded", "num_params", "pytorch zip"},
        std::tuple{"tiny-llama-training-ckpt", "num_params_model_state_dict", "pytorch zip"}}) {
    SCOPED_TRACE(dir);
    const json::Document expected = test::parse_json_file(*f / dir / "EXPECTED.json");
    const json::Document d = tensors_json(*f / dir);
    EXPECT_EQ(d.root().find("num_parameters")->as_uint(), expected.root().find(key)->as_uint());
    EXPECT_EQ(d.root().find("origin")->as_string(), "headers");
    EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), format);
    EXPECT_TRUE(d.root().find("checkpoint")->find("bytes_exact")->as_bool());
  }
}

TEST(CliPytorch, TrainingCheckpointSaysWhatIsNotTheModel) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  const auto r = test::run_cli("tensors " + test::quoted(*f / "tiny-llama-training-ckpt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("63 tensors outside its state dict 'model_state_dict'"), std::string::npos) << r.err;
}

TEST(CliPytorch, StatisticsEqualThoseOfTheSafetensorsCopy) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  // tiny-llama-bin-sharded holds tiny-llama's tensors (bf16) in two zip shards.
  const auto a = test::run_cli("stats " + test::quoted(*f / "tiny-llama") + " --json");
  const auto b = test::run_cli("stats " + test::quoted(*f / "tiny-llama-bin-sharded") + " --json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const json::Document da = json::Document::parse(a.out, "a"), db = json::Document::parse(b.out, "b");
  std::map<std::string, std::pair<double, double>> of_a;
  for (const json::Value& t : da.root().find("tensors")->items())
    of_a[std::string(t.find("name")->as_string())] = {t.find("mean")->as_double(),
                                                      t.find("l2_norm")->as_double()};
  size_t compared = 0;
  for (const json::Value& t : db.root().find("tensors")->items()) {
    auto it = of_a.find(std::string(t.find("name")->as_string()));
    ASSERT_NE(it, of_a.end()) << t.find("name")->as_string();
    EXPECT_EQ(t.find("mean")->as_double(), it->second.first) << it->first;
    EXPECT_EQ(t.find("l2_norm")->as_double(), it->second.second) << it->first;
    ++compared;
  }
  EXPECT_EQ(compared, of_a.size());
}

// The same weights as safetensors and as a sharded zip pickle compare as identical, element by element: the
// pickle's storages are found at their exact offsets.
TEST(CliPytorch, ComparedWithItsSafetensorsCopyEveryElementIsEqual) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  const auto r = test::run_cli("compare " + test::quoted(*f / "tiny-llama") + " " +
                               test::quoted(*f / "tiny-llama-bin-sharded") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("compared")->as_uint(), 21u);
  for (const json::Value& t : d.root().find("tensors")->items())
    EXPECT_EQ(t.find("max_abs_diff")->as_double(), 0.0) << t.find("name")->as_string();
}

// A transposed view (k.weight: shape [4, 8], strides [1, 4]) holds exactly 32 consecutive elements of its
// storage: its order-free statistics are those elements', equal to what torch computed.
TEST(CliPytorch, TransposedViewsHaveStatistics) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *f / "pickle-storage-views";
  const auto r = test::run_cli("stats " + test::quoted(dir / "weights.pt") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const json::Document expected = test::parse_json_file(dir / "EXPECTED.json");
  double want = 0;
  for (const json::Value& t : expected.root().find("files")->find("weights.pt")->items())
    if (t.find("path")->as_string() == "k.weight") want = t.find("sum_f64")->as_double();
  bool found = false;
  for (const json::Value& t : d.root().find("tensors")->items())
    if (t.find("name")->as_string() == "k.weight") {
      found = true;
      EXPECT_NEAR(t.find("mean")->as_double() * 32, want, 1e-9 * std::fabs(want));
    }
  EXPECT_TRUE(found) << r.out;
}

// A file holds each storage whole, once, whatever its views cover: the checkpoint's bytes are the storages'
// (here told apart by dtype and size, as the fixture's README describes them: embed.weight and
// lm_head.weight one storage, q.weight and k.weight views into whole's). The first tensor of a storage
// carries its bytes; lm_head.weight, the same view as embed.weight, is a tie that names it.
TEST(CliPytorch, StoragesCountOnceAndATieNamesItsTensor) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *f / "pickle-storage-views";
  const json::Document expected = test::parse_json_file(dir / "EXPECTED.json");
  const std::map<std::string, uint64_t> element_bytes = {{"float32", 4}, {"float16", 2}, {"bfloat16", 2},
                                                         {"int8", 1},    {"bool", 1},    {"int64", 8},
                                                         {"float64", 8}};
  std::map<std::pair<std::string, uint64_t>, uint64_t> storages;
  for (const json::Value& t : expected.root().find("files")->find("weights.pt")->items()) {
    const std::string dtype(t.find("dtype")->as_string());
    const uint64_t numel = *t.find("storage_numel")->as_uint();
    storages[{dtype, numel}] = numel * element_bytes.at(dtype);
  }
  uint64_t want = 0;
  for (const auto& [key, bytes] : storages) want += bytes;
  const json::Document d = tensors_json(dir / "weights.pt");
  EXPECT_EQ(d.root().find("checkpoint")->find("bytes")->as_uint(), want);
  std::map<std::string, const json::Value*> rows;
  for (const json::Value& t : d.root().find("tensors")->items())
    rows[std::string(t.find("name")->as_string())] = &t;
  uint64_t views = 0;
  for (const char* name : {"q.weight", "k.weight", "whole"})
    views += *rows.at(name)->find("bytes")->as_uint();
  EXPECT_EQ(views, 96u * 4);
  const json::Value& tie = *rows.at("lm_head.weight");
  EXPECT_EQ(tie.find("tied_to")->as_string(), "embed.weight");
  EXPECT_EQ(tie.find("parameters")->as_uint(), 0u);
  EXPECT_EQ(tie.find("bytes")->as_uint(), 0u);
  EXPECT_TRUE(rows.at("embed.weight")->find("tied_to")->is_null());
}

// A tensor name is printed and written as JSON unchanged, and names one tensor: a key with an escape
// sequence, and the keys 0 and "0" (both named "0"), are refused (exit 3) rather than printed raw or counted
// twice. The checkpoints are written by a script with Python's standard library only.
TEST(CliPytorch, KeysThatAreNotPlainTextOrNameTwoTensorsAreRefused) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "/usr/bin/python3 is not installed";
  test::TempDir tmp;
  const fs::path script = fs::path(MA_SOURCE_DIR) / "tests" / "support" / "write_torch_zip.py";
  const auto tensors_of = [&](const std::string& keys) {
    const auto w = test::run_shell("/usr/bin/python3 " + test::quoted(script) + " " +
                                   test::quoted(tmp / "m.pt") + " " + keys);
    EXPECT_EQ(w.exit_code, 0) << w.err;
    return test::run_cli("tensors " + test::quoted(tmp / "m.pt"));
  };
  EXPECT_EQ(tensors_of("w b").exit_code, 0);
  auto r = tensors_of("w 'x\\x1b[2J'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("key 'x\\x1b[2J': not UTF-8 text without control characters"), std::string::npos)
      << r.err;
  r = tensors_of("int:0 0");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("tensor '0': two tensors have this name"), std::string::npos) << r.err;
  // A byteorder record other than "little" is not read as it is (the reliability catalogue's P15: exit 3).
  r = tensors_of("--byteorder big w");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("byteorder: 'big': a big-endian checkpoint"), std::string::npos) << r.err;
  r = tensors_of("--byteorder middle w");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("'middle': neither 'little' nor 'big'"), std::string::npos) << r.err;
}

// Pickles assembled by hand to read otherwise than torch.load does, or to make a small file cost much: each
// is refused (or read as torch reads it) in one line, in well under a second.
TEST(CliPytorch, HandAssembledPicklesAreReadAsTorchReadsThemOrRefused) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "/usr/bin/python3 is not installed";
  test::TempDir tmp;
  const fs::path script = fs::path(MA_SOURCE_DIR) / "tests" / "support" / "write_hostile_torch_zip.py";
  const auto tensors_of = [&](const std::string& mode) {
    const fs::path file = tmp / (mode + ".pt");
    const auto w =
        test::run_shell("/usr/bin/python3 " + test::quoted(script) + " " + test::quoted(file) + " " + mode);
    EXPECT_EQ(w.exit_code, 0) << w.err;
    return test::run_cli_timeout(10, "tensors " + test::quoted(file) + " --json");
  };
  struct Refusal {
    const char* mode;
    int exit_code;
    const char* says;
  };
  for (const Refusal& c : {
           // torch takes the archive's folder from the first member: its data.pkl, not an earlier listed one.
           Refusal{"prefix", 4, "'os.system' is not allowed"},
           Refusal{"no-folder", 3, "the first member is in no folder"},
           // BUILD would re-set the tensor's view (torch's set_): refused, not read as the view before it.
           Refusal{"build", 3, "BUILD on a tensor"},
           Refusal{"long-key", 5, "a key over 4 KiB"},
           // A member that runs past the end of the file is malformed (exit 3), whatever size it claims.
           Refusal{"size-lie", 3, "past the end of the file"},
       }) {
    const auto r = tensors_of(c.mode);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.mode << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.mode << ": " << r.err;
    EXPECT_LT(r.err.size(), 600u) << c.mode << ": one line, a long key cut short";
  }
  // OrderedDict(pairs) holds its pairs, as torch reads it.
  auto r = tensors_of("ordered-pairs");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::Document::parse(r.out, "stdout").root().find("num_parameters")->as_uint(), 2u);
  // One 1 MB key named by 10,000 entries of plain numbers: no path is built for them (it took 22 s).
  const auto start = std::chrono::steady_clock::now();
  r = tensors_of("shared-key");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
}

// A complex128 tensor is what torch.load(weights_only=True) reads: not an attack (exit 4, "not allowed") but
// a storage whose element type is not read here (exit 10). torch itself writes it.
TEST(CliPytorch, AStorageTorchAdmitsButWeDoNotReadIsUnsupportedNotUnsafe) {
  if (test::run_shell("/usr/bin/python3 -c 'import torch'").exit_code != 0)
    GTEST_SKIP() << "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)";
  test::TempDir tmp;
  const auto w = test::run_shell(
      "/usr/bin/python3 -c \"import torch; torch.save({'c': torch.zeros(3, "
      "dtype=torch.complex128)}, '" +
      (tmp / "c.pt").string() + "')\"");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const auto r = test::run_cli("tensors " + test::quoted(tmp / "c.pt"));
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_NE(r.err.find("torch.ComplexDoubleStorage: a storage torch.load(weights_only=True) reads"),
            std::string::npos)
      << r.err;
}

// 100,000 names for one view of one storage: 99,999 ties, found by lookup (compared with every earlier view
// of the storage, they took quadratic time), each naming the first.
TEST(CliPytorch, AStorageViewedAHundredThousandTimesIsReadInLinearTime) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "/usr/bin/python3 is not installed";
  test::TempDir tmp;
  const fs::path script = fs::path(MA_SOURCE_DIR) / "tests" / "support" / "write_torch_zip.py";
  ASSERT_EQ(test::run_shell("/usr/bin/python3 " + test::quoted(script) + " " + test::quoted(tmp / "v.pt") +
                            " --views 100000")
                .exit_code,
            0);
  const auto r = test::run_cli_timeout(60, "tensors " + test::quoted(tmp / "v.pt") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), 2u);
  EXPECT_EQ(test::occurrences(r.out, "\"tied_to\":\"w0\""), 99'999u);
}

// Without ../shared too: a pickle written here whose REDUCE would call posix.system("touch ...") is refused
// at its GLOBAL, under every name torch.save uses, before anything could run.
TEST(CliPytorch, AHandWrittenMaliciousPickleIsRefusedEverywhere) {
  test::TempDir tmp;
  const fs::path marker = tmp / "PWNED";
  const std::string arg = marker.string();
  std::string pickle =
      "\x80\x02"
      "cposix\nsystem\nq\x00X";
  for (int i = 0; i < 4; ++i) pickle += static_cast<char>(((arg.size() + 6) >> (8 * i)) & 0xff);
  pickle += "touch " + arg + "q\x01\x85q\x02Rq\x03.";
  for (const char* name : {"pytorch_model.bin", "model.pt", "weights.pth", "last.ckpt"}) {
    test::write_file(tmp / name, pickle);
    const auto r = test::run_cli("tensors " + test::quoted(tmp / name));
    EXPECT_EQ(r.exit_code, 4) << name << ": " << r.err;
    EXPECT_EQ(test::occurrences(r.err, "\n"), 1u) << r.err;
    EXPECT_NE(r.err.find("global 'posix.system' is not allowed"), std::string::npos) << r.err;
    fs::remove(tmp / name);
  }
  EXPECT_FALSE(fs::exists(marker)) << "the payload ran";
}

TEST(CliPytorch, MaliciousPicklesExitFourAndRunNothing) {
  const auto f = fixtures();
  if (!f) GTEST_SKIP() << "../shared/data not present";
  std::error_code ec;
  fs::remove("/tmp/PWNED_BY_PICKLE", ec);
  for (const char* file : {"os-system.bin", "builtins-eval.pt", "whole-module.pth"}) {
    for (const char* command : {"tensors", "stats", ""}) {
      const auto r = test::run_cli(std::string(command) + " " + test::quoted(*f / "pickle-malicious" / file));
      EXPECT_EQ(r.exit_code, 4) << command << " " << file << ": " << r.err;
      EXPECT_EQ(test::occurrences(r.err, "\n"), 1u) << r.err;
      EXPECT_NE(r.err.find("is not allowed"), std::string::npos) << r.err;
    }
  }
  EXPECT_FALSE(fs::exists("/tmp/PWNED_BY_PICKLE")) << "a payload ran";
}

}  // namespace
}  // namespace ma
