// mBART, Pegasus, Marian, M2M100, Blenderbot and mT5 (model/families/encoders_seq2seq.cpp): BART's and T5's
// code with other norms, positions and defaults, counted on the configs their Hub repositories publish.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/mbart-large-50's config.json, the fields a count depends on.
constexpr const char* kMBart50 = R"({"model_type":"mbart","architectures":["MBartForConditionalGeneration"],
    "d_model":1024,"encoder_layers":12,"decoder_layers":12,"encoder_attention_heads":16,
    "decoder_attention_heads":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,"max_position_embeddings":1024,
    "scale_embedding":true,"vocab_size":250054})";

// 610,879,488: the count public training scripts assert for mbart-large-50 (metrics['parameters']), and a
// note's split of it, encoder with the shared embedding 408,264,704 and the decoder's own 202,614,784. By
// hand: BART-large's layers (12,596,224 per encoder layer, 16,796,672 per decoder layer), 1,026 learned
// positions per stack, layernorm_embedding and the final layer_norm BART lacks, the head tied.
TEST(MBart, Large50CountsAsPublished) {
  const ParameterCounts c = counts_of(kMBart50);
  EXPECT_EQ(c.total, 610'879'488u);
  const ModelTemplate t = template_of(kMBart50);
  EXPECT_EQ(find_tensor(t, "model.encoder.layer_norm.weight")->shape, Shape({1024}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layernorm_embedding.bias")->shape, Shape({1024}));
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weight")->shape, Shape({1026, 1024}));
  EXPECT_EQ(find_tensor(t, "final_logits_bias")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.shared.weight");
  EXPECT_FALSE(t.arch.post_norm);  // mBART normalizes before each sub-layer; BART after
  EXPECT_TRUE(template_of(R"({"model_type":"bart"})").arch.post_norm);
  // BART itself keeps no final layer_norm.
  EXPECT_EQ(find_tensor(template_of(R"({"model_type":"bart"})"), "encoder.layer_norm.weight"), nullptr);
}

TEST(MBart, CausalLmIsTheDecoderAlone) {
  const ModelTemplate t =
      template_of(R"({"model_type":"mbart","architectures":["MBartForCausalLM"],"d_model":64,
                      "decoder_layers":2,"decoder_attention_heads":4,"decoder_ffn_dim":128,"vocab_size":100})");
  EXPECT_EQ(find_tensor(t, "model.encoder.layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.embed_tokens.weight")->shape, Shape({100, 64}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.decoder.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "final_logits_bias"), nullptr);
  ASSERT_EQ(t.arch.layers().size(), 2u);
  EXPECT_FALSE(t.arch.layers()[0].cross_attention);  // nothing feeds its encoder_attn
}

// google/pegasus-large's config.json.
constexpr const char* kPegasusLarge = R"({"model_type":"pegasus",
    "architectures":["PegasusForConditionalGeneration"],"d_model":1024,"encoder_layers":16,"decoder_layers":16,
    "encoder_attention_heads":16,"decoder_attention_heads":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,
    "max_position_embeddings":1024,"vocab_size":96103,"scale_embedding":true})";

// The PEGASUS paper and transformers' Pegasus docs give 568M: 568,699,904, the trained weights. transformers'
// num_parameters also counts the two frozen sinusoidal position tables (nn.Parameters), 2 x 1,024 x 1,024.
TEST(Pegasus, LargeCountsThePapersWeightsAndTheSinusoids) {
  EXPECT_EQ(parameters_of(kPegasusLarge), 568'699'904u + 2u * 1024 * 1024);
  const ModelTemplate t = template_of(kPegasusLarge);
  const TemplateTensor* positions = find_tensor(t, "model.encoder.embed_positions.weight");
  ASSERT_NE(positions, nullptr);
  EXPECT_EQ(positions->shape, Shape({1024, 1024}));  // no offset rows
  EXPECT_TRUE(positions->rebuilt_on_load);
  EXPECT_EQ(find_tensor(t, "model.encoder.layernorm_embedding.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.decoder.layer_norm.weight"), nullptr);
}

// The Hub's Pegasus checkpoints leave the sinusoidal tables out, and transformers fills them in: a
// checkpoint without them is complete, one without a trained tensor is not.
TEST(Pegasus, CheckpointsWithoutTheSinusoidsMissNothing) {
  const std::string config = R"({"model_type":"pegasus","architectures":["PegasusForConditionalGeneration"],
      "d_model":16,"encoder_layers":1,"decoder_layers":1,"encoder_attention_heads":2,
      "decoder_attention_heads":2,"encoder_ffn_dim":32,"decoder_ffn_dim":32,"max_position_embeddings":8,
      "vocab_size":10})";
  const ModelTemplate t = template_of(config);
  auto inventory_without = [&](const std::vector<std::string>& left_out) {
    const TempDir dir;
    write_file(dir / "config.json", config);
    std::vector<TensorToWrite> stored;
    for (const TemplateTensor& x : t.tensors)
      if (x.stored && std::find(left_out.begin(), left_out.end(), x.name) == left_out.end())
        stored.push_back({x.name, DType::F32, x.shape, {}});
    write_safetensors(dir / "model.safetensors", stored);
    return build_inventory(locate_local_model(dir.path().string()));
  };
  auto mentions = [](const Inventory& inv, const std::string& text) {
    for (const std::string& w : inv.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  };
  const Inventory complete =
      inventory_without({"model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"});
  EXPECT_FALSE(mentions(complete, "not in the checkpoint")) << complete.warnings.size();
  const Inventory partial = inventory_without({"model.encoder.layer_norm.weight"});
  EXPECT_TRUE(mentions(partial, "model.encoder.layer_norm.weight"));
}

// Helsinki-NLP/opus-mt-en-de's config.json (MarianMTModel), with the BART-era keys it still carries and
// transformers no longer reads (normalize_before, add_final_layer_norm, static_position_embeddings).
constexpr const char* kOpusMtEnDe = R"({"model_type":"marian","architectures":["MarianMTModel"],
    "d_model":512,"encoder_layers":6,"decoder_layers":6,"encoder_attention_heads":8,"decoder_attention_heads":8,
    "encoder_ffn_dim":2048,"decoder_ffn_dim":2048,"max_position_embeddings":512,"vocab_size":58101,
    "scale_embedding":true,"normalize_before":false,"add_final_layer_norm":false,
    "static_position_embeddings":true})";

// 74,410,496, the count two independent public sources print for opus-mt-en-de: one shared embedding of
// 58,101 x 512 (encoder, decoder and head), two sinusoidal tables of 512 x 512 that num_parameters counts,
// BART's post-norm layers without layernorm_embedding or a final layer_norm.
TEST(Marian, OpusMtCountsAsPublished) {
  EXPECT_EQ(parameters_of(kOpusMtEnDe), 74'410'496u);
  const ModelTemplate t = template_of(kOpusMtEnDe);
  EXPECT_TRUE(t.arch.post_norm);
  EXPECT_TRUE(find_tensor(t, "model.encoder.embed_positions.weight")->rebuilt_on_load);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weight")->shape, Shape({512, 512}));
  EXPECT_EQ(find_tensor(t, "model.encoder.layernorm_embedding.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.shared.weight");
  EXPECT_EQ(find_tensor(t, "final_logits_bias")->shape, Shape({1, 58101}));
}

// share_encoder_decoder_embeddings false: the decoder embeds its own vocabulary, the head ties to it.
TEST(Marian, SeparateDecoderVocabulary) {
  std::string config = kOpusMtEnDe;
  config.insert(1, R"("share_encoder_decoder_embeddings":false,"decoder_vocab_size":32000,)");
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "model.shared.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_tokens.weight")->shape, Shape({58101, 512}));
  EXPECT_EQ(find_tensor(t, "model.decoder.embed_tokens.weight")->shape, Shape({32000, 512}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.decoder.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "final_logits_bias")->shape, Shape({1, 32000}));
  EXPECT_EQ(parameters_of(config), 74'410'496u + 32'000u * 512);
}

// google/mt5-small's config.json.
constexpr const char* kMT5Small = R"({"model_type":"mt5","architectures":["MT5ForConditionalGeneration"],
    "d_ff":1024,"d_kv":64,"d_model":512,"feed_forward_proj":"gated-gelu","num_decoder_layers":8,"num_heads":6,
    "num_layers":8,"relative_attention_num_buckets":32,"tie_word_embeddings":false,"vocab_size":250112})";

// facebook/nllb-200-distilled-600M's config.json (M2M100ForConditionalGeneration): "615M" on the Hub, the
// 615,073,792 public fine-tuning notebooks print. mBART's pre-norm layers and final norms, no
// layernorm_embedding, and positions from a sinusoidal buffer that is never saved: nothing to count.
constexpr const char* kNllb600m =
    R"({"model_type":"m2m_100","architectures":["M2M100ForConditionalGeneration"],
    "d_model":1024,"encoder_layers":12,"decoder_layers":12,"encoder_attention_heads":16,
    "decoder_attention_heads":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,"max_position_embeddings":1024,
    "scale_embedding":true,"vocab_size":256206})";

TEST(M2M100, Nllb200CountsAsPublished) {
  EXPECT_EQ(parameters_of(kNllb600m), 615'073'792u);
  const ModelTemplate t = template_of(kNllb600m);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.layernorm_embedding.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.layer_norm.weight")->shape, Shape({1024}));
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_tokens.weight")->tied_to, "model.shared.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.shared.weight");
  EXPECT_EQ(find_tensor(t, "final_logits_bias"), nullptr);
  EXPECT_EQ(t.arch.position, PositionKind::Sinusoidal);
  // nllb-200-3.3B: 2,048 wide, 24 + 24 layers of 8,192 ("3.3B").
  std::string large = kNllb600m;
  for (auto [from, to] : {std::pair<std::string, std::string>{"\"d_model\":1024", "\"d_model\":2048"},
                          {"\"encoder_layers\":12", "\"encoder_layers\":24"},
                          {"\"decoder_layers\":12", "\"decoder_layers\":24"},
                          {"\"encoder_ffn_dim\":4096", "\"encoder_ffn_dim\":8192"},
                          {"\"decoder_ffn_dim\":4096", "\"decoder_ffn_dim\":8192"}})
    large.replace(large.find(from), from.size(), to);
  EXPECT_EQ(parameters_of(large) / 100'000'000, 33u);
}

// facebook/blenderbot-400M-distill (2 encoder and 12 decoder layers of 1,280) and blenderbot_small-90M:
// learned positions of exactly max_position_embeddings rows; Blenderbot's stacks pre-norm with final norms,
// the small one's BART's post-norm with layernorm_embedding. The Hub lists a blenderbot_small-90M fine-tune
// at 87.6M: its checkpoint's values, the parameters and the 54,944 of final_logits_bias.
TEST(Blenderbot, CountsAsTheirCheckpointsHoldThem) {
  const std::string distill =
      R"({"model_type":"blenderbot","architectures":["BlenderbotForConditionalGeneration"],
      "d_model":1280,"encoder_layers":2,"decoder_layers":12,"encoder_attention_heads":32,
      "decoder_attention_heads":32,"encoder_ffn_dim":5120,"decoder_ffn_dim":5120,"max_position_embeddings":128,
      "vocab_size":8008})";
  EXPECT_EQ(parameters_of(distill), 364'802'560u);
  const ModelTemplate t = template_of(distill);
  EXPECT_EQ(find_tensor(t, "model.encoder.embed_positions.weight")->shape, Shape({128, 1280}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layer_norm.weight")->shape, Shape({1280}));
  EXPECT_EQ(find_tensor(t, "model.encoder.layernorm_embedding.weight"), nullptr);
  EXPECT_FALSE(t.arch.post_norm);
  const std::string small = R"({"model_type":"blenderbot-small",
      "architectures":["BlenderbotSmallForConditionalGeneration"],"d_model":512,"encoder_layers":8,
      "decoder_layers":8,"encoder_attention_heads":16,"decoder_attention_heads":16,"encoder_ffn_dim":2048,
      "decoder_ffn_dim":2048,"max_position_embeddings":512,"vocab_size":54944})";
  const ModelTemplate s = template_of(small);
  EXPECT_TRUE(s.arch.post_norm);
  EXPECT_EQ(find_tensor(s, "model.decoder.layer_norm.weight"), nullptr);
  EXPECT_EQ((disk_totals(s).elements + 50'000) / 100'000, 876u);
}

// transformers 5 ties mT5's head to `shared`, as T5's. With the head of its own transformers 4 built (and the
// checkpoint stores), mt5-small is the 300,176,768 vocabulary-trimming scripts list for it (the paper: 300M).
TEST(MT5, SmallCountsAsTransformers5BuildsIt) {
  EXPECT_EQ(parameters_of(kMT5Small) + 250'112u * 512, 300'176'768u);
  const ModelTemplate t = template_of(kMT5Small);
  EXPECT_EQ(t.arch.architecture, "MT5ForConditionalGeneration");
  // Six heads of 64: attention is 384 wide inside a 512-wide model.
  EXPECT_EQ(find_tensor(t, "encoder.block.0.layer.0.SelfAttention.q.weight")->shape, Shape({384, 512}));
  EXPECT_EQ(find_tensor(t, "decoder.block.0.layer.2.DenseReluDense.wi_1.weight")->shape, Shape({1024, 512}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "shared.weight");
  ASSERT_EQ(t.known_extras.size(), 1u);  // the head its checkpoints store
  EXPECT_EQ(t.known_extras[0].prefix, "lm_head.");
  // MT5Config's defaults are mT5-small's sizes, gated-GELU included.
  EXPECT_EQ(parameters_of(R"({"model_type":"mt5"})"), parameters_of(kMT5Small));
}

// google/umt5-xxl's sizes as UMT5EncoderModel, the text encoder of Wan2.1 (Wan-AI/Wan2.1-T2V-1.3B-Diffusers
// stores it in float32: its index's total_size 22,723,641,344 bytes is 5,680,910,336 parameters in 242
// tensors, 24 relative-bias tables of [32, 64] among them, as published notes on it count).
constexpr const char* kUmt5XxlEncoder = R"({"model_type":"umt5","architectures":["UMT5EncoderModel"],
    "d_ff":10240,"d_kv":64,"d_model":4096,"feed_forward_proj":"gated-gelu","num_heads":64,"num_layers":24,
    "relative_attention_num_buckets":32,"tie_word_embeddings":false,"vocab_size":256384})";

TEST(UMT5, EverySelfAttentionLearnsItsOwnPositionBias) {
  EXPECT_EQ(parameters_of(kUmt5XxlEncoder), 5'680'910'336u);
  const ModelTemplate t = template_of(kUmt5XxlEncoder);
  EXPECT_EQ(disk_totals(t).tensors, 242u);
  for (int layer : {0, 23})
    EXPECT_EQ(find_tensor(t, "encoder.block." + std::to_string(layer) +
                                 ".layer.0.SelfAttention.relative_attention_bias.weight")
                  ->shape,
              Shape({32, 64}));
  EXPECT_EQ(find_tensor(t, "decoder.block.0.layer.0.SelfAttention.q.weight"), nullptr);  // encoder only
  // The whole model: each decoder block's self-attention has a table too, its cross-attention none, and the
  // head is `shared`, as T5's and mT5's in transformers 5.
  std::string whole = kUmt5XxlEncoder;
  const std::string encoder_class = "UMT5EncoderModel", generation = "UMT5ForConditionalGeneration";
  whole.replace(whole.find(encoder_class), encoder_class.size(), generation);
  const ModelTemplate g = template_of(whole);
  EXPECT_NE(find_tensor(g, "decoder.block.7.layer.0.SelfAttention.relative_attention_bias.weight"), nullptr);
  EXPECT_EQ(find_tensor(g, "decoder.block.7.layer.1.EncDecAttention.relative_attention_bias.weight"),
            nullptr);
  EXPECT_EQ(find_tensor(g, "lm_head.weight")->tied_to, "shared.weight");
  // UMT5Config's defaults are mT5-small's sizes: the same count but for the bias tables of blocks 1-7 of both
  // stacks (14 x 32 buckets x 6 heads).
  EXPECT_EQ(parameters_of(R"({"model_type":"umt5"})"),
            parameters_of(R"({"model_type":"mt5"})") + 14u * 32 * 6);
}

}  // namespace
}  // namespace ma::test
