// TrOCR, DeiT and the generic encoder-decoder composites (model/families/encoder_decoder_composites.cpp) on
// the configs of their Hub checkpoints. Totals are those of the TrOCR and DeiT papers and of transformers'
// own classes instantiated at the reference revision (every tensor's name, shape and order compared; the
// reference counter of this work, verify/verify.py), never our own output.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/architecture_details.h"
#include "analysis/memory_kv.h"
#include "analysis/parameter_counts.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/trocr-base-handwritten's config.json, its shape fields: a ViT encoder on 384-pixel images
// without q/k/v biases and a 12-layer TrOCR decoder reading the 768-wide patches directly
// (cross_attention_hidden_size), its output projection untied.
constexpr const char* kTrocrBase =
    R"({"model_type":"vision-encoder-decoder","architectures":["VisionEncoderDecoderModel"],
    "tie_word_embeddings":false,
    "encoder":{"model_type":"vit","hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,
      "intermediate_size":3072,"image_size":384,"patch_size":16,"qkv_bias":false},
    "decoder":{"model_type":"trocr","d_model":1024,"decoder_layers":12,"decoder_attention_heads":16,
      "decoder_ffn_dim":4096,"vocab_size":50265,"max_position_embeddings":512,"cross_attention_hidden_size":768,
      "is_decoder":true,"add_cross_attention":true,"layernorm_embedding":true,
      "use_learned_position_embeddings":true,"tie_word_embeddings":false}})";

// microsoft/trocr-small-handwritten: a DeiT-small encoder and a 6-layer, 256-wide decoder.
constexpr const char* kTrocrSmall =
    R"({"model_type":"vision-encoder-decoder","architectures":["VisionEncoderDecoderModel"],
    "encoder":{"model_type":"deit","hidden_size":384,"num_hidden_layers":12,"num_attention_heads":6,
      "intermediate_size":1536,"image_size":384,"patch_size":16,"qkv_bias":true},
    "decoder":{"model_type":"trocr","d_model":256,"decoder_layers":6,"decoder_attention_heads":8,
      "decoder_ffn_dim":1024,"vocab_size":64044,"max_position_embeddings":512,"cross_attention_hidden_size":384,
      "is_decoder":true,"add_cross_attention":true,"tie_word_embeddings":false}})";

// TrOCR-Base's untied output projection, vocab x d_model, which the paper's count leaves out (its Small count
// keeps it).
constexpr uint64_t kBaseProjection = 50265ull * 1024;

// The TrOCR paper (Li et al., 2021, table 1) gives TrOCR-Base 334M and TrOCR-Small 62M parameters, its
// output projection shared with the embedding; transformers' classes give 385,393,152 and 61,596,672.
TEST(TrOCR, BaseHandwrittenMatchesThePaperAndTransformers) {
  const uint64_t total = parameters_of(kTrocrBase);
  EXPECT_EQ(total, 385'393'152u);
  EXPECT_EQ((total - kBaseProjection + 500'000) / 1'000'000, 334u);
}

TEST(TrOCR, SmallHandwrittenWithDeitMatchesThePaperAndTransformers) {
  const uint64_t total = parameters_of(kTrocrSmall);
  EXPECT_EQ(total, 61'596'672u);
  EXPECT_EQ((total + 500'000) / 1'000'000, 62u);  // the paper's 62M (its projection counted)
}

// AutoConfig maps model_type "nougat" to VisionEncoderDecoderConfig: the same model.
TEST(TrOCR, NougatIsAnotherNameOfTheVisionEncoderDecoder) {
  std::string nougat = kTrocrSmall;
  nougat.replace(nougat.find("vision-encoder-decoder"), std::string("vision-encoder-decoder").size(),
                 "nougat");
  EXPECT_EQ(parameters_of(nougat), 61'596'672u);
  EXPECT_EQ(template_of(nougat).arch.architecture, "VisionEncoderDecoderModel");
}

TEST(TrOCR, CompositeNamesAndTies) {
  const ModelTemplate t = template_of(kTrocrBase);
  EXPECT_EQ(t.arch.architecture, "VisionEncoderDecoderModel");
  // cross_attention_hidden_size: keys and values read the 768-wide encoder, and no enc_to_dec_proj.
  const TemplateTensor* k = find_tensor(t, "decoder.model.decoder.layers.0.encoder_attn.k_proj.weight");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shape, (Shape{1024, 768}));
  EXPECT_EQ(find_tensor(t, "enc_to_dec_proj.weight"), nullptr);
  // learned positions keep fairseq's two extra rows
  EXPECT_EQ(find_tensor(t, "decoder.model.decoder.embed_positions.weight")->shape, (Shape{514, 1024}));
  // ViT's layers are stored under their transformers-4 names
  EXPECT_EQ(stored_name(*find_tensor(t, "encoder.layers.0.attention.q_proj.weight")),
            "encoder.encoder.layer.0.attention.attention.query.weight");
  // the encoder is AutoModel's ViTModel: it keeps its pooler
  EXPECT_NE(find_tensor(t, "encoder.pooler.dense.weight"), nullptr);
  EXPECT_TRUE(find_tensor(t, "decoder.output_projection.weight")->tied_to.empty());
}

// TrOCRForCausalLM alone, TrOCRConfig's defaults: tied output projection; transformers gives 253,559,808.
TEST(TrOCR, CausalLmDefaults) {
  const ModelTemplate t = template_of(R"({"model_type":"trocr"})");
  EXPECT_EQ(t.arch.architecture, "TrOCRForCausalLM");
  EXPECT_EQ(find_tensor(t, "output_projection.weight")->tied_to, "model.decoder.embed_tokens.weight");
  EXPECT_EQ(parameters_of(R"({"model_type":"trocr"})"), 253'559'808u);
  // sinusoidal positions are no state_dict entry
  const ModelTemplate s = template_of(R"({"model_type":"trocr","use_learned_position_embeddings":false})");
  EXPECT_EQ(find_tensor(s, "model.decoder.embed_positions.weight"), nullptr);
}

// DeiT-B has 86M parameters and DeiT-S 22M (Touvron et al., 2021, table 1); DeiTModel with its pooler:
// 86,390,784 and 21,960,192 (at 384 pixels) in transformers' classes.
TEST(DeiT, BaseAndSmallMatchThePaperAndTransformers) {
  EXPECT_EQ(parameters_of(R"({"model_type":"deit"})"), 86'390'784u);
  EXPECT_EQ(parameters_of(R"({"model_type":"deit","hidden_size":384,"num_attention_heads":6,
      "intermediate_size":1536,"image_size":384})"),
            21'960'192u);
  const ModelTemplate t = template_of(
      R"({"model_type":"deit","architectures":["DeiTForImageClassificationWithTeacher"],"num_labels":1000})");
  EXPECT_NE(find_tensor(t, "deit.embeddings.distillation_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "deit.embeddings.position_embeddings")->shape, (Shape{1, 198, 768}));
  EXPECT_NE(find_tensor(t, "distillation_classifier.weight"), nullptr);
}

// nlpconnect/vit-gpt2-image-captioning: ViT-base and GPT-2 with cross-attention; 239,195,904 in
// transformers' classes.
TEST(VisionEncoderDecoder, VitGpt2ImageCaptioning) {
  constexpr const char* kVitGpt2 =
      R"({"model_type":"vision-encoder-decoder","architectures":["VisionEncoderDecoderModel"],
      "encoder":{"model_type":"vit","architectures":["ViTModel"]},
      "decoder":{"model_type":"gpt2","architectures":["GPT2LMHeadModel"],"add_cross_attention":true,
        "is_decoder":true,"n_ctx":1024,"n_embd":768,"n_head":12,"n_layer":12,"n_positions":1024}})";
  EXPECT_EQ(parameters_of(kVitGpt2), 239'195'904u);
  const ModelTemplate t = template_of(kVitGpt2);
  EXPECT_NE(find_tensor(t, "decoder.transformer.h.11.crossattention.q_attn.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.lm_head.weight")->tied_to, "decoder.transformer.wte.weight");
}

// Widths that differ without cross_attention_hidden_size: enc_to_dec_proj maps the encoder's to the
// decoder's.
TEST(VisionEncoderDecoder, ProjectsWhenWidthsDiffer) {
  const ModelTemplate t = template_of(
      R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"deit","hidden_size":24,
      "num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":8,"image_size":32,"patch_size":8},
      "decoder":{"model_type":"trocr","d_model":16,"decoder_layers":2,"decoder_attention_heads":2,
      "decoder_ffn_dim":8,"vocab_size":50}})");
  const TemplateTensor* p = find_tensor(t, "enc_to_dec_proj.weight");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->shape, (Shape{16, 24}));
  EXPECT_EQ(parameters_of(R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"deit",
      "hidden_size":24,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":8,"image_size":32,
      "patch_size":8},"decoder":{"model_type":"trocr","d_model":16,"decoder_layers":2,
      "decoder_attention_heads":2,"decoder_ffn_dim":8,"vocab_size":50,"tie_word_embeddings":true}})"),
            23'232u);
}

// google/bert2bert_L-24_wmt_de_en's shape: BERT-large on both sides over a 61,013-token vocabulary, the
// decoder with cross-attention. transformers (no tie_encoder_decoder any more) gives 833,603,157.
TEST(EncoderDecoder, Bert2BertLarge) {
  constexpr const char* kBert2Bert =
      R"({"model_type":"encoder-decoder","architectures":["EncoderDecoderModel"],
      "encoder":{"model_type":"bert","hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
        "intermediate_size":4096,"vocab_size":61013},
      "decoder":{"model_type":"bert","hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
        "intermediate_size":4096,"vocab_size":61013,"is_decoder":true,"add_cross_attention":true}})";
  EXPECT_EQ(parameters_of(kBert2Bert), 833'603'157u);
  const ModelTemplate t = template_of(kBert2Bert);
  EXPECT_NE(find_tensor(t, "decoder.bert.encoder.layer.23.crossattention.self.query.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "encoder.pooler.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.bert.pooler.dense.weight"), nullptr);  // BertLMHeadModel has none
}

// patrickvonplaten/bert2gpt2-cnn_dailymail-fp16: bert-base-cased-like encoder (defaults) and GPT-2 with
// cross-attention: 262,288,896 in transformers' classes.
TEST(EncoderDecoder, Bert2Gpt2) {
  EXPECT_EQ(parameters_of(R"({"model_type":"encoder-decoder","encoder":{"model_type":"bert"},
      "decoder":{"model_type":"gpt2","add_cross_attention":true,"is_decoder":true}})"),
            262'288'896u);
}

// The record of a composite is its decoder's, which generates: BERT with is_decoder is a decoder (causal,
// with a KV cache), and the encoder stays an encoder. Each caches its self-attention's K/V per token and the
// encoder's output once per sequence: bert2bert-large's decoder 24 layers x 2 x 1,024 x 2 bytes per token,
// and its cross-attention over the encoder's 512 positions.
TEST(EncoderDecoder, TheDecoderCachesItsOwnTokensAndTheEncoderOutput) {
  const ModelTemplate t = template_of(R"({"model_type":"encoder-decoder","encoder":{"model_type":"bert",
      "hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096},
      "decoder":{"model_type":"bert","hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,
      "intermediate_size":4096,"is_decoder":true,"add_cross_attention":true}})");
  ASSERT_NE(t.arch.stack(StackRole::Decoder), nullptr);
  ASSERT_NE(t.arch.stack(StackRole::Encoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->path, "decoder.bert.encoder.layer");
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->path, "encoder.encoder.layer");
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 512);
  EXPECT_EQ(p.per_token, 24u * 2 * 1024 * 2);
  EXPECT_EQ(p.cross_per_sequence, 24u * 2 * 1024 * 512 * 2);
  // BertLMHeadModel alone with is_decoder is the same decoder.
  const ModelTemplate alone = template_of(R"({"model_type":"bert","architectures":["BertLMHeadModel"],
      "is_decoder":true,"num_hidden_layers":2})");
  ASSERT_NE(alone.arch.stack(StackRole::Decoder), nullptr);
  EXPECT_EQ(alone.arch.stack(StackRole::Encoder), nullptr);
  EXPECT_EQ(plan_kv_cache(alone.arch, DType::BF16, DType::BF16, 512).per_token, 2u * 2 * 768 * 2);
}

// A vision encoder-decoder's cross-attention reads the image's features, as many as the tower outputs:
// TrOCR-base's ViT at 384 pixels in patches of 16, 576 patches and its class token; each nested model keeps
// its own heads (the ViT's 12, the decoder's 16).
TEST(VisionEncoderDecoder, CrossAttentionCachesTheTowersOutput) {
  const ModelTemplate t = template_of(kTrocrBase);
  const StackSpec* vision = t.arch.stack(StackRole::Vision);
  ASSERT_NE(vision, nullptr);
  EXPECT_EQ(vision->positions, 577u);
  EXPECT_EQ(vision->layers.front().attention.heads, 12u);
  EXPECT_EQ(vision->layers.front().attention.head_dim, 64u);
  EXPECT_EQ(vision->layers.front().ffn.intermediate, 3072u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.front().attention.heads, 16u);
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 512);
  EXPECT_EQ(p.per_token, 12u * 2 * 1024 * 2);
  EXPECT_EQ(p.cross_per_sequence, 12u * 2 * 1024 * 577 * 2);  // keys and values are d_model wide
}

// Every decoder layer of TrOCR attends across to the ViT's output: an encoder-decoder, though its encoder is
// a vision tower in the record, not an encoder stack.
TEST(VisionEncoderDecoder, IsAnEncoderDecoder) {
  EXPECT_EQ(describe_architecture(template_of(kTrocrBase).arch, ParameterCounts{}, {}).architecture_type,
            "encoder-decoder");
  // The same ViT beside a GPT-2 without cross-attention is no composite transformers builds; a decoder
  // alone stays what its layers are.
  EXPECT_EQ(describe_architecture(template_of(R"({"model_type":"trocr","d_model":64,"decoder_layers":2,
      "decoder_attention_heads":4,"decoder_ffn_dim":128,"vocab_size":100})")
                                      .arch,
                                  ParameterCounts{}, {})
                .architecture_type,
            "decoder-only");
}

// naver-clova-ix/donut-base's shape: a Swin whose last stage outputs 2,560 x 1,920 pages in patches of 4,
// merged three times, 80 x 60 features; an odd side is padded before it is halved.
TEST(VisionEncoderDecoder, ASwinTowerOutputsItsLastStagesPatches) {
  const std::string donut = R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"donut-swin",
      "image_size":[2560,1920],"patch_size":4,"embed_dim":128,"depths":[2,2,14,2],"num_heads":[4,8,16,32],
      "window_size":10},"decoder":{"model_type":"mbart","d_model":1024,"decoder_layers":4,
      "decoder_attention_heads":16,"decoder_ffn_dim":4096,"vocab_size":57525,"max_position_embeddings":1536,
      "is_decoder":true,"add_cross_attention":true,"add_final_layer_norm":true}})";
  EXPECT_EQ(template_of(donut).arch.stack(StackRole::Vision)->positions, 80u * 60);
  const KvCachePlan p = plan_kv_cache(template_of(donut).arch, DType::BF16, DType::BF16, 1536);
  EXPECT_EQ(p.cross_per_sequence, 4u * 2 * 1024 * 4800 * 2);
  // 100 x 100 patches: 50, 25, then 13 after padding 25 to 26.
  EXPECT_EQ(template_of(replaced(donut, "[2560,1920]", "[400,400]")).arch.stack(StackRole::Vision)->positions,
            13u * 13);
}

// A speech encoder-decoder: the encoder is an audio tower, its output as long as the audio, so the
// cross-attention cache is not counted and the plan says so; the decoder's own K/V are.
TEST(SpeechEncoderDecoder, AudioTowerAndADecoderReadingIt) {
  const std::string speech = R"({"model_type":"speech-encoder-decoder","encoder":{"model_type":"wav2vec2",
      "hidden_size":32,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":64,"conv_dim":[8,8],
      "conv_kernel":[10,3],"conv_stride":[5,2],"num_conv_pos_embeddings":16,"num_conv_pos_embedding_groups":2},
      "decoder":{"model_type":"gpt2","n_embd":48,"n_layer":2,"n_head":4,"vocab_size":100,"n_positions":64,
      "add_cross_attention":true,"is_decoder":true}})";
  const ModelTemplate t = template_of(speech);
  EXPECT_EQ(t.arch.architecture, "SpeechEncoderDecoderModel");
  ASSERT_NE(t.arch.stack(StackRole::Audio), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Audio)->layers.front().attention.heads, 2u);  // its own, not GPT-2's 4
  EXPECT_EQ(find_tensor(t, "enc_to_dec_proj.weight")->shape, (Shape{48, 32}));
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 64);
  EXPECT_EQ(p.per_token, 2u * 2 * 48 * 2);
  EXPECT_EQ(p.cross_per_sequence, 0u);
  EXPECT_EQ(describe_architecture(t.arch, ParameterCounts{}, {}).architecture_type, "encoder-decoder");
  EXPECT_TRUE(std::any_of(p.assumptions.begin(), p.assumptions.end(), [](const std::string& a) {
    return a.find("cross-attention K/V not counted") != std::string::npos &&
           a.find("speech encoder") != std::string::npos;
  }));
}

TEST(EncoderDecoderComposites, HostileConfigsNameTheField) {
  EXPECT_EQ(refusal_of(R"({"model_type":"trocr","d_model":100,"decoder_attention_heads":3})").field,
            "decoder_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"trocr","decoder_layers":0})").field, "decoder_layers");
  EXPECT_EQ(refusal_of(R"({"model_type":"trocr","d_model":-5})").field, "d_model");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"trocr","use_learned_position_embeddings":false,"pad_token_id":null})")
          .field,
      "pad_token_id");
  EXPECT_EQ(refusal_of(R"({"model_type":"deit","patch_size":500})").field, "patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","decoder":{"model_type":"trocr"}})").field,
            "encoder.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","encoder":"vit",
      "decoder":{"model_type":"trocr"}})")
                .field,
            "encoder");
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"vit",
      "num_hidden_layers":1},"decoder":{"model_type":"trocr","d_model":100,"decoder_attention_heads":3}})")
                .field,
            "decoder.decoder_attention_heads");
  // transformers raises when cross_attention_hidden_size is not the encoder's width
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"vit",
      "num_hidden_layers":1},"decoder":{"model_type":"trocr","cross_attention_hidden_size":100}})")
                .field,
            "decoder.cross_attention_hidden_size");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"encoder-decoder","encoder":{"model_type":"bert","num_hidden_layers":1},
      "decoder":{"model_type":"bert","num_hidden_layers":1,"add_cross_attention":true}})")
          .field,
      "decoder.add_cross_attention");
}

TEST(EncoderDecoderComposites, UnmodelledPartsAreRefusedAsUnsupported) {
  EXPECT_EQ(refusal_of(R"({"model_type":"trocr","architectures":["TrOCRForMaskedLM"]})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","encoder":{"model_type":"vit"},
      "decoder":{"model_type":"llama"}})")
                .kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"vision-encoder-decoder","architectures":["EncoderDecoderModel"],
      "encoder":{"model_type":"vit"},"decoder":{"model_type":"trocr"}})")
                .kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
