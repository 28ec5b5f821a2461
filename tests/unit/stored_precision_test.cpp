// perf's precision for a quantized checkpoint as stored: what the declaration says of the activations
// (compressed-tensors' input_activations, modelopt's algorithm, fp8's activation scheme) decides between
// W8A8 / W4A4 on narrow tensor cores and weight-only dequantization; the report and its JSON say it too.
#include "analysis/perf/stored_precision.h"

#include <gtest/gtest.h>

#include "analysis/perf/hardware.h"
#include "analyzed_model.h"
#include "core/json.h"
#include "core/json_writer.h"
#include "report/section_renderers.h"
#include "test_support.h"

namespace ma {
namespace {

// A two-layer Llama declaring `quant` (config only: the stored bytes are predicted from the method).
std::unique_ptr<test::AnalyzedModel> declared_llama(const test::TempDir& dir, const std::string& quant) {
  test::write_file(dir / "config.json",
                   R"({"model_type":"llama","architectures":["LlamaForCausalLM"],"hidden_size":64,
      "intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,
      "torch_dtype":"bfloat16","quantization_config":)" +
                       quant + "}");
  return test::analyze_dir(dir.path());
}

PerfInputs as_stored(const test::AnalyzedModel& m, const char* gpu) {
  PerfInputs in;
  use_stored_weights(in, m.report.quantization, std::nullopt, false, *find_hardware(gpu));
  return in;
}

// llm-compressor's recipes, as their config groups write them.
constexpr const char* kW8A8Int8 = R"({"quant_method":"compressed-tensors","format":"int-quantized",
    "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":8,"type":"int","strategy":"channel",
    "symmetric":true},"input_activations":{"num_bits":8,"type":"int","strategy":"token","dynamic":true,
    "symmetric":true}}},"ignore":["lm_head"]})";
constexpr const char* kNvfp4 = R"({"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized",
    "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"float",
    "strategy":"tensor_group","group_size":16,"symmetric":true},"input_activations":{"num_bits":4,
    "type":"float","strategy":"tensor_group","group_size":16,"dynamic":"local","symmetric":true}}},
    "ignore":["lm_head"]})";
constexpr const char* kNvfp4A16 = R"({"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized",
    "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"float",
    "strategy":"tensor_group","group_size":16,"symmetric":true},"input_activations":null}},
    "ignore":["lm_head"]})";

TEST(StoredPrecision, CompressedTensorsInt8ActivationsRunW8A8OnInt8TensorCores) {
  test::TempDir dir;
  auto m = declared_llama(dir, kW8A8Int8);
  const PerfInputs h100 = as_stored(*m, "h100-sxm");
  EXPECT_EQ(h100.weight_dtype, ComputeDType::INT8);
  EXPECT_EQ(h100.act_dtype, ComputeDType::INT8);  // was BF16: W8A16, half the int8 rate for a prefill
  EXPECT_NE(h100.stored_label.find("W8A8 int8"), std::string::npos) << h100.stored_label;
  // Volta has no int8 tensor cores: the declared scheme is named, the GEMM runs 16-bit.
  const PerfInputs v100 = as_stored(*m, "v100");
  EXPECT_EQ(v100.act_dtype, ComputeDType::BF16);
  EXPECT_NE(v100.stored_label.find("W8A8 declared; no int8 tensor cores"), std::string::npos)
      << v100.stored_label;
}

TEST(StoredPrecision, CompressedTensorsNvfp4RunsW4A4WhereTheDeviceHasFp4) {
  test::TempDir dir;
  auto m = declared_llama(dir, kNvfp4);
  const PerfInputs b200 = as_stored(*m, "b200");
  EXPECT_EQ(b200.weight_dtype, ComputeDType::FP4);
  EXPECT_EQ(b200.act_dtype, ComputeDType::FP4);  // was BF16 (W4A16): compressed-tensors was not "nvfp4"
  EXPECT_NE(b200.stored_label.find("W4A4 fp4"), std::string::npos) << b200.stored_label;
  const PerfInputs h100 = as_stored(*m, "h100-sxm");
  EXPECT_EQ(h100.weight_dtype, ComputeDType::FP4);
  EXPECT_EQ(h100.act_dtype, ComputeDType::BF16);
  EXPECT_NE(h100.stored_label.find("W4A4 declared; no fp4 tensor cores"), std::string::npos)
      << h100.stored_label;
}

TEST(StoredPrecision, WeightOnlyDeclarationsKeepActivations16Bit) {
  test::TempDir dir;
  auto m = declared_llama(dir, kNvfp4A16);  // NVFP4A16: FP4 weights, no input_activations
  const PerfInputs b200 = as_stored(*m, "b200");
  EXPECT_EQ(b200.weight_dtype, ComputeDType::FP4);
  EXPECT_EQ(b200.act_dtype, ComputeDType::BF16);
  EXPECT_NE(b200.stored_label.find("W4A16"), std::string::npos) << b200.stored_label;
  EXPECT_EQ(m->report.quantization.activation_scheme, ActivationScheme::WeightOnly);
}

TEST(StoredPrecision, UnsaidActivationsFollowTheFormatsPractice) {
  test::TempDir gptq, fp8;
  // GPTQ never quantizes activations; DeepSeek-style fp8 runs W8A8 (its activation_scheme dynamic).
  auto g = declared_llama(gptq, R"({"quant_method":"gptq","bits":4,"group_size":128})");
  EXPECT_EQ(g->report.quantization.activation_scheme, ActivationScheme::Unsaid);
  EXPECT_EQ(as_stored(*g, "b200").act_dtype, ComputeDType::BF16);
  auto f = declared_llama(
      fp8, R"({"quant_method":"fp8","activation_scheme":"dynamic","weight_block_size":[128,128]})");
  EXPECT_EQ(f->report.quantization.activation_scheme, ActivationScheme::Quantized);
}

// The report's JSON says what it prints: an object where the declaration speaks, null where it is silent.
json::Document quantization_json(const test::AnalyzedModel& m) {
  JsonWriter w;
  w.begin_object();
  write_json(w, m.report.quantization);
  w.end_object();
  return json::Document::parse(w.take(), "quantization");
}

const json::Value* activations_of(const json::Document& doc) {
  return doc.root().find("quantization")->find("activations");
}

TEST(StoredPrecision, JsonCarriesTheDeclaredActivations) {
  test::TempDir a, b, c;
  const json::Document w8a8 = quantization_json(*declared_llama(a, kW8A8Int8));
  const json::Value* int8 = activations_of(w8a8);
  ASSERT_TRUE(int8 && int8->is_object());
  EXPECT_TRUE(int8->find("quantized")->as_bool());
  EXPECT_EQ(int8->find("bits")->as_uint(), std::optional<uint64_t>(8));
  EXPECT_EQ(int8->find("type")->as_string(), "int");
  const json::Document a16 = quantization_json(*declared_llama(b, kNvfp4A16));
  const json::Value* weight_only = activations_of(a16);
  ASSERT_TRUE(weight_only && weight_only->is_object());
  EXPECT_FALSE(weight_only->find("quantized")->as_bool());
  EXPECT_EQ(weight_only->find("bits"), nullptr);
  const json::Document awq =
      quantization_json(*declared_llama(c, R"({"quant_method":"awq","bits":4,"group_size":128})"));
  const json::Value* unsaid = activations_of(awq);
  ASSERT_TRUE(unsaid);
  EXPECT_TRUE(unsaid->is_null());
}

}  // namespace
}  // namespace ma
