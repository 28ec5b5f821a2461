// RecurrentGemma (model/families/recurrent_gemma.cpp): the released configs' counts against figures published
// outside this tool, the RG-LRU's state in the memory plan, where its tensors sit, and the config rules.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// google/recurrentgemma-2b's config.json (as the Hub serves it; `_block_types` is its legacy spelling,
// which transformers does not read).
constexpr const char* kRecurrentGemma2b = R"({"_block_types":["recurrent","recurrent","attention"],
    "architectures":["RecurrentGemmaForCausalLM"],"attention_bias":false,"attention_window_size":2048,
    "conv1d_width":4,"head_dim":256,"hidden_activation":"gelu_pytorch_tanh","hidden_size":2560,
    "intermediate_size":15360,"logits_soft_cap":30.0,"lru_width":2560,"model_type":"recurrent_gemma",
    "num_attention_heads":10,"num_hidden_layers":26,"num_key_value_heads":1,"partial_rotary_factor":0.5,
    "rms_norm_eps":1e-06,"rope_theta":10000.0,"torch_dtype":"bfloat16","vocab_size":256000})";

// google/recurrentgemma-9b's (re-uploaded as alpindale/recurrentgemma-9b), the fields that size it.
constexpr const char* kRecurrentGemma9b = R"({"model_type":"recurrent_gemma","attention_window_size":2048,
    "conv1d_width":4,"hidden_size":4096,"intermediate_size":24576,"lru_width":4096,"num_attention_heads":16,
    "num_hidden_layers":38,"num_key_value_heads":1,"torch_dtype":"bfloat16","vocab_size":256000})";

std::string with_vocab(const std::string& config, const std::string& vocab) {
  std::string s = config;
  s.replace(s.find("256000"), 6, vocab);
  return s;
}

TEST(RecurrentGemma, ReleasedModelsMatchTheirPublishedSizes) {
  // voidful/recurrentgemma-2b-base is the 2B with its vocabulary grown to 284,389 rows, saved in float32: its
  // model.safetensors.index.json states total_size 11,022,151,680 bytes over 484 tensors (no lm_head: it is
  // tied).
  const ModelTemplate grown = template_of(with_vocab(kRecurrentGemma2b, "284389"));
  EXPECT_EQ(disk_totals(grown).elements * 4, 11'022'151'680u);
  EXPECT_EQ(disk_totals(grown).tensors, 484u);
  // The 2B itself: the Open LLM Leaderboard's request file records 2.683B; the Griffin paper's v1 abstract
  // "2B non-embedding parameters" (2,027,502,080 here: 26 layers and the final norm).
  const ParameterCounts two = counts_of(kRecurrentGemma2b);
  EXPECT_EQ(two.total, 2'682'862'080u);
  EXPECT_EQ(two.total - two.embedding, 2'027'502'080u);
  // The 9B: theo77186/recurrentgemma-9b-it-bnb-4bit's 6,415,755,338 bytes decompose into exactly these
  // tensors (nf4 matrices, fp16 rest); 8.58B total, a "9B" by name.
  EXPECT_EQ(parameters_of(kRecurrentGemma9b), 8'579'977'216u);
}

TEST(RecurrentGemma, BlockTypesCycleOverTheLayers) {
  const ModelTemplate t = template_of(kRecurrentGemma2b);
  ASSERT_EQ(t.arch.layers().size(), 26u);
  for (size_t i = 0; i < 26; ++i) {
    const LayerSpec& l = t.arch.layers()[i];
    EXPECT_EQ(l.mixer, i % 3 == 2 ? Mixer::Attention : Mixer::RgLru) << "layer " << i;
    EXPECT_EQ(l.ffn.intermediate, 7680u) << "each MLP branch is half of intermediate_size";
  }
  const LayerSpec& attention = t.arch.layers()[2];
  EXPECT_EQ(attention.attention.kind, AttentionKind::Mqa);
  EXPECT_EQ(attention.attention.window, 2048u);
  EXPECT_EQ(find_tensor(t, "model.layers.2.temporal_block.o_proj.bias")->shape, Shape({2560}));
  EXPECT_EQ(find_tensor(t, "model.layers.2.temporal_block.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.temporal_block.rg_lru.input_gate_weight")->shape,
            Shape({10, 256, 256}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.temporal_block.conv_1d.weight")->shape, Shape({2560, 1, 4}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp_block.down_proj.bias")->shape, Shape({2560}));
  // A block_types of the config's own wins over the default cycle.
  const ModelTemplate own = template_of(R"({"model_type":"recurrent_gemma","hidden_size":64,
      "num_hidden_layers":4,"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":96,
      "vocab_size":100,"block_types":["attention","recurrent"]})");
  EXPECT_EQ(own.arch.layers()[0].mixer, Mixer::Attention);
  EXPECT_EQ(own.arch.layers()[3].mixer, Mixer::RgLru);
}

TEST(RecurrentGemma, StateIsTheConvWindowAndAFloat32Vector) {
  const ModelTemplate t = template_of(kRecurrentGemma2b);
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 8192);
  // transformers keeps conv1d_width - 1 inputs of lru_width channels in the model's dtype, and the RG-LRU's
  // state in float32: 18 recurrent layers x (2560 x 3 x 2 + 2560 x 4) bytes.
  uint64_t state = 0;
  for (const KvLayer& l : p.layers) state += l.state_bytes_per_sequence;
  EXPECT_EQ(state, 18u * (2560 * 3 * 2 + 2560 * 4));
  // 8 MQA layers x K and V x 256 dims x 2 bytes, at most 2,048 tokens each, whatever the context.
  EXPECT_EQ(kv_cache_total(p, 1, 8192) - state, 8u * 2 * 256 * 2 * 2048);
}

TEST(RecurrentGemma, RecurrentTensorsPlaceOnTheRgLru) {
  for (const char* name :
       {"model.layers.0.temporal_block.linear_x.weight", "model.layers.0.temporal_block.linear_out.bias",
        "model.layers.0.temporal_block.conv_1d.weight",
        "model.layers.0.temporal_block.rg_lru.recurrent_param",
        "model.layers.1.temporal_block.rg_lru.recurrent_gate_bias"}) {
    const TensorPlacement p = place_tensor(name);
    EXPECT_EQ(p.block, Block::RgLru) << name;
    EXPECT_EQ(p.layer, std::optional<uint32_t>(name[13] - '0')) << name;
  }
  EXPECT_EQ(place_tensor("model.layers.2.temporal_block.q_proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("model.layers.2.mlp_block.up_proj.weight").block, Block::Mlp);
}

TEST(RecurrentGemma, RefusesShapesItCannotBuild) {
  const auto refused_field = [](const std::string& extra) {
    return refusal_of(R"({"model_type":"recurrent_gemma","hidden_size":64,"num_hidden_layers":4,
        "num_attention_heads":4,"intermediate_size":96,"vocab_size":100,)" +
                      extra + "}")
        .field;
  };
  EXPECT_EQ(refused_field(R"("lru_width":66)"), "lru_width");  // 4 gate blocks cannot share 66 channels
  EXPECT_EQ(refused_field(R"("block_types":[])"), "block_types");
  EXPECT_EQ(refused_field(R"("block_types":["recurrent","mamba"])"), "block_types");
  EXPECT_EQ(refused_field(R"("lru_width":64)"), "accepted");
}

}  // namespace
}  // namespace ma::test
