// The first GPT, CTRL, XGLM, BioGPT and GPT-NeoX-Japanese (model/families/early_decoders.cpp), against the
// sizes their authors published and transformers' classes instantiated at full size (the reference counter
// of this work), and small checkpoints in the layouts the Hub holds.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

uint64_t millions(uint64_t n) {
  return (n + 500'000) / 1'000'000;
}

// openai-community/openai-gpt: "117M" in the paper's lineage, its defaults; Salesforce/ctrl: "1.63 billion
// parameters" (Keskar et al. 2019), whose n_positions (50,000) only sizes a buffer.
TEST(EarlyDecoders, GptAndCtrlMatchTheirPapers) {
  EXPECT_EQ(parameters_of(R"({"model_type":"openai-gpt"})"), 116'534'784u);
  EXPECT_EQ(millions(parameters_of(R"({"model_type":"openai-gpt"})")), 117u);
  const std::string ctrl = R"({"model_type":"ctrl","vocab_size":246534,"n_positions":50000,"dff":8192,
      "n_embd":1280,"n_layer":48,"n_head":16})";
  EXPECT_EQ(parameters_of(ctrl), 1'637'964'550u);
  EXPECT_EQ(parameters_of(ctrl), parameters_of(R"({"model_type":"ctrl"})"));
  // The head's own bias (one per vocabulary entry) beside the tied weight.
  const ModelTemplate t = template_of(ctrl);
  EXPECT_EQ(find_tensor(t, "lm_head.bias")->shape, Shape({246534}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "transformer.w.weight");
  EXPECT_EQ(t.arch.position, PositionKind::Sinusoidal);
}

// facebook/xglm-*: the names give 564M, 1.7B, 2.9B, 4.5B and 7.5B.
TEST(EarlyDecoders, XglmSizesAreTheirNames) {
  const auto xglm = [](const std::string& dims) {
    return parameters_of(R"({"model_type":"xglm","vocab_size":256008,)" + dims + "}");
  };
  EXPECT_EQ(xglm(R"("d_model":1024,"ffn_dim":4096,"num_layers":24,"attention_heads":16)"), 564'463'616u);
  EXPECT_EQ(xglm(R"("d_model":2048,"ffn_dim":8192,"num_layers":24,"attention_heads":16)"), 1'732'907'008u);
  EXPECT_EQ(xglm(R"("d_model":2048,"ffn_dim":8192,"num_layers":48,"attention_heads":16)"), 2'941'505'536u);
  EXPECT_EQ(xglm(R"("d_model":2048,"ffn_dim":16384,"num_layers":48,"attention_heads":16)"), 4'552'511'488u);
  EXPECT_EQ(xglm(R"("d_model":4096,"ffn_dim":16384,"num_layers":32,"attention_heads":32)"), 7'492'771'840u);
  // hidden_size is d_model's alias; cross-attention adds a second attention and its norm to each layer.
  EXPECT_EQ(xglm(R"("hidden_size":1024,"ffn_dim":4096,"num_layers":24,"attention_heads":16)"), 564'463'616u);
  EXPECT_EQ(
      xglm(
          R"("d_model":1024,"ffn_dim":4096,"num_layers":24,"attention_heads":16,"add_cross_attention":true)"),
      564'463'616u + 24 * (4 * (1024u * 1024 + 1024) + 2 * 1024));
}

// microsoft/biogpt "347M" and BioGPT-Large "1.5B" (their cards); positions are a parameter two rows longer
// than max_position_embeddings, and the head is output_projection.
TEST(EarlyDecoders, BioGptLearnsTwoExtraPositions) {
  EXPECT_EQ(parameters_of(R"({"model_type":"biogpt"})"), 346'763'264u);
  EXPECT_EQ(millions(parameters_of(R"({"model_type":"biogpt"})")), 347u);
  EXPECT_EQ(parameters_of(R"({"model_type":"biogpt","vocab_size":57717,"max_position_embeddings":2048,
      "hidden_size":1600,"intermediate_size":6400,"num_hidden_layers":48,"num_attention_heads":25})"),
            1'571'188'800u);
  const ModelTemplate t = template_of(R"({"model_type":"biogpt"})");
  EXPECT_EQ(find_tensor(t, "biogpt.embed_positions.weight")->shape, Shape({1026, 1024}));
  EXPECT_EQ(find_tensor(t, "output_projection.weight")->tied_to, "biogpt.embed_tokens.weight");
}

// GPTNeoXJapaneseConfig's defaults (abeja/gpt-neox-japanese-2.7b's sizes, the head tied): one attention bias,
// in the last layer; 2,598,837,760 untied adds the 32,000 x 2,560 head (2,680,757,760: the "2.7b").
TEST(EarlyDecoders, GptNeoxJapaneseBiasesOnlyItsLastAttention) {
  EXPECT_EQ(parameters_of(R"({"model_type":"gpt_neox_japanese"})"), 2'598'837'760u);
  EXPECT_EQ(parameters_of(R"({"model_type":"gpt_neox_japanese","tie_word_embeddings":false})"),
            2'680'757'760u);
  const ModelTemplate t = template_of(R"({"model_type":"gpt_neox_japanese","num_hidden_layers":3})");
  EXPECT_EQ(find_tensor(t, "gpt_neox_japanese.layers.1.attention.dense_bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "gpt_neox_japanese.layers.2.attention.dense_bias")->shape, Shape({2560}));
  EXPECT_EQ(find_tensor(t, "gpt_neox_japanese.layers.0.mlp.dense_h_to_4h.weight")->shape,
            Shape({10240, 2560}));
}

// The Hub's files: the first GPT saved from its base model (no transformer. prefix, each block's causal mask
// stored), the others with their tied heads stored once more, GPT-NeoX-Japanese with each layer's rotary
// frequencies. All load with nothing unexplained.
TEST(EarlyDecoders, SmallCheckpointsInTheHubsLayoutsMatch) {
  struct Case {
    std::string config;
    std::vector<TensorToWrite> extra;
  };
  const std::vector<Case> cases = {
      {R"({"model_type":"openai-gpt","vocab_size":50,"n_positions":8,"n_embd":16,"n_layer":2,"n_head":2})",
       {{"transformer.h.0.attn.bias", DType::F32, {1, 1, 8, 8}, {}},
        {"transformer.h.1.attn.bias", DType::F32, {1, 1, 8, 8}, {}}}},
      {R"({"model_type":"ctrl","vocab_size":50,"n_positions":8,"dff":24,"n_embd":16,"n_layer":2,"n_head":2})",
       {{"lm_head.weight", DType::F16, {50, 16}, {}}}},
      {R"({"model_type":"xglm","vocab_size":50,"d_model":16,"ffn_dim":24,"num_layers":2,"attention_heads":2})",
       {{"lm_head.weight", DType::F16, {50, 16}, {}}}},
      {R"({"model_type":"biogpt","vocab_size":50,"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,
          "num_attention_heads":2,"max_position_embeddings":8})",
       {{"output_projection.weight", DType::F16, {50, 16}, {}}}},
      {R"({"model_type":"gpt_neox_japanese","vocab_size":50,"hidden_size":16,"num_hidden_layers":2,
          "num_attention_heads":2})",
       {{"gpt_neox_japanese.layers.0.attention.rotary_emb.inv_freq", DType::F32, {4}, {}},
        {"gpt_neox_japanese.layers.1.attention.rotary_emb.inv_freq", DType::F32, {4}, {}}}},
  };
  for (const Case& c : cases) {
    const Inventory inv = stored_checkpoint(c.config, c.extra, DType::F16).inventory;
    EXPECT_TRUE(inv.warnings.empty()) << c.config << ": " << inv.warnings.front();
  }
}

}  // namespace
}  // namespace ma::test
