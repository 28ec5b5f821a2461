// BLIP, BLIP-2 and InstructBLIP (model/families/blip.cpp), against their Hub files and the published counts
// of the language models they freeze. Where no file size is published, the figure is that of transformers'
// own classes instantiated at full size (the reference counter of this work).
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// EVA ViT-g/14 at 224 pixels (Blip2VisionConfig's defaults): a class token and 257 positions of 1,408, the
// patch convolution, 39 layers with a fused qkv whose bias is q's and v's around a zero k, and a final
// LayerNorm.
constexpr uint64_t kVitG = 1408 * (1 + 257) + (1408 * 3 * 14 * 14 + 1408) +
                           39 * (4 * 1408 * 1408 + 2 * 1408 * 6144 + 6144 + 6 * 1408 + 3 * 1408) + 2 * 1408;
// BLIP-2's Q-Former: its LayerNorm, 12 layers of BERT-base's attention and the queries' feed-forward, and
// cross-attention to the 1,408-wide patches in every second layer.
constexpr uint64_t kQFormer = 2 * 768 + 12 * (4 * 768 * 768 + 6 * 768 + 2 * 768 * 3072 + 3072 + 3 * 768) +
                              6 * (2 * 768 * 768 + 2 * 1408 * 768 + 6 * 768);
constexpr uint64_t kQueries = 32 * 768;

// Salesforce/blip2-opt-2.7b (its config since the image-token update: 50,304 words).
const std::string kBlip2Opt = R"({"architectures":["Blip2ForConditionalGeneration"],"model_type":"blip-2",
    "num_query_tokens":32,"qformer_config":{"model_type":"blip_2_qformer"},
    "text_config":{"ffn_dim":10240,"hidden_size":2560,"model_type":"opt","num_attention_heads":32,
      "num_hidden_layers":32,"vocab_size":50304,"word_embed_proj_dim":2560},
    "vision_config":{"model_type":"blip_2_vision_model"}})";

// OPT-2.7B is 2,651,596,800 parameters (facebook/opt-2.7b) with 50,272 words; with 32 more, the ViT-g, the
// Q-Former, the queries and the projection to 2,560 it is the Hub's "3.74B", its two shards' 15 GB of
// float32.
TEST(Blip, Blip2OptIsOpt27bBehindAQFormer) {
  EXPECT_EQ(kVitG, 985'952'256u);
  EXPECT_EQ(kQFormer, 105'137'664u);
  const uint64_t opt = 2'651'596'800u + 32 * 2560;
  EXPECT_EQ(parameters_of(kBlip2Opt), opt + kVitG + kQFormer + kQueries + (768 * 2560 + 2560));
  EXPECT_EQ(parameters_of(kBlip2Opt), 3'744'761'856u);
  const ModelTemplate t = template_of(kBlip2Opt);
  EXPECT_EQ(t.arch.architecture, "Blip2ForConditionalGeneration");
  EXPECT_EQ(t.arch.model_type, "opt");
  EXPECT_EQ(t.arch.num_layers, 32u);
  EXPECT_EQ(find_tensor(t, "language_model.lm_head.weight")->tied_to,
            "language_model.model.decoder.embed_tokens.weight");
  // Cross-attention reads the patches: every second layer, keys and values 1,408 wide.
  EXPECT_EQ(find_tensor(t, "qformer.encoder.layer.4.crossattention.attention.key.weight")->shape,
            Shape({768, 1408}));
  EXPECT_EQ(find_tensor(t, "qformer.encoder.layer.5.crossattention.attention.key.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "qformer.encoder.layer.5.intermediate.dense.weight"), nullptr);
  // The Q-Former is the bridge: no text token runs it, the tower or the projection.
  const ParameterCounts c = counts_of(kBlip2Opt);
  EXPECT_EQ(c.towers, kVitG + kQFormer + kQueries + (768 * 2560 + 2560));
  EXPECT_EQ(place_tensor("qformer.encoder.layer.3.output_query.dense.weight").block, Block::VisionProjector);
  EXPECT_EQ(*c.active, opt);
}

// Salesforce/blip2-flan-t5-xl: Flan-T5-XL (2,849,757,184 with its own head) whose head transformers ties to
// the shared embedding; the checkpoint's separate head is a labelled extra, which the Hub's "3.94B" counts.
TEST(Blip, Blip2FlanT5TiesTheHeadItsCheckpointStores) {
  const std::string config = R"({"architectures":["Blip2ForConditionalGeneration"],"model_type":"blip-2",
      "text_config":{"d_ff":5120,"d_kv":64,"d_model":2048,"feed_forward_proj":"gated-gelu","model_type":"t5",
        "num_decoder_layers":24,"num_heads":32,"num_layers":24,"tie_word_embeddings":false,"vocab_size":32128}})";
  const uint64_t head = 32128 * 2048;
  EXPECT_EQ(parameters_of(config), 2'849'757'184u - head + kVitG + kQFormer + kQueries + (768 * 2048 + 2048));
  EXPECT_EQ(parameters_of(config) + head, 3'942'446'592u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(t.arch.architecture, "Blip2ForConditionalGeneration");
  EXPECT_EQ(find_tensor(t, "language_model.lm_head.weight")->tied_to, "language_model.shared.weight");
  const std::string small = R"({"architectures":["Blip2ForConditionalGeneration"],"model_type":"blip-2",
      "num_query_tokens":4,"vision_config":{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,
        "num_attention_heads":2,"image_size":28,"patch_size":14},
      "qformer_config":{"hidden_size":8,"intermediate_size":12,"num_hidden_layers":3,"num_attention_heads":2},
      "text_config":{"d_ff":12,"d_kv":4,"d_model":8,"model_type":"t5","num_heads":2,"num_layers":1,
        "tie_word_embeddings":false,"vocab_size":20}})";
  const Inventory inv =
      stored_checkpoint(small, {{"language_model.lm_head.weight", DType::F16, {20, 8}, {}}}).inventory;
  EXPECT_TRUE(inv.warnings.empty());
  EXPECT_EQ(extras_in(inv), 1u);
}

// Salesforce/blip2-itm-vit-g: the retrieval model, no language model. Its model.safetensors is 4,688,228,520
// bytes: a 99,488-byte header and 1,172,032,258 float32 values (the -coco checkpoint's, with 420 more
// positions of 1,408 at 364 pixels, the same header and 4,690,593,960 bytes).
TEST(Blip, Blip2RetrievalFeedsTextToTheQFormer) {
  const std::string config = R"({"architectures":["Blip2ForImageTextRetrieval"],"model_type":"blip-2",
      "qformer_config":{"model_type":"blip_2_qformer","use_qformer_text_input":true,"vocab_size":30523},
      "text_config":{"model_type":"opt"},"vision_config":{"model_type":"blip_2_vision_model"}})";
  EXPECT_EQ(parameters_of(config), (4'688'228'520u - 99'488) / 4);
  EXPECT_EQ(parameters_of(replaced(config, R"("model_type":"blip_2_vision_model")",
                                   R"("model_type":"blip_2_vision_model","image_size":364)")),
            (4'690'593'960u - 99'488) / 4);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "qformer.encoder.layer.11.intermediate.dense.weight")->shape, Shape({3072, 768}));
  EXPECT_EQ(find_tensor(t, "embeddings.word_embeddings.weight")->shape, Shape({30523, 768}));
  EXPECT_EQ(find_tensor(t, "language_projection.weight"), nullptr);
  EXPECT_EQ(t.arch.hidden_size, 768u);
}

// Salesforce/instructblip-vicuna-7b: Vicuna-7B is LLaMA-7B's 6,738,415,616 (32,064 words since the
// image-token update: 64 more rows in the embedding and the head); the Q-Former has embeddings of its own and
// always the text feed-forward, as the instruction reaches it too.
TEST(Blip, InstructBlipVicunaFeedsTheInstructionToTheQFormer) {
  const std::string config = R"({"architectures":["InstructBlipForConditionalGeneration"],
      "model_type":"instructblip","num_query_tokens":32,
      "qformer_config":{"model_type":"instructblip_qformer","vocab_size":30523},
      "text_config":{"head_dim":128,"hidden_size":4096,"intermediate_size":11008,"model_type":"llama",
        "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":32,"tie_word_embeddings":false,
        "vocab_size":32064},
      "tie_word_embeddings":false,"vision_config":{"model_type":"instructblip_vision_model"}})";
  const uint64_t qformer = (30523 + 512) * 768 + 2 * 768 +
                           12 * (4 * 768 * 768 + 6 * 768 + 2 * (2 * 768 * 3072 + 3072 + 3 * 768)) +
                           6 * (2 * 768 * 768 + 2 * 1408 * 768 + 6 * 768);
  EXPECT_EQ(qformer, 185'660'160u);
  const uint64_t vicuna = 6'738'415'616u + 2 * 64 * 4096;
  EXPECT_EQ(parameters_of(config), vicuna + kVitG + qformer + kQueries + (768 * 4096 + 4096));
  // InstructBLIP-Video's classes are InstructBLIP's.
  EXPECT_EQ(parameters_of(replaced(replaced(config, R"("instructblip")", R"("instructblipvideo")"),
                                   "InstructBlipFor", "InstructBlipVideoFor")),
            parameters_of(config));
  EXPECT_EQ(refusal_of(replaced(config, "InstructBlipForConditionalGeneration", "InstructBlipModel")).kind,
            ErrorKind::Unsupported);
  expect_reads_cleanly(
      R"({"architectures":["InstructBlipForConditionalGeneration"],"model_type":"instructblip",
      "num_query_tokens":4,"vision_config":{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,
        "num_attention_heads":2,"image_size":28,"patch_size":14},
      "qformer_config":{"hidden_size":8,"intermediate_size":12,"num_hidden_layers":3,"num_attention_heads":2,
        "vocab_size":30,"max_position_embeddings":16},
      "text_config":{"hidden_size":16,"intermediate_size":24,"model_type":"llama","num_attention_heads":2,
        "num_hidden_layers":2,"vocab_size":40,"tie_word_embeddings":false}})");
}

// Salesforce/blip-image-captioning-base and blip-vqa-base: a ViT-B/16 at 384 pixels and a BERT-base-sized
// text model that attends to the image in every layer. transformers ties the prediction head to the word
// embedding; the Hub files hold it apart, which their "247M" (990 MB of float32) and 1.54 GB count.
TEST(Blip, BlipCaptionsAndAnswers) {
  const std::string captioning = R"({"architectures":["BlipForConditionalGeneration"],"model_type":"blip",
      "text_config":{"model_type":"blip_text_model","num_attention_heads":12},
      "vision_config":{"model_type":"blip_vision_model"}})";
  const uint64_t decoder_copy = 30524 * 768 + 30524;
  EXPECT_EQ(parameters_of(captioning) + decoder_copy, 247'444'600u);
  EXPECT_EQ(parameters_of(replaced(captioning, "BlipForConditionalGeneration", "BlipForQuestionAnswering")) +
                decoder_copy,
            384'703'096u);
  const ModelTemplate t = template_of(captioning);
  EXPECT_EQ(find_tensor(t, "text_decoder.bert.encoder.layer.0.crossattention.self.key.weight")->shape,
            Shape({768, 768}));
  EXPECT_EQ(find_tensor(t, "text_decoder.cls.predictions.decoder.weight")->tied_to,
            "text_decoder.bert.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding")->shape, Shape({1, 577, 768}));
  // BLIP-large's tower is 1,024 wide: the text model's cross-attention reads it.
  const std::string large = replaced(captioning, R"("model_type":"blip_vision_model")",
                                     R"("model_type":"blip_vision_model","hidden_size":1024,
                                        "intermediate_size":4096,"num_hidden_layers":24,"num_attention_heads":16)");
  EXPECT_EQ(parameters_of(large) + decoder_copy, 469'763'448u);
  EXPECT_EQ(
      find_tensor(template_of(large), "text_decoder.bert.encoder.layer.0.crossattention.self.key.weight")
          ->shape,
      Shape({768, 1024}));
}

// Salesforce/blip-itm-base-coco: the retrieval model, 223,744,258 as transformers' classes build it;
// BlipModel, CLIP's frame around the same towers.
TEST(Blip, BlipRetrievalAndContrast) {
  const std::string itm = R"({"architectures":["BlipForImageTextRetrieval"],"model_type":"blip",
      "text_config":{"num_attention_heads":12}})";
  EXPECT_EQ(parameters_of(itm), 223'744'258u);
  EXPECT_EQ(parameters_of(replaced(itm, "BlipForImageTextRetrieval", "BlipModel")), 224'726'017u);
  const std::string small = R"({"architectures":["BlipForConditionalGeneration"],"model_type":"blip",
      "text_config":{"vocab_size":40,"hidden_size":8,"intermediate_size":12,"num_hidden_layers":2,
        "num_attention_heads":2,"max_position_embeddings":16},
      "vision_config":{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,"num_attention_heads":2,
        "image_size":32,"patch_size":16}})";
  expect_reads_cleanly(small);
  // The Hub files, written by transformers 4, hold the prediction head's weight beside the embedding it is.
  const Inventory inv =
      stored_checkpoint(small, {{"text_decoder.cls.predictions.decoder.weight", DType::F16, {40, 8}, {}}})
          .inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
}

// Hostile values end in one line naming the field.
TEST(Blip, RefusesWhatCannotBeBuilt) {
  EXPECT_EQ(refusal_of(replaced(kBlip2Opt, R"("model_type":"blip_2_qformer")",
                                R"("model_type":"blip_2_qformer","cross_attention_frequency":0)"))
                .field,
            "qformer_config.cross_attention_frequency");
  EXPECT_EQ(refusal_of(replaced(kBlip2Opt, R"("model_type":"blip_2_vision_model")",
                                R"("model_type":"blip_2_vision_model","patch_size":500)"))
                .field,
            "vision_config.patch_size");
  EXPECT_EQ(refusal_of(replaced(kBlip2Opt, R"("model_type":"opt")", R"("model_type":"no_such_model")")).kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(replaced(kBlip2Opt, R"("num_query_tokens":32)", R"("num_query_tokens":-1)")).field,
            "num_query_tokens");
}

}  // namespace
}  // namespace ma::test
