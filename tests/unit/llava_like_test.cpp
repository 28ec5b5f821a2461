// LLaVA-NeXT, LLaVA-OneVision, Mistral 3, Idefics3 / SmolVLM, PaliGemma, InternVL, Qwen2-Audio and Voxtral
// (model/families/llava_like.cpp), and GLM-4.1V and GLM-4.5V (glm4v.cpp): their towers and projectors, in
// memory and on disk, on configs written here. Their counts are checked against the model pages in
// published_sizes_test.cpp and, for InternVL, against the Hub's file sizes below.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kTinyText =
    R"("text_config":{"model_type":"mistral","hidden_size":64,"intermediate_size":96,
    "num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})";

TEST(LlavaLike, NextAndOnevisionLearnAnImageNewline) {
  for (const std::string type : {"llava_next", "llava_onevision"}) {
    const std::string cls =
        type == "llava_next" ? "LlavaNextForConditionalGeneration" : "LlavaOnevisionForConditionalGeneration";
    const ModelTemplate t = template_of(R"({"model_type":")" + type + R"(","architectures":[")" + cls +
                                        R"("],)" + kTinyText + "}");
    const TemplateTensor* newline = find_tensor(t, "model.image_newline");
    ASSERT_NE(newline, nullptr) << type;
    EXPECT_EQ(newline->shape, Shape({64}));
    EXPECT_EQ(stored_name(*newline), "image_newline");
    EXPECT_EQ(t.arch.architecture, cls);
  }
  // LLaVA has none; OneVision's default tower is SigLIP (1152 wide, no head).
  EXPECT_EQ(
      find_tensor(template_of(R"({"model_type":"llava","architectures":["LlavaForConditionalGeneration"],)" +
                              std::string(kTinyText) + "}"),
                  "model.image_newline"),
      nullptr);
  const ModelTemplate ov = template_of(R"({"model_type":"llava_onevision",)" + std::string(kTinyText) + "}");
  EXPECT_EQ(find_tensor(ov, "vision_tower.embeddings.patch_embedding.weight")->shape,
            Shape({1152, 3, 14, 14}));
  EXPECT_EQ(find_tensor(ov, "vision_tower.head.probe"), nullptr);
}

TEST(LlavaLike, Mistral3MergesPatchesBeforeProjecting) {
  const ModelTemplate t =
      template_of(R"({"model_type":"mistral3","architectures":["Mistral3ForConditionalGeneration"],
      "spatial_merge_size":2,)" +
                  std::string(kTinyText) +
                  R"(,"vision_config":{"model_type":"pixtral","hidden_size":32,
      "intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":2,"patch_size":14,"image_size":224}})");
  const std::string p = "model.multi_modal_projector.";
  EXPECT_EQ(find_tensor(t, p + "norm.weight")->shape, Shape({32}));
  EXPECT_EQ(find_tensor(t, p + "patch_merger.merging_layer.weight")->shape, Shape({32, 128}));
  EXPECT_EQ(find_tensor(t, p + "linear_1.weight")->shape, Shape({64, 32}));
  EXPECT_EQ(find_tensor(t, p + "linear_1.bias"), nullptr);  // multimodal_projector_bias: false
  const TemplateTensor* conv = find_tensor(t, "model.vision_tower.patch_conv.weight");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->shape, Shape({32, 3, 14, 14}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.patch_conv.bias"), nullptr);
  EXPECT_EQ(stored_name(*conv), "vision_tower.patch_conv.weight");
  EXPECT_EQ(
      stored_name(*find_tensor(t, "model.vision_tower.transformer.layers.1.feed_forward.down_proj.weight")),
      "vision_tower.transformer.layers.1.feed_forward.down_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.weight")),
            "language_model.model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "lm_head.weight")), "language_model.lm_head.weight");
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_THROW(template_of(R"({"model_type":"mistral3","text_config":{"model_type":"qwen2"}})"), Error);
  // 2^26 wide, merging 2^26 x 2^26 patches: the merged width (2^78) is an error, not a wrapped 0.
  EXPECT_THROW(
      template_of(R"({"model_type":"mistral3","spatial_merge_size":67108864,)" + std::string(kTinyText) +
                  R"(,"vision_config":{"model_type":"pixtral","hidden_size":67108864,
      "intermediate_size":48,"num_hidden_layers":1,"num_attention_heads":2,"patch_size":14,"image_size":224}})"),
      Error);
}

TEST(LlavaLike, Idefics3ShufflesPatchesIntoOneUnbiasedLinear) {
  const ModelTemplate t =
      template_of(R"({"model_type":"smolvlm","scale_factor":4,)" + std::string(kTinyText) +
                  R"(,"vision_config":{"hidden_size":32,"intermediate_size":48,
      "num_hidden_layers":1,"num_attention_heads":2,"image_size":64,"patch_size":16}})");
  EXPECT_EQ(t.arch.architecture, "SmolVLMForConditionalGeneration");
  EXPECT_EQ(find_tensor(t, "model.connector.modality_projection.proj.weight")->shape, Shape({64, 512}));
  EXPECT_EQ(find_tensor(t, "model.connector.modality_projection.proj.bias"), nullptr);
  // SigLIP's modules (a biased patch conv, no class token) without the pooling head.
  EXPECT_NE(find_tensor(t, "model.vision_model.embeddings.patch_embedding.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.vision_model.embeddings.position_embedding.weight")->shape,
            Shape({16, 32}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.head.probe"), nullptr);
  EXPECT_NE(find_tensor(t, "model.text_model.layers.0.mlp.down_proj.weight"), nullptr);
  EXPECT_FALSE(t.arch.tie_word_embeddings);
}

// HuggingFaceM4/idefics2-8b's sizes: Mistral-7B-v0.1 (vocabulary 32,003, head untied), a 27-layer SigLIP
// tower at 980 pixels in patches of 14, three resampler layers of 16 heads of 96 (4 key/value heads)
// producing 64 latents. The Hub: "8B"; Mistral-7B-v0.1 alone is 7,241,732,096 at 32,000 tokens.
constexpr const char* kIdefics2_8b =
    R"({"model_type":"idefics2","architectures":["Idefics2ForConditionalGeneration"],
    "tie_word_embeddings":false,
    "perceiver_config":{"model_type":"idefics2","resampler_n_latents":64,"resampler_depth":3,
      "resampler_n_heads":16,"resampler_head_dim":96,"num_key_value_heads":4},
    "text_config":{"model_type":"mistral","vocab_size":32003,"hidden_size":4096,"intermediate_size":14336,
      "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":32768,
      "sliding_window":4096},
    "vision_config":{"model_type":"idefics2","hidden_size":1152,"image_size":980,"intermediate_size":4304,
      "num_attention_heads":16,"num_hidden_layers":27,"patch_size":14}})";

TEST(LlavaLike, Idefics2ResamplesPatchesIntoLatents) {
  const ModelTemplate t = template_of(kIdefics2_8b);
  EXPECT_EQ(t.arch.architecture, "Idefics2ForConditionalGeneration");
  // The modality projection runs through the text model's intermediate width.
  EXPECT_EQ(find_tensor(t, "model.connector.modality_projection.gate_proj.weight")->shape,
            Shape({14336, 1152}));
  EXPECT_EQ(find_tensor(t, "model.connector.modality_projection.down_proj.weight")->shape,
            Shape({4096, 14336}));
  const std::string r = "model.connector.perceiver_resampler.";
  EXPECT_EQ(find_tensor(t, r + "latents")->shape, Shape({64, 4096}));
  EXPECT_EQ(find_tensor(t, r + "layers.2.self_attn.q_proj.weight")->shape, Shape({1536, 4096}));
  EXPECT_EQ(find_tensor(t, r + "layers.2.self_attn.k_proj.weight")->shape, Shape({384, 4096}));
  EXPECT_EQ(find_tensor(t, r + "layers.2.mlp.up_proj.weight")->shape, Shape({16384, 4096}));
  EXPECT_EQ(find_tensor(t, r + "layers.3.self_attn.q_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, r + "norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.vision_model.embeddings.position_embedding.weight")->shape,
            Shape({4900, 1152}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.head.probe"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "");
  // Tower 417,792,240 (27 SigLIP layers, the patch and position embeddings, the final norm), connector
  // 743,219,200 (the gated projection and the resampler), and Mistral-7B-v0.1 with three more tokens in its
  // embedding and its own head: 8,402,768,112 in all.
  const uint64_t tower = 1152u * 3 * 14 * 14 + 1152 + 4900u * 1152 +
                         27u * (4u * 1152 * 1152 + 4 * 1152 + 4 * 1152 + 2u * 1152 * 4304 + 4304 + 1152) +
                         2 * 1152;
  const uint64_t resampler_layer = 2u * 4096 + 1536u * 4096 * 2 + 384u * 4096 * 2 + 4096 + 3u * 16384 * 4096;
  const uint64_t connector = 2u * 1152 * 14336 + 14336u * 4096 + 64u * 4096 + 3 * resampler_layer + 4096;
  EXPECT_EQ(tower, 417'792'240u);
  EXPECT_EQ(connector, 743'219'200u);
  EXPECT_EQ(parameters_of(kIdefics2_8b), tower + connector + 7'241'732'096u + 2u * 3 * 4096);
  EXPECT_EQ(counts_of(kIdefics2_8b).total / 1'000'000'000, 8u);  // its card's "8B"
}

TEST(LlavaLike, PaliGemmaProjectsOnceIntoGemma) {
  const ModelTemplate t = template_of(R"({"model_type":"paligemma","projection_dim":64,
      "text_config":{"model_type":"gemma","hidden_size":64,"intermediate_size":96,"num_hidden_layers":1,
        "num_attention_heads":4,"num_key_value_heads":1,"head_dim":16,"vocab_size":100},
      "vision_config":{"hidden_size":32,"intermediate_size":48,"num_hidden_layers":1,"num_attention_heads":2,
        "image_size":64,"patch_size":16,"vision_use_head":false}})");
  const TemplateTensor* linear = find_tensor(t, "model.multi_modal_projector.linear.weight");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->shape, Shape({64, 32}));
  EXPECT_NE(find_tensor(t, "model.multi_modal_projector.linear.bias"), nullptr);
  EXPECT_EQ(stored_name(*find_tensor(t, "model.vision_tower.post_layernorm.weight")),
            "vision_tower.vision_model.post_layernorm.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.norm.weight")),
            "language_model.model.norm.weight");
  EXPECT_TRUE(t.arch.tie_word_embeddings);  // PaliGemmaConfig's default
  EXPECT_THROW(
      template_of(R"({"model_type":"paligemma","projection_dim":32,"text_config":{"model_type":"gemma",
      "hidden_size":64}})"),
      Error);
}

TEST(LlavaLike, Qwen2AudioTowerRunsForNoTextToken) {
  const std::string config = R"({"model_type":"qwen2_audio",
      "audio_config":{"d_model":32,"encoder_layers":2,"encoder_attention_heads":2,"encoder_ffn_dim":48,
        "num_mel_bins":8,"max_source_positions":10},
      "text_config":{"model_type":"qwen2","hidden_size":64,"intermediate_size":96,"num_hidden_layers":1,
        "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100}})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "audio_tower.conv1.weight")->shape, Shape({32, 8, 3}));
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.1.self_attn.k_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "audio_tower.layers.1.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_tower.embed_positions.weight")->kind, TensorKind::Parameter);
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear.weight")->shape, Shape({64, 32}));
  EXPECT_NE(find_tensor(t, "language_model.lm_head.weight"), nullptr);
  EXPECT_EQ(place_tensor("audio_tower.layers.1.fc1.weight").block, Block::Audio);
  // The tower and its projector are towers: counted, but not in what a text token runs.
  uint64_t tower = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.name.starts_with("audio_tower.") || x.name.starts_with("multi_modal_projector."))
      tower += numel(x.shape);
  EXPECT_GT(tower, 0u);
  EXPECT_EQ(counts_of(config).towers, tower);
}

// InternVL3-1B-hf's and -8B-hf's config.json fields a count depends on (the 300M InternViT: biased q/k/v,
// LayerNorms, no q/k norm), with the Qwen2 language models they wrap.
std::string internvl3(const std::string& text) {
  return R"({"model_type":"internvl","downsample_ratio":0.5,"text_config":{"model_type":"qwen2",)" + text +
         R"(,"vocab_size":151674,"tie_word_embeddings":false},"vision_config":{"hidden_size":1024,
         "num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096,"attention_bias":true,
         "image_size":[448,448],"patch_size":[14,14]}})";
}

// Their bf16 weights on the Hub: InternVL3-1B-hf's model.safetensors is 1.88 GB, -8B-hf's four shards
// 4.88 + 4.99 + 4.93 + 1.09 GB. The counts at two bytes each, to the same three digits, are those sizes (an
// lm_head tied to the embeddings, InternVLConfig's default, would make them 1.60 and 14.8 GB).
TEST(LlavaLike, InternVl3CountsAreTheHubsFileSizes) {
  const auto gigabytes = [](uint64_t parameters) {
    char out[16];
    std::snprintf(out, sizeof out, "%.3g", 2.0 * static_cast<double>(parameters) / 1e9);
    return std::string(out);
  };
  EXPECT_EQ(gigabytes(parameters_of(internvl3(R"("hidden_size":896,"num_hidden_layers":24,
      "num_attention_heads":14,"num_key_value_heads":2,"intermediate_size":4864)"))),
            "1.88");
  EXPECT_EQ(gigabytes(parameters_of(internvl3(R"("hidden_size":3584,"num_hidden_layers":28,
      "num_attention_heads":28,"num_key_value_heads":4,"intermediate_size":18944)"))),
            "15.9");
}

// The original LLaVA repository's configs carry the language model's fields at the top level (its config
// classes extend LlamaConfig / Qwen2Config) and no text_config. LLaVA-1.5-13B: Vicuna-13B's 40 layers of
// 5,120, the CLIP ViT-L/14-336 tower mm_vision_tower names (303,507,456) and a projector from
// mm_hidden_size 1,024; no head, as LlavaModel has none (-7B's oracle: 6,931,830,784).
TEST(LlavaLike, OriginalLlavaReadsTheTopLevelLanguageModel) {
  const std::string v15 = R"({"model_type":"llava","architectures":["LlavaLlamaForCausalLM"],
      "hidden_size":5120,"intermediate_size":13824,"num_attention_heads":40,"num_hidden_layers":40,
      "num_key_value_heads":40,"vocab_size":32000,"tie_word_embeddings":false,"mm_hidden_size":1024,
      "mm_projector_type":"mlp2x_gelu","mm_vision_select_layer":-2,
      "mm_vision_tower":"openai/clip-vit-large-patch14-336"})";
  const uint64_t vicuna_13b = 13'015'864'320, head = 32'000u * 5'120;
  const uint64_t projector = 1'024u * 5'120 + 5'120 + 5'120u * 5'120 + 5'120;
  EXPECT_EQ(parameters_of(v15), vicuna_13b - head + 303'507'456 + projector);
  const ModelTemplate t = template_of(v15);
  EXPECT_EQ(t.arch.num_layers, 40u);
  EXPECT_EQ(stored_name(*find_tensor(t, "multi_modal_projector.linear_1.weight")),
            "model.mm_projector.0.weight");
  // lmms-lab's LLaVA-OneVision-0.5B (LlavaQwenForCausalLM, SigLIP so400m/14-384, "unpad" merging with
  // its image_newline) holds the same values as llava-hf's conversion, whose count is 894M.
  const std::string lmms =
      R"({"model_type":"llava","architectures":["LlavaQwenForCausalLM"],"hidden_size":896,
      "intermediate_size":4864,"num_attention_heads":14,"num_hidden_layers":24,"num_key_value_heads":2,
      "vocab_size":152000,"tie_word_embeddings":true,"mm_hidden_size":1152,"mm_projector_type":"mlp2x_gelu",
      "mm_patch_merge_type":"spatial_unpad","mm_vision_tower":"google/siglip-so400m-patch14-384"})";
  const std::string hf = R"({"model_type":"llava_onevision",
      "architectures":["LlavaOnevisionForConditionalGeneration"],"text_config":{"model_type":"qwen2",
      "hidden_size":896,"intermediate_size":4864,"num_hidden_layers":24,"num_attention_heads":14,
      "num_key_value_heads":2,"vocab_size":152000,"tie_word_embeddings":true},"vision_config":{
      "model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,"num_hidden_layers":26,
      "num_attention_heads":16,"image_size":384,"patch_size":14,"vision_use_head":false}})";
  EXPECT_EQ(parameters_of(lmms), parameters_of(hf));
  // The repository's own model_type names the language model without a class.
  std::string own_type = lmms;
  own_type.replace(own_type.find(R"("model_type":"llava")"), 20, R"("model_type":"llava_qwen")");
  own_type.replace(own_type.find(R"("architectures":["LlavaQwenForCausalLM"],)"), 41, "");
  EXPECT_EQ(parameters_of(own_type), parameters_of(hf));
  EXPECT_EQ(stored_name(*find_tensor(template_of(lmms), "image_newline")), "model.image_newline");
  EXPECT_THROW(
      template_of(R"({"model_type":"llava","architectures":["LlavaMptForCausalLM"],"hidden_size":64})"),
      Error);
}

// The same models as OpenGVLab publishes them (InternVLChatModel, remote code): llm_config and a
// vision_config in InternViT's own field names. transformers' converter only renames and splits the fused
// q/k/v, so each holds exactly the -hf form's values; the head stays apart from the embeddings even where the
// Qwen2.5 config it was trained from ties them (InternVLChatConfig forces that off).
std::string internvl_chat(const std::string& llm, const std::string& vit) {
  return R"({"model_type":"internvl_chat","architectures":["InternVLChatModel"],"downsample_ratio":0.5,
      "select_layer":-1,"llm_config":)" +
         llm + R"(,"vision_config":)" + vit + "}";
}
constexpr const char* kInternVit300m = R"({"model_type":"intern_vit_6b","hidden_size":1024,
    "intermediate_size":4096,"num_hidden_layers":24,"num_attention_heads":16,"image_size":448,"patch_size":14,
    "qkv_bias":true,"qk_normalization":false,"norm_type":"layer_norm"})";

TEST(LlavaLike, InternVlChatHoldsTheHfFormsValues) {
  const std::string qwen_1b = R"("hidden_size":896,"num_hidden_layers":24,"num_attention_heads":14,
      "num_key_value_heads":2,"intermediate_size":4864)";
  const std::string remote = internvl_chat(
      R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","vocab_size":151674,
      "tie_word_embeddings":true,)" +
          qwen_1b + "}",
      kInternVit300m);
  EXPECT_EQ(parameters_of(remote), parameters_of(internvl3(qwen_1b)));
  EXPECT_EQ(parameters_of(remote), 938'193'024u);
  const ModelTemplate t = template_of(remote);
  EXPECT_TRUE(t.arch.hand_derived);
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layers.0.attn.qkv.weight")->shape, Shape({3072, 1024}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layers.0.attn.qkv.bias")->shape, Shape({3072}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layers.0.ls1")->shape, Shape({1024}));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding")->shape, Shape({1, 1025, 1024}));
  EXPECT_EQ(find_tensor(t, "mlp1.1.weight")->shape, Shape({896, 4096}));
  const TemplateTensor* head = find_tensor(t, "language_model.lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_TRUE(head->tied_to.empty());
  EXPECT_TRUE(head->stored);
  EXPECT_NE(find_tensor(t, "language_model.model.layers.23.mlp.down_proj.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->path, "language_model.model.layers");
}

// InternVL2.5-26B: InternViT-6B (45 layers kept of 48: "5.5B", RMSNorms by the remote default, q/k norms,
// no q/k/v bias) and InternLM2.5-20B with its fused wqkv; "25.5B" on the card.
TEST(LlavaLike, InternVlChatWithInternVit6bAndInternLm2) {
  const std::string config = internvl_chat(
      R"({"architectures":["InternLM2ForCausalLM"],"model_type":"internlm2","hidden_size":6144,
      "intermediate_size":16384,"num_hidden_layers":48,"num_attention_heads":48,"num_key_value_heads":8,
      "vocab_size":92553,"bias":false})",
      R"({"model_type":"intern_vit_6b","hidden_size":3200,"intermediate_size":12800,"num_hidden_layers":45,
      "num_attention_heads":25,"image_size":448,"patch_size":14,"qkv_bias":false,"qk_normalization":true})");
  const ParameterCounts c = counts_of(config);
  EXPECT_EQ(c.total / 100'000'000, 255u);
  EXPECT_EQ(c.towers / 100'000'000, 55u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layers.44.attn.q_norm.weight")->shape, Shape({3200}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layers.44.norm1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "language_model.model.layers.0.attention.wqkv.weight")->shape,
            Shape({8192, 6144}));
  EXPECT_EQ(find_tensor(t, "mlp1.0.weight")->shape, Shape({12800}));
  EXPECT_THROW(template_of(internvl_chat(R"({"hidden_size":64})", kInternVit300m)), Error);
  try {
    template_of(internvl_chat(R"({"model_type":"xverse"})", kInternVit300m));
    FAIL() << "an unknown language model was built";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  }
}

TEST(LlavaLike, InternVitLayersAndThePixelShuffleProjector) {
  const ModelTemplate t = template_of(R"({"model_type":"internvl",)" + std::string(kTinyText) +
                                      R"(,"vision_config":{"hidden_size":32,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":48,"image_size":56,"patch_size":14,"use_qk_norm":true,
      "norm_type":"rms_norm"}})");
  const std::string v = "model.vision_tower.";
  EXPECT_EQ(find_tensor(t, v + "embeddings.position_embeddings")->shape, Shape({1, 17, 32}));  // 16 + cls
  EXPECT_EQ(find_tensor(t, v + "encoder.layer.1.attention.q_proj.bias"), nullptr);  // attention_bias: false
  EXPECT_NE(find_tensor(t, v + "encoder.layer.1.attention.projection_layer.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, v + "encoder.layer.1.attention.q_norm.weight")->shape, Shape({32}));
  EXPECT_EQ(find_tensor(t, v + "encoder.layer.1.layernorm_before.bias"), nullptr);  // RMSNorm
  EXPECT_EQ(find_tensor(t, v + "encoder.layer.1.lambda_2")->shape, Shape({32}));
  EXPECT_EQ(find_tensor(t, v + "layernorm.weight"), nullptr);  // mean pooling in its place
  // downsample_ratio 0.5 folds 2 x 2 patches: the projector reads 4 x 32.
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_1.weight")->shape, Shape({64, 128}));
  EXPECT_EQ(stored_name(*find_tensor(t, v + "encoder.layer.0.mlp.fc1.weight")),
            "vision_tower.encoder.layer.0.mlp.fc1.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "lm_head.weight")), "language_model.lm_head.weight");
  // InternVL3.5's language models are Qwen3's: q/k norms per head, no q/k/v biases.
  const ModelTemplate q3 = template_of(R"({"model_type":"internvl","text_config":{"model_type":"qwen3",
      "hidden_size":64,"intermediate_size":96,"num_hidden_layers":1,"num_attention_heads":4,
      "num_key_value_heads":2,"head_dim":16,"vocab_size":100}})");
  EXPECT_EQ(find_tensor(q3, "model.language_model.layers.0.self_attn.q_norm.weight")->shape, Shape({16}));
  EXPECT_EQ(find_tensor(q3, "model.language_model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_THROW(template_of(R"({"model_type":"internvl","text_config":{"model_type":"gpt_oss"}})"), Error);
  // A ratio that would fold more patches than a width can hold is refused, not computed.
  for (const char* ratio : {"1e-300", "0.001", "0", "2"})
    EXPECT_THROW(template_of(std::string(R"({"model_type":"internvl","downsample_ratio":)") + ratio + "}"),
                 Error)
        << ratio;
}

// GLM-4.1V (model/families/glm4v.cpp): its vision blocks' MLP is out_hidden_size wide, intermediate_size
// only sizes the merger's; the decoder is GLM-4-0414's, q/k/v always biased.
TEST(LlavaLike, Glm4vVisionMlpIsOutHiddenSizeWide) {
  const ModelTemplate t = template_of(R"({"model_type":"glm4v","text_config":{"hidden_size":64,
      "intermediate_size":96,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,
      "vocab_size":100,"attention_bias":false},"vision_config":{"hidden_size":32,"depth":1,"num_heads":4,
      "out_hidden_size":64,"intermediate_size":80,"image_size":56,"patch_size":14}})");
  const std::string v = "model.visual.";
  EXPECT_EQ(find_tensor(t, v + "blocks.0.mlp.up_proj.weight")->shape, Shape({64, 32}));
  EXPECT_EQ(find_tensor(t, v + "merger.up_proj.weight")->shape, Shape({80, 64}));
  EXPECT_EQ(find_tensor(t, v + "patch_embed.proj.weight")->shape, Shape({32, 3, 2, 14, 14}));
  EXPECT_EQ(find_tensor(t, v + "embeddings.position_embedding.weight")->shape, Shape({16, 32}));
  EXPECT_EQ(find_tensor(t, v + "downsample.weight")->shape, Shape({64, 32, 2, 2}));
  EXPECT_NE(find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.language_model.layers.0.post_mlp_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.mlp.gate_up_proj.weight")->shape, Shape({192, 64}));
  EXPECT_EQ(place_tensor("model.visual.merger.proj.weight").block, Block::VisionProjector);
}

// zai-org/GLM-4.5V's config.json, the fields a count depends on.
constexpr const char* kGlm45v = R"({"model_type":"glm4v_moe","tie_word_embeddings":false,
    "text_config":{"model_type":"glm4v_moe_text","vocab_size":151552,"hidden_size":4096,
      "intermediate_size":10944,"num_hidden_layers":46,"num_attention_heads":96,"num_key_value_heads":8,
      "head_dim":128,"attention_bias":true,"moe_intermediate_size":1408,"n_routed_experts":128,
      "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":1},
    "vision_config":{"depth":24,"hidden_size":1536,"num_heads":12,"intermediate_size":10944,
      "out_hidden_size":4096,"patch_size":14,"image_size":336}})";

// GLM-4.5V: GLM-4.1V's tower in front of GLM-4.5-Air's mixture, no multi-token-prediction layer. A public
// listing of its checkpoint (46 shards): 18,106 tensors of 107,710,933,120 values, the routers'
// e_score_correction_bias buffers (45 x 128) among them; transformers counts the rest, 107,710,927,360.
TEST(LlavaLike, Glm45vIsGlm41vsTowerBeforeGlm45AirsMixture) {
  EXPECT_EQ(parameters_of(kGlm45v), 107'710'933'120u - 45u * 128);
  const ModelTemplate t = template_of(kGlm45v);
  const DiskTotals stored = disk_totals(t);
  EXPECT_EQ(stored.tensors, 18'106u);
  EXPECT_EQ(stored.elements, 107'710'933'120u);
  const std::string lm = "model.language_model.layers.";
  EXPECT_NE(find_tensor(t, lm + "1.self_attn.k_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, lm + "1.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, lm + "0.post_mlp_layernorm.weight"), nullptr);  // two norms, not GLM-4.1V's four
  EXPECT_EQ(find_tensor(t, lm + "46.input_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.visual.merger.up_proj.weight")->shape, Shape({10944, 4096}));
}

// GLM-4.6V's own classes (glm46v; glmga's config builds the same model) wrap GLM-4.1V's model around the
// language model text_config names: GLM-4.5V's mixture for zai-org/GLM-4.6V, GLM-4.1V's dense decoder by
// default (GLM-4.6V-Flash). The tensors are those of the classes it wraps.
TEST(LlavaLike, Glm46vWrapsTheLanguageModelItsTextConfigNames) {
  std::string moe = kGlm45v;
  moe.replace(moe.find("glm4v_moe"), 9, "glm46v");
  const ModelTemplate t = template_of(moe);
  EXPECT_EQ(t.arch.architecture, "Glm46VForConditionalGeneration");
  EXPECT_EQ(parameters_of(moe), parameters_of(kGlm45v));
  EXPECT_EQ(disk_totals(t).tensors, 18'106u);
  const std::string dense = R"("text_config":{"hidden_size":64,"intermediate_size":96,"num_hidden_layers":1,
      "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100},"vision_config":{"hidden_size":32,
      "depth":1,"num_heads":4,"out_hidden_size":64,"intermediate_size":80,"image_size":56,"patch_size":14}})";
  for (const char* type : {"glm46v", "glmga"})
    EXPECT_EQ(parameters_of(std::string(R"({"model_type":")") + type + "\"," + dense),
              parameters_of(R"({"model_type":"glm4v",)" + dense))
        << type;
  EXPECT_THROW(template_of(R"({"model_type":"glm46v","text_config":{"model_type":"llama"}})"), Error);
}

// Voxtral: Whisper's encoder read four frames at a time (the projector takes intermediate_size values), no
// projector biases, a whole LlamaForCausalLM under language_model; its encoder sizes under transformers'
// names or Whisper's.
TEST(LlavaLike, VoxtralStacksFourFramesIntoItsProjector) {
  const std::string tiny_text = R"("text_config":{"hidden_size":64,"intermediate_size":96,
      "num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"vocab_size":100})";
  const ModelTemplate t = template_of(R"({"model_type":"voxtral",)" + tiny_text + R"(,"audio_config":{
      "hidden_size":32,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,
      "num_mel_bins":16,"max_source_positions":50}})");
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear_1.weight")->shape, Shape({64, 128}));
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.linear_1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.1.fc1.weight")->shape, Shape({128, 32}));
  EXPECT_EQ(find_tensor(t, "audio_tower.layers.1.self_attn.k_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_tower.embed_positions.weight")->shape, Shape({50, 32}));
  EXPECT_EQ(find_tensor(t, "language_model.lm_head.weight")->shape, Shape({100, 64}));
  EXPECT_EQ(place_tensor("audio_tower.layers.0.fc1.weight").block, Block::Audio);
  const ModelTemplate whisper_names = template_of(R"({"model_type":"voxtral",)" + tiny_text +
                                                  R"(,"audio_config":{"d_model":32,"encoder_ffn_dim":128,
      "encoder_layers":2,"encoder_attention_heads":4,"num_mel_bins":16,"max_source_positions":50}})");
  EXPECT_EQ(whisper_names.tensors.size(), t.tensors.size());
  EXPECT_THROW(template_of(R"({"model_type":"voxtral","text_config":{"model_type":"qwen2"}})"), Error);
}

// nvidia/Cosmos3-Nano's reasoner (cosmos3_omni): Qwen3-VL-8B's classes and sizes unchanged, so the same
// tensors; its unified checkpoint's generator, sound and action towers are known extras, dropped on load.
TEST(LlavaLike, Cosmos3OmniIsQwen3VlWithItsGeneratorTowersSetAside) {
  const std::string body = R"(,"tie_word_embeddings":false,
      "text_config":{"model_type":"qwen3_vl_text","vocab_size":151936,"hidden_size":4096,
        "intermediate_size":12288,"num_hidden_layers":36,"num_attention_heads":32,"num_key_value_heads":8,
        "head_dim":128},
      "vision_config":{"depth":27,"hidden_size":1152,"intermediate_size":4304,"num_heads":16,
        "out_hidden_size":4096}})";
  const ModelTemplate t = template_of(R"({"model_type":"cosmos3_omni")" + body);
  EXPECT_EQ(t.arch.architecture, "Cosmos3OmniForConditionalGeneration");
  EXPECT_EQ(parameters_of(R"({"model_type":"cosmos3_omni")" + body),
            parameters_of(R"({"model_type":"qwen3_vl")" + body));
  EXPECT_NE(find_tensor(t, "model.visual.deepstack_merger_list.0.norm.weight"), nullptr);
  bool generator_known = false;
  for (const auto& k : t.known_extras) generator_known |= k.prefix == "time_embedder.";
  EXPECT_TRUE(generator_known);
}

// LightOnOCR (lighton_ocr): Mistral 3's model under other module names, LightOnOcrConfig's defaults those of
// LightOnOCR-1B ("1B"): a 24-layer Pixtral tower and Qwen3-0.6B (596,049,920 tied; its card's "0.44B
// without embeddings" is its layers' 440,466,432); the projector's linears carry no bias.
TEST(LlavaLike, LightOnOcrIsMistral3WithQwen3) {
  const std::string config = R"({"model_type":"lighton_ocr"})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(t.arch.architecture, "LightOnOcrForConditionalGeneration");
  EXPECT_EQ(find_tensor(t, "model.vision_projection.linear_1.weight")->shape, Shape({1024, 1024}));
  EXPECT_EQ(find_tensor(t, "model.vision_projection.linear_1.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.vision_projection.patch_merger.merging_layer.weight")->shape,
            Shape({1024, 4096}));
  EXPECT_NE(find_tensor(t, "model.vision_encoder.transformer.layers.23.attention.q_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.language_model.layers.27.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  const uint64_t qwen3_06b = parameters_of(R"({"model_type":"qwen3","head_dim":128,"hidden_size":1024,
      "intermediate_size":3072,"num_attention_heads":16,"num_hidden_layers":28,"num_key_value_heads":8,
      "vocab_size":151936,"tie_word_embeddings":true})");
  EXPECT_EQ(qwen3_06b, 596'049'920u);
  EXPECT_EQ(qwen3_06b - 151'936u * 1024 - 1024, 440'466'432u);  // "0.44B" without embeddings
  const uint64_t projector = 1024 + 4096u * 1024 + 2u * 1024 * 1024;
  const uint64_t pixtral = parameters_of(R"({"model_type":"lighton_ocr"})") - qwen3_06b - projector;
  // Pixtral's tower: a bias-free patch conv, a pre-norm, 24 layers of 1,024 with SwiGLU MLPs 4,096 wide.
  EXPECT_EQ(pixtral, 1024u * 3 * 14 * 14 + 1024 + 24u * (4u * 1024 * 1024 + 3u * 1024 * 4096 + 2 * 1024));
}

// zai-org/GLM-OCR (glm_ocr): GLM-4.1V's model with its tower reshaped (no learned positions or post-conv
// norm, per-head q/k norms, biased attention and MLP, the MLP intermediate_size wide, the merger
// out_hidden_size x in_channels) and a smaller GLM decoder without q/k/v biases. Its card: "GLM-0.5B language
// decoder" (the layers: 490,831,872 here) and a CogViT encoder, "0.9B" in all without the embeddings.
TEST(LlavaLike, GlmOcrReshapesGlm4vsTower) {
  const std::string config =
      R"({"model_type":"glm_ocr","text_config":{"model_type":"glm_ocr_text","vocab_size":59392,
      "attention_bias":false,"head_dim":128,"hidden_size":1536,"intermediate_size":4608,"num_attention_heads":16,
      "num_hidden_layers":16,"num_nextn_predict_layers":1,"num_key_value_heads":8,"tie_word_embeddings":false},
      "vision_config":{"model_type":"glm_ocr_vision","hidden_size":1024,"depth":24,"num_heads":16,
      "attention_bias":true,"intermediate_size":4096,"image_size":336,"patch_size":14,"out_hidden_size":1536,
      "spatial_merge_size":2,"temporal_patch_size":2}})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(t.arch.architecture, "GlmOcrForConditionalGeneration");
  const std::string v = "model.visual.";
  EXPECT_EQ(find_tensor(t, v + "embeddings.position_embedding.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, v + "post_conv_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, v + "blocks.23.attn.q_norm.weight")->shape, Shape({64}));
  EXPECT_NE(find_tensor(t, v + "blocks.23.attn.proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, v + "blocks.23.mlp.up_proj.weight")->shape, Shape({4096, 1024}));
  EXPECT_NE(find_tensor(t, v + "blocks.23.mlp.up_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, v + "merger.up_proj.weight")->shape, Shape({4608, 1536}));
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.weight")->shape,
            Shape({2048, 1536}));
  const uint64_t embeddings = 2u * 59'392 * 1536;  // the table and an untied head
  const uint64_t layers = 16u * (2048u * 1536 * 2 + 1024u * 1536 * 2 + 3u * 1536 * 4608 + 4 * 1536);
  EXPECT_EQ(layers, 490'831'872u);
  // The tower: a biased Conv3d, 24 blocks (RMSNorms, biased qkv and proj, q/k norms of 64, a biased gated MLP
  // 4,096 wide), the final norm, the 2 x 2 downsample conv to 1,536, the merger (proj, LayerNorm, a gated MLP
  // 1,536 x 3 wide).
  const uint64_t block = 2u * 1024 + 3072u * 1024 + 3072 + 1024u * 1024 + 1024 + 2 * 64 +
                         2u * (4096u * 1024 + 4096) + 1024u * 4096 + 1024;
  const uint64_t tower = 1024u * 3 * 2 * 14 * 14 + 1024 + 24 * block + 1024 + 1536u * 1024 * 4 + 1536 +
                         1536u * 1536 + 2 * 1536 + 3u * 4608 * 1536;
  EXPECT_EQ(parameters_of(config), embeddings + layers + 1536 + tower);
  bool mtp_known = false;
  for (const auto& k : t.known_extras) mtp_known |= k.prefix == "model.language_model.layers.16.";
  EXPECT_TRUE(mtp_known);
}

}  // namespace
}  // namespace ma::test
