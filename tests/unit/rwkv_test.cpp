// RWKV-4 (model/families/rwkv.cpp): time mixing by a WKV recurrence per channel instead of attention. Counted
// on the RWKV/rwkv-4-* configs against the sizes of BlinkDL's original checkpoints (bfloat16 .pth files of
// the same 18 tensors a block: two bytes a parameter and a pickle record per tensor).
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string rwkv(uint64_t layers, uint64_t hidden, uint64_t vocab = 50277) {
  return R"({"model_type":"rwkv","architectures":["RwkvForCausalLM"],"num_hidden_layers":)" +
         std::to_string(layers) + R"(,"hidden_size":)" + std::to_string(hidden) +
         R"(,"attention_hidden_size":null,"intermediate_size":null,"vocab_size":)" + std::to_string(vocab) +
         R"(,"context_length":1024,"tie_word_embeddings":false})";
}

// A block: key, value, receptance and output of the time mixing, the channel mixing's key (4 x wide), value
// and receptance, two LayerNorms, the decays and five token-shift mixes; the first block keeps the
// embeddings' LayerNorm. Then the final LayerNorm, the embedding and the untied head.
uint64_t closed_form(uint64_t layers, uint64_t h, uint64_t vocab) {
  const uint64_t block = 4 * h * h + 2 * (4 * h) * h + h * h + 2 * h + 5 * h + 4 * h;
  return 2 * vocab * h + layers * block + 2 * h + 2 * h;
}

TEST(Rwkv, CountsAsTheOriginalCheckpointsHoldIt) {
  struct Size {
    uint64_t layers, hidden;
    uint64_t pth_bytes;  // BlinkDL/rwkv-4-pile-*'s .pth
  };
  for (const Size& s :
       {Size{12, 768, 338'718'755}, Size{24, 1024, 860'861'859}, Size{24, 2048, 3'030'279'587},
        Size{32, 2560, 5'969'345'059}, Size{32, 4096, 14'785'389'603}, Size{40, 5120, 28'297'309'485}}) {
    const uint64_t n = parameters_of(rwkv(s.layers, s.hidden));
    EXPECT_EQ(n, closed_form(s.layers, s.hidden, 50277));
    // What the file holds beyond two bytes a parameter is its pickle records: 150 to 160 bytes a tensor.
    const uint64_t tensors = 18 * s.layers + 5, overhead = s.pth_bytes - 2 * n;
    EXPECT_GE(overhead, 150 * tensors) << s.hidden;
    EXPECT_LE(overhead, 160 * tensors) << s.hidden;
  }
  // The 430M and 1B5 files, 24 blocks each under the same names, carry the very same overhead.
  EXPECT_EQ(860'861'859u - 2 * parameters_of(rwkv(24, 1024)),
            3'030'279'587u - 2 * parameters_of(rwkv(24, 2048)));
  EXPECT_EQ(parameters_of(rwkv(12, 768)), 169'342'464u);
  EXPECT_EQ(parameters_of(rwkv(12, 768, 65536)), 192'780'288u);  // rwkv-4-world-169m's vocabulary
}

TEST(Rwkv, PlacesTimeAndChannelMixing) {
  const ModelTemplate t = template_of(rwkv(12, 768));
  EXPECT_EQ(t.arch.architecture, "RwkvForCausalLM");
  EXPECT_EQ(t.arch.layers()[3].mixer, Mixer::Rwkv);
  EXPECT_NE(find_tensor(t, "rwkv.blocks.0.pre_ln.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "rwkv.blocks.1.pre_ln.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "rwkv.blocks.5.attention.time_mix_key")->shape, Shape({1, 1, 768}));
  EXPECT_EQ(place_tensor("rwkv.blocks.5.attention.time_decay").block, Block::Rwkv);
  EXPECT_EQ(place_tensor("rwkv.blocks.5.attention.output.weight").block, Block::Rwkv);
  EXPECT_EQ(place_tensor("rwkv.blocks.5.feed_forward.receptance.weight").block, Block::Mlp);
  EXPECT_EQ(place_tensor("rwkv.blocks.5.feed_forward.time_mix_key").block, Block::Mlp);
  EXPECT_EQ(place_tensor("head.weight").block, Block::LmHead);
  // BERT's and ViT's keys stay attention.
  EXPECT_EQ(place_tensor("vit.encoder.layer.3.attention.attention.key.weight").block, Block::Attention);
  // RwkvModel: the blocks without the head, at the top level; a tied head is the embedding.
  const ModelTemplate bare = template_of(replaced(rwkv(12, 768), "RwkvForCausalLM", "RwkvModel"));
  EXPECT_NE(find_tensor(bare, "blocks.11.ln2.bias"), nullptr);
  EXPECT_EQ(parameters_of(replaced(rwkv(12, 768), "RwkvForCausalLM", "RwkvModel")),
            169'342'464u - 50277 * 768);
  EXPECT_EQ(find_tensor(template_of(replaced(rwkv(12, 768), R"("tie_word_embeddings":false)",
                                             R"("tie_word_embeddings":true)")),
                        "head.weight")
                ->tied_to,
            "rwkv.embeddings.weight");
  expect_reads_cleanly(rwkv(2, 16, 40));
}

// transformers' cache: per block five vectors of hidden_size, the two token shifts in the model's dtype and
// the WKV numerator, denominator and maximum in float32. RWKV-4 7B in bfloat16: 2,097,152 bytes a sequence,
// nothing per token.
TEST(Rwkv, CachesAFixedStatePerSequence) {
  const KvCachePlan kv = plan_kv_cache(template_of(rwkv(32, 4096)).arch, DType::BF16, DType::BF16, 0);
  EXPECT_EQ(kv.per_token, 0u);
  EXPECT_EQ(kv.state_per_sequence, 32u * 4096 * (2 * 2 + 3 * 4));
  EXPECT_NE(kv.convention.find("RWKV"), std::string::npos);
}

TEST(Rwkv, RefusesWhatCannotBeBuilt) {
  EXPECT_EQ(
      refusal_of(replaced(rwkv(12, 768), R"("attention_hidden_size":null)", R"("attention_hidden_size":0)"))
          .field,
      "attention_hidden_size");
  EXPECT_EQ(refusal_of(rwkv(100000, 768)).field, "num_hidden_layers");
  EXPECT_EQ(refusal_of(replaced(rwkv(12, 768), "RwkvForCausalLM", "RwkvForSequenceClassification")).kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
