// GOT-OCR 2.0 (got_ocr2), Ovis2 (ovis2) and Kosmos-2.5 (kosmos-2.5): templates against what transformers
// builds. Totals were counted by a script that rebuilds each transformers class's modules from its modeling
// code on the meta device (got_ocr2 modeling 00b676f8, ovis2 0184d208, kosmos2_5 3a411a3f; the helper's
// verify/count_transformers.py): every name, shape, order and tie agrees. Published sizes are named where
// they exist.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// Each config must be refused naming `field`.
void expect_refusals(std::initializer_list<std::pair<const char*, const char*>> config_and_field) {
  for (const auto& [config, field] : config_and_field) EXPECT_EQ(refusal_of(config).field, field) << config;
}

// stepfun-ai/GOT-OCR-2.0-hf: the conversion saves GotOcr2Config() itself (convert_got_ocr2_weights_to_hf.py),
// whose text_config is GOT's Qwen2 decoder; these are its fields.
constexpr const char* kGotOcr2 =
    R"({"model_type":"got_ocr2","architectures":["GotOcr2ForConditionalGeneration"],"image_seq_length":256,
    "text_config":{"model_type":"qwen2","vocab_size":151860,"hidden_size":1024,"intermediate_size":2816,
    "num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16,"tie_word_embeddings":true,
    "max_position_embeddings":32768,"use_sliding_window":false,"sliding_window":4096,"max_window_layers":21},
    "vision_config":{}})";

// 560,528,640 parameters (89,670,912 in the SAM ViT-B tower, 6,947,840 in the projector, 463,909,888 in
// Qwen2 with its head tied); the paper and model card say "580M".
TEST(OcrAndOvis, GotOcr2IsSamVitDetBeforeQwen2) {
  const ModelTemplate t = template_of(kGotOcr2);
  EXPECT_EQ(parameters_of(kGotOcr2), 560528640u);
  EXPECT_EQ(parameters_of(R"({"model_type":"got_ocr2"})"), 560528640u);  // GotOcr2Config's defaults
  EXPECT_EQ(t.arch.architecture, "GotOcr2ForConditionalGeneration");
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  // Windowed layers keep 14 x 14 relative tables, the global ones (2, 5, 8, 11) the whole 64 x 64 grid.
  EXPECT_EQ(find_tensor(t, "model.vision_tower.layers.0.attn.rel_pos_h")->shape, (Shape{27, 64}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.layers.2.attn.rel_pos_w")->shape, (Shape{127, 64}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.pos_embed")->shape, (Shape{1, 64, 64, 768}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.neck.conv2.weight")->shape, (Shape{256, 256, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.conv_upsampler1.weight")->shape,
            (Shape{512, 256, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.conv_upsampler2.weight")->shape,
            (Shape{1024, 512, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.conv_upsampler2.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.multimodal_projector.bias")->shape, (Shape{1024}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  // The checkpoint keeps transformers 4's names; the tied head is not stored.
  EXPECT_EQ(stored_name(*find_tensor(t, "model.vision_tower.layers.11.mlp.lin2.weight")),
            "vision_tower.layers.11.mlp.lin2.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.bias")),
            "language_model.model.layers.0.self_attn.q_proj.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.multi_modal_projector.multimodal_projector.weight")),
            "multi_modal_projector.multimodal_projector.weight");
  EXPECT_EQ(disk_totals(t).tensors, 471u);
  EXPECT_EQ(disk_totals(t).elements, 560528640u);
  EXPECT_EQ(place_tensor("model.multi_modal_projector.conv_upsampler1.weight").block, Block::VisionProjector);
}

// A small bare GotOcr2Model: GotOcr2VisionConfig's mlp_dim stays 3,072 whatever the width (SAM's own config
// would take 4 x hidden_size); no head, names without model..
TEST(OcrAndOvis, GotOcr2BareModelAndSmallShapes) {
  constexpr const char* kSmall =
      R"({"model_type":"got_ocr2","architectures":["GotOcr2Model"],
      "text_config":{"vocab_size":100,"hidden_size":64,"intermediate_size":96,"num_hidden_layers":2,
      "num_attention_heads":4,"num_key_value_heads":2},
      "vision_config":{"hidden_size":32,"num_hidden_layers":3,"num_attention_heads":4,"image_size":64,
      "patch_size":8,"window_size":3,"global_attn_indexes":[1],"output_channels":16,"qkv_bias":false,
      "num_channels":1}})";
  const ModelTemplate t = template_of(kSmall);
  EXPECT_EQ(parameters_of(kSmall), 714928u);
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_tower.layers.0.mlp.lin1.weight")->shape, (Shape{3072, 32}));
  EXPECT_EQ(find_tensor(t, "vision_tower.layers.1.attn.rel_pos_h")->shape, (Shape{15, 8}));  // global: 8 x 8
  EXPECT_EQ(find_tensor(t, "vision_tower.layers.2.attn.rel_pos_h")->shape, (Shape{5, 8}));   // window 3
  EXPECT_EQ(find_tensor(t, "vision_tower.layers.0.attn.qkv.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "multi_modal_projector.conv_upsampler2.weight")->shape, (Shape{64, 32, 3, 3}));
  // A text_config that says nothing of tying is Qwen2Config's: an untied head of its own.
  const std::string untied =
      R"({"model_type":"got_ocr2","text_config":{"vocab_size":100,"hidden_size":64,"intermediate_size":96,
      "num_hidden_layers":2,"num_attention_heads":4},"vision_config":{"hidden_size":48,"num_hidden_layers":2,
      "num_attention_heads":4,"image_size":64,"patch_size":16,"use_rel_pos":false,"use_abs_pos":false,
      "mlp_dim":80}})";
  const ModelTemplate u = template_of(untied);
  EXPECT_EQ(parameters_of(untied), 2236720u);
  EXPECT_TRUE(find_tensor(u, "lm_head.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(u, "model.vision_tower.pos_embed"), nullptr);
  expect_reads_cleanly(untied);
}

TEST(OcrAndOvis, GotOcr2RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"got_ocr2","text_config":{"model_type":"llama"}})").kind,
            ErrorKind::Unsupported);
  expect_refusals({
      {R"({"model_type":"got_ocr2","vision_config":{"num_attention_heads":7}})",
       "vision_config.num_attention_heads"},
      {R"({"model_type":"got_ocr2","vision_config":{"image_size":8}})", "vision_config.image_size"},
      {R"({"model_type":"got_ocr2","text_config":{"num_hidden_layers":0}})", "text_config.num_hidden_layers"},
  });
}

// thisisiron/Ovis2-*-hf, reconstructed as the conversion writes them (convert_ovis2_weights_to_hf.py): the
// original's visual_tokenizer_config (65,536 visual words, hidden_stride 2, 5 indicator tokens) with its
// AIMv2 backbone's fields (aimv2-large-patch14-448 for 1B / 2B, -huge- for 4B / 8B), the Qwen2.5 LLM's config
// as text_config and its hidden_size / vocab_size at the top.
std::string ovis2(const std::string& vision, const std::string& text, uint64_t hidden, uint64_t vocab) {
  return R"({"model_type":"ovis2","architectures":["Ovis2ForConditionalGeneration"],"hidden_size":)" +
         std::to_string(hidden) + R"(,"vocab_size":)" + std::to_string(vocab) +
         R"(,"visual_indicator_token_ids":[151666,151667,151668,151669,151670],
         "vision_config":{"image_size":448,"patch_size":14,"num_hidden_layers":24,"qkv_bias":false,
         "vocab_size":65536,"hidden_stride":2,"num_visual_indicator_tokens":5,)" +
         vision + R"(},"text_config":{"model_type":"qwen2","max_position_embeddings":32768,)" + text + "}}";
}
constexpr const char* kAimv2Large = R"("hidden_size":1024,"intermediate_size":2816,"num_attention_heads":8)";
constexpr const char* kAimv2Huge = R"("hidden_size":1536,"intermediate_size":4096,"num_attention_heads":12)";

// 1,131,283,318 / 2,222,907,894 / 4,304,941,558 / 8,935,282,678: the model names say 1B, 2B, 4B and 8B.
TEST(OcrAndOvis, Ovis2SizesFollowTheirLanguageModels) {
  const std::string two_b = ovis2(kAimv2Large,
                                  R"("vocab_size":151936,"hidden_size":1536,"intermediate_size":8960,
      "num_hidden_layers":28,"num_attention_heads":12,"num_key_value_heads":2,"tie_word_embeddings":true)",
                                  1536, 151936);
  const ModelTemplate t = template_of(two_b);
  EXPECT_EQ(parameters_of(two_b), 2222907894u);
  EXPECT_EQ(t.arch.architecture, "Ovis2ForConditionalGeneration");
  EXPECT_EQ(t.arch.hidden_size, 1536u);
  // The visual tokenizer: each 2 x 2 patches (4 x 1024 values) to 65,531 visual words, LayerNorm'd.
  EXPECT_EQ(find_tensor(t, "model.vision_tower.head_linear.weight")->shape, (Shape{65531, 4096}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.head_norm.bias")->shape, (Shape{65531}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.transformer.embeddings.position_embedding.weight")->shape,
            (Shape{1024, 1024}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.transformer.encoder.layers.23.ffn.up_proj.weight")->shape,
            (Shape{2816, 1024}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.transformer.encoder.layers.0.attention.out_proj.bias"),
            nullptr);
  EXPECT_EQ(find_tensor(t, "model.visual_embeddings_table.weight")->shape, (Shape{65536, 1536}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.visual_embeddings_table.weight")),
            "model.visual_embeddings_table.weight");

  EXPECT_EQ(parameters_of(ovis2(kAimv2Large, R"("vocab_size":151936,"hidden_size":896,
      "intermediate_size":4864,"num_hidden_layers":24,"num_attention_heads":14,"num_key_value_heads":2,
      "tie_word_embeddings":true)",
                                896, 151936)),
            1131283318u);
  EXPECT_EQ(parameters_of(ovis2(kAimv2Huge, R"("vocab_size":151936,"hidden_size":2048,
      "intermediate_size":11008,"num_hidden_layers":36,"num_attention_heads":16,"num_key_value_heads":2,
      "tie_word_embeddings":true)",
                                2048, 151936)),
            4304941558u);
  const std::string eight_b = ovis2(kAimv2Huge, R"("vocab_size":152064,"hidden_size":3584,
      "intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,
      "tie_word_embeddings":false)",
                                    3584, 152064);
  const ModelTemplate eight = template_of(eight_b);
  EXPECT_EQ(parameters_of(eight_b), 8935282678u);
  EXPECT_TRUE(find_tensor(eight, "lm_head.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(eight, "model.vision_tower.head_linear.weight")->shape, (Shape{65531, 6144}));
}

// Ovis2Config's defaults: Qwen2Config() as the language model (4,096 wide), but the head and the visual table
// at Ovis2Config's own hidden_size 1,536 and vocab_size 151,643, untied (Qwen2Config does not tie).
TEST(OcrAndOvis, Ovis2DefaultsAndBareModel) {
  const ModelTemplate d = template_of(R"({"model_type":"ovis2"})");
  EXPECT_EQ(parameters_of(R"({"model_type":"ovis2"})"), 12011608566u);
  EXPECT_EQ(find_tensor(d, "lm_head.weight")->shape, (Shape{151643, 1536}));
  EXPECT_EQ(find_tensor(d, "model.visual_embeddings_table.weight")->shape, (Shape{16384, 1536}));
  // Tied, the head is the embedding itself, whatever Ovis2Config's own sizes say: 12,011,608,566 less the
  // untied head's 151,643 x 1,536.
  const std::string tied = R"({"model_type":"ovis2","text_config":{"tie_word_embeddings":true}})";
  EXPECT_EQ(find_tensor(template_of(tied), "lm_head.weight")->shape, (Shape{151936, 4096}));
  EXPECT_EQ(parameters_of(tied), 12011608566u - 151643u * 1536u);
  // Without a vision_config the tower takes one indicator token per visual_indicator_token_ids entry.
  const std::string bare_model = R"({"model_type":"ovis2","architectures":["Ovis2Model"],
      "visual_indicator_token_ids":[7,8],"hidden_size":64,"vocab_size":100,"text_config":{"vocab_size":100,
      "hidden_size":64,"intermediate_size":96,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":2}})";
  const ModelTemplate bare = template_of(bare_model);
  EXPECT_EQ(parameters_of(bare_model), 327122748u);
  EXPECT_EQ(find_tensor(bare, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(bare, "vision_tower.head_linear.weight")->shape, (Shape{16382, 1024}));
  // Biased attention (out_proj too) and MLP, a 2 x 2 stride, 3 indicators.
  const std::string small =
      R"({"model_type":"ovis2","hidden_size":64,"vocab_size":120,"text_config":{"vocab_size":100,
      "hidden_size":64,"intermediate_size":96,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":2},"vision_config":{"hidden_size":32,"intermediate_size":40,"num_hidden_layers":2,
      "num_attention_heads":4,"image_size":32,"patch_size":8,"qkv_bias":true,"mlp_bias":true,"vocab_size":50,
      "hidden_stride":2,"num_visual_indicator_tokens":3,"num_channels":1}})";
  const ModelTemplate s = template_of(small);
  EXPECT_EQ(parameters_of(small), 104542u);
  EXPECT_EQ(find_tensor(s, "model.vision_tower.transformer.encoder.layers.1.attention.out_proj.bias")->shape,
            (Shape{32}));
  EXPECT_EQ(find_tensor(s, "model.vision_tower.head_linear.weight")->shape, (Shape{47, 128}));
  EXPECT_EQ(find_tensor(s, "lm_head.weight")->shape, (Shape{120, 64}));
  expect_reads_cleanly(small);
}

TEST(OcrAndOvis, Ovis2RefusesWhatTransformersCannotBuild) {
  expect_refusals({
      {R"({"model_type":"ovis2","vision_config":{"vocab_size":5}})",
       "vision_config.num_visual_indicator_tokens"},
      {R"({"model_type":"ovis2","vision_config":{"num_attention_heads":7}})",
       "vision_config.num_attention_heads"},
      {R"({"model_type":"ovis2","vision_config":{"image_size":10}})", "vision_config.patch_size"},
      {R"({"model_type":"ovis2","vision_config":{"hidden_stride":100}})", "vision_config.hidden_stride"},
  });
}

// microsoft/kosmos-2.5's config.json (reconstructed: its shape fields are Kosmos2_5Config's defaults, under
// transformers 4's vision names). 1,374,646,272 parameters; the paper says 1.3B.
constexpr const char* kKosmos25 =
    R"({"model_type":"kosmos-2.5","architectures":["Kosmos2_5ForConditionalGeneration"],
    "latent_query_num":2048,"text_config":{"vocab_size":108481,"embed_dim":1536,"layers":24,"ffn_dim":6144,
    "attention_heads":16,"max_position_embeddings":4096},"vision_config":{"hidden_size":1536,
    "patch_embed_hidden_size":768,"d_ff":3968,"d_kv":64,"num_hidden_layers":18,"num_attention_heads":24,
    "seq_len":4096}})";

TEST(OcrAndOvis, Kosmos25IsPix2StructBeforeKosmosText) {
  const ModelTemplate t = template_of(kKosmos25);
  EXPECT_EQ(parameters_of(kKosmos25), 1374646272u);
  EXPECT_EQ(parameters_of(R"({"model_type":"kosmos-2.5"})"), 1374646272u);
  EXPECT_EQ(t.arch.hidden_size, 1536u);
  EXPECT_EQ(t.arch.num_layers, 24u);
  // The text decoder: no sub-LN in its self-attention (Kosmos-2 has one), a segment embedding.
  EXPECT_EQ(find_tensor(t, "text_model.model.layers.0.self_attn.inner_attn_ln.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_model.model.segment_emb.weight")->shape, (Shape{2, 1536}));
  EXPECT_EQ(place_tensor("text_model.model.segment_emb.weight").block, Block::Embedding);
  EXPECT_EQ(find_tensor(t, "text_model.lm_head.weight")->tied_to, "text_model.model.embed_tokens.weight");
  // Pix2Struct's encoder: row / column tables of max_num_patches, T5's gated MLP, no biases.
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.row_embedder.weight")->shape, (Shape{4096, 1536}));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.patch_projection.weight")->shape, (Shape{1536, 768}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layer.17.mlp.wi_1.weight")->shape, (Shape{3968, 1536}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.layer.0.attention.output.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "image_to_text_projection.latent_query")->shape, (Shape{2048, 1536}));
  EXPECT_EQ(disk_totals(t).tensors, 614u);
}

TEST(OcrAndOvis, Kosmos25SmallModelsAndRefusals) {
  // transformers 5's vision names win over transformers 4's; head_dim x heads need not be the width.
  const std::string bare_model =
      R"({"model_type":"kosmos-2.5","architectures":["Kosmos2_5Model"],"latent_query_num":7,
      "tie_word_embeddings":false,"text_config":{"vocab_size":100,"embed_dim":64,"layers":2,"ffn_dim":96,
      "attention_heads":4,"tie_word_embeddings":false},"vision_config":{"hidden_size":40,
      "patch_embed_hidden_size":12,"intermediate_size":56,"head_dim":16,"num_hidden_layers":3,
      "num_attention_heads":3,"max_num_patches":30,"d_ff":999}})";
  const ModelTemplate bare = template_of(bare_model);
  EXPECT_EQ(parameters_of(bare_model), 131840u);
  EXPECT_EQ(find_tensor(bare, "text_model.lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(bare, "vision_model.encoder.layer.2.mlp.wo.weight")->shape, (Shape{40, 56}));
  EXPECT_EQ(find_tensor(bare, "vision_model.encoder.layer.0.attention.query.weight")->shape, (Shape{48, 40}));
  const std::string untied =
      R"({"model_type":"kosmos-2.5","latent_query_num":7,"tie_word_embeddings":false,
      "text_config":{"vocab_size":100,"embed_dim":64,"layers":2,"ffn_dim":96,"attention_heads":4,
      "tie_word_embeddings":false},"vision_config":{"hidden_size":40,"patch_embed_hidden_size":12,"d_ff":56,
      "d_kv":16,"num_hidden_layers":1,"num_attention_heads":2,"seq_len":30}})";
  const ModelTemplate u = template_of(untied);
  EXPECT_EQ(parameters_of(untied), 106720u);
  EXPECT_TRUE(find_tensor(u, "text_model.lm_head.weight")->tied_to.empty());
  expect_reads_cleanly(untied);

  EXPECT_EQ(refusal_of(R"({"model_type":"kosmos-2.5","architectures":["Kosmos2_5ForCausalLM"]})").kind,
            ErrorKind::Unsupported);
  expect_refusals({
      {R"({"model_type":"kosmos-2.5","text_config":{"attention_heads":5}})", "text_config.attention_heads"},
      {R"({"model_type":"kosmos-2.5","vision_config":{"num_hidden_layers":0}})",
       "vision_config.num_hidden_layers"},
      {R"({"model_type":"kosmos-2.5","vision_config":{"head_dim":0}})", "vision_config.head_dim"},
  });
}

}  // namespace
}  // namespace ma::test
