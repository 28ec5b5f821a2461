// Quantized checkpoints as their exporters write them (a small Llama, sparse safetensors): llm-compressor's
// NVFP4 config ("dynamic": "local"), bitsandbytes' quant state and modelopt's v_scale are scales beside the
// weights (a load needs them: they count in its memory), and compressed-tensors' float8 weights, stored as
// modelopt stores them, are no disagreement with the config.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kQuantizedLlamaConfig =
    R"("model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
    "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
    "head_dim": 16, "vocab_size": 256, "max_position_embeddings": 512, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16")";

// The model's tensors with `per_linear` beside each linear's weight (stored as `weight`), in `dir`.
void write_quantized_llama(const fs::path& dir, const std::string& quantization_config, DType weight,
                           bool halve_columns, const std::vector<TensorToWrite>& per_linear) {
  fs::create_directories(dir);
  write_file(dir / "config.json", std::string("{") + kQuantizedLlamaConfig +
                                      ", \"quantization_config\": " + quantization_config + "}");
  std::vector<TensorToWrite> t = {{"model.embed_tokens.weight", DType::BF16, {256, 64}, ""},
                                  {"lm_head.weight", DType::BF16, {256, 64}, ""},
                                  {"model.norm.weight", DType::BF16, {64}, ""},
                                  {"model.layers.0.input_layernorm.weight", DType::BF16, {64}, ""},
                                  {"model.layers.0.post_attention_layernorm.weight", DType::BF16, {64}, ""}};
  const std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> linears = {
      {"self_attn.q_proj", {64, 64}}, {"self_attn.k_proj", {32, 64}}, {"self_attn.v_proj", {32, 64}},
      {"self_attn.o_proj", {64, 64}}, {"mlp.gate_proj", {128, 64}},   {"mlp.up_proj", {128, 64}},
      {"mlp.down_proj", {64, 128}}};
  for (const auto& [name, shape] : linears) {
    const std::string p = "model.layers.0." + name + ".";
    t.push_back({p + "weight", weight, {shape.first, halve_columns ? shape.second / 2 : shape.second}, ""});
    for (const TensorToWrite& x : per_linear) t.push_back({p + x.name, x.dtype, x.shape, ""});
  }
  write_safetensors(dir / "model.safetensors", t);
}

json::Document quantized_json(const std::string& command) {
  const CommandResult r = run_cli(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "stdout");
}

// llm-compressor's NVFP4 schemes write "dynamic": "local" for the activations (scales per token group at run
// time, against a stored global scale): every such checkpoint was refused (exit 3, "must be true or false").
TEST(CliQuantizedCheckpoints, LlmCompressorNvfp4ConfigIsRead) {
  TempDir tmp;
  write_quantized_llama(tmp.path(),
                        R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"],
        "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": true},
        "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
                              "dynamic": "local", "symmetric": true}}}, "ignore": ["lm_head"]})",
                        DType::U8, true, {{"weight_scale", DType::F8_E4M3, {1, 1}, ""}});
  const json::Document d = quantized_json(quoted(tmp.path()) + " --json");
  const std::string detail(d.root().find("quantization")->find("format_detail")->as_string());
  EXPECT_NE(detail.find("dynamic (local)"), std::string::npos) << detail;
}

// bitsandbytes 4-bit keeps each weight's quant state in tensors of its own (absmax, quant_map, the
// serialized quant_state): scales, not extras of the model the template does not know ("not loaded").
TEST(CliQuantizedCheckpoints, BitsandbytesQuantStateIsScalesNotExtras) {
  TempDir tmp;
  write_quantized_llama(
      tmp.path(), R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4"})",
      DType::U8, true,
      {{"weight.absmax", DType::F32, {64}, ""},
       {"weight.quant_map", DType::F32, {16}, ""},
       {"weight.quant_state.bitsandbytes__nf4", DType::U8, {100}, ""}});
  const CommandResult r = run_cli("tensors " + quoted(tmp.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "tensors");
  const json::Value& ck = *d.root().find("checkpoint");
  EXPECT_EQ(ck.find("quantization_scales")->as_uint(), 21u);
  EXPECT_EQ(ck.find("extras")->as_uint(), 0u);
  EXPECT_EQ(r.err.find("not in the"), std::string::npos) << r.err;
}

// modelopt stores the KV cache's scales as k_proj.k_scale and v_proj.v_scale: both are scales (v_scale was an
// extra, and took v_proj's other scales out of the memory with it).
TEST(CliQuantizedCheckpoints, ModeloptVScaleIsAScale) {
  TempDir tmp;
  write_quantized_llama(tmp.path(),
                        R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"})",
                        DType::F8_E4M3, false,
                        {{"weight_scale", DType::F32, {}, ""},
                         {"input_scale", DType::F32, {}, ""},
                         {"v_scale", DType::F32, {}, ""}});
  const CommandResult r = run_cli("tensors " + quoted(tmp.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "tensors");
  EXPECT_EQ(d.root().find("checkpoint")->find("extras")->as_uint(), 0u) << r.err;
  EXPECT_EQ(d.root().find("checkpoint")->find("quantization_scales")->as_uint(), 21u);
}

// compressed-tensors' float8 checkpoints store `weight` in float8 with `weight_scale`, as modelopt does: the
// tensors agree with the config, and no note says they look like another method.
TEST(CliQuantizedCheckpoints, CompressedTensorsFloat8IsNoDisagreement) {
  TempDir tmp;
  write_quantized_llama(tmp.path(), R"({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"],
        "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true},
        "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true}}},
      "ignore": ["lm_head"]})",
                        DType::F8_E4M3, false, {{"weight_scale", DType::BF16, {1}, ""}});
  const json::Document d = quantized_json(quoted(tmp.path()) + " --json");
  for (const json::Value& note : d.root().find("quantization")->find("notes")->items())
    EXPECT_EQ(note.as_string().find("look like"), std::string_view::npos) << note.as_string();
}

}  // namespace
}  // namespace ma::test
