// The quantization section: methods and their parameters from the config files, stored dtypes, scales and
// bytes from the headers, and the logical parameter count of packed checkpoints, which must equal the
// parameters of the unquantized original (independently: transformers' own count in ../shared/data/oracle,
// or by hand from the config).
#include "analysis/quantization.h"

#include <gtest/gtest.h>

#include "analysis/model_report.h"
#include "core/error.h"
#include "model/declared_quantization.h"
#include "report/markdown_writer.h"
#include "report/model_report_render.h"
#include "report/section_renderers.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// Everything analyze_quantization reads, kept alive together.
struct Analyzed {
  LocalModelFiles files;
  Inventory inv;
  ParameterCounts params;
  std::optional<TokenizerInfo> tokenizer;
  ReportOptions options;
  QuantizationInfo q;
};

std::unique_ptr<Analyzed> analyze(const fs::path& path) {
  auto a = std::make_unique<Analyzed>();
  a->files = locate_local_model(path.string());
  a->inv = build_inventory(a->files);
  a->params = count_parameters(a->inv);
  ReportInputs in{a->inv, a->files, a->params, a->tokenizer, a->options};
  a->q = analyze_quantization(in);
  return a;
}

uint64_t oracle_params(const fs::path& data, const std::string& model) {
  json::Document d = test::parse_json_file(data / "oracle" / (model + ".json"));
  return *d.root().find("num_params")->as_uint();
}

std::string notes(const QuantizationInfo& q) {
  std::string s;
  for (const auto& n : q.notes) s += "  " + n + "\n";
  return s;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---- the real block-FP8 checkpoint ----------------------------------------------------------------------

TEST(QuantizationTest, TinyQwen3Fp8FromHeaders) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  fs::path dir = *data / "fixtures" / "tiny-qwen3-fp8";
  auto a = analyze(dir);
  const QuantizationInfo& q = a->q;
  json::Document expected = test::parse_json_file(dir / "EXPECTED.json");
  EXPECT_TRUE(q.quantized);
  EXPECT_EQ(q.method, "fp8");
  EXPECT_EQ(q.source, "config.json quantization_config + tensor dtypes");
  EXPECT_EQ(q.bits, 8u);
  EXPECT_EQ(q.group_size, 128u * 128u);  // weight_block_size [128, 128]
  EXPECT_EQ(q.stored_from, "headers");
  // 1,443,328 = EXPECTED.json logical_params_of_original. By hand from config.json: vocab 512, hidden 256,
  // 2 layers, q 4x64=256, kv 2x64=128, intermediate 512, untied lm_head:
  //   embed + lm_head 2*512*256 = 262,144; final norm 256
  //   per layer: q 256*256 + k,v 2*128*256 + o 256*256 = 196,608; mlp 3*256*512 = 393,216;
  //   q_norm, k_norm 2*64 + 2 norms 2*256 = 640  -> 590,464 per layer, 1,180,928 for two
  //   total 262,144 + 256 + 1,180,928 = 1,443,328
  EXPECT_EQ(q.logical_parameters, *expected.root().find("logical_params_of_original")->as_uint());
  EXPECT_EQ(q.logical_parameters, 1'443'328u);
  EXPECT_TRUE(q.notes.empty()) << notes(q);

  // Independently from EXPECTED.json's state_dict: elements and bytes per dtype, scale tensors.
  std::map<std::string, uint64_t> elements;
  uint64_t bytes = 0, scales = 0, scale_bytes = 0;
  std::map<std::string, uint64_t> width = {{"bfloat16", 2}, {"float8_e4m3fn", 1}, {"float32", 4}};
  std::map<std::string, std::string> short_name = {
      {"bfloat16", "bf16"}, {"float8_e4m3fn", "f8_e4m3"}, {"float32", "f32"}};
  for (const json::Value& t : expected.root().find("state_dict")->items()) {
    std::string name(t.items()[0].as_string()), dtype(t.items()[2].as_string());
    uint64_t n = 1;
    for (const json::Value& d : t.items()[1].items()) n *= *d.as_uint();
    elements[short_name.at(dtype)] += n;
    bytes += n * width.at(dtype);
    if (name.ends_with("weight_scale_inv")) ++scales, scale_bytes += n * 4;
  }
  EXPECT_EQ(q.elements_by_stored_dtype, elements);
  EXPECT_EQ(q.quantization_scale_tensors, 14u);  // 7 linear weights per layer, 2 layers
  EXPECT_EQ(q.quantization_scale_tensors, scales);
  EXPECT_EQ(q.quantization_scale_bytes, scale_bytes);
  EXPECT_EQ(q.stored_bytes, bytes);
  EXPECT_EQ(q.stored_bytes, a->inv.checkpoint->bytes);
  // 16-bit: the embedding, the lm_head and the norms.
  EXPECT_EQ(q.unquantized, (std::vector<std::string>{"embedding", "lm-head", "norm"}));
  EXPECT_EQ(q.unquantized_elements.at("embedding"), 512u * 256);
  EXPECT_EQ(q.unquantized_elements.at("norm"), 2u * 640 + 256);
}

TEST(QuantizationTest, TinyQwen3Fp8PredictedFromConfigMatchesHeaders) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  fs::path fixture = *data / "fixtures" / "tiny-qwen3-fp8";
  test::TempDir dir;
  fs::copy_file(fixture / "config.json", dir / "config.json");
  auto predicted = analyze(dir.path());
  auto real = analyze(fixture);
  EXPECT_EQ(predicted->q.stored_from, "template");
  // The config alone predicts what the real headers hold: 14 block scales of ceil(out/128) x ceil(in/128)
  // f32, and the same bytes in all.
  EXPECT_EQ(predicted->q.quantization_scale_tensors, real->q.quantization_scale_tensors);
  EXPECT_EQ(predicted->q.quantization_scale_bytes, real->q.quantization_scale_bytes);
  EXPECT_EQ(predicted->q.stored_bytes, real->q.stored_bytes);
  EXPECT_EQ(predicted->q.elements_by_stored_dtype.at("f8_e4m3"),
            real->q.elements_by_stored_dtype.at("f8_e4m3"));
  EXPECT_EQ(predicted->q.unquantized_elements, real->q.unquantized_elements);
  EXPECT_EQ(predicted->q.logical_parameters, 1'443'328u);
}

// ---- configs of quantized checkpoints: the logical count is the original architecture's
// --------------------

struct SameAsOriginal {
  const char* quantized;
  const char* original;  // oracle entry of the unquantized original
  const char* method;
  std::optional<uint32_t> bits;
  std::optional<uint64_t> group;
};

// gtest prints parameters it cannot format as raw bytes; name the case instead.
void PrintTo(const SameAsOriginal& p, std::ostream* os) {
  *os << p.quantized;
}

class QuantizedConfigTest : public ::testing::TestWithParam<SameAsOriginal> {};

TEST_P(QuantizedConfigTest, LogicalCountIsTheOriginals) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const SameAsOriginal& p = GetParam();
  auto a = analyze(*data / "hf-configs" / p.quantized);
  EXPECT_TRUE(a->q.quantized);
  EXPECT_EQ(a->q.method, p.method);
  EXPECT_EQ(a->q.bits, p.bits);
  EXPECT_EQ(a->q.group_size, p.group);
  EXPECT_EQ(a->q.logical_parameters, oracle_params(*data, p.original));
  EXPECT_EQ(a->q.stored_from, "template");
  EXPECT_TRUE(contains(a->q.unquantized, "embedding"));
  EXPECT_TRUE(contains(a->q.unquantized, "norm"));
}

INSTANTIATE_TEST_SUITE_P(
    Quantization, QuantizedConfigTest,
    ::testing::Values(
        // Llama-2-13B by hand: 2*32000*5120 (embed, lm_head) + 40*(4*5120^2 + 3*5120*13824 + 2*5120) + 5120
        // = 327,680,000 + 12,688,179,200 + 5,120 = 13,015,864,320 (the oracle of meta-llama/Llama-2-13b-hf).
        SameAsOriginal{"TheBloke__Llama-2-13B-chat-GPTQ", "meta-llama__Llama-2-13b-hf", "gptq", 4u, 128u},
        SameAsOriginal{"nvidia__Llama-3.1-70B-Instruct-FP8", "meta-llama__Meta-Llama-3.1-70B",
                       "fp8 (modelopt)", 8u, std::nullopt},
        SameAsOriginal{"Qwen__Qwen3-30B-A3B-FP8", "Qwen__Qwen3-30B-A3B", "fp8", 8u, 16384u},
        SameAsOriginal{"Qwen__Qwen3-32B-FP8", "Qwen__Qwen3-32B", "fp8", 8u, 16384u},
        SameAsOriginal{"nvidia__Qwen3-32B-NVFP4", "Qwen__Qwen3-32B", "nvfp4", 4u, 16u},
        SameAsOriginal{"nvidia__Qwen3-30B-A3B-NVFP4", "Qwen__Qwen3-30B-A3B", "nvfp4", 4u, 16u},
        SameAsOriginal{"nvidia__DeepSeek-V3-0324-NVFP4", "deepseek-ai__DeepSeek-V3", "nvfp4", 4u, 16u},
        SameAsOriginal{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
                       "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvfp4", 4u, 16u}),
    [](const auto& param_info) {
      std::string n = param_info.param.quantized;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

TEST(QuantizationTest, Llama2GptqByHand) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  auto a = analyze(*data / "hf-configs" / "TheBloke__Llama-2-13B-chat-GPTQ");
  EXPECT_EQ(a->q.logical_parameters, 13'015'864'320u);  // derivation above
  EXPECT_NE(a->q.format_detail.find("symmetric"), std::string::npos) << a->q.format_detail;
  // Predicted storage: the 280 linear weights (40 layers x 7) as int32 holding 8 codes each:
  // 40*(4*5120^2 + 3*5120*13824)/8 = 12,687,769,600/8 = 1,585,971,200 int32.
  EXPECT_EQ(a->q.elements_by_stored_dtype.at("i32"), 1'585'971'200u);
  // lm_head and embeddings stay fp16: 2*32000*5120; norms 81*5120.
  EXPECT_EQ(a->q.unquantized_elements.at("lm-head"), 32000u * 5120);
  EXPECT_EQ(a->q.unquantized_elements.at("norm"), 81u * 5120);
  // Per linear [out, in] with groups of 128: scales f16 [in/128, out], qzeros int32 [in/128, out/8],
  // g_idx int32 [in]. Per layer (in, out): q,k,v,o (5120, 5120) x4, gate, up (5120, 13824) x2,
  // down (13824, 5120): bytes 4*(40*5120*2 + 40*640*4 + 5120*4) + 2*(40*13824*2 + 40*1728*4 + 5120*4)
  //   + (108*5120*2 + 108*640*4 + 13824*4) = 2,129,920 + 2,805,760 + 1,437,696 = 6,373,376 per layer.
  EXPECT_EQ(a->q.quantization_scale_tensors, 40u * 7 * 3);
  EXPECT_EQ(a->q.quantization_scale_bytes, 40u * 6'373'376);
}

TEST(QuantizationTest, GptOssMxfp4FromIndex) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  auto a = analyze(*data / "hf-configs" / "openai__gpt-oss-20b");
  const QuantizationInfo& q = a->q;
  EXPECT_EQ(q.method, "mxfp4");
  EXPECT_EQ(q.bits, 4u);
  EXPECT_EQ(q.group_size, 32u);
  EXPECT_EQ(q.logical_parameters, oracle_params(*data, "openai__gpt-oss-20b"));
  EXPECT_EQ(q.stored_from, "index");
  // The index's metadata.total_size is what the checkpoint holds.
  EXPECT_EQ(q.stored_bytes, 13'761'264'768u);
  // Scales: gate_up and down per layer, 24 layers.
  EXPECT_EQ(q.quantization_scale_tensors, 48u);
  // modules_to_not_convert keeps attention and routers 16-bit.
  EXPECT_TRUE(contains(q.unquantized, "attention"));
  EXPECT_TRUE(contains(q.unquantized, "moe-router"));
  EXPECT_FALSE(contains(q.unquantized, "moe-expert"));
}

// gpt-oss's config names no torch_dtype: transformers would build its unquantized tensors in float32, but the
// checkpoint stores them in 16 bits. From the config alone the prediction equals the index's total_size.
TEST(QuantizationTest, GptOssConfigAlonePredictsTheIndexsTotalSize) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *data / "hf-configs" / "openai__gpt-oss-20b";
  test::TempDir alone;
  fs::copy_file(dir / "config.json", alone / "config.json");
  auto a = analyze(alone.path());
  const json::Document index = test::parse_json_file(dir / "model.safetensors.index.json");
  EXPECT_EQ(a->q.stored_from, "template");
  EXPECT_EQ(a->q.stored_bytes, index.root().find("metadata")->find("total_size")->as_uint());
  EXPECT_EQ(a->q.elements_by_stored_dtype.count("f32"), 0u);
}

// ---- unquantized ----------------------------------------------------------------------------------------

TEST(QuantizationTest, UnquantizedBf16Fixture) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  fs::path dir;
  for (const auto& e : fs::directory_iterator(*data / "fixtures")) {
    if (!fs::exists(e.path() / "model.safetensors") || !fs::exists(e.path() / "config.json")) continue;
    std::string cfg = test::read_file(e.path() / "config.json");
    if (cfg.find("\"bfloat16\"") != std::string::npos &&
        cfg.find("quantization_config") == std::string::npos && e.path().filename() == "tiny-llama") {
      dir = e.path();
    }
  }
  if (dir.empty()) GTEST_SKIP() << "no bf16 tiny-llama fixture";
  auto a = analyze(dir);
  json::Document expected = test::parse_json_file(dir / "EXPECTED.json");
  EXPECT_FALSE(a->q.quantized);
  EXPECT_TRUE(a->q.method.empty());
  EXPECT_TRUE(a->q.unquantized.empty());
  uint64_t elements = 0;
  for (const json::Value& t : expected.root().find("state_dict")->items()) {
    EXPECT_EQ(t.items()[2].as_string(), "bfloat16");
    uint64_t n = 1;
    for (const json::Value& d : t.items()[1].items()) n *= *d.as_uint();
    elements += n;
  }
  ASSERT_EQ(a->q.elements_by_stored_dtype.size(), 1u);
  EXPECT_EQ(a->q.elements_by_stored_dtype.at("bf16"), elements);
  EXPECT_EQ(a->q.stored_bytes, 2 * elements);
  EXPECT_EQ(a->q.quantization_scale_tensors, 0u);
  EXPECT_EQ(a->q.logical_parameters, a->params.total);
}

TEST(QuantizationTest, UnquantizedConfigOnly) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  auto a = analyze(*data / "hf-configs" / "meta-llama__Llama-2-13b-hf");
  EXPECT_FALSE(a->q.quantized);
  EXPECT_EQ(a->q.logical_parameters, 13'015'864'320u);
  EXPECT_EQ(a->q.elements_by_stored_dtype.size(), 1u);
}

// ---- synthetic headers: packing rules ------------------------------------------------------------------

using test::le64;

struct FakeTensor {
  std::string name, dtype;
  std::vector<uint64_t> shape;
  uint64_t width_bits;
};

// A safetensors file of zeros with these tensors, laid out back to back.
void write_fake_safetensors(const fs::path& p, const std::vector<FakeTensor>& tensors) {
  std::string header = "{";
  uint64_t offset = 0;
  for (const FakeTensor& t : tensors) {
    uint64_t n = 1;
    std::string shape;
    for (uint64_t d : t.shape) n *= d, shape += (shape.empty() ? "" : ",") + std::to_string(d);
    uint64_t bytes = n * t.width_bits / 8;
    header += (header.size() > 1 ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"" + t.dtype +
              "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  test::write_file(p, le64(header.size()) + header + std::string(offset, '\0'));
}

TEST(QuantizationTest, BareGptqWeightsUnpackFromShapes) {
  test::TempDir dir;
  // One 3-bit GPTQ linear of in=256, out=64: qweight [256*3/32, 64] = [24, 64] int32, g_idx [256],
  // scales [256/128, 64], qzeros [2, 64*3/32] = [2, 6]; and a 16-bit norm of 64.
  write_fake_safetensors(dir / "model.safetensors",
                         {{"model.layers.0.mlp.down_proj.qweight", "I32", {24, 64}, 32},
                          {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}, 32},
                          {"model.layers.0.mlp.down_proj.scales", "F16", {2, 64}, 16},
                          {"model.layers.0.mlp.down_proj.qzeros", "I32", {2, 6}, 32},
                          {"model.layers.0.input_layernorm.weight", "F16", {64}, 16}});
  auto a = analyze(dir / "model.safetensors");
  const QuantizationInfo& q = a->q;
  EXPECT_TRUE(q.quantized);
  EXPECT_EQ(q.method, "gptq");
  EXPECT_EQ(q.source, "tensor dtypes");
  EXPECT_EQ(q.bits, 3u);  // 24 int32 rows * 32 bits / 256 inputs
  EXPECT_EQ(q.logical_parameters, 256u * 64 + 64);
  EXPECT_EQ(q.quantization_scale_tensors, 3u);
  EXPECT_EQ(q.quantization_scale_bytes, 256u * 4 + 2 * 64 * 2 + 2 * 6 * 4);
  EXPECT_EQ(q.elements_by_stored_dtype.at("i32"), 24u * 64 + 256 + 12);
  EXPECT_EQ(q.unquantized, (std::vector<std::string>{"norm"}));
}

TEST(QuantizationTest, BareNvfp4AndMxfp4Unpack) {
  test::TempDir dir;
  // NVFP4: uint8 [out=32, in/2=16] holds 32x32 FP4 values; weight_scale f8 [32, 32/16]; weight_scale_2
  // scalar.
  write_fake_safetensors(dir / "nv.safetensors",
                         {{"model.layers.0.self_attn.q_proj.weight", "U8", {32, 16}, 8},
                          {"model.layers.0.self_attn.q_proj.weight_scale", "F8_E4M3", {32, 2}, 8},
                          {"model.layers.0.self_attn.q_proj.weight_scale_2", "F32", {}, 32},
                          {"model.layers.0.self_attn.q_proj.input_scale", "F32", {}, 32}});
  auto nv = analyze(dir / "nv.safetensors");
  EXPECT_EQ(nv->q.method, "nvfp4");
  EXPECT_EQ(nv->q.logical_parameters, 32u * 32);
  EXPECT_EQ(nv->q.quantization_scale_tensors, 3u);
  EXPECT_EQ(nv->q.stored_bytes, 32u * 16 + 32 * 2 + 4 + 4);
  // MXFP4: blocks [experts=2, rows=8, cols/32=2, 16] u8 hold 2*8*64 values; scales [2, 8, 2] u8.
  write_fake_safetensors(dir / "mx.safetensors",
                         {{"model.layers.0.mlp.experts.down_proj_blocks", "U8", {2, 8, 2, 16}, 8},
                          {"model.layers.0.mlp.experts.down_proj_scales", "U8", {2, 8, 2}, 8}});
  auto mx = analyze(dir / "mx.safetensors");
  EXPECT_EQ(mx->q.method, "mxfp4");
  EXPECT_EQ(mx->q.logical_parameters, 2u * 8 * 64);
  EXPECT_EQ(mx->q.quantization_scale_tensors, 1u);
}

TEST(QuantizationTest, LogicalDisagreementIsNoted) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  // The tiny FP8 config with headers that hold only half of one weight: the template and the tensors differ.
  test::TempDir dir;
  fs::copy_file(*data / "fixtures" / "tiny-qwen3-fp8" / "config.json", dir / "config.json");
  write_fake_safetensors(dir / "model.safetensors",
                         {{"model.layers.0.self_attn.q_proj.weight", "F8_E4M3", {128, 256}, 8},
                          {"model.layers.0.self_attn.q_proj.weight_scale_inv", "F32", {1, 2}, 32}});
  auto a = analyze(dir.path());
  EXPECT_EQ(a->q.logical_parameters, 1'443'328u);
  ASSERT_FALSE(a->q.notes.empty());
  EXPECT_NE(a->q.notes.back().find("32,768"), std::string::npos) << notes(a->q);
}

// ---- configs: the method table and bad input --------------------------------------------------------------

std::unique_ptr<Analyzed> analyze_config(const test::TempDir& dir, const std::string& quant) {
  test::write_file(dir / "config.json",
                   R"({"model_type":"llama","architectures":["LlamaForCausalLM"],"hidden_size":64,
      "intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,
      "torch_dtype":"bfloat16","quantization_config":)" +
                       quant + "}");
  return analyze(dir.path());
}

TEST(QuantizationTest, BitsandbytesNf4) {
  test::TempDir dir;
  auto a =
      analyze_config(dir, R"({"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4",
      "bnb_4bit_use_double_quant":true,"llm_int8_skip_modules":["lm_head"]})");
  EXPECT_EQ(a->q.method, "bitsandbytes-4bit");
  EXPECT_EQ(a->q.bits, 4u);
  EXPECT_EQ(a->q.group_size, 64u);
  EXPECT_NE(a->q.format_detail.find("nf4"), std::string::npos);
  EXPECT_NE(a->q.format_detail.find("double quantization"), std::string::npos);
  // Linear weights 2*(4*64*64 + 3*64*128) = 81,920 pack two per byte: 40,960 u8.
  EXPECT_EQ(a->q.elements_by_stored_dtype.at("u8"), 40'960u);
}

// compressed-tensors' scale layout is not predicted from a config alone: the figures say they leave the
// scales out ("0 scale tensors of 0 bytes" read as none), and a block strategy keeps its block.
TEST(QuantizationTest, CompressedTensorsScalesUnpredictedAreSaidSo) {
  test::TempDir dir;
  auto a = analyze_config(dir, R"({"quant_method":"compressed-tensors","format":"float-quantized",
      "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":8,"type":"float",
      "strategy":"block","block_structure":[128,128],"symmetric":true}}},"ignore":["lm_head"]})");
  EXPECT_TRUE(a->q.quantization_scales_unpredicted);
  EXPECT_EQ(a->q.block, (std::vector<uint64_t>{128, 128}));
  EXPECT_EQ(a->q.group_size, 16'384u);
  test::TempDir gptq_dir;
  EXPECT_FALSE(analyze_config(gptq_dir, R"({"quant_method":"gptq","bits":4,"group_size":128})")
                   ->q.quantization_scales_unpredicted);
}

TEST(QuantizationTest, CompressedTensorsW4A16) {
  test::TempDir dir;
  auto a = analyze_config(dir, R"({"quant_method":"compressed-tensors","format":"pack-quantized",
      "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int","strategy":"group",
      "group_size":128,"symmetric":true}}},"ignore":["lm_head","re:.*mlp\\.down_proj$"]})");
  EXPECT_EQ(a->q.method, "compressed-tensors");
  EXPECT_EQ(a->q.bits, 4u);
  EXPECT_EQ(a->q.group_size, 128u);
  // Quantized: q,k,v,o,gate,up = 2*(4*64*64 + 2*64*128) = 65,536 -> /8 int32 = 8,192; down_proj ignored.
  EXPECT_EQ(a->q.elements_by_stored_dtype.at("i32"), 8'192u);
  EXPECT_EQ(a->q.unquantized_elements.at("mlp"), 2u * 64 * 128);
}

// A pack-quantized checkpoint as llm-compressor writes it: each quantized linear's X.weight_packed (eight
// 4-bit codes an int32, along the input), X.weight_scale (one per group of 32) and X.weight_shape (the
// unpacked [out, in]). Every tensor matches the template: no extras, nothing missing.
TEST(QuantizationTest, CompressedTensorsPackedHeadersMatchTheTemplate) {
  test::TempDir dir;
  test::write_file(dir / "config.json",
                   R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
      "num_attention_heads":4,"vocab_size":100,"torch_dtype":"bfloat16","tie_word_embeddings":false,
      "quantization_config":{"quant_method":"compressed-tensors","format":"pack-quantized",
      "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int","strategy":"group",
      "group_size":32,"symmetric":true}}},"ignore":["lm_head"]}})");
  std::vector<FakeTensor> tensors = {{"model.embed_tokens.weight", "BF16", {100, 64}, 16},
                                     {"model.norm.weight", "BF16", {64}, 16},
                                     {"lm_head.weight", "BF16", {100, 64}, 16}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    tensors.push_back({p + "input_layernorm.weight", "BF16", {64}, 16});
    tensors.push_back({p + "post_attention_layernorm.weight", "BF16", {64}, 16});
    for (const auto& [module, out, in] :
         {std::tuple{"self_attn.q_proj", 64, 64}, std::tuple{"self_attn.k_proj", 64, 64},
          std::tuple{"self_attn.v_proj", 64, 64}, std::tuple{"self_attn.o_proj", 64, 64},
          std::tuple{"mlp.gate_proj", 128, 64}, std::tuple{"mlp.up_proj", 128, 64},
          std::tuple{"mlp.down_proj", 64, 128}}) {
      const uint64_t o = static_cast<uint64_t>(out), i = static_cast<uint64_t>(in);
      tensors.push_back({p + module + ".weight_packed", "I32", {o, i / 8}, 32});
      tensors.push_back({p + module + ".weight_scale", "BF16", {o, i / 32}, 16});
      tensors.push_back({p + module + ".weight_shape", "I32", {2}, 32});
    }
  }
  write_fake_safetensors(dir / "model.safetensors", tensors);
  auto a = analyze(dir.path());
  EXPECT_TRUE(a->inv.warnings.empty()) << a->inv.warnings.front();
  EXPECT_EQ(a->q.method, "compressed-tensors");
  EXPECT_EQ(a->q.logical_parameters, a->params.total);
  EXPECT_EQ(a->q.quantization_scale_tensors, 2u * 7 * 2);
  size_t packed = 0;
  for (const InventoryTensor& t : a->inv.tensors)
    if (t.name.ends_with(".weight_packed")) {
      ++packed;
      EXPECT_EQ(t.kind, TensorKind::Parameter) << t.name;
      EXPECT_EQ(t.placement.layer.has_value(), true) << t.name;
    }
  EXPECT_EQ(packed, 14u);
}

TEST(QuantizationTest, GptqPerChannelAndWildcardIgnore) {
  test::TempDir dir;
  auto a = analyze_config(dir, R"({"quant_method":"gptq","bits":3,"group_size":-1,"desc_act":true,
      "modules_to_not_convert":["model.layers.*.self_attn"]})");
  EXPECT_EQ(a->q.bits, 3u);
  EXPECT_FALSE(a->q.group_size.has_value());
  EXPECT_NE(a->q.format_detail.find("per output channel"), std::string::npos);
  EXPECT_NE(a->q.format_detail.find("desc_act"), std::string::npos);
  EXPECT_EQ(a->q.unquantized_elements.at("attention"), 2u * 4 * 64 * 64);
}

// The tensors AutoGPTQ's and AutoAWQ's QuantLinear store for a Linear(in 4096, out 11008) at 4 bits (8 codes
// per int32): GPTQ packs along the input (qweight [4096 / 8, 11008]), AWQ along the output ([4096,
// 11008 / 8]); both keep zeros packed along the output and fp16 scales, one row per group of the input
// (AutoGPTQ: torch.zeros((infeatures // 32 * bits, outfeatures)), qzeros (groups, outfeatures // 32 * bits)).
TEST(QuantizationTest, PackedLinearTensorsFollowEachMethodsLayout) {
  const Shape linear = {11008, 4096};
  auto declared = [](std::string key, uint32_t bits, std::optional<uint64_t> group) {
    DeclaredQuantization q;
    q.key = std::move(key);
    q.bits = bits;
    q.group_size = group;
    return q;
  };
  auto form = [&](const DeclaredQuantization& q, std::string_view suffix) {
    const std::optional<PackedLinearTensor> t = packed_linear_tensor(q, linear, suffix);
    return t ? shape_to_string(t->shape) + " " + std::string(dtype_info(t->dtype).name) : std::string("-");
  };
  const DeclaredQuantization gptq = declared("gptq", 4, 128);
  EXPECT_EQ(form(gptq, "qweight"), "[512, 11008] I32");
  EXPECT_EQ(form(gptq, "qzeros"), "[32, 1376] I32");
  EXPECT_EQ(form(gptq, "scales"), "[32, 11008] F16");
  EXPECT_EQ(form(gptq, "g_idx"), "[4096] I32");
  EXPECT_EQ(form(gptq, "bias"), "[11008] F16");
  EXPECT_EQ(form(gptq, "weight"), "-");
  const DeclaredQuantization awq = declared("awq", 4, 128);
  EXPECT_EQ(form(awq, "qweight"), "[4096, 1376] I32");
  EXPECT_EQ(form(awq, "qzeros"), "[32, 1376] I32");
  EXPECT_EQ(form(awq, "scales"), "[32, 11008] F16");
  EXPECT_EQ(form(awq, "g_idx"), "-");  // AWQ keeps no group index
  // group_size -1: one group spanning the whole input row. A group size not declared: no scales predicted.
  DeclaredQuantization per_channel = declared("gptq", 4, std::nullopt);
  per_channel.per_channel = true;
  EXPECT_EQ(form(per_channel, "scales"), "[1, 11008] F16");
  const DeclaredQuantization no_group = declared("gptq", 4, std::nullopt);
  EXPECT_EQ(form(no_group, "scales"), "-");
  EXPECT_EQ(form(no_group, "qweight"), "[512, 11008] I32");
  // A group that does not divide the input leaves a last, shorter group: rounded up.
  EXPECT_EQ(form(declared("gptq", 4, 1000), "scales"), "[5, 11008] F16");
  // GPTQ's 3 bits: 32 codes in 3 int32s, a code straddling two; AWQ packs whole codes only. Other methods
  // store other tensors.
  EXPECT_EQ(form(declared("gptq", 3, 128), "qweight"), "[384, 11008] I32");
  EXPECT_EQ(form(declared("gptq", 3, 128), "qzeros"), "[32, 1032] I32");
  EXPECT_EQ(form(declared("awq", 3, 128), "qweight"), "-");
  EXPECT_EQ(form(declared("bitsandbytes", 4, 64), "qweight"), "-");
}

TEST(QuantizationTest, BadDeclarationsAreErrors) {
  for (const char* bad : {R"({"quant_method":"gptq","bits":"four"})", R"({"quant_method":"gptq","bits":99})",
                          R"({"quant_method":"fp8","weight_block_size":[0,128]})",
                          R"({"quant_method":"fp8","modules_to_not_convert":"lm_head"})",
                          R"({"quant_method":"gptq","group_size":-7})", R"("gptq")"}) {
    test::TempDir dir;
    try {
      analyze_config(dir, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Malformed) << bad;
    }
  }
}

TEST(QuantizationTest, ModuleMatcher) {
  ModuleMatcher m({"lm_head", "mlp.gate", "model.layers.*.self_attn", "re:.*shared_expert$", "re:(a|b)"});
  EXPECT_TRUE(m.matches("lm_head"));
  EXPECT_TRUE(m.matches("model.layers.3.mlp.gate"));
  EXPECT_FALSE(m.matches("model.layers.3.mlp.gate_proj"));
  EXPECT_TRUE(m.matches("model.layers.12.self_attn.q_proj"));
  EXPECT_TRUE(m.matches("model.layers.1.mlp.shared_expert"));
  EXPECT_FALSE(m.matches("model.layers.1.mlp.shared_expert.up_proj"));
  EXPECT_EQ(m.unread(), std::vector<std::string>{"re:(a|b)"});
  // NVIDIA's DeepSeek-V3-0324 entries: a trailing wildcard on a layer's module, matched as a dotted run too.
  ModuleMatcher nv({"model.layers.21.self_attn*", "*.mlp.gate", "layers.3*"});
  EXPECT_TRUE(nv.matches("model.layers.21.self_attn.kv_b_proj"));
  EXPECT_FALSE(nv.matches("model.layers.22.self_attn.kv_b_proj"));
  EXPECT_TRUE(nv.matches("model.layers.9.mlp.gate"));
  EXPECT_TRUE(nv.matches("model.layers.30.mlp.experts.0.up_proj"));
  EXPECT_FALSE(nv.matches("model.layers.2.mlp.experts.0.up_proj"));
}

// ---- renderers
// ----------------------------------------------------------------------------------------------

TEST(QuantizationTest, RenderersCarryTheFigures) {
  QuantizationInfo q;
  q.quantized = true;
  q.method = "gptq";
  q.source = "config.json quantization_config";
  q.bits = 4;
  q.group_size = 128;
  q.format_detail = "packed";
  q.unquantized = {"lm-head"};
  q.unquantized_elements = {{"lm-head", 1234}};
  q.elements_by_stored_dtype = {{"i32", 5678}};
  q.logical_parameters = 13'015'864'320;
  q.quantization_scale_tensors = 3;
  q.quantization_scale_bytes = 99;
  q.stored_bytes = 4242;
  q.stored_from = "template";
  JsonWriter w;
  w.begin_object();
  write_json(w, q);
  w.end_object();
  json::Document d = json::Document::parse(w.take(), "test");
  const json::Value* j = d.root().find("quantization");
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->find("quantized")->as_bool());
  EXPECT_EQ(j->find("method")->as_string(), "gptq");
  EXPECT_EQ(j->find("bits")->as_uint(), 4u);
  EXPECT_EQ(j->find("group_size")->as_uint(), 128u);
  EXPECT_EQ(j->find("logical_parameters")->as_uint(), 13'015'864'320u);
  EXPECT_EQ(j->find("elements_by_stored_dtype")->find("i32")->as_uint(), 5678u);
  EXPECT_EQ(j->find("unquantized")->items().at(0).as_string(), "lm-head");
  EXPECT_EQ(j->find("quantization_scale_tensors")->as_uint(), 3u);
  EXPECT_EQ(j->find("quantization_scale_bytes")->as_uint(), 99u);
  EXPECT_EQ(j->find("stored_bytes")->as_uint(), 4242u);
  EXPECT_TRUE(j->find("format_detail")->is_string());
  EXPECT_TRUE(j->find("source")->is_string());

  ModelReport r;
  ConsoleWriter c(false);
  render_console(c, q, r, RenderOptions{false});
  std::string summary = c.take();
  EXPECT_NE(summary.find("gptq"), std::string::npos);
  EXPECT_NE(summary.find("13,015,864,320"), std::string::npos);
  EXPECT_EQ(summary.find("4,242"), std::string::npos);  // stored bytes only in the detailed view
  ConsoleWriter cd(false);
  render_console(cd, q, r, RenderOptions{true});
  std::string detailed = cd.take();
  EXPECT_NE(detailed.find("4,242"), std::string::npos);
  EXPECT_NE(detailed.find("5,678"), std::string::npos);
  MarkdownWriter m;
  render_document(m, q, r);
  std::string md = m.take();
  EXPECT_NE(md.find("13,015,864,320"), std::string::npos);
  EXPECT_NE(md.find("| i32 | 5,678 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace ma
