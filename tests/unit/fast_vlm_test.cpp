// FastVLM (model/families/fast_vlm.cpp) in its two forms, against Qwen2's published counts and the tower
// timm builds (fastvit_mci3 instantiated at full size by the reference counter of this work: 122,714,208
// parameters, 628 tensors with its BatchNorm statistics).
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr uint64_t kTower = 122'714'208;

// transformers' conversion of FastVLM-7B (KamilaMila/FastVLM-7B): Qwen2-7B (7,615,616,512) with 64 more
// words in its untied embedding and head, the tower, and LLaVA's two-layer projector from 3,072 channels.
TEST(FastVlm, ConvertedSevenBIsQwen2BehindFastVitHd) {
  const std::string config = R"({"architectures":["FastVlmForConditionalGeneration"],"model_type":"fast_vlm",
      "text_config":{"hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,
        "num_key_value_heads":4,"vocab_size":152128,"model_type":"qwen2"},
      "vision_config":{"model_type":"timm_wrapper","architecture":"fastvit_mci3","hidden_size":3072}})";
  const uint64_t projector = (3072 * 3584 + 3584) + (3584 * 3584 + 3584);
  EXPECT_EQ(parameters_of(config), 7'615'616'512u + 2 * 64 * 3584 + kTower + projector);
  // FastVlmConfig's own text default is this model's.
  EXPECT_EQ(parameters_of(R"({"model_type":"fast_vlm"})"), parameters_of(config));
  const ModelTemplate t = template_of(config);
  const std::string tower = "model.vision_tower.timm_model.";
  EXPECT_EQ(find_tensor(t, tower + "stages.4.blocks.1.token_mixer.qkv.weight")->shape, Shape({4608, 1536}));
  EXPECT_EQ(find_tensor(t, tower + "stages.2.blocks.23.mlp.conv.bn.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, tower + "final_conv.reparam_conv.weight")->shape, Shape({3072, 1, 3, 3}));
  EXPECT_EQ(place_tensor(tower + "stages.3.pos_emb.reparam_conv.weight").block, Block::Vision);
  EXPECT_EQ(counts_of(config).towers, kTower + projector);
}

// Apple's own FastVLM-0.5B (apple/FastVLM-0.5B, remote code): Qwen2-0.5B (494,032,768) with its head untied,
// the tower under ml-fastvlm's names and MobileCLIP's 3,072 x 768 projection head, which the conversion
// drops; the Hub lists it at 0.8B, the conversion (tied) at 0.6B.
TEST(FastVlm, ApplesRepositoryKeepsMobileClipsHead) {
  const std::string original = R"({"architectures":["LlavaQwen2ForCausalLM"],"model_type":"llava_qwen2",
      "mm_hidden_size":3072,"mm_projector_type":"mlp2x_gelu","mm_vision_tower":"mobileclip_l_1024",
      "tie_word_embeddings":false,"hidden_size":896,"intermediate_size":4864,"num_hidden_layers":24,
      "num_attention_heads":14,"num_key_value_heads":2,"vocab_size":151936})";
  const uint64_t projector = (3072 * 896 + 896) + (896 * 896 + 896);
  EXPECT_EQ(parameters_of(original), 494'032'768u + 151936 * 896 + kTower + 3072 * 768 + projector);
  const ModelTemplate t = template_of(original);
  EXPECT_TRUE(t.arch.hand_derived);
  const std::string tower = "model.vision_tower.vision_tower.model.";
  EXPECT_NE(find_tensor(t, tower + "network.10.1.layer_scale_2"), nullptr);  // stage 4's last block
  EXPECT_NE(find_tensor(t, tower + "network.8.proj.0.lkb_reparam.weight"), nullptr);
  EXPECT_NE(find_tensor(t, tower + "conv_exp.se.reduce.bias"), nullptr);
  // The tower's 628 tensors, its head, the projector's 4 and Qwen2-0.5B's 291 with its head.
  EXPECT_EQ(disk_totals(t).tensors, 628u + 1 + 4 + 291);
  const std::string converted =
      R"({"architectures":["FastVlmForConditionalGeneration"],"model_type":"fast_vlm",
      "tie_word_embeddings":true,"text_config":{"hidden_size":896,"intermediate_size":4864,
        "num_hidden_layers":24,"num_attention_heads":14,"num_key_value_heads":2,"vocab_size":152000,
        "model_type":"qwen2","tie_word_embeddings":true}})";
  EXPECT_EQ(parameters_of(converted), 494'032'768u + 64 * 896 + kTower + projector);
  expect_reads_cleanly(R"({"model_type":"llava_qwen2","mm_vision_tower":"mobileclip_l_1024","hidden_size":16,
      "intermediate_size":24,"num_hidden_layers":2,"num_attention_heads":2,"num_key_value_heads":1,
      "vocab_size":40})");
}

TEST(FastVlm, RefusesTowersItDoesNotKnow) {
  EXPECT_EQ(refusal_of(R"({"model_type":"fast_vlm","vision_config":{"architecture":"fastvit_sa12"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"fast_vlm","vision_config":{"hidden_size":1024}})").field,
            "vision_config.hidden_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"llava_qwen2","mm_vision_tower":"clip-vit-large"})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
