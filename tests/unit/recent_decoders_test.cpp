// The decoders of llama_additions.cpp and moe_variants.cpp, Mistral's ministral / ministral3 / mistral4 and
// the DeepSeek-style stacks of Solar Open, K-EXAONE and Youtu. Each count is checked against a figure from
// outside our code: a checkpoint's own tensor dump or shard bytes, a model card's exact parameter count, or,
// where the card rounds, arithmetic over the transformers classes' modules done apart from this code (its
// rounding is quoted beside it).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// num_parameters of a template: its parameters' elements, a tied head once (it is no tensor of its own).
uint64_t total_of(const ModelTemplate& t) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter) n += numel(x.shape);
  return n;
}

uint64_t windows_of(const ModelTemplate& t, size_t layer) {
  return t.arch.stacks.front().layers.at(layer).attention.window;
}

// microsoft/bitnet-b1.58-2B-4T-bf16's config.json; a per-tensor dump of the checkpoint lists 2,412,820,480
// parameters, attn_sub_norm [2560] and ffn_sub_norm [6912] among them.
TEST(RecentDecoders, BitNetCountsItsSubNormsAsTheCheckpointDumpDoes) {
  const std::string config =
      R"({"architectures":["BitNetForCausalLM"],"hidden_act":"relu2","hidden_size":2560,
      "intermediate_size":6912,"max_position_embeddings":4096,"model_type":"bitnet","num_attention_heads":20,
      "num_hidden_layers":30,"num_key_value_heads":5,"tie_word_embeddings":true,"vocab_size":128256,
      "quantization_config":{"quant_method":"bitnet","linear_class":"autobitlinear","quantization_mode":"online"}})";
  EXPECT_EQ(parameters_of(config), 2412820480u);
  const ModelTemplate t = template_of(config);
  ASSERT_NE(find_tensor(t, "model.layers.29.self_attn.attn_sub_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.29.mlp.ffn_sub_norm.weight")->shape, (Shape{6912}));
}

// mistralai/Ministral-8B-Instruct-2410: its model card gives "Parameters 8,019,808,256".
TEST(RecentDecoders, MinistralMatchesItsCardAndSlidesEveryLayerWithoutLayerTypes) {
  const std::string dims = R"("head_dim":128,"hidden_size":4096,"intermediate_size":12288,
      "num_attention_heads":32,"num_hidden_layers":36,"num_key_value_heads":8,"sliding_window":32768,
      "vocab_size":131072)";
  const ModelTemplate t = template_of(R"({"model_type":"ministral",)" + dims + "}");
  EXPECT_EQ(total_of(t), 8019808256u);
  EXPECT_EQ(windows_of(t, 0), 32768u);
  EXPECT_EQ(windows_of(t, 35), 32768u);
  std::string types = R"("layer_types":[)";
  for (int i = 0; i < 36; ++i)
    types += std::string(i ? "," : "") + (i % 4 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  const ModelTemplate listed = template_of(R"({"model_type":"ministral",)" + dims + "," + types + "]}");
  EXPECT_EQ(windows_of(listed, 0), 0u);
  EXPECT_EQ(windows_of(listed, 1), 32768u);
}

// mistralai/Ministral-3-3B-Instruct-2512's text_config (card: "3.4B language model"); inside Mistral 3 the
// same language model under model.language_model, with Pixtral and the projector beside it.
constexpr const char* kMinistral3Text3B = R"({"head_dim":128,"hidden_size":3072,"intermediate_size":9216,
    "max_position_embeddings":262144,"model_type":"ministral3","num_attention_heads":32,"num_hidden_layers":26,
    "num_key_value_heads":8,"sliding_window":null,"tie_word_embeddings":true,"vocab_size":131072})";

TEST(RecentDecoders, Ministral3IsMistralsLayoutStandaloneAndInsideMistral3) {
  EXPECT_EQ(parameters_of(kMinistral3Text3B), 3429006336u);
  const std::string composite =
      std::string(R"({"model_type":"mistral3","tie_word_embeddings":true,"text_config":)") +
      kMinistral3Text3B + "}";
  std::string as_mistral = kMinistral3Text3B;
  as_mistral.replace(as_mistral.find("ministral3"), 10, "mistral");
  const std::string mistral_composite =
      std::string(R"({"model_type":"mistral3","tie_word_embeddings":true,"text_config":)") + as_mistral + "}";
  EXPECT_EQ(parameters_of(composite), parameters_of(mistral_composite));
  const ModelTemplate t = template_of(composite);
  EXPECT_NE(find_tensor(t, "model.language_model.layers.25.mlp.down_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.vision_tower.transformer.layers.0.attention.q_proj.weight"), nullptr);
}

// Mistral Small 4: Mistral4Config's defaults are the 119B model's (its docs: "119B"); inside Mistral 3 the
// latent-attention mixture keeps its own tensors under model.language_model and the composite's head.
TEST(RecentDecoders, Mistral4IsALatentMixtureWithoutScoreCorrection) {
  EXPECT_EQ(parameters_of(R"({"model_type":"mistral4"})"), 118972826624u);
  const ModelTemplate t = template_of(
      R"({"model_type":"mistral3","tie_word_embeddings":false,"text_config":{"model_type":"mistral4",
          "num_hidden_layers":2}})");
  EXPECT_EQ(t.arch.model_type, "mistral4");
  EXPECT_NE(find_tensor(t, "model.language_model.layers.1.self_attn.kv_a_proj_with_mqa.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.language_model.layers.0.mlp.shared_experts.up_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.mlp.gate.e_score_correction_bias"), nullptr);
  EXPECT_NE(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.multi_modal_projector.linear_2.weight"), nullptr);
}

// nanochat d20 (vocab 65,536, 20 layers of 1,280): nanochat's own training run reports 560,988,160
// parameters; no norm has a weight.
TEST(RecentDecoders, NanochatHasNoNormWeights) {
  const ModelTemplate t = template_of(R"({"model_type":"nanochat","vocab_size":65536,"hidden_size":1280,
      "intermediate_size":5120,"num_hidden_layers":20,"num_attention_heads":10,"num_key_value_heads":10})");
  EXPECT_EQ(total_of(t), 560988160u);
  EXPECT_NE(find_tensor(t, "model.layers.19.mlp.fc2.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.norm.weight"), nullptr);
  EXPECT_EQ(t.tensors.size(), 20u * 6 + 2);  // a public converter's note: 122 tensors
}

// Jais-2-8B-Chat's four bf16 shards hold 16,180,861,064 bytes: two bytes for each of 8,090,401,280 values
// and 58,504 bytes of headers. Its config is the class's defaults.
TEST(RecentDecoders, Jais2HasBiasedLayerNormsAndAnUngatedMlp) {
  const ModelTemplate t = template_of(R"({"model_type":"jais2"})");
  EXPECT_EQ(total_of(t) * 2 + 58504, 16180861064u);
  EXPECT_NE(find_tensor(t, "model.layers.0.input_layernorm.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.mlp.up_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate_proj.weight"), nullptr);
}

TEST(RecentDecoders, GraniteSwaAndCwmAttendFullyEveryFourthLayerFromTheFirst) {
  const ModelTemplate g = template_of(R"({"model_type":"granite_swa","num_hidden_layers":8})");
  EXPECT_EQ(find_tensor(g, "model.layers.7.self_attn.sinks")->shape, (Shape{20}));
  EXPECT_EQ(windows_of(g, 0), 0u);
  EXPECT_EQ(windows_of(g, 1), 128u);
  EXPECT_EQ(windows_of(g, 4), 0u);
  const ModelTemplate c = template_of(R"({"model_type":"cwm","num_hidden_layers":8,"attention_bias":true})");
  EXPECT_EQ(find_tensor(c, "model.layers.0.self_attn.q_proj.bias"), nullptr);  // CWM has no bias option
  EXPECT_EQ(windows_of(c, 4), 0u);
  EXPECT_EQ(windows_of(c, 5), 8192u);
}

TEST(RecentDecoders, DiffLlamaAndHyperClovaXAddTheirPerLayerTensors) {
  const ModelTemplate d = template_of(R"({"model_type":"diffllama","num_hidden_layers":2})");
  EXPECT_EQ(find_tensor(d, "model.layers.1.self_attn.lambda_k2")->shape, (Shape{64}));
  const ModelTemplate h = template_of(R"({"model_type":"hyperclovax","num_hidden_layers":2})");
  EXPECT_NE(find_tensor(h, "model.layers.1.post_norm2.weight"), nullptr);
  const ModelTemplate plain =
      template_of(R"({"model_type":"hyperclovax","num_hidden_layers":2,"use_post_norm":false})");
  EXPECT_EQ(find_tensor(plain, "model.layers.1.post_norm1.weight"), nullptr);
}

// allenai/FlexOlmo-7x7B-1T is FlexOlmoConfig's defaults; its card: "33B total parameters".
TEST(RecentDecoders, FlexOlmoNormalisesOutputsOnly) {
  const ModelTemplate t = template_of(R"({"model_type":"flex_olmo"})");
  EXPECT_EQ(total_of(t), 33270665216u);
  EXPECT_EQ(find_tensor(t, "model.layers.0.input_layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.post_feedforward_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.k_norm.weight")->shape, (Shape{4096}));
}

TEST(RecentDecoders, Cohere2MoeDensePrefixHasItsOwnWidthAndWindows) {
  const ModelTemplate t = template_of(R"({"model_type":"cohere2_moe","hidden_size":64,"intermediate_size":96,
      "num_hidden_layers":6,"num_attention_heads":4,"head_dim":16,"vocab_size":100,"num_experts":4,
      "num_shared_experts":2,"first_k_dense_replace":2,"prefix_dense_intermediate_size":48,
      "prefix_dense_sliding_window_pattern":2,"sliding_window_pattern":3})");
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.up_proj.weight")->shape, (Shape{48, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.2.mlp.shared_experts.up_proj.weight")->shape, (Shape{192, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.2.post_attention_layernorm.weight"), nullptr);
  // Dense layers: full every second; the rest: full every third, counted from the first routed layer.
  EXPECT_EQ(windows_of(t, 0), 4096u);
  EXPECT_EQ(windows_of(t, 1), 0u);
  EXPECT_EQ(windows_of(t, 3), 4096u);
  EXPECT_EQ(windows_of(t, 4), 0u);
}

// Hy3-preview is HYV3Config's defaults; its card: 295B total. LG's K-EXAONE-236B-A23B: 236B total, 234B
// without the embeddings (here 234.68B).
TEST(RecentDecoders, Hy3AndKExaoneMatchTheirCards) {
  const ModelTemplate hy = template_of(R"({"model_type":"hy_v3"})");
  EXPECT_EQ(total_of(hy), 295033528320u);
  EXPECT_NE(find_tensor(hy, "model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(hy, "model.layers.1.mlp.e_score_correction_bias")->kind, TensorKind::Buffer);
  const ModelTemplate kx = template_of(R"({"model_type":"exaone_moe","vocab_size":153600,"hidden_size":6144,
      "intermediate_size":18432,"num_hidden_layers":48,"num_attention_heads":64,"num_key_value_heads":8,
      "head_dim":128,"moe_intermediate_size":2048,"num_experts":128,"num_experts_per_tok":8,
      "num_shared_experts":1,"first_k_dense_replace":1,"sliding_window":128,"sliding_window_pattern":"LLLG",
      "tie_word_embeddings":false,"num_nextn_predict_layers":1})");
  EXPECT_EQ(total_of(kx), 236571150336u);
  EXPECT_EQ(windows_of(kx, 0), 128u);
  EXPECT_EQ(windows_of(kx, 3), 0u);
}

// Upstage's Solar-Open-100B (card: 102.6B) and Tencent's Youtu-LLM-2B (report: 1.96B) are their classes'
// defaults; Mellum2-12B-A2.5B is MellumConfig's.
TEST(RecentDecoders, SolarOpenYoutuAndMellumDefaults) {
  const ModelTemplate solar = template_of(R"({"model_type":"solar_open","intermediate_size":10240,
      "first_k_dense_replace":3})");
  EXPECT_EQ(total_of(solar), 102651793408u);  // every layer routed, whatever those keys say
  EXPECT_EQ(parameters_of(R"({"model_type":"youtu"})"), 1961560064u);
  EXPECT_EQ(parameters_of(R"({"model_type":"mellum"})"), 12149923072u);
}

}  // namespace
}  // namespace ma::test
