// CPM-Ant and LXMERT (model/families/cpmant.cpp, lxmert.cpp). The counts are those of transformers' classes
// built from these configs (CpmAntForCausalLM of modeling_cpmant.py at 00a91481, the Lxmert classes of
// modeling_lxmert.py; the helper's verify/ rebuilt their module trees in torch and compared every state_dict
// key, shape and the order with the template).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// openbmb/cpm-ant-10b's config.json, its shape fields (CpmAntConfig's defaults are this checkpoint's).
constexpr const char* kTextDCpmAnt10b =
    R"({"model_type":"cpmant","architectures":["CpmAntForCausalLM"],"vocab_size":30720,"hidden_size":4096,
    "num_attention_heads":32,"dim_head":128,"dim_ff":10240,"num_hidden_layers":48,
    "position_bias_num_buckets":512,"position_bias_max_distance":2048,"prompt_types":32,"prompt_length":32,
    "segment_types":32})";

// unc-nlp/lxmert-base-uncased's shape fields (LxmertConfig's defaults), with num_hidden_layers as the config
// class saves it: a dict of the three depths.
constexpr const char* kTextDLxmertBase =
    R"({"model_type":"lxmert","architectures":["LxmertForPreTraining"],"vocab_size":30522,"hidden_size":768,
    "num_attention_heads":12,"intermediate_size":3072,"l_layers":9,"x_layers":5,"r_layers":5,
    "num_hidden_layers":{"vision":5,"cross_encoder":5,"language":9},"visual_feat_dim":2048,
    "visual_pos_dim":4,"num_qa_labels":9500,"num_object_labels":1600,"num_attr_labels":400})";

// ---- CPM-Ant ----

// 48 layers of 4 x 4096^2 attention + 3 x 4096 x 10240 gated FFN + two norms (192,946,176 each), the final
// norm, 32 x 4096 segments, (30720 + 32 x 32) x 4096 input rows, (32^2 + 512) x 32 position biases and the
// untied 30720 x 4096 head: 9,517,453,312 ("10B").
TEST(TextD, CpmAnt10bCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kTextDCpmAnt10b), 9'517'453'312u);
  // CpmAntModel: no head.
  EXPECT_EQ(parameters_of(replaced(kTextDCpmAnt10b, "CpmAntForCausalLM", "CpmAntModel")),
            9'517'453'312u - 30720u * 4096u);
  const ModelTemplate t = template_of(kTextDCpmAnt10b);
  const TemplateTensor* input = find_tensor(t, "cpmant.input_embedding.weight");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->shape, (Shape{31744, 4096}));  // the vocabulary, then the soft-prompt rows
  ASSERT_NE(find_tensor(t, "cpmant.position_bias.relative_attention_bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "cpmant.position_bias.relative_attention_bias")->shape, (Shape{1536, 32}));
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, (Shape{30720, 4096}));
  // dim_head is its own: heads x dim_head need not be the width.
  EXPECT_EQ(find_tensor(t, "cpmant.encoder.layers.0.self_att.self_attention.project_q.weight")->shape,
            (Shape{4096, 4096}));
  // The encoder is registered before the embeddings.
  EXPECT_LT(tensor_index(t, "cpmant.encoder.output_layernorm.weight"),
            tensor_index(t, "cpmant.segment_embedding.weight"));
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 48u);
  expect_every_tensor_placed(t);
}

TEST(TextD, CpmAntRefusesImpossibleSizesNamingTheField) {
  EXPECT_EQ(refusal_of(replaced(kTextDCpmAnt10b, R"("dim_head":128)", R"("dim_head":0)")).field, "dim_head");
  EXPECT_EQ(refusal_of(replaced(kTextDCpmAnt10b, R"("segment_types":32)", R"("segment_types":-1)")).field,
            "segment_types");
}

// ---- LXMERT ----

// LxmertForPreTraining: the 9 language, 5 cross-modality and 5 relational layers, the region encoder, the
// pooler, cls (its decoder the tied word embedding), the object head (obj 1,600, attr 400, feat 2,048) and
// the 9,500-answer head: 228,051,752. LxmertModel alone (embeddings, region encoder, layers, pooler):
// 207,936,768; LxmertForQuestionAnswering with VQA's 3,129 answers 213,930,297.
TEST(TextD, LxmertBaseCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kTextDLxmertBase), 228'051'752u);
  EXPECT_EQ(parameters_of(replaced(kTextDLxmertBase, "LxmertForPreTraining", "LxmertModel")), 207'936'768u);
  EXPECT_EQ(
      parameters_of(replaced(replaced(kTextDLxmertBase, "LxmertForPreTraining", "LxmertForQuestionAnswering"),
                             R"("num_qa_labels":9500)", R"("num_qa_labels":3129)")),
      213'930'297u);
  const ModelTemplate t = template_of(kTextDLxmertBase);
  EXPECT_EQ(find_tensor(t, "cls.predictions.decoder.weight")->tied_to,
            "lxmert.embeddings.word_embeddings.weight");
  // A module's own parameters come before its children's: the LM head's bias first.
  EXPECT_LT(tensor_index(t, "cls.predictions.bias"),
            tensor_index(t, "cls.predictions.transform.dense.weight"));
  // x_layers are registered before r_layers, though they run after them.
  EXPECT_LT(tensor_index(t, "lxmert.encoder.x_layers.4.visn_output.LayerNorm.bias"),
            tensor_index(t, "lxmert.encoder.r_layers.0.attention.self.query.weight"));
  EXPECT_EQ(find_tensor(t, "lxmert.encoder.visn_fc.visn_fc.weight")->shape, (Shape{768, 2048}));
  EXPECT_EQ(find_tensor(t, "obj_predict_head.decoder_dict.feat.weight")->shape, (Shape{2048, 768}));
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 5u);
  expect_every_tensor_placed(t);
}

// The object head's feat regression exists with visual_obj_loss (transformers keys it so), not with
// visual_feat_loss; without task_qa and task_obj_predict those heads are gone.
TEST(TextD, LxmertHeadsFollowTheTaskFlags) {
  const std::string no_obj = replaced(kTextDLxmertBase, R"("num_attr_labels":400)",
                                      R"("num_attr_labels":400,"visual_obj_loss":false)");
  const ModelTemplate t = template_of(no_obj);
  EXPECT_EQ(find_tensor(t, "obj_predict_head.decoder_dict.feat.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "obj_predict_head.decoder_dict.obj.weight"), nullptr);
  ASSERT_NE(find_tensor(t, "obj_predict_head.decoder_dict.attr.weight"), nullptr);
  const std::string bare = replaced(kTextDLxmertBase, R"("num_attr_labels":400)",
                                    R"("num_attr_labels":400,"task_qa":false,"task_obj_predict":false)");
  const ModelTemplate b = template_of(bare);
  EXPECT_EQ(find_tensor(b, "answer_head.logit_fc.3.weight"), nullptr);
  EXPECT_EQ(find_tensor(b, "obj_predict_head.transform.dense.weight"), nullptr);
  ASSERT_NE(find_tensor(b, "cls.seq_relationship.weight"), nullptr);
}

TEST(TextD, LxmertRefusesImpossibleSizesNamingTheField) {
  EXPECT_EQ(
      refusal_of(replaced(kTextDLxmertBase, R"("num_attention_heads":12)", R"("num_attention_heads":7)"))
          .field,
      "num_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kTextDLxmertBase, R"("visual_feat_dim":2048)", R"("visual_feat_dim":0)")).field,
      "visual_feat_dim");
}

}  // namespace
}  // namespace ma::test
