// Qwen3-Omni (model/families/qwen3_omni.cpp): the Instruct checkpoint (thinker, talker, code2wav) and the
// thinker-only Thinking one against the counts published for them, the Hub's per-expert names, and a small
// checkpoint written in those names.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// The shape fields of Qwen/Qwen3-Omni-30B-A3B-Instruct's config.json.
const std::string kThinker = R"("thinker_config":{"audio_config":{"num_mel_bins":128,"encoder_layers":32,
    "encoder_attention_heads":20,"encoder_ffn_dim":5120,"d_model":1280,"output_dim":2048,
    "downsample_hidden_size":480},"vision_config":{"depth":27,"hidden_size":1152,"intermediate_size":4304,
    "num_heads":16,"patch_size":16,"spatial_merge_size":2,"temporal_patch_size":2,"out_hidden_size":2048,
    "num_position_embeddings":2304,"deepstack_visual_indexes":[8,16,24]},"text_config":{"vocab_size":152064,
    "hidden_size":2048,"intermediate_size":768,"num_hidden_layers":48,"num_attention_heads":32,
    "num_key_value_heads":4,"head_dim":128,"moe_intermediate_size":768,"num_experts":128,
    "num_experts_per_tok":8,"tie_word_embeddings":false}})";
const std::string kSpeech = R"("talker_config":{"num_code_groups":16,"thinker_hidden_size":2048,
    "text_config":{"vocab_size":3072,"hidden_size":1024,"intermediate_size":2048,"num_hidden_layers":20,
    "num_attention_heads":16,"num_key_value_heads":2,"head_dim":128,"moe_intermediate_size":384,
    "shared_expert_intermediate_size":768,"num_experts":128,"num_experts_per_tok":6},
    "code_predictor_config":{"vocab_size":2048,"hidden_size":1024,"intermediate_size":3072,
    "num_hidden_layers":5,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,
    "num_code_groups":16}},"code2wav_config":{"codebook_size":2048,"hidden_size":1024,"num_attention_heads":16,
    "num_key_value_heads":16,"intermediate_size":3072,"num_hidden_layers":8,"num_quantizers":16,
    "upsample_rates":[8,5,4,3],"upsampling_ratios":[2,2],"decoder_dim":1536})";
const std::string kInstruct = R"({"model_type":"qwen3_omni_moe",)" + kThinker + "," + kSpeech + "}";
const std::string kThinking =
    R"({"model_type":"qwen3_omni_moe","enable_audio_output":false,)" + kThinker + "}";

uint64_t elements_under(const ModelTemplate& t, const std::string& prefix) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.name.starts_with(prefix)) n += numel(x.shape);
  return n;
}

// mteb's model metadata: Instruct 35,259,818,545 parameters, Thinking 31,719,205,488 (the thinker alone); a
// public listing of the Instruct checkpoint loaded with transformers counts 28,010 tensors in its 15 shards;
// achatbot's port prints the talker at 3,324.59648M.
TEST(Qwen3Omni, CountsMatchThePublishedFigures) {
  EXPECT_EQ(parameters_of(kInstruct), 35'259'818'545u);
  EXPECT_EQ(parameters_of(kThinking), 31'719'205'488u);
  const ModelTemplate t = template_of(kInstruct);
  EXPECT_EQ(disk_totals(t).tensors, 28'010u);
  EXPECT_EQ(elements_under(t, "talker."), 3'324'596'480u);
  // The tech report's rounded parts: AuT 650M, the vision encoder 540M, code2wav 200M.
  EXPECT_EQ((elements_under(t, "thinker.audio_tower.") + 5'000'000) / 10'000'000, 65u);
  EXPECT_EQ((elements_under(t, "thinker.visual.") + 5'000'000) / 10'000'000, 54u);
  EXPECT_EQ((elements_under(t, "code2wav.") + 50'000'000) / 100'000'000, 2u);
  // A text token runs 8 of the thinker's 128 experts ("A3B"), never the towers nor the speech side.
  const ParameterCounts c = counts_of(kInstruct);
  ASSERT_TRUE(c.active_non_embedding.has_value());
  EXPECT_EQ((*c.active_non_embedding + 500'000'000) / 1'000'000'000, 3u);
  EXPECT_EQ(c.routed_experts, uint64_t{48} * 128 * 3 * 2048 * 768);
}

TEST(Qwen3Omni, HubNamesAreQwen2VlMergersAndExpertsApart) {
  const ModelTemplate t = template_of(kInstruct);
  const auto shape = [&](const std::string& name) {
    for (const DiskTensor& x : disk_form(t))
      if (x.name == name) return x.shape;
    return Shape{};
  };
  EXPECT_EQ(shape("thinker.model.layers.47.mlp.experts.127.down_proj.weight"), Shape({2048, 768}));
  EXPECT_EQ(shape("talker.model.layers.19.mlp.experts.0.gate_proj.weight"), Shape({384, 1024}));
  EXPECT_EQ(shape("talker.model.layers.0.mlp.shared_expert_gate.weight"), Shape({1, 1024}));
  EXPECT_EQ(shape("thinker.visual.merger_list.2.mlp.0.weight"), Shape({4608, 4608}));
  EXPECT_EQ(shape("thinker.visual.merger.ln_q.weight"), Shape({1152}));
  EXPECT_EQ(shape("thinker.audio_tower.conv_out.weight"), Shape({1280, 7680}));
  EXPECT_EQ(shape("thinker.audio_tower.proj2.weight"), Shape({2048, 1280}));
  EXPECT_EQ(shape("talker.code_predictor.lm_head.14.weight"), Shape({2048, 1024}));
  EXPECT_EQ(shape("code2wav.upsample.0.0.conv.weight"), Shape({1024, 1024, 2}));
  EXPECT_EQ(shape("code2wav.decoder.6.conv.bias"), Shape({1}));
}

// A small Qwen3-Omni in the Hub's names: every tensor matches, nothing is missing.
TEST(Qwen3Omni, SmallCheckpointInHubNamesMatches) {
  const std::string config = R"({"model_type":"qwen3_omni_moe","thinker_config":{"audio_config":{
      "num_mel_bins":16,"encoder_layers":1,"encoder_attention_heads":2,"encoder_ffn_dim":32,"d_model":16,
      "output_dim":32,"downsample_hidden_size":8},"vision_config":{"depth":1,"hidden_size":16,
      "intermediate_size":32,"num_heads":2,"patch_size":4,"out_hidden_size":32,"num_position_embeddings":16,
      "deepstack_visual_indexes":[0]},"text_config":{"vocab_size":64,"hidden_size":32,"intermediate_size":48,
      "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"moe_intermediate_size":16,
      "num_experts":4,"num_experts_per_tok":2,"mlp_only_layers":[0]}},"talker_config":{"num_code_groups":3,
      "thinker_hidden_size":32,"text_config":{"vocab_size":40,"hidden_size":16,"intermediate_size":24,
      "num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"moe_intermediate_size":8,
      "shared_expert_intermediate_size":16,"num_experts":4,"num_experts_per_tok":2},"code_predictor_config":{
      "vocab_size":20,"hidden_size":16,"intermediate_size":24,"num_hidden_layers":1,"num_attention_heads":2,
      "num_key_value_heads":1,"head_dim":8,"num_code_groups":3}},"code2wav_config":{"codebook_size":8,
      "hidden_size":16,"num_attention_heads":2,"num_key_value_heads":2,"intermediate_size":24,
      "num_hidden_layers":1,"num_quantizers":3,"upsample_rates":[2,2],"upsampling_ratios":[2],
      "decoder_dim":16}})";
  const Inventory inv = stored_checkpoint(config).inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  ASSERT_TRUE(inv.checkpoint.has_value());
  EXPECT_EQ(inv.checkpoint->parameters, parameters_of(config));
}

// The Instruct checkpoint read with enable_audio_output off: transformers builds the thinker and drops the
// stored speech side, which the inventory reports as known extras, not unknown tensors.
TEST(Qwen3Omni, StoredSpeechSideIsAKnownExtraWithoutAudioOutput) {
  const std::string small = R"("thinker_config":{"audio_config":{"num_mel_bins":16,"encoder_layers":1,
      "encoder_attention_heads":2,"encoder_ffn_dim":32,"d_model":16,"output_dim":32,"downsample_hidden_size":8},
      "vision_config":{"depth":1,"hidden_size":16,"intermediate_size":32,"num_heads":2,"patch_size":4,
      "out_hidden_size":32,"num_position_embeddings":16,"deepstack_visual_indexes":[0]},"text_config":{
      "vocab_size":64,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,
      "moe_intermediate_size":16,"num_experts":4,"num_experts_per_tok":2}})";
  const Inventory inv =
      stored_checkpoint(R"({"model_type":"qwen3_omni_moe","enable_audio_output":false,)" + small + "}",
                        {{"talker.codec_head.weight", DType::BF16, {40, 16}, {}},
                         {"code2wav.code_embedding.weight", DType::BF16, {24, 16}, {}}})
          .inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(extras_in(inv), 2u);
}

TEST(Qwen3Omni, RefusesATalkerWithoutItsSharedExpertWidth) {
  EXPECT_EQ(refusal_of(replaced(kInstruct, R"("shared_expert_intermediate_size":768,)", "")).field,
            "talker_config.text_config.shared_expert_intermediate_size");
  EXPECT_EQ(
      refusal_of(replaced(kInstruct, R"("upsample_rates":[8,5,4,3])", R"("upsample_rates":[8,0])")).field,
      "code2wav_config.upsample_rates");
  EXPECT_EQ(refusal_of(replaced(kInstruct, R"("num_code_groups":16})", R"("num_code_groups":1})")).field,
            "talker_config.code_predictor_config.num_code_groups");
}

}  // namespace
}  // namespace ma::test
