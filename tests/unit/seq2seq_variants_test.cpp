// The encoder-decoders built on BART's and T5's layers (model/families/encoders_seq2seq.cpp,
// encoders_t5.cpp): PLBart, LED, PEGASUS-X, Switch Transformers and LongT5, against their papers' sizes and
// transformers' classes instantiated at full size (the reference counter of this work).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/inventory.h"
#include "model/tensor_placement.h"
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
  expect_reads_cleanly(R"({"model_type":"plbart","architectures":["PLBartForConditionalGeneration"],
      "vocab_size":50,"d_model":16,"encoder_layers":1,"decoder_layers":1,"encoder_attention_heads":2,
      "decoder_attention_heads":2,"encoder_ffn_dim":24,"decoder_ffn_dim":24,"max_position_embeddings":20})");
}

// RUCAIBox/mvp is MvpConfig's defaults: BART-large (406,291,456) with two more vocabulary rows. Its task
// variants (mvp-summarization, ...) set use_prompt: the decoder's self- and cross-attention prompts, each
// 100 prompt embeddings of 1,024 mapped through 1,024 -> 800 -> 12 layers x key and value x 1,024. The
// encoder prompt those checkpoints also store is an extra: transformers no longer builds it.
TEST(Seq2SeqVariants, MvpIsBartLargeWithDecoderPrompts) {
  const std::string base = R"({"model_type":"mvp","architectures":["MvpForConditionalGeneration"]})";
  EXPECT_EQ(parameters_of(base), 406'291'456u + 2 * 1024);
  const std::string prompted = replaced(base, "}", R"(,"use_prompt":true})");
  const uint64_t prompt = 100 * 1024 + (1024 * 800 + 800) + (800 * 24576 + 24576);
  EXPECT_EQ(parameters_of(prompted), parameters_of(base) + 2 * prompt);
  const ModelTemplate t = template_of(prompted);
  EXPECT_EQ(find_tensor(t, "model.decoder.cross_attn_prompt.prompt_trans.2.weight")->shape,
            Shape({24576, 800}));
  EXPECT_EQ(find_tensor(t, "model.encoder.self_attn_prompt.prompt_embedding.weight"), nullptr);
  // The prompt MLP is a Sequential, not a stack of layers.
  const TensorPlacement mlp = place_tensor("model.decoder.self_attn_prompt.prompt_trans.2.weight");
  EXPECT_FALSE(mlp.layer.has_value());
  EXPECT_EQ(mlp.block, Block::Attention);
  EXPECT_EQ(mlp.role, "prompt-mlp");
  // The decoder alone never has prompts.
  EXPECT_EQ(parameters_of(replaced(prompted, "ForConditionalGeneration", "ForCausalLM")),
            parameters_of(replaced(base, "ForConditionalGeneration", "ForCausalLM")));
  const std::string small = R"({"model_type":"mvp","architectures":["MvpForConditionalGeneration"],
      "vocab_size":50,"d_model":16,"encoder_layers":1,"decoder_layers":1,"encoder_attention_heads":2,
      "decoder_attention_heads":2,"encoder_ffn_dim":24,"decoder_ffn_dim":24,"max_position_embeddings":20,
      "use_prompt":true,"prompt_length":3,"prompt_mid_dim":8})";
  expect_reads_cleanly(small);
  const std::string encoder_prompt = "model.encoder.self_attn_prompt.";
  const Inventory inv =
      stored_checkpoint(small, {{encoder_prompt + "prompt_embedding.weight", DType::F16, {3, 16}, {}},
                                {encoder_prompt + "prompt_trans.0.weight", DType::F16, {8, 16}, {}}})
          .inventory;
  EXPECT_TRUE(inv.warnings.empty());
  EXPECT_EQ(extras_in(inv), 2u);
  EXPECT_EQ(refusal_of(replaced(prompted, "}", R"(,"decoder_layers":1000000000000})")).field,
            "decoder_layers");
}

// allenai/led-base-16384: BART-base (139,420,416) with its position table copied up to 16,384 rows for the
// encoder (its card), 1,024 learned decoder positions without BART's offset of 2, and Longformer's global
// query, key and value in each of its 6 encoder layers.
TEST(Seq2SeqVariants, LedIsBartWithALongformerEncoder) {
  const std::string base =
      R"({"architectures":["LEDForConditionalGeneration"],"model_type":"led","d_model":768,
      "encoder_layers":6,"decoder_layers":6,"encoder_attention_heads":12,"decoder_attention_heads":12,
      "encoder_ffn_dim":3072,"decoder_ffn_dim":3072,"vocab_size":50265,"max_encoder_position_embeddings":16384,
      "max_decoder_position_embeddings":1024})";
  EXPECT_EQ(parameters_of(base), 139'420'416u + (16384u - 1026) * 768 - 2 * 768 + 6 * 3 * (768u * 768 + 768));
  EXPECT_EQ(parameters_of(base), 161'844'480u);
  EXPECT_EQ(parameters_of(R"({"model_type":"led","architectures":["LEDForConditionalGeneration"]})"),
            459'801'600u);
  const ModelTemplate t = template_of(base);
  EXPECT_NE(find_tensor(t, "led.encoder.layers.5.self_attn.longformer_self_attn.value_global.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "led.encoder.layers.5.self_attn.output.weight"), nullptr);
  // LEDEncoderSelfAttention registers the global projections right after value, before the output.
  std::vector<std::string> attention;
  for (const TemplateTensor& tt : t.tensors)
    if (tt.name.starts_with("led.encoder.layers.0.self_attn.") && tt.name.ends_with(".weight"))
      attention.push_back(tt.name.substr(std::string("led.encoder.layers.0.self_attn.").size()));
  EXPECT_EQ(attention, (std::vector<std::string>{
                           "longformer_self_attn.query.weight", "longformer_self_attn.key.weight",
                           "longformer_self_attn.value.weight", "longformer_self_attn.query_global.weight",
                           "longformer_self_attn.key_global.weight",
                           "longformer_self_attn.value_global.weight", "output.weight"}));
  EXPECT_EQ(find_tensor(t, "led.decoder.embed_positions.weight")->shape, Shape({1024, 768}));
  EXPECT_EQ(find_tensor(t, "final_logits_bias")->kind, TensorKind::Buffer);
  EXPECT_EQ(refusal_of(replaced(base, "ForConditionalGeneration", "ForCausalLM")).kind,
            ErrorKind::Unsupported);
  expect_reads_cleanly(R"({"architectures":["LEDForConditionalGeneration"],"model_type":"led","d_model":16,
      "encoder_layers":1,"decoder_layers":1,"encoder_attention_heads":2,"decoder_attention_heads":2,
      "encoder_ffn_dim":24,"decoder_ffn_dim":24,"vocab_size":50,"max_encoder_position_embeddings":64,
      "max_decoder_position_embeddings":16})");
}

// google/pegasus-x-base and -large: "272M" and "568M" (Phang et al. 2022). Attention without biases, no
// position table (computed), 128 learned global tokens the encoder's layers attend through their own
// projections, normed apart.
TEST(Seq2SeqVariants, PegasusXAttendsGlobalTokens) {
  const std::string base = R"({"architectures":["PegasusXForConditionalGeneration"],"model_type":"pegasus_x",
      "d_model":768,"encoder_layers":12,"decoder_layers":12,"encoder_attention_heads":12,
      "decoder_attention_heads":12,"encoder_ffn_dim":3072,"decoder_ffn_dim":3072,"vocab_size":96103,
      "num_global_tokens":128})";
  EXPECT_EQ(parameters_of(base), 272'292'096u);
  EXPECT_EQ(parameters_of(R"({"model_type":"pegasus_x","architectures":["PegasusXForConditionalGeneration"],
      "num_global_tokens":128})"),
            568'667'136u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_global.weight")->shape, Shape({128, 768}));
  EXPECT_NE(find_tensor(t, "model.encoder.layers.11.global_self_attn_layer_norm.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.0.encoder_attn.out_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "final_logits_bias"), nullptr);
  expect_reads_cleanly(R"({"architectures":["PegasusXForConditionalGeneration"],"model_type":"pegasus_x",
      "d_model":16,"encoder_layers":1,"decoder_layers":1,"encoder_attention_heads":2,"decoder_attention_heads":2,
      "encoder_ffn_dim":24,"decoder_ffn_dim":24,"vocab_size":50,"num_global_tokens":4})");
}

const std::string kSwitchBase8 = R"({"architectures":["SwitchTransformersForConditionalGeneration"],
    "model_type":"switch_transformers","d_ff":3072,"d_kv":64,"d_model":768,"decoder_sparse_step":2,
    "encoder_sparse_step":2,"num_decoder_layers":12,"num_heads":12,"num_layers":12,"router_bias":false,
    "vocab_size":32128,"num_experts":8})";

// Fedus et al. 2022: Switch-Base matches T5-Base's compute, a token running T5-Base's 223M parameters, and
// Switch-C holds 1,571B. Every other layer is sparse in Switch-Base, every layer in
// Switch-C.
TEST(Seq2SeqVariants, SwitchTransformersRouteEachTokenToOneExpert) {
  const ParameterCounts c = counts_of(kSwitchBase8);
  EXPECT_EQ(c.total, 619'339'008u);
  EXPECT_EQ((*c.active + 500'000) / 1'000'000, 223u);
  // Only the routers grow with the experts (a row of 768 per expert and sparse layer): 223M up to 64 experts.
  for (const std::string experts : {"16", "32", "64"})
    EXPECT_EQ(
        (*counts_of(replaced(kSwitchBase8, R"("num_experts":8)", R"("num_experts":)" + experts)).active +
         500'000) /
            1'000'000,
        223u);
  EXPECT_EQ(counts_of(replaced(kSwitchBase8, R"("num_experts":8)", R"("num_experts":128)")).total,
            7'415'217'408u);
  const std::string c2048 = replaced(
      replaced(
          replaced(
              replaced(replaced(replaced(replaced(replaced(kSwitchBase8, R"("d_ff":3072)", R"("d_ff":6144)"),
                                                  R"("d_model":768)", R"("d_model":2080)"),
                                         R"("decoder_sparse_step":2)", R"("decoder_sparse_step":1)"),
                                R"("encoder_sparse_step":2)", R"("encoder_sparse_step":1)"),
                       R"("num_decoder_layers":12)", R"("num_decoder_layers":15)"),
              R"("num_layers":12)", R"("num_layers":15)"),
          R"("num_heads":12)", R"("num_heads":32)"),
      R"("num_experts":8)", R"("num_experts":2048)");
  EXPECT_EQ(parameters_of(c2048), 1'571'308'972'448u);
  const ModelTemplate t = template_of(kSwitchBase8);
  EXPECT_NE(find_tensor(t, "encoder.block.1.layer.1.mlp.experts.expert_7.wo.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "decoder.block.11.layer.2.mlp.router.classifier.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "encoder.block.2.layer.1.mlp.wi.weight"), nullptr);  // a dense layer
  // Without stored steps the config class derives them: 12 layers / 3 sparse ones = every fourth.
  const ModelTemplate derived = template_of(R"({"model_type":"switch_transformers"})");
  EXPECT_NE(find_tensor(derived, "encoder.block.5.layer.1.mlp.router.classifier.weight"), nullptr);
  EXPECT_EQ(find_tensor(derived, "encoder.block.3.layer.1.mlp.router.classifier.weight"), nullptr);
}

// google/long-t5-*: local or transient-global encoder attention; the Hub's configs untie the embeddings, so
// transformers 5 builds four vocabulary tables (shared, both stacks', the head).
TEST(Seq2SeqVariants, LongT5AttendsLocallyOrToGlobalTokens) {
  const std::string local = R"({"architectures":["LongT5ForConditionalGeneration"],"model_type":"longt5",
      "d_ff":2048,"d_kv":64,"d_model":768,"num_heads":12,"num_layers":12,"num_decoder_layers":12,
      "encoder_attention_type":"local","feed_forward_proj":"gated-gelu","tie_word_embeddings":false,
      "vocab_size":32128})";
  const std::string global = replaced(local, R"("local")", R"("transient-global")");
  EXPECT_EQ(parameters_of(local), 296'926'464u);
  EXPECT_EQ(parameters_of(global), 296'936'064u);
  EXPECT_EQ(parameters_of(global) - parameters_of(local), 32u * 12 + 12 * 768);
  EXPECT_EQ(parameters_of(replaced(local, R"("tie_word_embeddings":false)", R"("tie_word_embeddings":true)")),
            296'926'464u - 3u * 32128 * 768);
  const ModelTemplate t = template_of(global);
  EXPECT_NE(
      find_tensor(
          t, "encoder.block.0.layer.0.TransientGlobalSelfAttention.global_relative_attention_bias.weight"),
      nullptr);
  EXPECT_NE(
      find_tensor(t, "encoder.block.11.layer.0.TransientGlobalSelfAttention.global_input_layer_norm.weight"),
      nullptr);
  EXPECT_NE(find_tensor(t, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"), nullptr);
  EXPECT_EQ(refusal_of(replaced(local, R"("local")", R"("sparse")")).field, "encoder_attention_type");
}

TEST(Seq2SeqVariants, SmallSwitchAndLongT5CheckpointsMatch) {
  for (
      const std::string& c :
      {std::string(
           R"({"model_type":"switch_transformers","architectures":["SwitchTransformersForConditionalGeneration"],
          "vocab_size":50,"d_model":16,"d_kv":4,"d_ff":24,"num_layers":2,"num_heads":2,"num_experts":3,
          "encoder_sparse_step":2,"decoder_sparse_step":1})"),
       std::string(
           R"({"model_type":"longt5","architectures":["LongT5ForConditionalGeneration"],"vocab_size":50,
          "d_model":16,"d_kv":4,"d_ff":24,"num_layers":2,"num_heads":2,"encoder_attention_type":"transient-global",
          "tie_word_embeddings":false})")}) {
    expect_reads_cleanly(c);
  }
}

}  // namespace
}  // namespace ma::test
