// The encoder-decoders built on BART's and T5's layers (model/families/encoders_seq2seq.cpp,
// encoders_t5.cpp): PLBart, against its paper's size and transformers' classes instantiated at full size (the
// reference counter of this work).
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// uclanlp/plbart-base ("140M", Ahmad et al. 2021) is PLBartConfig's defaults; plbart-large BART-large's
// sizes. BART's modules throughout, and no question-answering class.
TEST(Seq2SeqVariants, PlbartIsBartWithItsOwnDefaults) {
  const std::string base = R"({"model_type":"plbart","architectures":["PLBartForConditionalGeneration"]})";
  EXPECT_EQ(parameters_of(base), 139'220'736u);
  EXPECT_EQ((parameters_of(base) + 500'000) / 1'000'000, 139u);
  EXPECT_EQ(parameters_of(replaced(base, "}", R"(,"d_model":1024,"encoder_layers":12,"decoder_layers":12,
      "encoder_attention_heads":16,"decoder_attention_heads":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096})")),
            406'025'216u);
  EXPECT_EQ(refusal_of(replaced(base, "ForConditionalGeneration", "ForQuestionAnswering")).kind,
            ErrorKind::Unsupported);
  const Inventory inv =
      stored_checkpoint(R"({"model_type":"plbart","architectures":["PLBartForConditionalGeneration"],
      "vocab_size":50,"d_model":16,"encoder_layers":1,"decoder_layers":1,"encoder_attention_heads":2,
      "decoder_attention_heads":2,"encoder_ffn_dim":24,"decoder_ffn_dim":24,"max_position_embeddings":20})",
                        {}, DType::F16)
          .inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
}

}  // namespace
}  // namespace ma::test
