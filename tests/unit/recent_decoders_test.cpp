// The decoders of llama_additions.cpp and moe_variants.cpp, Mistral's ministral / ministral3 / mistral4 and
// the DeepSeek-style stacks of Solar Open, K-EXAONE and Youtu. Each count is checked against a figure from
// outside our code: a checkpoint's own tensor dump or shard bytes, a model card's exact parameter count, or,
// where the card rounds, arithmetic over the transformers classes' modules done apart from this code (its
// rounding is quoted beside it).
#include <gtest/gtest.h>

#include <string>

#include "analysis/moe_summary.h"
#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

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

// XiaomiMiMo/MiMo-V2-Flash's Hub config spells its layer kinds as remote code reads them
// (hybrid_layer_pattern, moe_layer_freq); they equal MiMoV2FlashConfig's defaults. Card: 309B total, 15B
// active (here 308.78B and 15.45B with the embeddings; the checkpoint's three 0.33B multi-token-prediction
// blocks are not built).
TEST(RecentDecoders, MimoV2FlashDoublesKvHeadsAndAddsSinksOnSlidingLayers) {
  std::string pattern, freq;
  for (int i = 0; i < 48; ++i) {
    pattern += std::string(i ? "," : "") + (i == 0 || (i + 1) % 6 == 0 ? "0" : "1");
    freq += std::string(i ? "," : "") + (i == 0 ? "0" : "1");
  }
  const ModelTemplate hub =
      template_of(R"({"model_type":"mimo_v2_flash","hybrid_layer_pattern":[)" + pattern +
                  R"(],"moe_layer_freq":[)" + freq + R"(],"n_shared_experts":null})");
  EXPECT_EQ(total_of(hub), 308778768832u);
  EXPECT_EQ(total_of(hub), total_of(template_of(R"({"model_type":"mimo_v2_flash"})")));
  EXPECT_EQ(find_tensor(hub, "model.layers.1.self_attn.k_proj.weight")->shape, (Shape{8 * 192, 4096}));
  EXPECT_EQ(find_tensor(hub, "model.layers.5.self_attn.v_proj.weight")->shape, (Shape{4 * 128, 4096}));
  EXPECT_NE(find_tensor(hub, "model.layers.1.self_attn.sinks"), nullptr);
  EXPECT_EQ(find_tensor(hub, "model.layers.5.self_attn.sinks"), nullptr);
  EXPECT_NE(find_tensor(hub, "model.layers.0.mlp.gate_proj.weight"), nullptr);
  const LayerSpec& sliding = hub.arch.stacks.front().layers.at(1);
  EXPECT_EQ(sliding.attention.kv_heads, 8u);
  EXPECT_EQ(sliding.attention.v_head_dim, 128u);
  EXPECT_EQ(sliding.attention.window, 128u);
  EXPECT_EQ(windows_of(hub, 5), 0u);
  EXPECT_THROW(template_of(R"({"model_type":"mimo_v2_flash","num_hidden_layers":2,"moe_layer_freq":[0,2]})"),
               Error);
}

// DeepSeek-V4-Pro's config.json (legacy keys: compress_ratios, num_hash_layers; 61 layers, the 62nd ratio is
// its multi-token-prediction stage's). Card: 1.6T total, 49B activated. V4-Flash's shapes check against its
// checkpoint: per layer the index lists 1,565 (sliding), 1,569 (HCA) and 1,576 (CSA) tensors, which the
// transformers modules below account for one by one.
TEST(RecentDecoders, DeepSeekV4ProCountsItsCompressorsIndexersAndHyperConnections) {
  std::string ratios = "128,128";
  for (int i = 2; i < 61; ++i) ratios += i % 2 == 0 ? ",4" : ",128";
  ratios += ",0";
  const ModelTemplate t = template_of(R"({"model_type":"deepseek_v4","hidden_size":7168,"head_dim":512,
      "index_head_dim":128,"index_n_heads":64,"moe_intermediate_size":3072,"n_routed_experts":384,
      "num_attention_heads":128,"num_experts_per_tok":6,"num_hidden_layers":61,"num_hash_layers":3,
      "o_groups":16,"o_lora_rank":1024,"q_lora_rank":1536,"vocab_size":129280,"sliding_window":128,
      "hc_mult":4,"n_shared_experts":1,"num_key_value_heads":1,"compress_ratios":[)" +
                                      ratios + "]}");
  EXPECT_EQ(total_of(t), 1572997179491u);
  // A CSA layer: the compressor twice head_dim wide, and the indexer with its own compressor.
  EXPECT_EQ(find_tensor(t, "model.layers.2.self_attn.compressor.kv_proj.weight")->shape, (Shape{1024, 7168}));
  EXPECT_EQ(find_tensor(t, "model.layers.2.self_attn.compressor.indexer.position_bias")->shape,
            (Shape{4, 256}));
  // An HCA layer pools 128 tokens into one head_dim entry; the grouped output projection.
  EXPECT_EQ(find_tensor(t, "model.layers.3.self_attn.compressor.position_bias")->shape, (Shape{128, 512}));
  EXPECT_EQ(find_tensor(t, "model.layers.3.self_attn.o_a_proj.weight")->shape,
            (Shape{16 * 1024, 128 * 512 / 16}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.tid2eid")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "model.layers.3.mlp.gate.e_score_correction_bias")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "model.layers.60.attn_hc.fn")->shape, (Shape{24, 4 * 7168}));
  const AttentionShape& hca = t.arch.stacks.front().layers.at(3).attention;
  EXPECT_EQ(hca.compress_ratio, 128u);
  EXPECT_EQ(hca.compressed_width, 512u);
  EXPECT_EQ(t.arch.stacks.front().layers.at(2).attention.compressed_width, 512u + 128);
  EXPECT_EQ(hca.kv_heads, 1u);
  EXPECT_TRUE(hca.kv_stored_once);
  EXPECT_THROW(template_of(R"({"model_type":"deepseek_v4","num_hidden_layers":2,"compress_ratios":[4,16]})"),
               Error);
}

// meituan-longcat/LongCat-Flash-Chat's config.json (LongcatFlashConfig's defaults have its sizes). Paper:
// 560B total, 18.6B-31.3B activated per token. Its checkpoint, as vLLM, SGLang and mlx-lm load it, stores
// each real expert apart: 3 + 28 x (2 x 7 attention + 2 x 3 dense MLP + 4 norm + 2 router + 3 x 512 expert)
// = 43,739 tensors beside its multi-token-prediction layer.
TEST(RecentDecoders, LongCatFlashCountsBothAttentionsAndTheRealExpertsOnly) {
  const std::string config = R"({"model_type":"longcat_flash","vocab_size":131072,"hidden_size":6144,
      "num_layers":28,"num_attention_heads":64,"ffn_hidden_size":12288,"expert_ffn_hidden_size":2048,
      "n_routed_experts":512,"zero_expert_num":256,"moe_topk":12,"q_lora_rank":1536,"kv_lora_rank":512,
      "qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"max_position_embeddings":131072})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(total_of(t), 560'664'958'976u);
  EXPECT_EQ(total_of(t), total_of(template_of(R"({"model_type":"longcat_flash"})")));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.experts.gate_up_proj")->shape, (Shape{512, 2 * 2048, 6144}));
  EXPECT_EQ(find_tensor(t, "model.layers.27.mlp.router.classifier.weight")->shape, (Shape{768, 6144}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.router.e_score_correction_bias")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "model.layers.3.self_attn.1.kv_b_proj.weight")->shape, (Shape{64 * 256, 512}));
  EXPECT_EQ(find_tensor(t, "model.layers.3.mlps.1.down_proj.weight")->shape, (Shape{6144, 12288}));
  EXPECT_EQ(disk_totals(t).tensors, 43'739u);
  ASSERT_EQ(t.arch.layers().size(), 28u);
  EXPECT_EQ(t.arch.layers()[0].attention.modules, 2u);
  EXPECT_EQ(t.arch.layers()[0].attention.kind, AttentionKind::Mla);
  // Every one of the 12 picks a real expert: the paper's upper 31.3B, the head counted, not the embedding;
  // none does: its lower 18.6B (18,693,773,312 without the 805,306,368 of the embedding).
  const ParameterCounts counts = counts_of(config);
  EXPECT_EQ(counts.active_non_embedding, 31'377'348'608u);
  const std::optional<MoeSummary> moe = summarize_moe(t.arch, counts);
  ASSERT_TRUE(moe);
  EXPECT_EQ(moe->zero_experts, 256u);
  EXPECT_EQ(moe->min_active_parameters, 18'693'773'312u + 805'306'368u);
  EXPECT_THROW(template_of(R"({"model_type":"longcat_flash","num_layers":2,"q_lora_rank":null})"), Error);
}

// stepfun-ai/Step-3.5-Flash's Hub config in its legacy keys (per-layer lists padded with its three
// multi-token-prediction layers, attention_other_setting, moe_layers_enum as a string). Card: 196B total,
// 11B active; the Hub's 199B adds those three layers, which transformers does not build.
TEST(RecentDecoders, Step35ReadsItsHubConfigsLegacyKeys) {
  std::string types;
  for (int i = 0; i < 48; ++i)
    types += std::string(i ? "," : "") + (i % 4 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  std::string moe;
  for (int i = 3; i < 45; ++i) moe += std::string(i > 3 ? "," : "") + std::to_string(i);
  const ModelTemplate t = template_of(R"({"model_type":"step3p5","hidden_size":4096,"intermediate_size":11264,
      "num_hidden_layers":45,"vocab_size":128896,"num_attention_heads":64,"num_attention_groups":8,"head_dim":128,
      "attention_other_setting":{"num_attention_heads":96,"num_attention_groups":8,"head_dim":128},
      "sliding_window":512,"num_nextn_predict_layers":3,"moe_num_experts":288,"moe_top_k":8,
      "moe_intermediate_size":1280,"share_expert_dim":1280,"tie_word_embeddings":false,"layer_types":[)" +
                                      types + R"(],"moe_layers_enum":")" + moe + R"("})");
  EXPECT_EQ(total_of(t), 196956118272u);
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.g_proj.weight")->shape, (Shape{96, 4096}));
  EXPECT_EQ(find_tensor(t, "model.layers.4.self_attn.q_proj.weight")->shape, (Shape{64 * 128, 4096}));
  EXPECT_NE(find_tensor(t, "model.layers.2.mlp.gate_proj.weight"), nullptr);
  const TemplateTensor* experts = find_tensor(t, "model.layers.3.mlp.experts.gate_up_proj");
  ASSERT_EQ(experts->disk.size(), 2u);  // stored as two stacked halves
  EXPECT_EQ(experts->disk[1].name, "model.layers.3.moe.up_proj.weight");
  EXPECT_EQ(find_tensor(t, "model.layers.3.mlp.gate.e_score_correction_bias")->kind, TensorKind::Buffer);
  EXPECT_EQ(stored_name(*find_tensor(t, "model.layers.3.mlp.shared_experts.up_proj.weight")),
            "model.layers.3.share_expert.up_proj.weight");
  EXPECT_EQ(windows_of(t, 1), 512u);
  EXPECT_THROW(template_of(R"({"model_type":"step3p5","num_hidden_layers":4,"moe_layers_enum":"3,x"})"),
               Error);
}

// OLMo Hybrid 7B is OlmoHybridConfig's defaults ("7B"; here 7,430,870,688 as the classes' modules add up).
TEST(RecentDecoders, OlmoHybridInterleavesDeltaNetWithOlmo3Attention) {
  const ModelTemplate t = template_of(R"({"model_type":"olmo_hybrid"})");
  EXPECT_EQ(total_of(t), 7430870688u);
  // 30 key heads of 96 (0.75 x 3,840 / 30) and 30 value heads of 192: the convolution runs over q, k and v.
  EXPECT_EQ(find_tensor(t, "model.layers.0.linear_attn.conv1d.weight")->shape,
            (Shape{2 * 2880 + 5760, 1, 4}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.linear_attn.o_norm.weight")->shape, (Shape{192}));
  EXPECT_NE(find_tensor(t, "model.layers.0.input_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.3.input_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.3.self_attn.q_norm.weight")->shape, (Shape{3840}));
  EXPECT_EQ(t.arch.stacks.front().layers.at(2).mixer, Mixer::LinearAttention);
  EXPECT_EQ(t.arch.stacks.front().layers.at(3).mixer, Mixer::Attention);
  // Legacy names map as the config class maps them; a stack without both kinds is refused.
  const ModelTemplate legacy = template_of(
      R"({"model_type":"olmo_hybrid","num_hidden_layers":2,"layer_types":["mamba","attention"]})");
  EXPECT_EQ(legacy.arch.stacks.front().layers.at(0).mixer, Mixer::LinearAttention);
  EXPECT_THROW(template_of(R"({"model_type":"olmo_hybrid","num_hidden_layers":2,
      "layer_types":["linear_attention","linear_attention"]})"),
               Error);
}

// jetmoe/jetmoe-8b: JetMoeConfig's defaults with 24 layers; its paper: 8.52B parameters, 2.2B active.
TEST(RecentDecoders, JetMoeRoutesAttentionHeadsAndMlps) {
  const ModelTemplate t = template_of(R"({"model_type":"jetmoe","num_hidden_layers":24})");
  EXPECT_EQ(total_of(t), 8522237952u);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attention.kv_proj.weight")->shape,
            (Shape{2 * 16 * 128, 2048}));
  const TemplateTensor* moa = find_tensor(t, "model.layers.23.self_attention.experts.input_linear.weight");
  EXPECT_EQ(moa->shape, (Shape{8, 2048, 2048}));
  EXPECT_TRUE(moa->routed_expert);
  EXPECT_EQ(find_tensor(t, "model.layers.23.mlp.output_linear.weight")->shape, (Shape{8, 2048, 5632}));
  EXPECT_EQ(t.arch.num_attention_heads, 32u);  // 16 kv heads x top-2 attention experts
  EXPECT_TRUE(t.arch.tie_word_embeddings);
}

}  // namespace
}  // namespace ma::test
