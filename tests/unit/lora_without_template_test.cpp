// LoRA adapters counted without a template: a GGUF file (no config.json) or bare weights place their tensors
// (block, role) and give their shapes, which is all the count needs, so a GGUF gives the figure its config's
// template gives (and the LoRA / QLoRA training rows with it), quantized or not. Where no tensor is a
// projection LoRA targets the adapters are unknown (null), never 0.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory.h"
#include "analysis/memory_training.h"
#include "core/json.h"
#include "core/json_writer.h"
#include "formats/safetensors_writer.h"
#include "gguf_test_models.h"
#include "report/section_renderers.h"
#include "report_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

// The config.json of the model test::TinyGguf writes: Llama, hidden 64, 4 heads of 16, 2 KV heads, MLP 128,
// vocabulary 100, 2 layers, 2,048 tokens, float32 as the GGUF stores it, head not tied.
std::string lora_twin_config(const test::TinyGguf& g) {
  return R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": )" +
         std::to_string(g.hidden) + R"(, "intermediate_size": )" + std::to_string(g.ffn) +
         R"(, "num_hidden_layers": )" + std::to_string(g.layers) + R"(, "num_attention_heads": )" +
         std::to_string(g.heads) + R"(, "num_key_value_heads": )" + std::to_string(g.kv_heads) +
         R"(, "vocab_size": )" + std::to_string(g.vocab) + R"(, "max_position_embeddings": )" +
         std::to_string(g.context) + R"(, "rms_norm_eps": 1e-05, "tie_word_embeddings": false,
         "torch_dtype": "float32", "hidden_act": "silu"})";
}

// Rank 16 on q [64, 64], k [32, 64], v [32, 64], o [64, 64]: 16 x (128 + 96 + 96 + 128) = 7,168 per layer,
// x 2 layers.
constexpr uint64_t kTinyGgufLora = 14'336;

TEST(LoraWithoutTemplate, AGgufCountsWhatItsConfigsTemplateCounts) {
  test::TempDir dir;
  const test::TinyGguf g;
  test::write_tiny_gguf(dir / "tiny.gguf", g);
  auto gguf = test::load_model(dir / "tiny.gguf", false);
  ASSERT_FALSE(gguf->inventory.model);  // no config.json: no template
  const MemoryReport m = test::memory_of(*gguf);
  ASSERT_TRUE(m.lora_adapter_parameters);
  EXPECT_EQ(*m.lora_adapter_parameters, kTinyGgufLora);

  test::TempDir twin;
  test::write_file(twin / "config.json", lora_twin_config(g));
  auto config = test::load_model(twin.path(), false);
  ASSERT_TRUE(config->inventory.model);
  ASSERT_EQ(config->params.total, gguf->params.total);
  const MemoryReport t = test::memory_of(*config);
  EXPECT_EQ(t.lora_adapter_parameters, m.lora_adapter_parameters);
  // The same rows, sized alike: the adapters and the matrices QLoRA quantizes are the template's.
  for (const char* name : {"training_lora_total", "training_qlora_total"}) {
    ASSERT_NE(m.find(name), nullptr) << name;
    ASSERT_NE(t.find(name), nullptr) << name;
    EXPECT_EQ(m.find(name)->bytes, t.find(name)->bytes) << name;
  }
  const AdapterCounts from_tensors = count_adapters(gguf->inventory.tensors, 16);
  const AdapterCounts from_template = count_adapters(*config->inventory.model, 16);
  EXPECT_EQ(from_tensors.lora_parameters, from_template.lora_parameters);
  EXPECT_EQ(from_tensors.quantizable_parameters, from_template.quantizable_parameters);
}

// A quantized GGUF's matrices keep their logical shapes: the same adapters.
TEST(LoraWithoutTemplate, AQuantizedGgufCountsItsLogicalShapes) {
  test::TempDir dir;
  test::TinyGguf g;
  g.matrix_type = DType::Q8_0;
  test::write_tiny_gguf(dir / "tiny-q8_0.gguf", g);
  const MemoryReport m = test::memory_of(*test::load_model(dir / "tiny-q8_0.gguf", false));
  ASSERT_TRUE(m.lora_adapter_parameters);
  EXPECT_EQ(*m.lora_adapter_parameters, kTinyGgufLora);
  EXPECT_NE(m.find("training_lora_total"), nullptr);
}

// Bare weights none of which is a projection LoRA targets: the adapters are unknown (null in the JSON), and
// LoRA and QLoRA are not sized, rather than sized with 0 adapter parameters.
TEST(LoraWithoutTemplate, NoProjectionToTargetIsUnknownNotZero) {
  test::TempDir dir;
  write_safetensors(dir / "model.safetensors", {{"a.weight", DType::F32, {4, 4}, std::string(64, '\0')},
                                                {"b.bias", DType::F32, {4}, std::string(16, '\0')}});
  auto bare = test::load_model(dir / "model.safetensors", false);
  const MemoryReport m = test::memory_of(*bare);
  EXPECT_FALSE(m.lora_adapter_parameters);
  EXPECT_EQ(m.find("training_lora_total"), nullptr);
  EXPECT_EQ(m.find("training_qlora_total"), nullptr);
  bool said = false;
  for (const std::string& a : m.assumptions) said = said || a.starts_with("LoRA and QLoRA: not sized");
  EXPECT_TRUE(said);
  JsonWriter w;
  w.begin_object();
  write_json(w, m);
  w.end_object();
  const json::Document doc = json::Document::parse(w.take(), "memory");
  EXPECT_TRUE(doc.root().find("memory")->find("lora_adapter_parameters")->is_null());
}

}  // namespace
}  // namespace ma
