// Model types transformers maps to the configs of families we build (code_llama, gpt-sw3, granitevision) and
// the sub-configs of multimodal models configured alone (their towers and bare language models, as AutoModel
// builds them). Totals, names and registration order were compared with an independent reconstruction of the
// transformers classes (/tmp/impl/sub_configs/verify/expected.py, expected_vs_ours.txt); Code Llama's total
// is also the published one.
#include <string>
#include <utility>
#include <vector>

#include "template_test_support.h"

namespace ma::test {
namespace {

// codellama/CodeLlama-7b-hf's config under the model_type transformers maps to LlamaConfig. 6,738,546,688
// parameters: the 6.74B the Hub lists for the checkpoint (a 32,016-token vocabulary, an untied head).
TEST(SubConfigs, CodeLlamaIsLlama) {
  const ModelTemplate t = template_of(R"({"model_type":"code_llama","architectures":["LlamaForCausalLM"],
      "hidden_size":4096,"intermediate_size":11008,"num_attention_heads":32,"num_hidden_layers":32,
      "num_key_value_heads":32,"vocab_size":32016,"max_position_embeddings":16384,"rope_theta":1000000})");
  EXPECT_EQ(total_of(t), 6738546688u);
  EXPECT_EQ(t.arch.architecture, "LlamaForCausalLM");
  expect_every_tensor_placed(t);
}

// AI-Sweden-Models/gpt-sw3-126m: GPT2LMHeadModel with a 64,000-token vocabulary and 2,048 positions; the
// head is tied to wte. 135,780,864 as GPT2LMHeadModel's modules add up.
TEST(SubConfigs, GptSw3IsGpt2) {
  const ModelTemplate t = template_of(R"({"model_type":"gpt-sw3","architectures":["GPT2LMHeadModel"],
      "activation_function":"gelu","n_embd":768,"n_head":12,"n_layer":12,"n_positions":2048,
      "vocab_size":64000})");
  EXPECT_EQ(total_of(t), 135780864u);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "transformer.wte.weight");
  expect_every_tensor_placed(t);
}

// ibm-granite/granite-vision-3.2-2b's shape: LLaVA-NeXT around a SigLIP tower (its head included, as
// SiglipVisionConfig's vision_use_head defaults to true) and a Granite language model; linear_1 reads four
// layers' features. 2,975,396,928 with the head tied.
TEST(SubConfigs, GraniteVisionIsLlavaNextAroundGranite) {
  const std::string config = R"({"model_type":"granitevision",
      "architectures":["LlavaNextForConditionalGeneration"],"vision_feature_layer":[-24,-20,-12,-1],
      "tie_word_embeddings":true,"text_config":{"model_type":"granite","hidden_size":2048,
      "intermediate_size":8192,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":8,
      "vocab_size":49156,"max_position_embeddings":131072,"tie_word_embeddings":true},
      "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"image_size":384,
      "intermediate_size":4304,"num_attention_heads":16,"num_hidden_layers":27,"patch_size":14}})";
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(total_of(t), 2975396928u);
  EXPECT_EQ(t.arch.model_type, "granite");
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_1.weight")->shape, (Shape{2048, 4 * 1152}));
  // image_newline is LlavaNextModel's own parameter: registered before its submodules.
  EXPECT_EQ(t.tensors.front().name, "model.image_newline");
  expect_every_tensor_placed(t);
  EXPECT_EQ(refusal_of(replaced(config, R"("model_type":"granite")", R"("model_type":"granitemoe")")).kind,
            ErrorKind::Unsupported);
}

// Pixtral-12B's vision encoder (PixtralVisionModel): 403,489,792. PixtralAttentionLayer registers
// feed_forward before attention, and PixtralAttention k_proj, v_proj, q_proj, o_proj.
TEST(SubConfigs, PixtralVisionModelAlone) {
  const ModelTemplate t = template_of(R"({"model_type":"pixtral","hidden_size":1024,"intermediate_size":4096,
      "num_hidden_layers":24,"num_attention_heads":16,"head_dim":64,"patch_size":16,"image_size":1024})");
  EXPECT_EQ(total_of(t), 403489792u);
  EXPECT_EQ(t.arch.architecture, "PixtralVisionModel");
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  EXPECT_EQ(t.arch.num_layers, 24u);
  EXPECT_EQ(t.tensors.front().name, "patch_conv.weight");
  EXPECT_LT(tensor_index(t, "transformer.layers.0.feed_forward.down_proj.weight"),
            tensor_index(t, "transformer.layers.0.attention.k_proj.weight"));
  EXPECT_LT(tensor_index(t, "transformer.layers.0.attention.v_proj.weight"),
            tensor_index(t, "transformer.layers.0.attention.q_proj.weight"));
  EXPECT_EQ(place_tensor("patch_conv.weight").block, Block::Embedding);
  expect_every_tensor_placed(t);
  EXPECT_EQ(refusal_of(R"({"model_type":"pixtral","hidden_size":1000,"num_attention_heads":16})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"pixtral","architectures":["LlavaForConditionalGeneration"]})").kind,
            ErrorKind::Unsupported);
}

// Qwen2-VL-2B's and Qwen2.5-VL-3B's text configs alone: AutoModel builds Qwen2VLTextModel /
// Qwen2_5_VLTextModel, the bare decoder at the top level (q/k/v biased) and no head.
TEST(SubConfigs, QwenVlTextModelsHaveNoHead) {
  const ModelTemplate t = template_of(R"({"model_type":"qwen2_vl_text","hidden_size":1536,
      "intermediate_size":8960,"num_hidden_layers":28,"num_attention_heads":12,"num_key_value_heads":2,
      "vocab_size":151936,"tie_word_embeddings":true})");
  EXPECT_EQ(total_of(t), 1543714304u);
  EXPECT_EQ(t.arch.architecture, "Qwen2VLTextModel");
  EXPECT_EQ(t.tensors.front().name, "embed_tokens.weight");
  EXPECT_EQ(t.tensors.back().name, "norm.weight");
  EXPECT_EQ(find_tensor(t, "layers.0.self_attn.k_proj.bias")->shape, Shape({256}));
  expect_every_tensor_placed(t);
  const ModelTemplate t25 = template_of(R"({"model_type":"qwen2_5_vl_text","hidden_size":2048,
      "intermediate_size":11008,"num_hidden_layers":36,"num_attention_heads":16,"num_key_value_heads":2,
      "vocab_size":151936})");
  EXPECT_EQ(total_of(t25), 3085938688u);
  EXPECT_EQ(t25.arch.architecture, "Qwen2_5_VLTextModel");
  EXPECT_EQ(find_tensor(t25, "lm_head.weight"), nullptr);
  EXPECT_EQ(
      refusal_of(R"({"model_type":"qwen2_vl_text","architectures":["Qwen2VLForConditionalGeneration"]})")
          .kind,
      ErrorKind::Unsupported);
}

// GLM-4.1V-9B's parts alone: Glm4vTextModel (8,779,522,048, no head), Glm4vVisionModel (892,498,432) and,
// with GLM-4.5V's merger width, Glm4vMoeVisionModel (858,681,856), registered in their classes' order.
TEST(SubConfigs, Glm4vPartsAlone) {
  const ModelTemplate text = template_of(R"({"model_type":"glm4v_text","hidden_size":4096,
      "intermediate_size":13696,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":2,
      "vocab_size":151552})");
  EXPECT_EQ(total_of(text), 8779522048u);
  EXPECT_EQ(text.arch.architecture, "Glm4vTextModel");
  EXPECT_LT(tensor_index(text, "layers.0.post_attention_layernorm.weight"),
            tensor_index(text, "layers.0.post_self_attn_layernorm.weight"));
  expect_every_tensor_placed(text);
  const ModelTemplate vision = template_of(R"({"model_type":"glm4v_vision"})");  // the defaults: GLM-4.1V's
  EXPECT_EQ(total_of(vision), 892498432u);
  EXPECT_EQ(vision.tensors.front().name, "embeddings.position_embedding.weight");
  EXPECT_EQ(vision.tensors.back().name, "post_layernorm.weight");
  expect_every_tensor_placed(vision);
  const ModelTemplate moe = template_of(R"({"model_type":"glm4v_moe_vision","intermediate_size":10944})");
  EXPECT_EQ(total_of(moe), 858681856u);
  EXPECT_EQ(moe.arch.architecture, "Glm4vMoeVisionModel");
  EXPECT_EQ(refusal_of(R"({"model_type":"glm4v_vision","hidden_size":1000,"num_heads":16})").field,
            "num_heads");
}

// GLM-4.5V's text config alone (Glm4vMoeTextModel, no head): 106,231,488,512, GLM-4.5-Air's 106B (one dense
// layer, then 128 routed experts of 1,408 and one shared per layer; the router's correction bias a buffer).
TEST(SubConfigs, Glm4vMoeTextModelAlone) {
  const ModelTemplate t = template_of(R"({"model_type":"glm4v_moe_text","hidden_size":4096,
      "intermediate_size":10944,"num_hidden_layers":46,"num_attention_heads":96,"num_key_value_heads":8,
      "head_dim":128,"vocab_size":151552,"moe_intermediate_size":1408,"n_routed_experts":128,
      "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":1,"attention_bias":true})");
  EXPECT_EQ(total_of(t), 106231488512u);
  EXPECT_EQ(t.arch.architecture, "Glm4vMoeTextModel");
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_EQ(t.tensors.back().name, "norm.weight");
  expect_every_tensor_placed(t);
}

// Idefics3-8B's and SmolVLM-256M's vision transformers alone (Idefics3VisionTransformer,
// SmolVLMVisionTransformer): SigLIP's modules without a head, in Idefics2EncoderLayer's order (self_attn,
// layer_norm1, mlp, layer_norm2).
TEST(SubConfigs, IdeficsVisionTransformersAlone) {
  const ModelTemplate t = template_of(R"({"model_type":"idefics3_vision","hidden_size":1152,"image_size":364,
      "intermediate_size":4304,"num_attention_heads":16,"num_hidden_layers":27,"patch_size":14})");
  EXPECT_EQ(total_of(t), 412926192u);
  EXPECT_EQ(t.arch.architecture, "Idefics3VisionTransformer");
  EXPECT_LT(tensor_index(t, "encoder.layers.0.self_attn.out_proj.bias"),
            tensor_index(t, "encoder.layers.0.layer_norm1.weight"));
  expect_every_tensor_placed(t);
  const ModelTemplate smol = template_of(R"({"model_type":"smolvlm_vision","hidden_size":768,"image_size":512,
      "intermediate_size":3072,"num_attention_heads":12,"num_hidden_layers":12,"patch_size":16})");
  EXPECT_EQ(total_of(smol), 86433024u);
  EXPECT_EQ(smol.arch.architecture, "SmolVLMVisionTransformer");
  EXPECT_EQ(refusal_of(R"({"model_type":"idefics3_vision","image_size":10})").field, "patch_size");
}

// InternVL3-1B's vision model alone (InternVLVisionModel, mean pooling: no final norm): 303,938,560. A
// module's own parameters come first: the embeddings' cls_token and positions, each layer's lambda_1 / 2.
TEST(SubConfigs, InternVLVisionModelAlone) {
  const ModelTemplate t = template_of(R"({"model_type":"internvl_vision","hidden_size":1024,
      "image_size":[448,448],"patch_size":[14,14],"intermediate_size":4096,"num_attention_heads":16,
      "num_hidden_layers":24,"use_mean_pooling":true})");
  EXPECT_EQ(total_of(t), 303938560u);
  EXPECT_EQ(t.arch.architecture, "InternVLVisionModel");
  EXPECT_EQ(tensor_index(t, "embeddings.position_embeddings"), 1u);
  EXPECT_LT(tensor_index(t, "encoder.layer.0.lambda_2"),
            tensor_index(t, "encoder.layer.0.attention.q_proj.weight"));
  expect_every_tensor_placed(t);
  EXPECT_EQ(
      refusal_of(R"({"model_type":"internvl_vision","image_size":[448,448],"patch_size":[500,14]})").field,
      "patch_size");
}

// Qwen2AudioEncoder and VoxtralEncoder at their defaults (Whisper-large-v3's encoder, its frozen position
// table a parameter): 636,968,960 each, conv1 first, layer_norm last.
TEST(SubConfigs, WhisperStyleAudioEncodersAlone) {
  for (const char* type : {"qwen2_audio_encoder", "voxtral_encoder"}) {
    const ModelTemplate t = template_of(std::string(R"({"model_type":")") + type + R"("})");
    EXPECT_EQ(total_of(t), 636968960u) << type;
    EXPECT_EQ(t.tensors.front().name, "conv1.weight") << type;
    EXPECT_EQ(find_tensor(t, "embed_positions.weight")->shape, (Shape{1500, 1280})) << type;
    EXPECT_EQ(t.arch.num_layers, 32u) << type;
    expect_every_tensor_placed(t);
  }
  // VoxtralEncoderConfig names the width hidden_size.
  EXPECT_EQ(find_tensor(template_of(R"({"model_type":"voxtral_encoder","hidden_size":640,
      "num_attention_heads":10})"),
                        "layer_norm.weight")
                ->shape,
            Shape({640}));
}

// Gemma3nAudioEncoder alone: exactly the composite's audio_tower, without its prefix.
TEST(SubConfigs, Gemma3nAudioEncoderIsTheCompositesTower) {
  const ModelTemplate alone = template_of(R"({"model_type":"gemma3n_audio"})");
  const ModelTemplate composite = template_of(R"({"model_type":"gemma3n"})");
  std::vector<std::pair<std::string, Shape>> tower;
  for (const TemplateTensor& x : composite.tensors)
    if (x.name.starts_with("model.audio_tower.")) tower.emplace_back(x.name.substr(18), x.shape);
  ASSERT_EQ(alone.tensors.size(), tower.size());
  for (size_t i = 0; i < tower.size(); ++i) {
    EXPECT_EQ(alone.tensors[i].name, tower[i].first);
    EXPECT_EQ(alone.tensors[i].shape, tower[i].second);
  }
  EXPECT_EQ(alone.arch.architecture, "Gemma3nAudioEncoder");
  for (const TemplateTensor& x : alone.tensors) EXPECT_EQ(place_tensor(x.name).block, Block::Audio) << x.name;
}

}  // namespace
}  // namespace ma::test
