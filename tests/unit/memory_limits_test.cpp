// Two limits of the memory estimates. An index's metadata.total_size below the bytes of the tensors the same
// index names is impossible: "weights as stored" (and the inference total) use the template's prediction,
// not the 1-byte total. An estimate that overflows 64-bit arithmetic is one error naming the model's config
// file, the factors (the config keys, the context, --batch) and the rule, exit 5 (ErrorKind::Limit).
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory.h"
#include "core/error.h"
#include "model/config.h"
#include "model/family_registry.h"
#include "report_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

// tiny_llama_config("2") with bf16 weights: embedding 100 x 64, per layer q/k/v/o 4 x 64 x 64 + gate/up/down
// 3 x 64 x 128 + two norms of 64, the final norm 64 and an untied head 100 x 64 = 95,040 parameters, 190,080
// bytes in bf16.
constexpr uint64_t kLimitsTinyParameters =
    100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 64 + 100 * 64;
static_assert(kLimitsTinyParameters == 95'040);

// A config and an index naming every tensor its template predicts, with `total_size`; no shards.
void limits_index_only(const test::TempDir& dir, const std::string& config, uint64_t total_size) {
  test::write_file(dir / "config.json", config);
  std::string map;
  for (const TemplateTensor& t : build_template(ModelConfig::parse(config, "config.json")).tensors)
    map += std::string(map.empty() ? "" : ",") + "\"" + t.name + "\":\"model-00001-of-00001.safetensors\"";
  test::write_file(
      dir / "model.safetensors.index.json",
      R"({"metadata":{"total_size":)" + std::to_string(total_size) + R"(},"weight_map":{)" + map + "}}");
}

std::string limits_bf16_llama() {
  std::string c = test::tiny_llama_config("2");
  c.insert(c.size() - 1, R"(,"torch_dtype":"bfloat16")");
  return c;
}

const Estimate& limits_estimate(const MemoryReport& m, std::string_view name) {
  const Estimate* e = m.find(name);
  if (!e) throw std::runtime_error("no estimate " + std::string(name));
  return *e;
}

TEST(MemoryLimits, IndexTotalSizeBelowTheNamedTensorsIsNotUsed) {
  test::TempDir dir;
  limits_index_only(dir, limits_bf16_llama(), 1);
  auto l = test::load_model(dir.path(), false);
  bool warned = false;
  for (const std::string& w : l->inventory.warnings) warned |= w.find("total_size") != std::string::npos;
  EXPECT_TRUE(warned) << "the inventory still reports the impossible total";
  const MemoryReport m = test::memory_of(*l);
  const Estimate& stored = limits_estimate(m, "weights_stored");
  EXPECT_EQ(stored.bytes, kLimitsTinyParameters * 2);
  EXPECT_NE(stored.formula.find("not used"), std::string::npos) << stored.formula;
  EXPECT_EQ(limits_estimate(m, "inference_weights").bytes, kLimitsTinyParameters * 2);
  // The inference total and its FP16 twin now start from the same weights (bf16 = fp16 here).
  EXPECT_EQ(limits_estimate(m, "inference_weights").bytes, limits_estimate(m, "weights_fp16").bytes);
}

TEST(MemoryLimits, IndexTotalSizeAboveThePredictionIsUsed) {
  // 256 bytes above: buffers the template has no shape for. The index's figure stands.
  test::TempDir dir;
  limits_index_only(dir, limits_bf16_llama(), kLimitsTinyParameters * 2 + 256);
  auto l = test::load_model(dir.path(), false);
  const MemoryReport m = test::memory_of(*l);
  EXPECT_EQ(limits_estimate(m, "weights_stored").bytes, kLimitsTinyParameters * 2 + 256);
  EXPECT_EQ(limits_estimate(m, "weights_stored").formula, "metadata.total_size of the checkpoint index");
}

TEST(MemoryLimits, IndexTotalSizeOfUnknownWidthIsUsed) {
  // No torch_dtype and a total that fits neither f32 nor bf16 (3 bytes a weight): the prediction's float32 is
  // a guess, no floor, so the index's total stays what is stored.
  test::TempDir dir;
  limits_index_only(dir, test::tiny_llama_config("2"), kLimitsTinyParameters * 3);
  auto l = test::load_model(dir.path(), false);
  ASSERT_FALSE(l->inventory.arch.stored_dtype);
  EXPECT_EQ(limits_estimate(test::memory_of(*l), "weights_stored").bytes, kLimitsTinyParameters * 3);
}

// A quantized checkpoint's stored bytes, in the quantization and memory sections alike, follow the same rule
// against the prediction in the method's dtypes: an index total_size of 1 byte for an fp8 Llama is the
// prediction, as with no total_size at all, and a real fp8 total, below what the tensors would take in bf16,
// is used (the bf16 floor rejected it: weights as stored were then the bf16 figure).
TEST(MemoryLimits, AQuantizedIndexTotalSizeBelowTheNamedTensorsIsNotUsed) {
  std::string config = limits_bf16_llama();
  config.insert(config.size() - 1, R"(,"quantization_config":{"quant_method":"fp8","fmt":"e4m3"})");
  auto stored = [&](uint64_t total_size) {
    test::TempDir dir;
    limits_index_only(dir, config, total_size);
    auto l = test::load_model(dir.path(), false);
    const QuantizationInfo q = analyze_quantization(l->inputs());
    EXPECT_TRUE(q.quantized);
    EXPECT_EQ(limits_estimate(test::memory_of(*l), "weights_stored").bytes, q.stored_bytes);
    return q.stored_bytes;
  };
  const uint64_t predicted = stored(0);  // 0: no total_size
  EXPECT_GT(predicted, kLimitsTinyParameters);
  EXPECT_EQ(stored(1), predicted);
  ASSERT_LT(predicted + 256, kLimitsTinyParameters * 2);
  EXPECT_EQ(stored(predicted + 256), predicted + 256);
}

// The error estimate_memory throws for `config`, with `o`; fails the test when none is thrown.
Error limits_overflow(const test::TempDir& dir, const std::string& config, const ReportOptions& o = {}) {
  test::write_file(dir / "config.json", config);
  auto l = test::load_model(dir.path(), false);
  try {
    test::memory_of(*l, o);
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), l->files.config->string());
    return e;
  }
  ADD_FAILURE() << "no overflow";
  return Error(ErrorKind::Internal, "", "", "");
}

TEST(MemoryLimits, WeightsOverflowNamesTheConfigAndItsKeys) {
  // 1,024 layers of hidden 2^24 and intermediate 2^26: 7 x 2^60 parameters, whose fp32 bytes pass 2^64.
  test::TempDir dir;
  const Error e = limits_overflow(dir, R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 16777216, "intermediate_size": 67108864, "num_hidden_layers": 1024,
    "num_attention_heads": 131072, "num_key_value_heads": 131072, "vocab_size": 128256,
    "max_position_embeddings": 67108864, "torch_dtype": "bfloat16"})");
  EXPECT_EQ(e.kind(), ErrorKind::Limit);
  EXPECT_EQ(e.exit_code(), 5);
  EXPECT_NE(e.field().find("hidden_size"), std::string::npos) << e.field();
  EXPECT_NE(e.field().find("num_hidden_layers"), std::string::npos) << e.field();
  EXPECT_NE(e.rule().find("overflows 64-bit"), std::string::npos) << e.rule();
  EXPECT_EQ(e.rule().find("--batch"), std::string::npos)
      << "no flag is a factor of the weights: " << e.rule();
  EXPECT_NE(e.message().find("config.json: "), std::string::npos) << e.message();
}

TEST(MemoryLimits, CacheAtTheMaximumContextNamesTheContextKey) {
  // 1,024 layers x 2 x 512 KV heads x 131,072 head dim x 2 bytes = 2^38 bytes a token; x 2^26 positions at
  // the maximum context = 2^64.
  test::TempDir dir;
  const Error e = limits_overflow(dir, R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 65536, "intermediate_size": 14336, "num_hidden_layers": 1024, "num_attention_heads": 512,
    "num_key_value_heads": 512, "head_dim": 131072, "vocab_size": 128256,
    "max_position_embeddings": 67108864, "torch_dtype": "bfloat16"})");
  EXPECT_EQ(e.kind(), ErrorKind::Limit);
  EXPECT_NE(e.field().find("num_key_value_heads"), std::string::npos) << e.field();
  EXPECT_NE(e.field().find("context"), std::string::npos) << e.field();
  EXPECT_NE(e.rule().find("max_position_embeddings 67,108,864"), std::string::npos) << e.rule();
}

TEST(MemoryLimits, BatchOverflowNamesTheFlag) {
  test::TempDir dir;
  ReportOptions o;
  o.batch = uint64_t{1} << 62;
  o.context = 1024;
  const Error e = limits_overflow(dir, test::tiny_llama_config("2"), o);
  EXPECT_EQ(e.kind(), ErrorKind::Limit);
  EXPECT_NE(e.field().find("--batch"), std::string::npos) << e.field();
  EXPECT_NE(e.rule().find("--batch 4,611,686,018,427,387,904"), std::string::npos) << e.rule();
  EXPECT_NE(e.rule().find("context 1,024 from --context"), std::string::npos) << e.rule();
}

}  // namespace
}  // namespace ma
