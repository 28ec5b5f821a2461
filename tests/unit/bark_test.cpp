// Bark (bark: BarkModel) and its sub-models alone (semantic, coarse_acoustics, fine_acoustics): templates
// against what transformers 5 builds. The totals were counted by a mirror of the transformers classes' module
// construction made of torch's own modules on the meta device (nn.Embedding, nn.Linear, LayerNorms with and
// without bias, the persistent causal-mask buffers, BarkFineModel's head ties; the EnCodec codec from the
// speech_gen group's mirror), whose state_dict matched these templates name for name, shape for shape, in
// order (/tmp/impl/bark/verify: count_bark.py, compare_out.txt). The Hub's configs of suno/bark and
// suno/bark-small are bias-free in all three GPTs (nanoGPT's bias=False; their printed modules show
// Linear(..., bias=False) throughout), with 129,600 text / 10,048 semantic, 12,096 coarse and 8 x 1,056 fine
// vocabularies; their codec is facebook/encodec_24khz's (EncodecConfig's defaults).
#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// suno/bark-small (hidden 768, 12 layers, 12 heads in each GPT) or suno/bark (1024, 24, 16).
std::string bark_config(const std::string& width, const std::string& layers, const std::string& heads) {
  const std::string dims = R"("block_size":1024,"num_layers":)" + layers + R"(,"num_heads":)" + heads +
                           R"(,"hidden_size":)" + width + R"(,"bias":false)";
  return R"({"model_type":"bark","architectures":["BarkModel"],
    "semantic_config":{"model_type":"semantic","input_vocab_size":129600,"output_vocab_size":10048,)" +
         dims + R"(},
    "coarse_acoustics_config":{"model_type":"coarse_acoustics","input_vocab_size":12096,
      "output_vocab_size":12096,)" +
         dims + R"(},
    "fine_acoustics_config":{"model_type":"fine_acoustics","input_vocab_size":1056,"output_vocab_size":1056,
      "n_codes_total":8,"n_codes_given":1,"tie_word_embeddings":true,)" +
         dims + R"(},
    "codec_config":{"model_type":"encodec","architectures":["EncodecModel"]}})";
}

struct BarkTotals {
  uint64_t parameters = 0, buffers = 0;
};
// Parameters counted once (tied copies skipped) and persistent buffer values under `prefix`.
BarkTotals bark_totals(const ModelTemplate& t, const std::string& prefix = "") {
  BarkTotals s;
  for (const TemplateTensor& x : t.tensors) {
    if (!x.name.starts_with(prefix) || !x.tied_to.empty()) continue;
    (x.kind == TensorKind::Parameter ? s.parameters : s.buffers) += numel(x.shape);
  }
  return s;
}

// suno/bark-small: 404,409,058 parameters (the Hub's "0.4B"): semantic 192,989,952, coarse 104,319,744, fine
// 92,247,552 (its seven heads share the tables of codebooks 1-7) and EnCodec 14,851,810. Buffers: a
// 1024 x 1024 causal mask in each of the 24 causal layers and EnCodec's 32 codebooks, 33,587,232 values.
TEST(Bark, BarkSmallIsThreeGptsAndEncodec) {
  const ModelTemplate t = template_of(bark_config("768", "12", "12"));
  EXPECT_EQ(bark_totals(t).parameters, 404409058u);
  EXPECT_EQ(bark_totals(t, "semantic.").parameters, 192989952u);
  EXPECT_EQ(bark_totals(t, "coarse_acoustics.").parameters, 104319744u);
  EXPECT_EQ(bark_totals(t, "fine_acoustics.").parameters, 92247552u);
  EXPECT_EQ(bark_totals(t, "codec_model.").parameters, 14851810u);
  EXPECT_EQ(bark_totals(t).buffers, 24u * 1024u * 1024u + 8421408u);
  EXPECT_EQ(disk_totals(t).elements, 404409058u + 33587232u);
  // Registration order: semantic, coarse, fine, codec.
  EXPECT_EQ(t.tensors.front().name, "semantic.input_embeds_layer.weight");
  EXPECT_LT(tensor_index(t, "semantic.lm_head.weight"),
            tensor_index(t, "coarse_acoustics.input_embeds_layer.weight"));
  EXPECT_LT(tensor_index(t, "fine_acoustics.lm_heads.6.weight"),
            tensor_index(t, "codec_model.encoder.layers.0.conv.bias"));
  EXPECT_EQ(t.tensors.back().name, "codec_model.quantizer.layers.31.codebook.embed_avg");
  // The text table is 129,600 rows, the head 10,048; bias=false drops every linear's and causal norm's bias.
  EXPECT_EQ(find_tensor(t, "semantic.input_embeds_layer.weight")->shape, (Shape{129600, 768}));
  EXPECT_TRUE(find_tensor(t, "semantic.input_embeds_layer.weight")->embedding);
  EXPECT_EQ(find_tensor(t, "semantic.lm_head.weight")->shape, (Shape{10048, 768}));
  EXPECT_EQ(find_tensor(t, "semantic.layers.0.attn.att_proj.weight")->shape, (Shape{2304, 768}));
  EXPECT_EQ(find_tensor(t, "semantic.layers.0.mlp.in_proj.weight")->shape, (Shape{3072, 768}));
  EXPECT_EQ(find_tensor(t, "semantic.layers.0.attn.att_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "coarse_acoustics.layers.11.layernorm_2.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "coarse_acoustics.layernorm_final.bias"), nullptr);
  // The fine model's norms are plain nn.LayerNorm, biased whatever config.bias says.
  EXPECT_NE(find_tensor(t, "fine_acoustics.layers.0.layernorm_1.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "fine_acoustics.layernorm_final.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "fine_acoustics.layers.0.mlp.out_proj.bias"), nullptr);
}

// The causal models' attention keeps its mask as a persistent bool buffer, listed before the attention's
// projections; the fine model attends both ways and has none. Nothing ties the causal models' heads.
TEST(Bark, CausalMasksAreStoredBuffers) {
  const ModelTemplate t = template_of(bark_config("768", "12", "12"));
  const TemplateTensor* mask = find_tensor(t, "coarse_acoustics.layers.3.attn.bias");
  ASSERT_NE(mask, nullptr);
  EXPECT_EQ(mask->kind, TensorKind::Buffer);
  EXPECT_EQ(mask->shape, (Shape{1, 1, 1024, 1024}));
  ASSERT_EQ(mask->disk.size(), 1u);
  EXPECT_EQ(mask->disk[0].dtype, DType::BOOL);
  EXPECT_EQ(tensor_index(t, "semantic.layers.0.attn.bias") + 1,
            tensor_index(t, "semantic.layers.0.attn.att_proj.weight"));
  EXPECT_EQ(tensor_index(t, "semantic.layers.0.layernorm_2.weight") + 1,
            tensor_index(t, "semantic.layers.0.attn.bias"));
  EXPECT_EQ(find_tensor(t, "fine_acoustics.layers.0.attn.bias"), nullptr);
  EXPECT_TRUE(find_tensor(t, "semantic.lm_head.weight")->tied_to.empty());
  EXPECT_TRUE(find_tensor(t, "coarse_acoustics.lm_head.weight")->tied_to.empty());
}

// BarkFineModel: eight code tables, seven heads (codebooks 1-7; the first comes from the coarse model), head
// i tied to table i + 1 by BarkFineConfig's tie_word_embeddings (default true).
TEST(Bark, FineHeadsShareTheNextCodebooksTable) {
  const ModelTemplate t = template_of(bark_config("768", "12", "12"));
  EXPECT_NE(find_tensor(t, "fine_acoustics.input_embeds_layers.7.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "fine_acoustics.input_embeds_layers.8.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "fine_acoustics.lm_heads.7.weight"), nullptr);
  const TemplateTensor* head = find_tensor(t, "fine_acoustics.lm_heads.0.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->tied_to, "fine_acoustics.input_embeds_layers.1.weight");
  EXPECT_FALSE(head->stored);
  EXPECT_EQ(find_tensor(t, "fine_acoustics.lm_heads.6.weight")->tied_to,
            "fine_acoustics.input_embeds_layers.7.weight");
  // transformers 4's pytorch_model.bin kept the tied heads beside their tables.
  ASSERT_EQ(t.known_extras.size(), 1u);
  EXPECT_EQ(t.known_extras[0].prefix, "fine_acoustics.lm_heads.");
}

// suno/bark: 1,100,590,818 parameters (semantic 446,088,192, coarse 327,861,248, fine 311,789,568, EnCodec
// 14,851,810) and 48 causal masks beside the codebooks. The record is the semantic model's: its decoder is
// the one stack; the coarse and fine models and the codec are the speech output.
TEST(Bark, BarkLargeRecordsTheSemanticDecoder) {
  const ModelTemplate t = template_of(bark_config("1024", "24", "16"));
  EXPECT_EQ(bark_totals(t).parameters, 1100590818u);
  EXPECT_EQ(bark_totals(t, "semantic.").parameters, 446088192u);
  EXPECT_EQ(bark_totals(t, "coarse_acoustics.").parameters, 327861248u);
  EXPECT_EQ(bark_totals(t, "fine_acoustics.").parameters, 311789568u);
  EXPECT_EQ(bark_totals(t).buffers, 48u * 1024u * 1024u + 8421408u);
  EXPECT_EQ(t.arch.architecture, "BarkModel");
  EXPECT_EQ(t.arch.model_type, "semantic");
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  EXPECT_EQ(t.arch.num_layers, 24u);
  EXPECT_EQ(t.arch.vocab_size, 129600u);
  EXPECT_EQ(t.arch.head_dim, 64u);
  EXPECT_EQ(t.arch.intermediate_size, 4096u);
  EXPECT_EQ(t.arch.max_position_embeddings, 1024u);
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_EQ(t.arch.position, PositionKind::Learned);
  ASSERT_EQ(t.arch.stacks.size(), 1u);
  EXPECT_EQ(t.arch.stacks[0].role, StackRole::Decoder);
  EXPECT_EQ(t.arch.stacks[0].path, "semantic.layers");
  EXPECT_EQ(t.arch.stacks[0].layers.size(), 24u);
  EXPECT_FALSE(t.arch.stacks[0].layers[0].ffn.gated);
  EXPECT_EQ(place_tensor("semantic.layers.5.attn.att_proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("semantic.layers.5.attn.att_proj.weight").role, "qkv");
  EXPECT_EQ(place_tensor("semantic.layers.5.attn.bias").block, Block::Buffer);
  EXPECT_EQ(place_tensor("coarse_acoustics.layers.5.mlp.in_proj.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("fine_acoustics.input_embeds_layers.3.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("codec_model.decoder.layers.1.lstm.weight_ih_l0").block, Block::Audio);
  expect_every_tensor_placed(t);
}

// An absent sub-config is its class's defaults: BarkSubModelConfig's 12 x 768 GPT with biases and
// 10,048-token vocabularies, EncodecConfig's codec: 364,981,474 parameters.
TEST(Bark, AbsentSubConfigsTakeTheClassDefaults) {
  const ModelTemplate t = template_of(R"({"model_type":"bark"})");
  EXPECT_EQ(bark_totals(t).parameters, 364981474u);
  EXPECT_EQ(bark_totals(t, "semantic.").parameters, 101276160u);
  EXPECT_EQ(bark_totals(t, "fine_acoustics.").parameters, 147577344u);
  EXPECT_EQ(find_tensor(t, "semantic.layers.0.attn.att_proj.bias")->shape, (Shape{2304}));
  EXPECT_NE(find_tensor(t, "coarse_acoustics.layernorm_final.bias"), nullptr);
  EXPECT_EQ(t.arch.architecture, "BarkModel");
}

// The sub-models alone, under their own config classes; config.json may use the attribute_map's aliases
// (num_hidden_layers, num_attention_heads, vocab_size, window_size). A 2-layer 64-wide semantic model with
// biases: 6,400 + 2,048 + 2 x 49,984 + 128 + 3,200 = 111,744 parameters.
TEST(Bark, SubModelsAlone) {
  const ModelTemplate s = template_of(R"({"model_type":"semantic","architectures":["BarkSemanticModel"],
    "num_hidden_layers":2,"num_attention_heads":4,"hidden_size":64,"block_size":32,"vocab_size":100,
    "output_vocab_size":50})");
  EXPECT_EQ(bark_totals(s).parameters, 111744u);
  EXPECT_EQ(bark_totals(s).buffers, 2u * 32u * 32u);
  EXPECT_EQ(s.arch.architecture, "BarkSemanticModel");
  EXPECT_EQ(find_tensor(s, "input_embeds_layer.weight")->shape, (Shape{100, 64}));
  EXPECT_EQ(find_tensor(s, "layers.1.attn.bias")->shape, (Shape{1, 1, 32, 32}));
  EXPECT_EQ(s.arch.stacks.at(0).role, StackRole::Decoder);

  const ModelTemplate c = template_of(R"({"model_type":"coarse_acoustics","num_layers":2,"num_heads":4,
    "hidden_size":64,"block_size":32,"input_vocab_size":120,"output_vocab_size":120,"bias":false})");
  EXPECT_EQ(bark_totals(c).parameters, 116032u);
  EXPECT_EQ(c.arch.architecture, "BarkCoarseModel");

  const std::string fine = R"({"model_type":"fine_acoustics","num_layers":2,"num_heads":4,"hidden_size":64,
    "block_size":32,"input_vocab_size":40,"output_vocab_size":40,"n_codes_total":4,"n_codes_given":2})";
  const ModelTemplate f = template_of(fine);
  EXPECT_EQ(bark_totals(f).parameters, 112384u);
  EXPECT_EQ(f.arch.architecture, "BarkFineModel");
  EXPECT_EQ(f.arch.stacks.at(0).role, StackRole::Encoder);  // it attends both ways
  EXPECT_EQ(find_tensor(f, "lm_heads.1.weight")->tied_to, "input_embeds_layers.2.weight");
  EXPECT_EQ(find_tensor(f, "lm_heads.2.weight"), nullptr);  // n_codes_total - n_codes_given heads
  // Untied: two heads of their own, 2 x 40 x 64 more.
  const ModelTemplate u =
      template_of(replaced(fine, R"("n_codes_given":2)", R"("n_codes_given":2,"tie_word_embeddings":false)"));
  EXPECT_EQ(bark_totals(u).parameters, 112384u + 2u * 40u * 64u);
  EXPECT_TRUE(find_tensor(u, "lm_heads.0.weight")->tied_to.empty());
  EXPECT_TRUE(u.known_extras.empty());
}

TEST(Bark, RefusesWhatTransformersRejects) {
  // BarkSelfAttention raises unless the heads divide the width.
  EXPECT_EQ(refusal_of(R"({"model_type":"bark","semantic_config":{"hidden_size":768,"num_heads":10}})").field,
            "semantic_config.num_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"bark","fine_acoustics_config":{"num_attention_heads":7}})").field,
            "fine_acoustics_config.num_attention_heads");
  // With no codebook given, head i would tie to a table i + 1 past the last.
  EXPECT_EQ(refusal_of(R"({"model_type":"fine_acoustics","n_codes_given":0})").field, "n_codes_given");
  // Only an EnCodec codec is modelled; BarkConfig's only class is BarkModel.
  EXPECT_EQ(refusal_of(R"({"model_type":"bark","codec_config":{"model_type":"dac"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"bark","architectures":["BarkForCausalLM"]})").field,
            "architectures");
}

}  // namespace
}  // namespace ma::test
