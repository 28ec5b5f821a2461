// Weights, inference and training estimates of the memory section, and its JSON / Markdown / console output.
// Expected figures are derived by hand from the configs (derivations in the comments).
#include "analysis/memory.h"

#include <gtest/gtest.h>

#include "analysis/memory_training.h"
#include "analysis/parameter_counts.h"
#include "core/json.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/markdown_writer.h"
#include "report/section_renderers.h"
#include "report_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::memory_of;

uint64_t bytes(const MemoryReport& m, std::string_view name) {
  const Estimate* e = m.find(name);
  EXPECT_NE(e, nullptr) << name;
  return e ? e->bytes : 0;
}

TEST(MemoryTest, WeightsByPrecision) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Meta-Llama-3.1-8B");
  MemoryReport m = memory_of(*l);
  // Published: 8,030,261,248 parameters (32 layers x 218,112,000 + 2 x 128,256 x 4,096 + 4,096).
  ASSERT_EQ(l->params.total, 8'030'261'248u);
  EXPECT_EQ(bytes(m, "weights_fp32"), 32'121'044'992u);
  EXPECT_EQ(bytes(m, "weights_bf16"), 16'060'522'496u);
  EXPECT_EQ(bytes(m, "weights_fp16"), 16'060'522'496u);
  EXPECT_EQ(bytes(m, "weights_fp8"), 8'030'261'248u);
  EXPECT_EQ(bytes(m, "weights_int8"), 8'030'261'248u);
  // INT4: 8,030,261,248 / 2 = 4,015,130,624 + 62,736,416 groups of 128 x 4 bytes = 250,945,664.
  EXPECT_EQ(bytes(m, "weights_int4"), 4'266'076'288u);
  EXPECT_NE(m.find("weights_int4")->formula.find("62,736,416 groups of 128"), std::string::npos);
  // A bare config: no checkpoint, so nothing as stored.
  EXPECT_EQ(m.find("weights_stored"), nullptr);
}

TEST(MemoryTest, StoredWeightsFromTheIndex) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Llama-2-7b-hf");
  MemoryReport m = memory_of(*l);
  // model.safetensors.index.json metadata.total_size.
  EXPECT_EQ(bytes(m, "weights_stored"), 13'476'839'424u);
  EXPECT_EQ(bytes(m, "inference_weights"), 13'476'839'424u);
}

TEST(MemoryTest, StoredWeightsFromHeaders) {
  LOAD_OR_SKIP(l, "fixtures", "tiny-qwen3-fp8");
  MemoryReport m = memory_of(*l);
  ASSERT_TRUE(l->inventory.checkpoint && l->inventory.checkpoint->headers_read);
  EXPECT_EQ(bytes(m, "weights_stored"), l->inventory.checkpoint->bytes);
  // float8 weights are 1 byte, so as stored is well under the bf16 figure.
  EXPECT_LT(bytes(m, "weights_stored"), bytes(m, "weights_bf16"));
}

TEST(MemoryTest, QuantizedConfigIsSizedAsItStores) {
  LOAD_OR_SKIP(l, "hf-configs", "nvidia__Llama-3.1-70B-Instruct-FP8");
  MemoryReport m = memory_of(*l);
  // modelopt FP8, lm_head excluded. Per layer the seven linears hold 2 x 8192^2 (q, o) + 2 x 1024 x 8192
  // (k, v) + 3 x 28,672 x 8192 (gate, up, down) = 855,638,016 one-byte weights; x 80 = 68,451,041,280.
  // bf16: embedding and lm_head 2 x 128,256 x 8192 + 161 norms x 8192 = 2,102,665,216 elements, 2 bytes
  // each. Scales: 560 linears x (weight_scale + input_scale) x 4 bytes = 4,480.
  const uint64_t stored = 68'451'041'280u + 2 * 2'102'665'216u + 4'480u;
  EXPECT_EQ(bytes(m, "weights_stored"), stored);
  EXPECT_EQ(bytes(m, "inference_weights"), stored);
  // kv_cache_quant_algo FP8: 80 layers x 2 x 8 kv heads x 128 x 1 byte; the practical context 8,192 of
  // 131,072.
  EXPECT_EQ(m.kv_cache_dtype, "f8_e4m3");
  EXPECT_EQ(m.kv_cache_per_token_bytes, 163'840u);
  EXPECT_EQ(bytes(m, "inference_kv_cache"), 163'840u * 8'192u);
  EXPECT_EQ(m.kv_cache_bytes_at_max_context, uint64_t{163'840} * 131'072u);
  // Already FP8: QLoRA starts from 16-bit weights, so no QLoRA figure; LoRA stays.
  EXPECT_EQ(m.find("training_qlora_total"), nullptr);
  EXPECT_NE(m.find("training_lora_total"), nullptr);
  // --kv-dtype still decides.
  ReportOptions o;
  o.kv_dtype = DType::BF16;
  EXPECT_EQ(memory_of(*l, o).kv_cache_per_token_bytes, 327'680u);
}

TEST(MemoryTest, CompressedTensorsKvCacheScheme) {
  // llm-compressor's kv_cache_scheme {num_bits 8, type float} (as poolside's Laguna declares it): the
  // cache is float8 (E4M3); type int makes it int8.
  for (const auto& [type, dtype] : {std::pair{"float", "f8_e4m3"}, {"int", "i8"}}) {
    test::TempDir dir;
    test::write_file(dir / "config.json", std::string(R"({"architectures": ["LlamaForCausalLM"],
      "model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256,
      "max_position_embeddings": 512, "torch_dtype": "bfloat16",
      "quantization_config": {"quant_method": "compressed-tensors", "format": "float-quantized",
        "kv_cache_scheme": {"num_bits": 8, "type": ")") +
                                              type + R"(", "strategy": "tensor"}}})");
    auto l = test::load_model(dir.path());
    const MemoryReport m = memory_of(*l);
    EXPECT_EQ(m.kv_cache_dtype, dtype);
    // 2 layers x 2 (K, V) x 2 kv heads x 16 head dim x 1 byte.
    EXPECT_EQ(m.kv_cache_per_token_bytes, 128u);
  }
}

TEST(MemoryTest, InferenceTotal) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Meta-Llama-3.1-8B");
  ReportOptions o;
  o.context = 1024;
  MemoryReport m = memory_of(*l, o);
  // Weights bf16: 16,060,522,496. KV: 131,072 x 1024 = 134,217,728.
  EXPECT_EQ(bytes(m, "inference_weights"), 16'060'522'496u);
  EXPECT_EQ(bytes(m, "inference_kv_cache"), 134'217'728u);
  // Activations: 1 x 1024 x (2 x 4096 + 3 x 14,336) x 2 bytes = 104,857,600 + 128,256 x 4 logits = 513,024.
  EXPECT_EQ(bytes(m, "inference_activations"), 105'370'624u);
  // Sum 16,300,110,848; 10% overhead 1,630,011,084; total 17,930,121,932.
  EXPECT_EQ(bytes(m, "inference_overhead"), 1'630'011'084u);
  EXPECT_EQ(bytes(m, "inference_total"), 17'930'121'932u);
}

TEST(MemoryTest, TrainingStatesAndActivations) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Llama-2-7b-hf");
  MemoryReport m = memory_of(*l);  // context 4096, batch 1
  // 6,738,415,616 params x 16 bytes.
  ASSERT_EQ(l->params.total, 6'738'415'616u);
  EXPECT_EQ(bytes(m, "training_adamw_fp32_states"), 107'814'649'856u);
  EXPECT_EQ(bytes(m, "training_mixed_bf16_states"), 107'814'649'856u);
  // Per layer s*b*(34h + 5as) = 4096 x (34 x 4096 + 5 x 32 x 4096) = 4096 x 794,624 = 3,254,779,904; x 32.
  EXPECT_EQ(bytes(m, "training_activations"), 104'152'956'928u);
  // FlashAttention: 32 x 34 x 4096 x 4096 = 32 x 570,425,344 = 18,253,611,008.
  EXPECT_EQ(bytes(m, "training_activations_flash"), 18'253'611'008u);
  // 2 x 4096 x 4096 x 32 = 1,073,741,824 + one layer's 570,425,344.
  EXPECT_EQ(bytes(m, "training_activations_checkpointed"), 1'644'167'168u);
  EXPECT_EQ(bytes(m, "training_full_fp32_total"), 107'814'649'856u + 2 * 18'253'611'008u);
  EXPECT_EQ(bytes(m, "training_mixed_bf16_total"), 107'814'649'856u + 18'253'611'008u);
  EXPECT_EQ(bytes(m, "training_mixed_bf16_checkpointed_total"), 107'814'649'856u + 1'644'167'168u);
}

TEST(MemoryTest, LoraAndQloraFromTemplateShapes) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Meta-Llama-3.1-8B");
  ReportOptions o;
  o.context = 1024;
  MemoryReport m = memory_of(*l, o);
  // Rank 16 on q [4096,4096], k [1024,4096], v [1024,4096], o [4096,4096]:
  // 16 x (8192 + 5120 + 5120 + 8192) = 425,984 per layer x 32 = 13,631,488 (PEFT's figure for Llama-3-8B).
  EXPECT_EQ(m.lora_adapter_parameters, 13'631'488u);
  AdapterCounts c = count_adapters(*l->inventory.model, 16);
  // Quantized by QLoRA: 32 x (2 x 4096^2 + 2 x 1024 x 4096 + 3 x 4096 x 14,336) = 6,979,321,856.
  EXPECT_EQ(c.quantizable_parameters, 6'979'321'856u);
  // Checkpointed activations at 1024: 2 x 1024 x 4096 x 32 = 268,435,456 + 34 x 1024 x 4096 = 142,606,336
  // -> 411,041,792.
  EXPECT_EQ(bytes(m, "training_activations_checkpointed"), 411'041'792u);
  // LoRA: 8,030,261,248 x 2 + 13,631,488 x 16 (= 218,103,808) + 411,041,792 = 16,689,668,096.
  EXPECT_EQ(bytes(m, "training_lora_total"), 16'689'668'096u);
  // QLoRA: NF4 3,489,660,928 + 109,051,904 (absmax /64) + 425,984 x 4 (fp32 per 16,384) = 3,600,416,768;
  // bf16 rest (8,030,261,248 - 6,979,321,856) x 2 = 2,101,878,784; + 218,103,808 adapters + 411,041,792.
  EXPECT_EQ(bytes(m, "training_qlora_total"), 6'331'441'152u);
}

TEST(MemoryTest, LoraCountsFusedQkvOnce) {
  LOAD_OR_SKIP(l, "hf-configs", "openai-community__gpt2");
  MemoryReport m = memory_of(*l);
  // GPT-2: c_attn Conv1D [768, 2304] and attn.c_proj [768, 768] per layer:
  // 16 x (768 + 2304) + 16 x (768 + 768) = 49,152 + 24,576 = 73,728; x 12 layers = 884,736.
  EXPECT_EQ(m.lora_adapter_parameters, 884'736u);
}

TEST(MemoryTest, NoConfigMeansUnknownCache) {
  LOAD_OR_SKIP(l, "fixtures", "tiny-llama");
  // With the config removed, only the stored tensors are known.
  test::TempDir dir;
  fs::copy_file(*test::shared_data() / "fixtures/tiny-llama/model.safetensors", dir / "model.safetensors");
  auto bare = test::load_model(dir / "model.safetensors");
  MemoryReport m = memory_of(*bare);
  EXPECT_FALSE(m.kv_known);
  EXPECT_EQ(m.kv_cache_bytes, 0u);
  EXPECT_EQ(bytes(m, "weights_fp32"), bare->params.total * 4);
  EXPECT_NE(m.find("weights_stored"), nullptr);
}

TEST(MemoryTest, JsonCarriesEveryNameAndSeedFields) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Meta-Llama-3.1-8B");
  MemoryReport m = memory_of(*l);
  JsonWriter w;
  w.begin_object();
  write_json(w, m);
  w.end_object();
  json::Document doc = json::Document::parse(w.take(), "memory");
  const json::Value* mem = doc.root().find("memory");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->find("kv_cache_dtype")->as_string(), "bf16");
  EXPECT_EQ(*mem->find("kv_cache_per_token_bytes")->as_uint(), 131'072u);
  EXPECT_EQ(*mem->find("kv_cache_bytes")->as_uint(), 1'073'741'824u);  // 131,072 x 8,192 tokens
  EXPECT_EQ(*mem->find("kv_cache_bytes_at_max_context")->as_uint(), 17'179'869'184u);  // x 131,072
  EXPECT_EQ(*mem->find("state_bytes_per_sequence")->as_uint(), 0u);
  EXPECT_EQ(*mem->find("context")->as_uint(), 8'192u);
  EXPECT_EQ(*mem->find("max_context")->as_uint(), 131'072u);
  EXPECT_EQ(*mem->find("weights_bytes")->find("int4")->as_uint(), 4'266'076'288u);
  for (const char* key : {"fp32", "bf16", "fp16", "fp8", "int8", "int4"})
    EXPECT_NE(mem->find("weights_bytes")->find(key), nullptr) << key;
  EXPECT_EQ(mem->find("kv_layers")->items().size(), 32u);
  for (const char* key : {"weights", "inference", "training", "assumptions", "kv_convention",
                          "kv_cache_per_token_decompressed_bytes", "batch"})
    EXPECT_NE(mem->find(key), nullptr) << key;
  // Seed 002: 32,121,044,992 / 2^20 = 30,633.015625 MiB -> 30633.02; 16,060,522,496 / 2^20 = 15,316.5078 ->
  // 15316.51.
  EXPECT_NEAR(mem->find("params_fp32_mb")->as_double(), 30633.02, 1e-9);
  EXPECT_NEAR(mem->find("params_fp16_mb")->as_double(), 15316.51, 1e-9);
}

TEST(MemoryTest, MarkdownShowsEveryFormula) {
  LOAD_OR_SKIP(l, "hf-configs", "deepseek-ai__DeepSeek-V3");
  ModelReport r;
  r.memory = memory_of(*l);
  MarkdownWriter w;
  render_document(w, r.memory, r);
  std::string md = w.take();
  for (const auto* list : {&r.memory.weights, &r.memory.inference, &r.memory.training})
    for (const Estimate& e : *list) EXPECT_NE(md.find(markdown_cell(e.formula)), std::string::npos) << e.name;
  EXPECT_NE(md.find("70,272"), std::string::npos);
  EXPECT_NE(md.find("4,997,120"), std::string::npos);

  ConsoleWriter c(false);
  render_console(c, r.memory, r, RenderOptions{});
  std::string summary = c.take();
  EXPECT_NE(summary.find("70,272 bytes"), std::string::npos);
  ConsoleWriter d(false);
  render_console(d, r.memory, r, RenderOptions{true});
  std::string detailed = d.take();
  EXPECT_NE(detailed.find("(512 kv_lora_rank + 64 qk_rope_head_dim)"), std::string::npos);
}

}  // namespace
}  // namespace ma
