// EuroBERT, ModernBERT-decoder, Jina-Embeddings-v3, LUKE, FNet, Nystromformer,
// YOSO and MRA (model/families/encoders_bert_variants.cpp). The counts are
// those transformers' own classes give when instantiated from the same config
// (the reference counter of this work, /tmp/impl/bert_variants_3/verify: every
// tensor's name, shape, order, tie and buffer compared); the model names' and
// papers' sizes are the independent figures beside them.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// ---- EuroBERT ----

// EuroBERT/EuroBERT-210m's shape (reconstructed: the config class's defaults
// are its sizes). Its name counts the encoder without the untied masked-LM
// head: 211,766,016, of which the 128,256 x 768 embedding is 98.5M.
constexpr const char* kEuroBert210m =
    R"({"model_type":"eurobert","architectures":["EuroBertForMaskedLM"],"vocab_size":128256,
    "hidden_size":768,"intermediate_size":3072,"num_hidden_layers":12,"num_attention_heads":12,
    "num_key_value_heads":12,"head_dim":64,"max_position_embeddings":8192,"tie_word_embeddings":false})";

TEST(EuroBert, SizesMatchTheirNames) {
  EXPECT_EQ(parameters_of(kEuroBert210m), 310'266'624u);
  EXPECT_EQ(parameters_of(replaced(kEuroBert210m, "EuroBertForMaskedLM", "EuroBertModel")), 211'766'016u);
  // EuroBERT-610m: 1152 wide, 26 layers, 18 query and 6 key-value heads of 64.
  const std::string m610 =
      R"({"model_type":"eurobert","architectures":["EuroBertModel"],"hidden_size":1152,
      "intermediate_size":4096,"num_hidden_layers":26,"num_attention_heads":18,"num_key_value_heads":6,
      "head_dim":64})";
  EXPECT_EQ(parameters_of(m610), 607'874'688u);
}

TEST(EuroBert, LlamaLayersAsAnEncoder) {
  const ModelTemplate t = template_of(kEuroBert210m);
  EXPECT_EQ(t.tensors.size(), 111u);
  const TemplateTensor* head = find_tensor(t, "lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_TRUE(head->tied_to.empty());  // tie_word_embeddings is false by default
  EXPECT_EQ(find_tensor(t, "lm_head.bias"), nullptr);
  ASSERT_FALSE(t.arch.stacks.empty());
  EXPECT_EQ(t.arch.stacks.front().role, StackRole::Encoder);
  EXPECT_EQ(t.arch.norm, NormKind::RmsNorm);
  // mlp_bias puts a bias on the head too; the sequence classifier adds a dense
  // layer before its classifier.
  const ModelTemplate biased = template_of(replaced(kEuroBert210m, R"("tie_word_embeddings":false)",
                                                    R"("tie_word_embeddings":true,"mlp_bias":true)"));
  ASSERT_NE(find_tensor(biased, "lm_head.bias"), nullptr);
  EXPECT_EQ(find_tensor(biased, "lm_head.weight")->tied_to, "model.embed_tokens.weight");
  const ModelTemplate cls =
      template_of(replaced(kEuroBert210m, "EuroBertForMaskedLM", "EuroBertForSequenceClassification"));
  EXPECT_NE(find_tensor(cls, "dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(cls, "classifier.weight")->shape, (Shape{2, 768}));
}

TEST(EuroBert, RefusesWhatItsConfigRefuses) {
  EXPECT_EQ(refusal_of(R"({"model_type":"eurobert","num_attention_heads":5})").field, "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"eurobert","num_key_value_heads":5})").field, "num_key_value_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"eurobert","classifier_pooling":"max"})").field,
            "classifier_pooling");
  EXPECT_EQ(refusal_of(R"({"model_type":"eurobert","architectures":["EuroBertForCausalLM"]})").kind,
            ErrorKind::Unsupported);
}

// ---- ModernBERT-decoder ----

// jhu-clsp/ettin-decoder-150m's shape (reconstructed; ModernBERT-base's sizes):
// 149,655,232 with its tied decoder, the "150m" of its name.
constexpr const char* kEttin150m =
    R"({"model_type":"modernbert-decoder","architectures":["ModernBertDecoderForCausalLM"],
    "vocab_size":50368,"hidden_size":768,"intermediate_size":1152,"num_hidden_layers":22,
    "num_attention_heads":12,"global_attn_every_n_layers":3,"local_attention":128})";

TEST(ModernBertDecoder, Ettin150mAndItsWindows) {
  EXPECT_EQ(parameters_of(kEttin150m), 149'655'232u);
  const ModelTemplate t = template_of(kEttin150m);
  EXPECT_EQ(t.tensors.size(), 182u);
  EXPECT_EQ(find_tensor(t, "decoder.weight")->tied_to, "model.embeddings.tok_embeddings.weight");
  EXPECT_NE(find_tensor(t, "model.layers.0.attn.q_proj.weight"),
            nullptr);  // not ModernBERT's fused Wqkv
  EXPECT_EQ(find_tensor(t, "model.layers.0.attn_norm.weight"), nullptr);
  const StackSpec& s = t.arch.stacks.front();
  EXPECT_EQ(s.role, StackRole::Decoder);
  EXPECT_EQ(s.layers.at(0).attention.window,
            0u);  // every third layer from the first is global
  EXPECT_EQ(s.layers.at(1).attention.window,
            64u);  // the others see local_attention / 2 tokens back
  EXPECT_EQ(s.layers.at(3).attention.window, 0u);
}

TEST(ModernBertDecoder, RefusesBrokenLayerLists) {
  EXPECT_EQ(refusal_of(R"({"model_type":"modernbert-decoder","num_hidden_layers":2,
                           "layer_types":["full_attention"]})")
                .field,
            "layer_types");
  EXPECT_EQ(refusal_of(R"({"model_type":"modernbert-decoder","num_attention_heads":5})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"modernbert-decoder","global_attn_every_n_layers":0})").field,
            "global_attn_every_n_layers");
}

// ---- Jina-Embeddings-v3 ----

// jinaai/jina-embeddings-v3-hf (its config is the class's defaults):
// 559,364,096 in the base model. The model card's 570M also counts the task
// LoRA adapters, which live in PEFT subfolders.
TEST(JinaEmbeddingsV3, BaseModelAndMaskedLmHead) {
  const std::string base = R"({"model_type":"jina_embeddings_v3","architectures":["JinaEmbeddingsV3Model"]})";
  EXPECT_EQ(parameters_of(base), 559'364'096u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(t.tensors.size(), 390u);
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings.weight"),
            nullptr);  // rotary positions
  // The base model registers its pooler before its layers.
  EXPECT_EQ(t.tensors.at(4).name, "pooler.dense.weight");
  const ModelTemplate mlm =
      template_of(replaced(base, "JinaEmbeddingsV3Model", "JinaEmbeddingsV3ForMaskedLM"));
  EXPECT_EQ(mlm.tensors.at(0).name,
            "lm_head.bias");  // the head comes before the model
  EXPECT_EQ(find_tensor(mlm, "lm_head.decoder.weight")->tied_to, "roberta.embeddings.word_embeddings.weight");
  EXPECT_EQ(find_tensor(mlm, "lm_head.decoder.bias")->tied_to, "lm_head.bias");
  expect_reads_cleanly(
      R"({"model_type":"jina_embeddings_v3","architectures":["JinaEmbeddingsV3ForMaskedLM"],
      "vocab_size":97,"hidden_size":32,"intermediate_size":40,"num_hidden_layers":2,"num_attention_heads":4})");
}

// ---- LUKE ----

// studio-ousia/luke-large's shape (reconstructed). The paper's 483M is
// RoBERTa-large (355M) and the 500K x 256 entity table (128M); transformers'
// LukeModel adds the three entity-aware query projections of each layer (24 x 3
// x 1,049,600 = 75,571,200): 559,724,544.
constexpr const char* kLukeLarge =
    R"({"model_type":"luke","architectures":["LukeModel"],"vocab_size":50267,"entity_vocab_size":500000,
    "hidden_size":1024,"entity_emb_size":256,"num_hidden_layers":24,"num_attention_heads":16,
    "intermediate_size":4096,"max_position_embeddings":514,"type_vocab_size":1})";

TEST(Luke, LargeCountsAsThePaperPlusEntityAwareQueries) {
  const uint64_t n = parameters_of(kLukeLarge);
  EXPECT_EQ(n, 559'724'544u);
  EXPECT_EQ(n - 24u * 3u * 1'049'600u, 484'153'344u);  // the paper's "483M"
  EXPECT_EQ(parameters_of(replaced(kLukeLarge, "LukeModel", "LukeForMaskedLM")), 613'062'779u);
  EXPECT_EQ(parameters_of(replaced(kLukeLarge, R"("entity_emb_size":256)",
                                   R"("entity_emb_size":256,"use_entity_aware_attention":false)")),
            559'724'544u - 24u * 3u * 1'049'600u);
}

TEST(Luke, EntityHeadsAndTies) {
  const ModelTemplate t = template_of(replaced(kLukeLarge, "LukeModel", "LukeForMaskedLM"));
  EXPECT_EQ(t.tensors.size(), 554u);
  // transformers 5 ties the entity decoder to the entity table and the word
  // head's bias to its decoder's, but no longer the word decoder to the word
  // table.
  EXPECT_EQ(find_tensor(t, "entity_predictions.decoder.weight")->tied_to,
            "luke.entity_embeddings.entity_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.bias")->tied_to, "lm_head.decoder.bias");
  EXPECT_TRUE(find_tensor(t, "lm_head.decoder.weight")->tied_to.empty());
  const ModelTemplate pair =
      template_of(replaced(kLukeLarge, "LukeModel", "LukeForEntityPairClassification"));
  EXPECT_EQ(find_tensor(pair, "classifier.weight")->shape, (Shape{2, 2048}));
  EXPECT_EQ(find_tensor(pair, "classifier.bias"), nullptr);
  const ModelTemplate qa = template_of(replaced(kLukeLarge, "LukeModel", "LukeForQuestionAnswering"));
  EXPECT_EQ(find_tensor(qa, "luke.pooler.dense.weight"), nullptr);
  EXPECT_EQ(refusal_of(R"({"model_type":"luke","entity_vocab_size":0})").field, "entity_vocab_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"luke","num_attention_heads":7})").field, "num_attention_heads");
}

// ---- FNet ----

// google/fnet-base and fnet-large (reconstructed configs, FNetForPreTraining):
// 83,486,722 and 238,031,106, the FNet paper's 83M and 238M. Their configs set
// use_tpu_fourier_optimizations, so each layer keeps two complex64 DFT matrices
// as persistent buffers (768 x 768 and 512 x 512 in the base model).
constexpr const char* kFnetBase =
    R"({"model_type":"fnet","architectures":["FNetForPreTraining"],"vocab_size":32000,"hidden_size":768,
    "num_hidden_layers":12,"intermediate_size":3072,"max_position_embeddings":512,"type_vocab_size":4,
    "use_tpu_fourier_optimizations":true,"tpu_short_seq_length":512})";

TEST(FNet, CountsAsThePaperWithDftBuffers) {
  EXPECT_EQ(parameters_of(kFnetBase), 83'486'722u);
  const std::string large =
      replaced(replaced(replaced(kFnetBase, R"("hidden_size":768)", R"("hidden_size":1024)"),
                        R"("num_hidden_layers":12)", R"("num_hidden_layers":24)"),
               R"("intermediate_size":3072)", R"("intermediate_size":4096)");
  EXPECT_EQ(parameters_of(large), 238'031'106u);
  const ModelTemplate t = template_of(kFnetBase);
  EXPECT_EQ(t.tensors.size(), 138u);
  const TemplateTensor* dft = find_tensor(t, "fnet.encoder.layer.0.fourier.self.dft_mat_seq");
  ASSERT_NE(dft, nullptr);
  EXPECT_EQ(dft->kind, TensorKind::Buffer);
  EXPECT_EQ(dft->shape, (Shape{512, 512}));
  ASSERT_FALSE(dft->disk.empty());
  EXPECT_EQ(dft->disk.front().dtype, DType::C64);
  // No attention: the layers' mixer is the weightless Fourier transform.
  EXPECT_EQ(t.arch.stacks.front().layers.at(0).mixer, Mixer::None);
  // Without the TPU path there are no buffers at all.
  const ModelTemplate fft = template_of(
      replaced(kFnetBase, R"("use_tpu_fourier_optimizations":true)", R"("hidden_act":"gelu_new")"));
  EXPECT_EQ(fft.tensors.size(), 114u);
}

// ---- Nystromformer, YOSO, MRA ----

TEST(UwMadisonEncoders, CheckpointShapes) {
  // uw-madison/nystromformer-512: a depthwise 65-tap convolution over values in
  // every layer.
  const std::string nystrom =
      R"({"model_type":"nystromformer","architectures":["NystromformerForMaskedLM"]})";
  EXPECT_EQ(parameters_of(nystrom), 109'122'240u);
  const ModelTemplate n = template_of(nystrom);
  EXPECT_EQ(find_tensor(n, "nystromformer.encoder.layer.0.attention.self.conv.weight")->shape,
            (Shape{12, 1, 65, 1}));
  EXPECT_EQ(find_tensor(n, "nystromformer.embeddings.position_embeddings.weight")->shape, (Shape{512, 768}));
  // uw-madison/yoso-4096: no convolution unless conv_window is set.
  EXPECT_EQ(parameters_of(R"({"model_type":"yoso","architectures":["YosoForMaskedLM"]})"), 127'449'945u);
  // uw-madison/mra-base-512-4: position_ids is a persistent int64 buffer, first
  // in state_dict.
  const std::string mra = R"({"model_type":"mra","architectures":["MraForMaskedLM"]})";
  EXPECT_EQ(parameters_of(mra), 124'697'433u);
  const ModelTemplate m = template_of(mra);
  EXPECT_EQ(m.tensors.front().name, "mra.embeddings.position_ids");
  EXPECT_EQ(m.tensors.front().kind, TensorKind::Buffer);
  // Their QA classes force two labels whatever num_labels says.
  const ModelTemplate qa = template_of(
      R"({"model_type":"yoso","architectures":["YosoForQuestionAnswering"],
                                          "num_labels":5})");
  EXPECT_EQ(find_tensor(qa, "qa_outputs.weight")->shape, (Shape{2, 768}));
}

TEST(UwMadisonEncoders, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"nystromformer","inv_coeff_init_option":true})").field,
            "inv_coeff_init_option");
  EXPECT_EQ(refusal_of(R"({"model_type":"nystromformer","conv_kernel_size":0})").field, "conv_kernel_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"yoso","conv_window":-1})").field, "conv_window");
  EXPECT_EQ(refusal_of(R"({"model_type":"mra","approx_mode":"dense"})").field, "approx_mode");
  EXPECT_EQ(refusal_of(R"({"model_type":"mra","num_attention_heads":7})").field, "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
