// VideoLLaMA3 (model/families/video_llama_3.cpp): the released models' counts, its tower, projector and ties,
// and the configs it refuses.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// DAMO-NLP-SG/VideoLLaMA3-7B in transformers' form: the VL3-SigLIP-NaViT tower (so400m's sizes, patches of
// 14, no position table) and Qwen2.5-7B.
constexpr const char* kVideoLlama3_7b = R"({"model_type":"video_llama_3",
    "architectures":["VideoLlama3ForConditionalGeneration"],"image_token_id":151655,"video_token_id":151656,
    "vision_config":{"model_type":"video_llama_3_vision","hidden_size":1152,"intermediate_size":4304,
      "num_hidden_layers":27,"num_attention_heads":16,"num_channels":3,"patch_size":14},
    "text_config":{"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,
      "num_attention_heads":28,"num_key_value_heads":4,"vocab_size":152064,"max_position_embeddings":32768,
      "rope_theta":1000000.0,"tie_word_embeddings":false}})";

// VideoLLaMA3-2B: the same tower and Qwen2.5-1.5B, whose head is tied to its embedding.
std::string video_llama_3_2b() {
  std::string c = replaced(kVideoLlama3_7b, R"("hidden_size":3584,"intermediate_size":18944)",
                           R"("hidden_size":1536,"intermediate_size":8960)");
  c = replaced(c, R"("num_attention_heads":28,"num_key_value_heads":4,"vocab_size":152064)",
               R"("num_attention_heads":12,"num_key_value_heads":2,"vocab_size":151936)");
  return replaced(c, R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)");
}

// VideoLlama3ForConditionalGeneration's parameters (verify/video_llama_3_torch.py): Qwen2.5-7B's
// 7,615,616,512 and Qwen2.5-1.5B's 1,543,714,304 (their cards' 7.61B and 1.54B), the tower's 412,147,440 and
// the projector's 16,980,992 / 4,131,840.
TEST(VideoLlama3, ReleasedModelsCountAsTheirClasses) {
  const ParameterCounts c7 = counts_of(kVideoLlama3_7b);
  EXPECT_EQ(c7.total, 8'044'744'944u);
  EXPECT_EQ(c7.towers, 412'147'440u + 16'980'992u);
  const ParameterCounts c2 = counts_of(video_llama_3_2b());
  EXPECT_EQ(c2.total, 1'959'993'584u);
  EXPECT_EQ(c2.towers, 412'147'440u + 4'131'840u);
  // VideoLlama3Config's defaults: VideoLlama3VisionConfig() (SigLIP-base's sizes) and Qwen2Config().
  EXPECT_EQ(parameters_of(R"({"model_type":"video_llama_3"})"), 12'155'424'000u);
  // The tower alone.
  EXPECT_EQ(parameters_of(R"({"model_type":"video_llama_3_vision","hidden_size":1152,"intermediate_size":4304,
      "num_hidden_layers":27,"num_attention_heads":16,"patch_size":14})"),
            412'147'440u);
}

TEST(VideoLlama3, TowerProjectorAndTies) {
  const ModelTemplate t = template_of(video_llama_3_2b());
  EXPECT_EQ(t.arch.architecture, "VideoLlama3ForConditionalGeneration");
  EXPECT_EQ(t.tensors.front().name, "model.vision_model.embeddings.patch_embedding.weight");
  EXPECT_EQ(find_tensor(t, "model.vision_model.embeddings.patch_embedding.bias")->shape, (Shape{1152}));
  EXPECT_EQ(find_tensor(t, "model.vision_model.embeddings.position_embedding.weight"), nullptr);
  // SigLIP's layer order: layer_norm1, then k, v, q, out.
  const std::string l = "model.vision_model.encoder.layers.26.";
  EXPECT_LT(tensor_index(t, l + "layer_norm1.bias"), tensor_index(t, l + "self_attn.k_proj.weight"));
  EXPECT_LT(tensor_index(t, l + "self_attn.v_proj.bias"), tensor_index(t, l + "self_attn.q_proj.weight"));
  EXPECT_EQ(find_tensor(t, "model.projector.readout.0.weight")->shape, (Shape{1536, 1152}));
  EXPECT_EQ(find_tensor(t, "model.projector.readout.2.weight")->shape, (Shape{1536, 1536}));
  EXPECT_LT(tensor_index(t, "model.projector.readout.2.bias"),
            tensor_index(t, "model.language_model.embed_tokens.weight"));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  ASSERT_NE(t.arch.stack(StackRole::Vision), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 27u);
  expect_every_tensor_placed(t);
  // VideoLlama3Config ties when the text config does, whatever its own flag says.
  const ModelTemplate own_flag_false = template_of(
      replaced(video_llama_3_2b(), R"("architectures")", R"("tie_word_embeddings":false,"architectures")"));
  EXPECT_EQ(find_tensor(own_flag_false, "lm_head.weight")->tied_to,
            "model.language_model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(template_of(kVideoLlama3_7b), "lm_head.weight")->tied_to, "");
}

TEST(VideoLlama3, RefusesWhatItsConfigRejects) {
  // VideoLlama3Config picks the text config class by text_config.model_type.
  EXPECT_EQ(refusal_of(R"({"model_type":"video_llama_3","text_config":{"hidden_size":64}})").field,
            "text_config.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"video_llama_3","vision_config":{"num_attention_heads":5}})").field,
            "vision_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"video_llama_3","text_config":{"model_type":"llama"}})").kind,
            ErrorKind::Unsupported);
}

// A small checkpoint reads back with nothing missing and nothing extra.
TEST(VideoLlama3, CheckpointReadsCleanly) {
  expect_reads_cleanly(
      R"({"model_type":"video_llama_3","vision_config":{"hidden_size":32,"intermediate_size":64,
      "num_hidden_layers":2,"num_attention_heads":4,"patch_size":14},"text_config":{"model_type":"qwen2",
      "hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":2,"vocab_size":300}})");
}

}  // namespace
}  // namespace ma::test
