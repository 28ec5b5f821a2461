// describe_architecture() on real configs; every expected value is read off the config by hand (derivation
// in the comments), not copied from our output.
#include <gtest/gtest.h>

#include "analysis/architecture_details.h"
#include "report/section_renderers.h"
#include "report_test_support.h"

namespace ma::test {
namespace {

TEST(ArchitectureDetails, Llama31_8B) {
  ANALYZE_OR_SKIP(m, "hf-configs/meta-llama__Meta-Llama-3.1-8B");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.architecture_type, "decoder-only");
  EXPECT_EQ(d.num_hidden_layers, 32u);
  EXPECT_EQ(d.hidden_size, 4096u);
  EXPECT_EQ(d.intermediate_size, 14336u);
  EXPECT_EQ(d.num_attention_heads, 32u);
  EXPECT_EQ(d.num_key_value_heads, 8u);
  EXPECT_EQ(d.head_dim, 128u);  // 4096 / 32
  EXPECT_EQ(d.vocab_size, 128256u);
  EXPECT_EQ(d.max_position_embeddings, 131072u);
  EXPECT_EQ(d.norm_type, "rmsnorm");  // rms_norm_eps, weight-only norms
  ASSERT_TRUE(d.norm_eps);
  EXPECT_DOUBLE_EQ(*d.norm_eps, 1e-5);
  EXPECT_EQ(d.activation, "silu");
  EXPECT_EQ(d.mlp_type, "gated");  // gate_proj / up_proj / down_proj
  EXPECT_EQ(d.position_embedding, "rope");
  ASSERT_TRUE(d.rope);
  EXPECT_EQ(d.rope->type, "llama3");  // rope_scaling.rope_type
  EXPECT_DOUBLE_EQ(d.rope->theta, 500000.0);
  ASSERT_TRUE(d.rope->factor);
  EXPECT_DOUBLE_EQ(*d.rope->factor, 8.0);
  EXPECT_EQ(d.rope->original_max_position_embeddings, 8192u);
  EXPECT_FALSE(d.rope->partial_rotary_factor);
  EXPECT_FALSE(d.rope->local_theta);
  EXPECT_FALSE(d.tie_word_embeddings);
  EXPECT_FALSE(d.attention_bias);  // attention_bias: false
  EXPECT_FALSE(d.mlp_bias);        // mlp_bias: false
  EXPECT_EQ(d.torch_dtype, "bfloat16");
}

TEST(ArchitectureDetails, Gpt2) {
  ANALYZE_OR_SKIP(m, "hf-configs/openai-community__gpt2");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.architecture_type, "decoder-only");
  EXPECT_EQ(d.hidden_size, 768u);               // n_embd
  EXPECT_EQ(d.intermediate_size, 3072u);        // n_inner null: 4 * n_embd
  EXPECT_EQ(d.head_dim, 64u);                   // 768 / 12
  EXPECT_EQ(d.max_position_embeddings, 1024u);  // n_positions
  EXPECT_EQ(d.norm_type, "layernorm");          // ln_1 / ln_2 / ln_f carry a bias
  ASSERT_TRUE(d.norm_eps);
  EXPECT_DOUBLE_EQ(*d.norm_eps, 1e-5);         // layer_norm_epsilon
  EXPECT_EQ(d.activation, "gelu_new");         // activation_function
  EXPECT_EQ(d.mlp_type, "plain");              // c_fc / c_proj, no gate
  EXPECT_EQ(d.position_embedding, "learned");  // wpe
  EXPECT_FALSE(d.rope);
  EXPECT_TRUE(d.tie_word_embeddings);
  EXPECT_TRUE(d.attention_bias);  // c_attn.bias, c_proj.bias
  EXPECT_TRUE(d.mlp_bias);        // c_fc.bias
}

TEST(ArchitectureDetails, BertIsEncoderOnly) {
  ANALYZE_OR_SKIP(m, "hf-configs/google-bert__bert-base-uncased");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.architecture_type, "encoder-only");
  EXPECT_EQ(d.position_embedding, "learned");  // embeddings.position_embeddings
  EXPECT_EQ(d.norm_type, "layernorm");
  ASSERT_TRUE(d.norm_eps);
  EXPECT_DOUBLE_EQ(*d.norm_eps, 1e-12);  // layer_norm_eps
  EXPECT_EQ(d.activation, "gelu");       // hidden_act
  EXPECT_EQ(d.mlp_type, "plain");        // intermediate.dense / output.dense
  EXPECT_EQ(d.num_hidden_layers, 12u);
  EXPECT_EQ(d.vocab_size, 30522u);
}

TEST(ArchitectureDetails, T5IsEncoderDecoderWithRelativePositions) {
  ANALYZE_OR_SKIP(m, "hf-configs/google-t5__t5-small");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.architecture_type, "encoder-decoder");  // EncDecAttention in the decoder
  EXPECT_EQ(d.position_embedding, "relative");        // relative_attention_bias
  EXPECT_EQ(d.norm_type, "rmsnorm");                  // T5LayerNorm: weight only
  EXPECT_FALSE(d.rope);
}

TEST(ArchitectureDetails, Gemma3LocalAndGlobalRope) {
  ANALYZE_OR_SKIP(m, "synthetic-configs/gemma-3-12b-text-shape");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  ASSERT_TRUE(d.rope);
  EXPECT_EQ(d.rope->type, "linear");  // rope_scaling {rope_type: linear, factor: 8}
  EXPECT_DOUBLE_EQ(*d.rope->factor, 8.0);
  EXPECT_DOUBLE_EQ(d.rope->theta, 1e6);     // rope_theta
  EXPECT_EQ(d.rope->local_theta, 10000.0);  // rope_local_base_freq
  EXPECT_EQ(d.head_dim, 256u);
}

TEST(ArchitectureDetails, NemotronHIsHybridWithoutPositions) {
  ANALYZE_OR_SKIP(m, "hf-configs/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.architecture_type, "hybrid");  // M (Mamba-2) and * (attention) in hybrid_override_pattern
  EXPECT_EQ(d.position_embedding, "none");   // NoPE attention
  EXPECT_FALSE(d.rope);
  EXPECT_EQ(d.norm_type, "rmsnorm");
  EXPECT_EQ(d.activation, "relu2");  // mlp_hidden_act
  EXPECT_EQ(d.mlp_type, "plain");    // experts have up_proj / down_proj only
}

TEST(ArchitectureDetails, MambaIsSsm) {
  ANALYZE_OR_SKIP(m, "synthetic-configs/mamba-2.8b-shape");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.architecture_type, "ssm");
  EXPECT_EQ(d.position_embedding, "none");
  EXPECT_EQ(d.mlp_type, "none");
}

TEST(ArchitectureDetails, DeepSeekV3YarnAndRmsNormDespiteIndexer) {
  ANALYZE_OR_SKIP(m, "hf-configs/deepseek-ai__DeepSeek-V3.2");
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.norm_type, "rmsnorm");  // the indexer's biased k_norm is not the decoder's norm
  ASSERT_TRUE(d.rope);
  EXPECT_EQ(d.rope->type, "yarn");  // rope_scaling.type
  EXPECT_DOUBLE_EQ(*d.rope->factor, 40.0);
  EXPECT_EQ(d.rope->original_max_position_embeddings, 4096u);
  EXPECT_DOUBLE_EQ(d.rope->theta, 10000.0);
}

// Report-only fields of the wrong type or absurd value read as unknown; they never fail the analysis.
TEST(ArchitectureDetails, WrongTypedReportFieldsAreUnknown) {
  TempDir dir;
  write_file(dir / "config.json", R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"],
    "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 100, "hidden_act": 5, "rms_norm_eps": "tiny",
    "rope_theta": -1, "rope_scaling": {"rope_type": 7, "factor": "big", "original_max_position_embeddings": -3}})");
  auto m = load_model(dir.path(), false);
  const ArchitectureDetails d = describe_architecture(m->inventory.arch, m->params, {});
  EXPECT_EQ(d.activation, "");
  EXPECT_FALSE(d.norm_eps);
  EXPECT_EQ(d.norm_type, "rmsnorm");  // from the weight-only norm tensors
  ASSERT_TRUE(d.rope);
  EXPECT_EQ(d.rope->type, "default");
  EXPECT_EQ(d.rope->theta, 0.0);
  EXPECT_FALSE(d.rope->factor);
  EXPECT_FALSE(d.rope->original_max_position_embeddings);
}

TEST(ArchitectureDetails, JsonCarriesEveryField) {
  ANALYZE_OR_SKIP(m, "hf-configs/meta-llama__Meta-Llama-3.1-8B");
  JsonWriter w;
  w.begin_object();
  write_json(w, describe_architecture(m->inventory.arch, m->params, {}));
  w.end_object();
  json::Document doc = json::Document::parse(w.take(), "architecture");
  const json::Value* a = doc.root().find("architecture");
  ASSERT_TRUE(a && a->is_object());
  for (const char* key :
       {"architecture_type", "num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
        "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings", "norm_type", "norm_eps",
        "activation", "mlp_type", "position_embedding", "rope", "tie_word_embeddings", "attention_bias",
        "mlp_bias", "torch_dtype"})
    EXPECT_TRUE(a->find(key)) << key;
  EXPECT_EQ(a->find("num_key_value_heads")->as_uint(), 8u);
  const json::Value* rope = a->find("rope");
  ASSERT_TRUE(rope && rope->is_object());
  EXPECT_EQ(rope->find("type")->as_string(), "llama3");
  EXPECT_EQ(rope->find("theta")->as_double(), 500000.0);
  EXPECT_EQ(rope->find("factor")->as_double(), 8.0);
  EXPECT_EQ(rope->find("original_max_position_embeddings")->as_uint(), 8192u);
  EXPECT_TRUE(rope->find("partial_rotary_factor")->is_null());
}

}  // namespace
}  // namespace ma::test
