// Phi-4-multimodal (model/families/phi4_multimodal.cpp) in both config forms: transformers' own
// (phi4_multimodal, the converted checkpoint) and the original remote code's (phi4mm, the Hub's main branch,
// its LoRA adapters inline), against figures from outside the tool, and a small checkpoint in the original
// names.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// What convert_phi4_multimodal_weights_to_hf.py writes for microsoft/Phi-4-multimodal-instruct (its
// shape-setting fields; the audio bias table is the checkpoint's 2 x 500 rows).
const std::string kConverted =
    R"({"model_type":"phi4_multimodal","architectures":["Phi4MultimodalForCausalLM"],
    "vocab_size":200064,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":32,
    "num_attention_heads":24,"num_key_value_heads":8,"tie_word_embeddings":true,"partial_rotary_factor":0.75,
    "max_position_embeddings":131072,
    "vision_config":{"model_type":"phi4_multimodal_vision","hidden_size":1152,"intermediate_size":4304,
      "num_hidden_layers":27,"num_attention_heads":16,"image_size":448,"patch_size":14,"crop_size":448},
    "audio_config":{"model_type":"phi4_multimodal_audio","hidden_size":1024,"intermediate_size":1536,
      "num_blocks":24,"num_attention_heads":16,"input_size":80,"time_reduction":8,"bias_max_distance":500,
      "nemo_conv_channels":1024,"downsample_rate":1}})";

// The Hub's main-branch config.json (its shape-setting fields, as written there).
const std::string kOriginal = R"({"model_type":"phi4mm","architectures":["Phi4MMForCausalLM"],
    "vocab_size":200064,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":32,
    "num_attention_heads":24,"num_key_value_heads":8,"tie_word_embeddings":true,"partial_rotary_factor":0.75,
    "embd_layer":{"audio_embd_layer":{"downsample_rate":1,"projection_cls":"mlp"},
      "image_embd_layer":{"crop_size":448,"projection_cls":"mlp","use_hd_transform":true,
        "with_learnable_separator":true,"image_token_compression_cls":"avg_pool_2d"}},
    "audio_processor":{"name":"cascades","config":{"attention_dim":1024,"attention_heads":16,
      "linear_units":1536,"num_blocks":24,"input_size":80,"kernel_size":3,"depthwise_multiplier":1,
      "depthwise_seperable_out_channel":1024,"ext_pw_out_channel":1024,"ext_pw_kernel_size":1,
      "time_reduction":8,"nemo_conv_settings":{"conv_channels":1024},"bias_in_glu":true,
      "relative_attention_bias_args":{"t5_bias_max_distance":500,"type":"t5"}}},
    "vision_lora":{"r":256,"lora_alpha":512,"dp":0.0},"speech_lora":{"r":320,"lora_alpha":640,"dp":0.01}})";

// The paper (arXiv 2503.01743) and the card: Phi-4-mini is 3.8B, the speech LoRA "just 460 million"; the
// Hub's listing of the main branch, Phi4MMForCausalLM, 5.57B. transformers' classes, instantiated under torch
// (the reference counter of this work), give 4,743,988,032 for the converted model and 5,308,268,992 for
// Phi4MultimodalConfig's defaults (32 heads and an untied head); the converter asserts that the original
// checkpoint holds exactly the converted model's tensors plus the inline adapters.
TEST(Phi4Multimodal, CountsMatchTheIndependentFigures) {
  const ModelTemplate hf = template_of(kConverted);
  EXPECT_EQ(parameters_of(kConverted), 4'743'988'032u);
  EXPECT_EQ(parameters_of(R"({"model_type":"phi4_multimodal"})"), 5'308'268'992u);
  // The text decoder alone is Phi-4-mini (3,836,021,760).
  EXPECT_EQ(parameters_of(
                replaced(replaced(kConverted, R"("model_type":"phi4_multimodal")", R"("model_type":"phi3")"),
                         R"("architectures":["Phi4MultimodalForCausalLM"],)", "")),
            3'836'021'760u);
  // save_pretrained: no lm_head (tied), the two persistent mel statistics (80 each).
  const DiskTotals converted = disk_totals(hf);
  EXPECT_EQ(converted.tensors, 1'535u);
  EXPECT_EQ(converted.elements, 4'743'988'032u + 160);
  // The original adds two adapters on 4 linears in each of 32 layers: r x (in + out) per linear, 45,056 per
  // unit of rank and layer.
  const uint64_t per_rank = 32u * 45'056;
  EXPECT_EQ(parameters_of(kOriginal), 4'743'988'032u + (256 + 320) * per_rank);
  EXPECT_EQ(320 * per_rank / 10'000'000, 46u);  // the paper's 460 million
  const DiskTotals original = disk_totals(template_of(kOriginal));
  EXPECT_EQ(original.tensors, 1'535u + 512);
  EXPECT_EQ(original.elements, 5'574'460'384u);
  EXPECT_EQ((original.elements + 5'000'000) / 10'000'000, 557u);  // the Hub's 5.57B
  // A text token runs Phi-4-mini alone: neither tower nor adapter (the remote code switches an adapter on for
  // its modality's inputs).
  EXPECT_EQ(counts_of(kOriginal).active, 3'836'021'760u);
  EXPECT_EQ(counts_of(kConverted).active, 3'836'021'760u);
}

TEST(Phi4Multimodal, TensorsHaveTheShapesTheModulesDeclare) {
  const ModelTemplate t = template_of(kConverted);
  const std::string a = "model.embed_tokens_extend.audio_embed.encoder.";
  // Three stride-2 stages leave 10 of the 80 mel bins.
  EXPECT_EQ(find_tensor(t, a + "embed.out.weight")->shape, Shape({1024, 10240}));
  EXPECT_EQ(find_tensor(t, a + "embed.conv.6.weight")->shape, Shape({1024, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, a + "relative_attention_bias_layer.bias_values.weight")->shape, Shape({1000, 16}));
  EXPECT_EQ(find_tensor(t, a + "encoders.23.conv.dw_sep_conv_1d.dw_conv.weight")->shape, Shape({1024, 1, 3}));
  EXPECT_EQ(find_tensor(t, a + "encoders.0.conv.glu.b1")->shape, Shape({1, 1024, 1}));
  EXPECT_EQ(find_tensor(t, a + "encoder_embedding.global_mean")->kind, TensorKind::Buffer);
  const std::string v = "model.embed_tokens_extend.image_embed.";
  EXPECT_EQ(find_tensor(t, v + "img_processor.embeddings.position_embedding.weight")->shape,
            Shape({1024, 1152}));
  EXPECT_EQ(find_tensor(t, v + "img_processor.head.attention.in_proj_weight")->shape, Shape({3456, 1152}));
  EXPECT_EQ(find_tensor(t, v + "sub_img_feature_extensor")->shape, Shape({1, 1, 1, 1152}));
  EXPECT_EQ(find_tensor(t, "model.layers.31.self_attn.qkv_proj.weight")->shape, Shape({5120, 3072}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.embed_tokens.weight");
  const ModelTemplate o = template_of(kOriginal);
  EXPECT_EQ(find_tensor(o, "model.layers.0.mlp.gate_up_proj.base_layer.weight")->shape, Shape({16384, 3072}));
  EXPECT_EQ(find_tensor(o, "model.layers.0.mlp.gate_up_proj.lora_B.speech.weight")->shape,
            Shape({16384, 320}));
  EXPECT_EQ(find_tensor(o, "model.layers.0.mlp.down_proj.lora_A.vision.weight")->shape, Shape({256, 8192}));
  EXPECT_EQ(find_tensor(o, "model.layers.0.mlp.down_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(o, a + "encoders.0.feed_forward_in.net.0.linear.weight"), nullptr);
  EXPECT_NE(find_tensor(o, "model.embed_tokens_extend.audio_embed.audio_projection.vision.2.bias"), nullptr);
  // Without a compression class the original merges each 2 x 2 patches side by side.
  const ModelTemplate merged =
      template_of(replaced(kOriginal, R"(,"image_token_compression_cls":"avg_pool_2d")", ""));
  EXPECT_EQ(find_tensor(merged, v + "img_projection.0.weight")->shape, Shape({3072, 4 * 1152}));
  EXPECT_EQ(find_tensor(merged, v + "glb_GN")->shape, Shape({1, 1, 4 * 1152}));
}

// A small checkpoint in transformers' names loads with nothing missing or left over. (The original form's
// vision tower takes no config field, so no small checkpoint of it can be written.)
TEST(Phi4Multimodal, SmallConvertedCheckpointMatches) {
  expect_reads_cleanly(R"({"model_type":"phi4_multimodal","vocab_size":64,"hidden_size":32,
      "intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
      "tie_word_embeddings":true,
      "vision_config":{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,"num_attention_heads":2,
        "image_size":28,"patch_size":14},
      "audio_config":{"hidden_size":16,"intermediate_size":24,"num_blocks":2,"num_attention_heads":2,
        "input_size":8,"time_reduction":4,"ext_pw_out_channel":16,"depthwise_separable_out_channel":16,
        "nemo_conv_channels":4,"bias_max_distance":5}})");
}

// The towers and projectors are placed as such; the adapters with the linear they wrap.
TEST(Phi4Multimodal, TensorsArePlacedOnTheirBlocks) {
  const auto placed = [](const std::string& name) {
    const TensorPlacement p = place_tensor(name);
    return std::string(block_name(p.block)) + "/" + p.role + (p.layer ? "@" + std::to_string(*p.layer) : "");
  };
  EXPECT_EQ(placed("model.layers.1.self_attn.qkv_proj.lora_A.vision.weight"), "attention/qkv-lora-a@1");
  EXPECT_EQ(placed("model.layers.1.mlp.down_proj.lora_B.speech.weight"), "mlp/down-lora-b@1");
  EXPECT_EQ(placed("model.layers.1.mlp.down_proj.base_layer.weight"), "mlp/down@1");
  EXPECT_EQ(placed("model.embed_tokens_extend.image_embed.img_processor.encoder.layers.3.mlp.fc1.weight"),
            "vision/up@3");
  EXPECT_EQ(placed("model.embed_tokens_extend.image_embed.img_projection.2.weight"), "vision-projector/2");
  EXPECT_EQ(placed("model.embed_tokens_extend.image_embed.img_projection_up.bias"),
            "vision-projector/img_projection_up");
  EXPECT_EQ(placed("model.embed_tokens_extend.audio_embed.encoder.encoders.1.self_attn.linear_out.weight"),
            "audio/o@1");
  EXPECT_EQ(placed("model.embed_tokens_extend.audio_embed.audio_projection.speech.0.weight"), "audio/0");
}

TEST(Phi4Multimodal, RefusesShapesTheEncoderCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kConverted, R"("time_reduction":8)", R"("time_reduction":7)")).field,
            "audio_config.time_reduction");
  EXPECT_EQ(refusal_of(replaced(kConverted, R"("num_blocks":24,"num_attention_heads":16)",
                                R"("num_blocks":24,"num_attention_heads":3)"))
                .field,
            "audio_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kConverted, R"("nemo_conv_channels":1024)", R"("nemo_conv_channels":67108864)"))
          .field,
      "audio_config.nemo_conv_channels");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("attention_heads":16)", R"("attention_heads":6)")).field,
            "audio_processor.config.attention_heads");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("conv_channels":1024)", R"("conv_channels":67108864)")).field,
            "audio_processor.config.nemo_conv_settings.conv_channels");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("downsample_rate":1)", R"("downsample_rate":67108864)")).field,
            "embd_layer.audio_embd_layer.downsample_rate");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("ext_pw_kernel_size":1)", R"("ext_pw_kernel_size":3)")).field,
            "audio_processor.config.ext_pw_kernel_size");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("vision_lora":{"r":256,)", R"("vision_lora":{)")).field,
            "vision_lora");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("vision_lora":{"r":256,"lora_alpha":512,"dp":0.0})",
                                R"("vision_lora":[256])"))
                .field,
            "vision_lora");
  EXPECT_EQ(refusal_of(replaced(kOriginal, R"("name":"cascades")", R"("name":"whisper")")).kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
