// PyTorch pickled checkpoints read without running them: every tensor torch.load returns, by path, with its
// shape, dtype, storage offset, strides and storage size as ../shared/data/fixtures/*/EXPECTED.json records
// them (written by torch), and its values (float64 sum and abs-max, gathered through the strides) equal to
// torch's; the malicious pickles refused naming their global, with nothing run; hostile programs written
// here fail with one error, never a crash, hang or leak. The layout read from a file's two ends alone (a Hub
// file's, by range requests) is the whole file's, fetched without the storages between them.
#include "formats/torch_checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype_values.h"
#include "core/error.h"
#include "formats/pickle_machine.h"
#include "formats/weight_format.h"
#include "hub/remote_header.h"
#include "io/byte_source.h"
#include "io/file_source.h"
#include "test_support.h"
#include "torch_cases.h"
#include "torch_zip_writer.h"

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

// A protocol-0 pickle (no PROTO opcode: torch never writes one, torch.load reads it) calling os.system was
// called "neither a zip nor a pickle" (exit 3); it is read as the pickle it is and refused for its global
// (exit 4), as the same call at protocol 2 is. Text that merely starts with 'c' is still no pickle.
TEST(TorchCheckpoint, AProtocolZeroPickleIsRefusedForItsGlobal) {
  const std::string evil = "cposix\nsystem\n(S'touch /tmp/PWNED_BY_PROTOCOL_0'\ntR.";
  EXPECT_EQ(sniff_weight_format(MemorySource(evil, "evil.bin")), WeightFormat::PytorchLegacy);
  try {
    read_torch_checkpoint(MemorySource(evil, "evil.bin"));
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsafe) << e.what();
    EXPECT_NE(std::string(e.what()).find("posix.system"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists("/tmp/PWNED_BY_PROTOCOL_0"));
  // Protocol 1 opens with an empty dict memoised.
  EXPECT_EQ(sniff_weight_format(MemorySource(std::string("}q\x00(X\x01\x00\x00\x00au.", 12), "p1.pt")),
            WeightFormat::PytorchLegacy);
  EXPECT_EQ(sniff_weight_format(MemorySource("config = 1", "c.bin")), WeightFormat::Unknown);
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

// A MARK costs one byte and is held until its mark is popped: 150 MB of '(' held 2.3 GB. MARKs are capped
// like the stack, naming the byte of the first one past the cap (after PROTO's two bytes, MARK k is at 2 +
// k).
TEST(PickleMachine, MarksAreCappedLikeTheStack) {
  try {
    run_pickle(program(std::string(101, '(')), 0, "t.pkl", {}, PickleLimits{100});
    ADD_FAILURE() << "no limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit) << e.what();
    EXPECT_NE(std::string(e.what()).find("MARKs nested deeper than the cap"), std::string::npos) << e.what();
    EXPECT_EQ(e.offset(), std::optional<uint64_t>(102));
  }
}

// A legacy checkpoint's pickles are read a prefix at a time: only a program that runs past the prefix asks
// for more (the bytes it needs, counted from the start), any other fault is final at once.
TEST(PickleMachine, APrefixAsksForMoreBytesOnlyWhenItRunsOut) {
  auto needed = [](const std::string& bytes) -> uint64_t {
    try {
      run_pickle(bytes, 0, "t.pkl", {}, {}, true);
    } catch (const PickleNeedsMoreBytes& more) {
      return more.needed;
    }
    ADD_FAILURE() << "asked for nothing";
    return 0;
  };
  EXPECT_EQ(needed(program("(K")), 5u);                          // BININT1's byte, at offset 4
  EXPECT_EQ(needed(program("X\x10\x00\x00\x00"s + "ab")), 23u);  // 16 bytes of text from offset 7
  EXPECT_EQ(needed(program("ctorch\nfloa")), 14u);               // a GLOBAL's name line without its end
  expect_error(program("\xff"s), ErrorKind::Malformed);          // not an opcode: whatever follows
  try {
    run_pickle(program("\xff"s), 0, "t.pkl", {}, {}, true);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed) << e.what();
  }
  expect_error(program("(K"), ErrorKind::Malformed);  // the whole program: it ends before STOP
}

// 3,000,000 MARKs after PROTO 2, read as a legacy checkpoint: the 2,000,001st MARK (at byte 2,000,002) passes
// the cap of 2,000,000, where the whole file's MARKs were held until the pickle ended ("ends before STOP").
TEST(TorchCheckpoint, ALegacyFileOfMarksStopsAtTheCap) {
  const std::string bytes = "\x80\x02" + std::string(3'000'000, '(');
  try {
    read_torch_checkpoint(MemorySource(bytes, "marks.pt"));
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit) << e.what();
    EXPECT_EQ(e.offset(), std::optional<uint64_t>(2'000'002)) << e.what();
  }
}

// ---- the globals torch.load(weights_only=True) admits, as torch 1.13 writes them (memo opcodes left out)

// The arguments of _rebuild_tensor_v2 for a tensor of 2 floats over storage "0", as torch.save writes them:
// ((storage pid), offset 0, size (2,), stride (1,), requires_grad False, OrderedDict()).
std::string admitted_v2_args() {
  return "((X\x07\x00\x00\x00storage"s + "ctorch\nFloatStorage\n" + "X\x01\x00\x00\x00"s + "0" +
         "X\x03\x00\x00\x00"s + "cpuK\x02tQK\x00K\x02\x85K\x01\x85\x89"s + "ccollections\nOrderedDict\n)Rt";
}

// Fills every persistent id with one F32 storage of 2 elements.
void admitted_storage(const PickleValue&, PickleValue& out) {
  out.kind = PickleValue::Kind::Storage;
  out.storage = std::make_shared<TorchStorage>(TorchStorage{DType::F32, "0", 2});
}

PickleValue::Kind admitted_kind(const std::string& body) {
  return run_pickle(program(body + "."), 0, "t.pkl", admitted_storage).value->kind;
}

TEST(PickleMachine, GlobalsTorchAdmitsAreReadAndOthersRefused) {
  using K = PickleValue::Kind;
  // torch 1.13 admits these: a dtype is a value, a layout an inert one.
  EXPECT_EQ(admitted_kind("ctorch\nfloat16\n"), K::Global);
  EXPECT_EQ(admitted_kind("ctorch.serialization\n_get_layout\nX\x0d\x00\x00\x00"s + "torch.strided\x85R"),
            K::Object);
  // A current torch admits these too: a device, a set, a complex number, bytes (protocol 2's _codecs.encode).
  EXPECT_EQ(admitted_kind("ctorch\ndevice\nX\x04\x00\x00\x00"s + "cudaK\x00\x86R"s), K::Object);
  const PickleResult set =
      run_pickle(program("c__builtin__\nset\n](K\x01K\x02" + "e\x85R."s), 0, "t.pkl", {});
  ASSERT_EQ(set.value->kind, K::Set);
  EXPECT_EQ(set.value->items.size(), 2u);
  EXPECT_EQ(
      admitted_kind(
          "c__builtin__\ncomplex\nG\x3f\xf0\x00\x00\x00\x00\x00\x00G\x40\x00\x00\x00\x00\x00\x00\x00\x86R"s),
      K::Object);
  EXPECT_EQ(admitted_kind("c_codecs\nencode\nX\x02\x00\x00\x00"s + "abX\x06\x00\x00\x00"s + "latin1\x86R"),
            K::Object);
  // Tensors: _rebuild_tensor_v2, the same through _rebuild_from_type_v2 (a tensor with Python attributes),
  // and NEWOBJ of Parameter, which torch.load runs as Parameter(*args).
  EXPECT_EQ(admitted_kind("ctorch._utils\n_rebuild_tensor_v2\n" + admitted_v2_args() + "R"), K::Tensor);
  EXPECT_EQ(admitted_kind("ctorch._tensor\n_rebuild_from_type_v2\n(ctorch._utils\n_rebuild_tensor_v2\n"
                          "ctorch\nTensor\n" +
                          admitted_v2_args() + "}tR"),
            K::Tensor);
  EXPECT_EQ(admitted_kind("ctorch.nn.parameter\nParameter\n(ctorch._utils\n_rebuild_tensor_v2\n" +
                          admitted_v2_args() + "R\x88t\x81"s),
            K::Tensor);
  // Rebuilders torch admits whose tensors are not read here: a value that says so (the checkpoint reader
  // refuses it naming the tensor, exit 10).
  const PickleResult meta = run_pickle(
      program("ctorch._utils\n_rebuild_meta_tensor_no_storage\n(ctorch\nfloat32\nK\x02\x85K\x01\x85\x89tR."s),
      0, "t.pkl", {});
  ASSERT_EQ(meta.value->kind, K::Unread);
  EXPECT_NE(meta.value->text.find("a meta tensor"), std::string::npos) << meta.value->text;
  // What torch refuses stays refused, with the same words: a memory format, a function of torch, NEWOBJ of
  // another class.
  for (const std::string& refused : {"ctorch\ncontiguous_format\n."s, "ctorch\nload\n."s,
                                     "cbuiltins\nfrozenset\n."s, "ctorch\nUntyped\n."s}) {
    try {
      run_pickle(program(refused), 0, "t.pkl", {});
      ADD_FAILURE() << refused << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsafe) << e.what();
      EXPECT_NE(std::string(e.what()).find(
                    "is not allowed: only what torch.load(weights_only=True) admits is read, nothing is run"),
                std::string::npos)
          << e.what();
    }
  }
  expect_error(program("ccollections\nOrderedDict\n)\x81."s), ErrorKind::Unsafe);
}

// A checkpoint that keeps its dtype beside the model (torch.load(weights_only=True) of torch 1.13 reads it,
// the script checks) and one with values only a current torch's weights_only reads: their tensors are read,
// the values beside them are not tensors.
TEST(TorchCheckpoint, ValuesTorchAdmitsBesideTheTensorsAreRead) {
  const std::optional<fs::path> stored_dtype = test::torch_case("stored-dtype");
  if (!stored_dtype) GTEST_SKIP() << test::kPython << " with torch is not installed";
  TorchCheckpoint ck = read_torch_checkpoint(FileSource(*stored_dtype));
  ASSERT_EQ(ck.tensors.size(), 2u);
  EXPECT_EQ(ck.state_dict_path, "model");
  EXPECT_EQ(ck.tensors[0].path, "model.w");
  EXPECT_EQ(ck.tensors[1].path, "model.b");
  ck = read_torch_checkpoint(FileSource(*test::torch_case("newer-values")));
  ASSERT_EQ(ck.tensors.size(), 1u);
  EXPECT_EQ(ck.tensors[0].path, "w");
  EXPECT_EQ(ck.tensors[0].shape, Shape{3});
}

// Sparse, meta and quantized tensors torch.load(weights_only=True) reads (torch 1.13 for the first two, the
// script checks; a current torch for the third): not read here, exit 10 naming the tensor, not exit 4.
TEST(TorchCheckpoint, TensorsTorchAdmitsButThisReaderDoesNotAreUnsupportedNamingThem) {
  if (!test::torch_case("sparse")) GTEST_SKIP() << test::kPython << " with torch is not installed";
  for (const auto& [name, says] :
       {std::pair{"sparse", "tensor 's': a sparse tensor"}, std::pair{"meta", "tensor 'm': a meta tensor"},
        std::pair{"quantized", "tensor 'q': a quantized tensor"}}) {
    try {
      read_torch_checkpoint(FileSource(*test::torch_case(name)));
      ADD_FAILURE() << name << " read";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("which torch.load(weights_only=True) admits: not read"),
                std::string::npos)
          << e.what();
    }
  }
}

// ---- storages whose zip members share bytes

// torch.save gives every storage a member of its own. A directory that makes one storage's member run over
// the next one's bytes (a 10 MB file said 5 billion parameters, and stats read them all) is refused, naming
// both members and their byte ranges; and so from the file's two ends (TorchRead::Layout), where a member's
// bytes are known to begin no earlier than its local header's fixed part and name (here, where they do).
TEST(TorchCheckpoint, StorageMembersSharingBytesAreRefused) {
  const std::string pickle = test::float_state_dict_pickle({{"w0", 2}, {"w1", 2}});
  std::vector<test::ZipMember> members = {{"archive/data.pkl", pickle},
                                          {"archive/data/0", test::f32({1, 2})},
                                          {"archive/data/1", test::f32({3, 4})}};
  // data/0's 8 bytes begin after data.pkl's header and bytes and its own 30-byte header and 14-byte name;
  // data/1's 44 bytes after those 8. Said to run on to data/1's end, data/0 holds data/1's bytes too.
  const uint64_t data0 = 30 + 16 + pickle.size() + 30 + 14, data1 = data0 + 8 + 30 + 14;
  const std::string honest = test::stored_zip(members);
  members[1].listed_size = data1 + 8 - data0;
  const std::string overlapping = test::stored_zip(members);
  for (const TorchRead what : {TorchRead::Data, TorchRead::Layout}) {
    // Each member as it is: two tensors.
    EXPECT_EQ(read_torch_checkpoint(MemorySource(honest, "ok.pt"), what).tensors.size(), 2u);
    try {
      read_torch_checkpoint(MemorySource(overlapping, "overlap.pt"), what);
      ADD_FAILURE() << "read";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Malformed) << e.what();
      const std::string expected = "entry 'archive/data/1': its bytes [" + std::to_string(data1) + ", " +
                                   std::to_string(data1 + 8) + ") overlap those of entry 'archive/data/0' [" +
                                   std::to_string(data0) + ", " + std::to_string(data1 + 8) + ")";
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

// ---- the layout from a file's two ends (a Hub file, read by range requests)

struct EndsRead {
  TorchCheckpoint layout;
  uint64_t fetched = 0;  // bytes
  int requests = 0;
};

// The ends of `file` as fetch_torch_ends grows them from its first guess.head bytes and last guess.tail,
// each request served from `file` and counted, and the layout read from them.
EndsRead read_from_ends(std::string_view file, TorchEndsGuess guess) {
  EndsRead r;
  std::string head(file.substr(0, std::min<uint64_t>(file.size(), guess.head)));
  r.fetched = head.size();
  r.requests = 1;
  const std::string packed = grow_torch_ends(std::move(head), guess.tail, file.size(), "remote.pt",
                                             [&](uint64_t begin, uint64_t end) {
                                               ++r.requests;
                                               r.fetched += end - begin;
                                               return std::string(file.substr(begin, end - begin));
                                             });
  const std::optional<HeadAndTail> ends = unpack_head_tail(packed);
  EXPECT_TRUE(ends);
  if (ends)
    r.layout = read_torch_checkpoint(HeadTailSource(ends->head, ends->tail, file.size(), "remote.pt"),
                                     TorchRead::Layout);
  return r;
}

// Everything but the storages' file offsets is the same: from the ends, a tensor's offset is its storage's.
void expect_same_layout(const TorchCheckpoint& whole, const TorchCheckpoint& ends) {
  EXPECT_EQ(ends.format, whole.format);
  EXPECT_EQ(ends.state_dict_path, whole.state_dict_path);
  EXPECT_EQ(ends.storage_bytes, whole.storage_bytes);
  ASSERT_EQ(ends.tensors.size(), whole.tensors.size());
  for (size_t i = 0; i < whole.tensors.size(); ++i) {
    const TorchCheckpointTensor &w = whole.tensors[i], &e = ends.tensors[i];
    SCOPED_TRACE(w.path);
    EXPECT_EQ(e.path, w.path);
    EXPECT_EQ(e.dtype, w.dtype);
    EXPECT_EQ(e.shape, w.shape);
    EXPECT_EQ(e.stride, w.stride);
    EXPECT_EQ(e.storage_offset, w.storage_offset);
    EXPECT_EQ(e.storage_key, w.storage_key);
    EXPECT_EQ(e.storage_numel, w.storage_numel);
    EXPECT_EQ(e.data_begin, e.storage_offset * (dtype_bits(e.dtype) / 8));
    EXPECT_EQ(e.contiguous, w.contiguous);
    EXPECT_EQ(e.dense, w.dense);
    EXPECT_EQ(e.shares_storage, w.shares_storage);
    EXPECT_EQ(e.tied, w.tied);
  }
}

// Three storages of 256 KiB between a small pickle and a small directory: the guess an index's three names
// give brings both in two requests, and none of the storages' bytes.
TEST(TorchCheckpointEnds, TheLayoutComesFromThePickleAndTheDirectoryAlone) {
  const std::string file =
      test::float_torch_zip({{"a.weight", 65536}, {"b.weight", 65536}, {"c", 65536}}, 'x');
  const TorchCheckpoint whole = read_torch_checkpoint(MemorySource(file, "local.pt"));
  ASSERT_EQ(whole.tensors.size(), 3u);
  const EndsRead guessed = read_from_ends(file, torch_ends_guess(3, 17));
  expect_same_layout(whole, guessed.layout);
  EXPECT_EQ(guessed.requests, 2);
  EXPECT_LT(guessed.fetched, file.size() / 8) << "of " << file.size();
  // A first read too small for either end: each grows toward what the reader asks for, still without the
  // storages (the end record is looked for behind up to 64 KiB of comment: the tail is that long).
  const EndsRead small = read_from_ends(file, {64, 64});
  expect_same_layout(whole, small.layout);
  EXPECT_LE(small.requests, 6);
  EXPECT_LT(small.fetched, file.size() / 8) << "of " << file.size();
}

// What torch itself wrote: the fixtures' zip checkpoints (sharded, tied, views, a training checkpoint) and
// the legacy one, whose pickles come first and whose storages follow them.
TEST(TorchCheckpointEnds, TheFixturesLayoutsFromTheirEndsAreTheirWholeLayouts) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path f = *data / "fixtures";
  for (const fs::path& p :
       {f / "tiny-llama-bin-sharded/pytorch_model-00001-of-00002.bin",
        f / "tiny-llama-bin-sharded/pytorch_model-00002-of-00002.bin",
        f / "tiny-llama-fp32-bin/pytorch_model.bin", f / "pickle-storage-views/weights.pt",
        f / "tiny-llama-training-ckpt/checkpoint.pt", f / "tiny-gpt2-legacy-bin/pytorch_model.bin"}) {
    SCOPED_TRACE(p.string());
    const std::string file = test::read_file(p);
    const TorchCheckpoint whole = read_torch_checkpoint(MemorySource(file, "local.pt"));
    const EndsRead ends = read_from_ends(file, {1024, 1024});
    expect_same_layout(whole, ends.layout);
    // Beyond the 64 KiB the zip's end record is searched in, its storages lie between its ends.
    if (whole.format == "pytorch zip" && file.size() > (80 << 10)) {
      EXPECT_LT(ends.fetched, file.size() - (8 << 10)) << "a zip's storages lie between its ends";
    }
  }
}

// A layout that asks for more of the file than real ones do stops at the cap, with no request beyond it.
TEST(TorchCheckpointEnds, ALayoutFarFromBothEndsStopsAtTheCap) {
  const uint64_t size = 4 * kMaxTorchEndsBytes;
  uint64_t fetched = 0;
  try {
    // A legacy file's first pickle opens a string of 200 MiB: its reader asks for that much of the head.
    std::string head = "\x80\x02X";
    for (int i = 0; i < 4; ++i) head += static_cast<char>(((200u << 20) >> (8 * i)) & 0xff);
    grow_torch_ends(head, 0, size, "endless.pt", [&](uint64_t begin, uint64_t end) {
      fetched += end - begin;
      return std::string(end - begin, 'x');
    });
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit) << e.what();
    EXPECT_NE(std::string(e.what()).find("MiB of the file's bytes"), std::string::npos) << e.what();
  }
  EXPECT_LE(fetched, kMaxTorchEndsBytes);
}

}  // namespace
}  // namespace ma
