// Families with no transformers oracle in ../shared/data, counted on the configs their model pages publish:
// the count, rounded as the page rounds it, must be the size it states. Each config holds the fields a count
// depends on, as the model's config.json states them, written by hand.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// `n` rounded as `stated` is: in its unit (B or M) to as many decimals as it gives. The Hub's pages give
// three significant digits ("8.17B", "361M"); a model card's prose may give fewer ("26B").
std::string rounded_as(uint64_t n, const std::string& stated) {
  const size_t dot = stated.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(stated.size() - dot - 2);
  const char unit = stated.back();
  char out[32];
  std::snprintf(out, sizeof out, "%.*f%c", decimals, static_cast<double>(n) / (unit == 'B' ? 1e9 : 1e6),
                unit);
  return out;
}

// Sizes as each model's config.json on the Hub states them (the fields a count depends on), and the size its
// model page gives. Written by hand, not computed here.
struct Published {
  const char* model;
  const char* config;
  const char* size;
};
constexpr Published kPublished[] = {
    {"ibm-granite/granite-3.1-8b-instruct",
     R"({"model_type":"granite","hidden_size":4096,"intermediate_size":12800,"num_hidden_layers":40,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":49155,"tie_word_embeddings":true})",
     "8.17B"},
    {"HuggingFaceTB/SmolLM3-3B",
     R"({"model_type":"smollm3","hidden_size":2048,"intermediate_size":11008,"num_hidden_layers":36,
         "num_attention_heads":16,"num_key_value_heads":4,"vocab_size":128256,"tie_word_embeddings":true})",
     "3.08B"},
    {"THUDM/GLM-4-9B-0414",
     R"({"model_type":"glm4","hidden_size":4096,"intermediate_size":13696,"num_hidden_layers":40,
         "num_attention_heads":32,"num_key_value_heads":2,"head_dim":128,"vocab_size":151552,
         "attention_bias":true,"tie_word_embeddings":false})",
     "9.40B"},
    {"CohereLabs/c4ai-command-r7b-12-2024",
     R"({"model_type":"cohere2","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":256000,"sliding_window":4096})",
     "8.03B"},
    {"swiss-ai/Apertus-8B-2509",
     R"({"model_type":"apertus","hidden_size":4096,"intermediate_size":21504,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":131072,"hidden_act":"xielu"})",
     "8.05B"},
    {"LGAI-EXAONE/EXAONE-4.0-1.2B",
     R"({"model_type":"exaone4","hidden_size":2048,"intermediate_size":4096,"num_hidden_layers":30,
         "num_attention_heads":32,"num_key_value_heads":8,"head_dim":64,"vocab_size":102400,
         "tie_word_embeddings":true,"sliding_window":null})",
     "1.28B"},
    {"allenai/OLMo-7B-hf",
     R"({"model_type":"olmo","hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,
         "num_attention_heads":32,"vocab_size":50304})",
     "6.89B"},
    {"nvidia/Minitron-4B-Base",
     R"({"model_type":"nemotron","hidden_size":3072,"intermediate_size":9216,"num_hidden_layers":32,
         "num_attention_heads":24,"num_key_value_heads":8,"head_dim":128,"vocab_size":256000})",
     "4.19B"},
    {"ByteDance-Seed/Seed-OSS-36B-Instruct",
     R"({"model_type":"seed_oss","hidden_size":5120,"intermediate_size":27648,"num_hidden_layers":64,
         "num_attention_heads":80,"num_key_value_heads":8,"head_dim":128,"vocab_size":155136,
         "attention_bias":true,"attention_out_bias":false})",
     "36.2B"},
    {"microsoft/Phi-3.5-MoE-instruct",
     R"({"model_type":"phimoe","hidden_size":4096,"intermediate_size":6400,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":32064,"num_local_experts":16,
         "num_experts_per_tok":2,"attention_bias":true,"lm_head_bias":true})",
     "41.9B"},
    {"baidu/ERNIE-4.5-21B-A3B-PT",
     R"({"model_type":"ernie4_5_moe","hidden_size":2560,"intermediate_size":12288,"num_hidden_layers":28,
         "num_attention_heads":20,"num_key_value_heads":4,"vocab_size":103424,"moe_num_experts":64,"moe_k":6,
         "moe_intermediate_size":1536,"moe_num_shared_experts":2,"moe_layer_start_index":1,
         "tie_word_embeddings":true,"use_bias":false})",
     "21.8B"},
    {"rednote-hilab/dots.llm1.inst",
     R"({"model_type":"dots1","hidden_size":4096,"intermediate_size":10944,"moe_intermediate_size":1408,
         "num_hidden_layers":62,"num_attention_heads":32,"num_key_value_heads":32,"head_dim":128,
         "vocab_size":152064,"n_routed_experts":128,"num_experts_per_tok":6,"n_shared_experts":2,
         "first_k_dense_replace":1})",
     "143B"},
    {"stabilityai/stablelm-2-1_6b",
     R"({"model_type":"stablelm","hidden_size":2048,"intermediate_size":5632,"num_hidden_layers":24,
         "num_attention_heads":32,"num_key_value_heads":32,"vocab_size":100352,"use_qkv_bias":true})",
     "1.64B"},
    {"stabilityai/stablelm-2-12b",
     R"({"model_type":"stablelm","hidden_size":5120,"intermediate_size":13824,"num_hidden_layers":40,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":100352,"qk_layernorm":true,
         "use_parallel_residual":true})",
     "12.1B"},
    {"LiquidAI/LFM2-350M",
     R"({"model_type":"lfm2","hidden_size":1024,"block_ff_dim":6656,"block_auto_adjust_ff_dim":true,
         "block_ffn_dim_multiplier":1.0,"block_multiple_of":256,"num_hidden_layers":16,"num_attention_heads":16,
         "num_key_value_heads":8,"vocab_size":65536,"conv_L_cache":3,"full_attn_idxs":[2,5,8,10,12,14],
         "tie_embedding":true})",
     "354M"},
    {"LiquidAI/LFM2-8B-A1B",
     R"({"model_type":"lfm2_moe","hidden_size":2048,"intermediate_size":7168,"moe_intermediate_size":1792,
         "num_hidden_layers":24,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":65536,
         "num_experts":32,"num_experts_per_tok":4,"num_dense_layers":2,
         "layer_types":["conv","conv","full_attention","conv","conv","conv","full_attention","conv","conv","conv",
           "full_attention","conv","conv","conv","full_attention","conv","conv","conv","full_attention","conv",
           "conv","full_attention","conv","conv"]})",
     "8.34B"},
    {"answerdotai/ModernBERT-base",
     R"({"model_type":"modernbert","architectures":["ModernBertForMaskedLM"]})", "150M"},
    {"answerdotai/ModernBERT-large",
     R"({"model_type":"modernbert","architectures":["ModernBertForMaskedLM"],"hidden_size":1024,
         "intermediate_size":2624,"num_hidden_layers":28,"num_attention_heads":16})",
     "396M"},
    {"BAAI/bge-m3",
     R"({"model_type":"xlm-roberta","architectures":["XLMRobertaModel"],"vocab_size":250002,
         "max_position_embeddings":8194,"type_vocab_size":1,"hidden_size":1024,"num_hidden_layers":24,
         "num_attention_heads":16,"intermediate_size":4096})",
     "568M"},
    {"mistralai/Mistral-Small-3.1-24B-Instruct-2503",
     R"({"model_type":"mistral3","architectures":["Mistral3ForConditionalGeneration"],"spatial_merge_size":2,
         "multimodal_projector_bias":false,"vision_feature_layer":-1,
         "text_config":{"model_type":"mistral","head_dim":128,"hidden_size":5120,"intermediate_size":32768,
           "num_attention_heads":32,"num_hidden_layers":40,"num_key_value_heads":8,"vocab_size":131072},
         "vision_config":{"model_type":"pixtral","hidden_size":1024,"intermediate_size":4096,
           "num_hidden_layers":24,"num_attention_heads":16,"patch_size":14,"image_size":1540}})",
     "24.0B"},
    {"llava-hf/llava-v1.6-mistral-7b-hf",
     R"({"model_type":"llava_next","architectures":["LlavaNextForConditionalGeneration"],
         "text_config":{"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
           "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":32064},
         "vision_config":{"model_type":"clip_vision_model","hidden_size":1024,"intermediate_size":4096,
           "num_hidden_layers":24,"num_attention_heads":16,"image_size":336,"patch_size":14}})",
     "7.57B"},
    {"llava-hf/llava-onevision-qwen2-0.5b-ov-hf",
     R"({"model_type":"llava_onevision","architectures":["LlavaOnevisionForConditionalGeneration"],
         "text_config":{"model_type":"qwen2","hidden_size":896,"intermediate_size":4864,"num_hidden_layers":24,
           "num_attention_heads":14,"num_key_value_heads":2,"vocab_size":152000,"tie_word_embeddings":true},
         "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,
           "num_hidden_layers":26,"num_attention_heads":16,"image_size":384,"patch_size":14,
           "vision_use_head":false}})",
     "894M"},
    {"tiiuae/falcon-mamba-7b",
     R"({"model_type":"falcon_mamba","hidden_size":4096,"num_hidden_layers":64,"vocab_size":65024,"state_size":16,
         "conv_kernel":4,"expand":16,"intermediate_size":8192,"time_step_rank":256,"use_bias":false,
         "use_conv_bias":true,"tie_word_embeddings":false})",
     "7.27B"},
    {"ibm-ai-platform/Bamba-9B",
     R"({"model_type":"bamba","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"attn_layer_indices":[9,18,27],
         "mamba_n_heads":128,"mamba_d_head":64,"mamba_n_groups":1,"mamba_d_state":128,"mamba_d_conv":4,
         "mamba_expand":2,"tie_word_embeddings":false})",
     "9.78B"},
    {"google/paligemma-3b-pt-224",
     R"({"model_type":"paligemma","architectures":["PaliGemmaForConditionalGeneration"],"projection_dim":2048,
         "text_config":{"model_type":"gemma","hidden_size":2048,"intermediate_size":16384,"num_attention_heads":8,
           "num_hidden_layers":18,"num_key_value_heads":1,"vocab_size":257216},
         "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,
           "num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,"projection_dim":2048,
           "vision_use_head":false}})",
     "2.92B"},
    {"HuggingFaceTB/SmolVLM-256M-Instruct",
     R"({"model_type":"idefics3","architectures":["Idefics3ForConditionalGeneration"],"scale_factor":4,
         "text_config":{"model_type":"llama","hidden_size":576,"intermediate_size":1536,"num_hidden_layers":30,
           "num_attention_heads":9,"num_key_value_heads":3,"vocab_size":49280},
         "vision_config":{"hidden_size":768,"intermediate_size":3072,"num_hidden_layers":12,
           "num_attention_heads":12,"image_size":512,"patch_size":16}})",
     "256M"},
    {"Qwen/Qwen2-Audio-7B-Instruct",
     R"({"model_type":"qwen2_audio","architectures":["Qwen2AudioForConditionalGeneration"],
         "audio_config":{"model_type":"qwen2_audio_encoder","d_model":1280,"encoder_layers":32,
           "encoder_attention_heads":20,"encoder_ffn_dim":5120,"num_mel_bins":128,"max_source_positions":1500},
         "text_config":{"model_type":"qwen2","vocab_size":156032,"intermediate_size":11008}})",
     "8.40B"},
    {"baidu/ERNIE-4.5-0.3B-PT",
     R"({"model_type":"ernie4_5","hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":18,
         "num_attention_heads":16,"num_key_value_heads":2,"head_dim":128,"vocab_size":103424,
         "tie_word_embeddings":true,"use_bias":false})",
     "361M"},
    {"poolside/Laguna-XS.2",  // mlp_layer_types as the config lists it: LagunaConfig's default, layer 0 dense
     R"({"model_type":"laguna","hidden_size":2048,"intermediate_size":8192,"num_hidden_layers":40,
         "num_attention_heads":48,"num_key_value_heads":8,"head_dim":128,"vocab_size":100352,
         "num_experts":256,"num_experts_per_tok":8,"moe_intermediate_size":512,
         "shared_expert_intermediate_size":512,"tie_word_embeddings":false,
         "num_attention_heads_per_layer":[48,64,64,64,48,64,64,64,48,64,64,64,48,64,64,64,48,64,64,64,
         48,64,64,64,48,64,64,64,48,64,64,64,48,64,64,64,48,64,64,64]})",
     "33.4B"},
    // Arcee's cards: "Trinity Mini is a 26B parameter MoE model with 3B active", Trinity Nano "6B ... 1B
    // active".
    {"arcee-ai/Trinity-Mini",
     R"({"model_type":"afmoe","hidden_size":2048,"intermediate_size":6144,"moe_intermediate_size":1024,
         "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,
         "num_dense_layers":2,"num_experts":128,"num_experts_per_tok":8,"num_shared_experts":1,
         "vocab_size":200192,"tie_word_embeddings":false})",
     "26B"},
    {"arcee-ai/Trinity-Nano-Preview",
     R"({"model_type":"afmoe","hidden_size":1024,"intermediate_size":3072,"moe_intermediate_size":256,
         "num_hidden_layers":56,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":128,
         "num_dense_layers":2,"num_experts":128,"num_experts_per_tok":8,"num_shared_experts":1,
         "vocab_size":200192,"tie_word_embeddings":false})",
     "6B"},
    // Tencent's card: "a total of 80 billion parameters with 13 billion active parameters".
    {"tencent/Hunyuan-A13B-Instruct",
     R"({"model_type":"hunyuan_v1_moe","hidden_size":4096,"intermediate_size":3072,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"num_experts":64,"moe_topk":8,
         "vocab_size":128167,"tie_word_embeddings":true})",
     "80B"},
    // The size tables of GLM-4.1V's and MiniCPM-V 4.5's reports: "GLM-4.1V-9B-Thinking | 10.3B".
    {"zai-org/GLM-4.1V-9B-Thinking",
     R"({"model_type":"glm4v","text_config":{"vocab_size":151552,"hidden_size":4096,"intermediate_size":13696,
         "num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":2},
         "vision_config":{"hidden_size":1536,"depth":24,"num_heads":12,"patch_size":14,"temporal_patch_size":2,
         "spatial_merge_size":2,"out_hidden_size":4096,"intermediate_size":13696,"image_size":336}})",
     "10.3B"},
    // GLM-4.7-Flash's card: "a 30B-A3B MoE model" (moe_families_test checks its checkpoint's exact size).
    {"zai-org/GLM-4.7-Flash",
     R"({"model_type":"glm4_moe_lite","vocab_size":154880,"hidden_size":2048,"intermediate_size":10240,
         "moe_intermediate_size":1536,"num_hidden_layers":47,"num_attention_heads":20,"n_routed_experts":64,
         "num_experts_per_tok":4,"q_lora_rank":768,"kv_lora_rank":512,"qk_nope_head_dim":192,
         "qk_rope_head_dim":64,"v_head_dim":256})",
     "30B"},
    // Voxtral's paper (arXiv 2507.13264): Mini "4.7B"; Small "24.3B", a 640M encoder, a 52M adapter and a
    // 22.9B decoder.
    {"mistralai/Voxtral-Mini-3B-2507",
     R"({"model_type":"voxtral","audio_config":{"hidden_size":1280,"intermediate_size":5120,
         "num_hidden_layers":32,"num_attention_heads":20,"num_mel_bins":128},"text_config":{"model_type":"llama",
         "vocab_size":131072,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":30,
         "num_attention_heads":32,"num_key_value_heads":8,"head_dim":128}})",
     "4.7B"},
    {"mistralai/Voxtral-Small-24B-2507",
     R"({"model_type":"voxtral","text_config":{"model_type":"llama","vocab_size":131072,"hidden_size":5120,
         "intermediate_size":32768,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":8,
         "head_dim":128}})",
     "24.3B"},
};

TEST(PublishedSizes, CountsAreThePublishedSizes) {
  for (const Published& p : kPublished)
    EXPECT_EQ(rounded_as(parameters_of(p.config), p.size), p.size) << p.model;
}

}  // namespace
}  // namespace ma::test
