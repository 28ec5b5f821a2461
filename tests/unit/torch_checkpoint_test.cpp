// PyTorch pickled checkpoints read without running them: every tensor torch.load returns, by path, with its
// shape, dtype, storage offset, strides and storage size as ../shared/data/fixtures/*/EXPECTED.json records
// them (written by torch), and its values (float64 sum and abs-max, gathered through the strides) equal to
// torch's; the malicious pickles refused naming their global, with nothing run; hostile programs written
// here fail with one error, never a crash, hang or leak.
#include "formats/torch_checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/dtype_values.h"
#include "core/error.h"
#include "formats/pickle_machine.h"
#include "io/file_source.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

struct Values {
  double sum = 0, abs_max = 0;
};

// Every element of `t`, visited through its strides (row-major order of its shape).
Values values_of(const FileSource& src, const TorchCheckpointTensor& t) {
  const uint64_t size = dtype_bits(t.dtype) / 8;
  std::string storage;
  src.read_exact(t.data_begin - t.storage_offset * size, t.storage_numel * size, storage);
  Values v;
  std::vector<uint64_t> index(t.shape.size(), 0);
  uint64_t numel = 1;
  for (uint64_t d : t.shape) numel *= d;
  for (uint64_t n = 0; n < numel; ++n) {
    uint64_t at = t.storage_offset;
    for (size_t i = 0; i < index.size(); ++i) at += index[i] * t.stride[i];
    uint64_t bits = 0;
    std::memcpy(&bits, storage.data() + at * size, size);
    const double x = element_value(t.dtype, bits);
    v.sum += x;
    v.abs_max = std::max(v.abs_max, std::fabs(x));
    for (size_t i = index.size(); i-- > 0;) {
      if (++index[i] < t.shape[i]) break;
      index[i] = 0;
    }
  }
  return v;
}

std::string torch_dtype_name(DType d) {
  std::string n(dtype_info(d).torch_name);
  return n.substr(n.find('.') + 1);
}

// Each file of a fixture's EXPECTED.json "files": the same tensors, in the same order, exactly.
void expect_fixture(const std::string& fixture) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *data / "fixtures" / fixture;
  const json::Document expected = test::parse_json_file(dir / "EXPECTED.json");
  for (const json::Member& file : expected.root().find("files")->members()) {
    SCOPED_TRACE(fixture + "/" + std::string(file.key));
    const FileSource src(dir / std::string(file.key));
    const TorchCheckpoint ck = read_torch_checkpoint(src);
    const auto& want = file.value.items();
    ASSERT_EQ(ck.tensors.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const json::Value& w = want[i];
      const TorchCheckpointTensor& t = ck.tensors[i];
      EXPECT_EQ(t.path, w.find("path")->as_string());
      Shape shape, stride;
      for (const json::Value& d : w.find("shape")->items()) shape.push_back(*d.as_uint());
      for (const json::Value& d : w.find("stride")->items()) stride.push_back(*d.as_uint());
      EXPECT_EQ(t.shape, shape) << t.path;
      EXPECT_EQ(t.stride, stride) << t.path;
      EXPECT_EQ(torch_dtype_name(t.dtype), w.find("dtype")->as_string()) << t.path;
      EXPECT_EQ(t.storage_offset, *w.find("storage_offset")->as_uint()) << t.path;
      EXPECT_EQ(t.storage_numel, *w.find("storage_numel")->as_uint()) << t.path;
      const Values v = values_of(src, t);
      const double sum = w.find("sum_f64")->as_double();
      EXPECT_NEAR(v.sum, sum, 1e-9 * std::max(1.0, std::fabs(sum))) << t.path;
      EXPECT_EQ(v.abs_max, w.find("abs_max")->as_double()) << t.path;
    }
  }
}

TEST(TorchCheckpoint, StorageViewsTiesAndEveryDtype) {
  expect_fixture("pickle-storage-views");
  const auto data = test::shared_data();
  if (!data) return;
  const TorchCheckpoint ck =
      read_torch_checkpoint(FileSource(*data / "fixtures/pickle-storage-views/weights.pt"));
  EXPECT_EQ(ck.format, "pytorch zip");
  for (const TorchCheckpointTensor& t : ck.tensors) {
    if (t.path == "lm_head.weight") {
      EXPECT_TRUE(t.shares_storage) << "one storage with embed.weight";
    } else if (t.path == "k.weight") {
      EXPECT_FALSE(t.contiguous) << "a transposed view";
      EXPECT_TRUE(t.dense) << "its elements are exactly 32 consecutive ones of the storage";
    } else if (t.path == "q.weight") {
      EXPECT_TRUE(t.contiguous);
    }
  }
}

TEST(TorchCheckpoint, LegacyFormat) {
  expect_fixture("tiny-gpt2-legacy-bin");
}

TEST(TorchCheckpoint, ShardedZipFormat) {
  expect_fixture("tiny-llama-bin-sharded");
}

TEST(TorchCheckpoint, TrainingCheckpointFindsTheModelStateDict) {
  expect_fixture("tiny-llama-training-ckpt");
  const auto data = test::shared_data();
  if (!data) return;
  const TorchCheckpoint ck =
      read_torch_checkpoint(FileSource(*data / "fixtures/tiny-llama-training-ckpt/checkpoint.pt"));
  EXPECT_EQ(ck.state_dict_path, "model_state_dict");
}

TEST(TorchCheckpoint, MaliciousPicklesAreRefusedNamingTheGlobal) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *data / "fixtures/pickle-malicious";
  const fs::path pwned = "/tmp/PWNED_BY_PICKLE";
  std::error_code ec;
  fs::remove(pwned, ec);
  for (const auto& [file, global] :
       {std::pair{"os-system.bin", "posix.system"}, std::pair{"builtins-eval.pt", "builtins.eval"},
        std::pair{"whole-module.pth", "__main__.CustomModule"},
        std::pair{"plain-pickle-exec.pkl", "posix.system"}}) {
    try {
      read_torch_checkpoint(FileSource(dir / file));
      ADD_FAILURE() << file << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsafe) << file << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(global), std::string::npos) << file << ": " << e.what();
      // The offset is the file's (a zip checkpoint's pickle is a member some bytes in): there, the opcode
      // that names it: GLOBAL, "c<module>\n<name>\n" (protocol 2 writes Python 2's __builtin__), or
      // STACK_GLOBAL (protocol 4), whose strings come before it.
      const std::string bytes = test::read_file(dir / file);
      ASSERT_TRUE(e.offset()) << file;
      ASSERT_LT(*e.offset(), bytes.size()) << file;
      const size_t at = *e.offset();
      if (bytes[at] == '\x93') continue;
      ASSERT_EQ(bytes[at], 'c') << file;
      const size_t module_end = bytes.find('\n', at), name_end = bytes.find('\n', module_end + 1);
      ASSERT_NE(name_end, std::string::npos) << file;
      std::string named = bytes.substr(at + 1, module_end - at - 1) + "." +
                          bytes.substr(module_end + 1, name_end - module_end - 1);
      if (named.rfind("__builtin__.", 0) == 0) named.replace(0, 11, "builtins");
      EXPECT_EQ(named, global) << file;
    }
  }
  EXPECT_FALSE(fs::exists(pwned)) << "a payload ran";
}

// ---- hostile programs, written here

// Protocol 2, then `body` (a std::string literal: programs hold NUL bytes).
std::string program(const std::string& body) {
  return "\x80\x02" + body;
}

void expect_error(const std::string& bytes, ErrorKind kind) {
  try {
    run_pickle(bytes, 0, "test.pkl", {});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
  }
}

TEST(PickleMachine, BrokenProgramsFailWithOneError) {
  expect_error(program("]q\x00"s), ErrorKind::Malformed);             // no STOP
  expect_error(program("h\x05."s), ErrorKind::Malformed);             // memo entry never stored
  expect_error(program("a."s), ErrorKind::Malformed);                 // APPEND on an empty stack
  expect_error(program("X\xff\xff\xff\x7f"s), ErrorKind::Malformed);  // a 2 GB string in 6 bytes
  expect_error(program("\xff."s), ErrorKind::Malformed);              // not an opcode
  expect_error(program("cos\nsystem\n."s), ErrorKind::Unsafe);
  expect_error(program("\x8c\x08"
                       "builtins"
                       "\x8c\x04"
                       "eval"
                       "\x93."s),
               ErrorKind::Unsafe);                                                 // STACK_GLOBAL
  expect_error(program("ccollections\nOrderedDict\n)\x81."s), ErrorKind::Unsafe);  // NEWOBJ
}

TEST(PickleMachine, ValuesAndLimits) {
  // A list that contains itself: built, and walked without looping (the walker keeps a seen set).
  const PickleResult r = run_pickle(program("]q\x00h\x00"
                                            "a."s),
                                    0, "t.pkl", {});
  ASSERT_EQ(r.value->kind, PickleValue::Kind::List);
  EXPECT_EQ(r.value->items.at(0), r.value);
  // Integers: BININT is signed, LONG1 sign-extends, BINFLOAT is big-endian.
  const PickleResult n = run_pickle(
      program("(J\xfe\xff\xff\xff\x8a\x01\xffG\x3f\xf8\x00\x00\x00\x00\x00\x00t."s), 0, "t.pkl", {});
  ASSERT_EQ(n.value->items.size(), 3u);
  EXPECT_EQ(n.value->items[0]->integer, -2);
  EXPECT_EQ(n.value->items[1]->integer, -1);
  EXPECT_EQ(n.value->items[2]->number, 1.5);
  // A program that builds more values than allowed stops at the cap.
  std::string many = "(";
  for (int i = 0; i < 100; ++i) many += "N";
  try {
    run_pickle(program(many + "l."), 0, "t.pkl", {}, PickleLimits{50});
    ADD_FAILURE() << "no limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
  // OrderedDict(pairs) copies its pairs: called K times on one memoized list of 10 pairs, the copies count
  // against the cap as values built do (5 calls fit 100 values, 10 do not), where they cost nothing and a
  // 200 KB file built 1.6 GB of dicts.
  auto ordered_dicts = [](int calls) {
    std::string p =
        "ccollections\nOrderedDict\nq\x01"  // the global, memoized
        "0]q\x00("s;                        // popped; the list of pairs
    for (int i = 0; i < 10; ++i) p += "K\x01K\x02\x86";
    p += "e";
    for (int i = 0; i < calls; ++i) p += "h\x01h\x00\x85R0"s;
    return program(p + ".");
  };
  EXPECT_EQ(run_pickle(ordered_dicts(5), 0, "t.pkl", {}, PickleLimits{100}).value->items.size(), 10u);
  try {
    run_pickle(ordered_dicts(10), 0, "t.pkl", {}, PickleLimits{100});
    ADD_FAILURE() << "no limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
}

}  // namespace
}  // namespace ma
