// Evolla (evolla, and EvollaModel as Evolla-10B-hf's config.json spells the model_type): templates against
// what transformers builds. Totals are an independent count of the modules modeling_evolla.py registers
// (transformers commit 000513e6, modular_evolla.py at 6b86302f), state-dict names, shapes and order included.
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// westlake-repl/Evolla-10B-hf's config.json, with the fields EvollaConfig reads (its flat protein_* fields
// and llm_config / protein_config are leftovers EvollaConfig ignores; without protein_encoder_config the
// SaProt encoder takes SaProtConfig's defaults, SaProt-650M's sizes).
std::string evolla_10b_config() {
  return R"({"model_type":"EvollaModel","architectures":["EvollaForProteinText2Text"],
    "aligner_attention_probs_dropout_prob":0.1,"aligner_enable_bias":true,"aligner_ffn_mult":4,
    "aligner_num_add_layers":8,"attention_bias":false,"hidden_act":"silu","hidden_size":4096,
    "intermediate_size":14336,"llm_config":{"model_type":"evolla_llm",
    "sequence_aligner_config":{"protein_encoder_dim":4096}},"max_position_embeddings":8192,"mlp_bias":false,
    "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,
    "protein_config":{"model_type":"evolla_protein","resampler_config":{"output_repr_dim":4096,
    "protein_repr_dim":1280}},"protein_hidden_size":1280,"protein_num_hidden_layers":33,
    "rms_norm_eps":1e-05,"rope_theta":500000.0,"tie_word_embeddings":false,"vocab_size":128256})";
}

// A small EvollaModel: a SaProt with a learned position table and an embedding LayerNorm, fewer decoder
// layers (4) than aligner_num_add_layers (8), so every layer gets an adapter.
std::string evolla_small_config() {
  return R"({"model_type":"evolla","architectures":["EvollaModel"],"vocab_size":1000,"hidden_size":64,
    "intermediate_size":96,"num_hidden_layers":4,"num_attention_heads":4,"num_key_value_heads":2,
    "attention_bias":true,"mlp_bias":true,"aligner_num_add_layers":8,"aligner_enable_bias":false,
    "aligner_ffn_mult":2,"resampler_depth":2,"resampler_heads":2,"resampler_dim_head":8,
    "resampler_num_latents":7,"resampler_ff_mult":3,"protein_encoder_config":{"vocab_size":30,
    "hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":48,
    "max_position_embeddings":50,"position_embedding_type":"absolute","emb_layer_norm_before":true}})";
}

uint64_t evolla_numel_under(const ModelTemplate& t, const std::string& part) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.name.find(part) != std::string::npos) n += numel(x.shape);
  return n;
}

// 10,390,787,344 as EvollaForProteinText2Text's modules add up ("Evolla-10B"): Llama-3-8B's 8,030,261,248
// (its published count), the SaProt-650M encoder's 649,928,960 (ESM-2 650M's body over 446 tokens), the
// resampler's 99,755,008 and eight adapters of 201,355,266.
TEST(ProteinText, Evolla10BIsLlama3WithASaProtEncoderAndEightAdapters) {
  const ModelTemplate t = template_of(evolla_10b_config());
  EXPECT_EQ(total_of(t), 10390787344u);
  EXPECT_EQ(evolla_numel_under(t, "protein_encoder.model."), 649928960u);
  EXPECT_EQ(evolla_numel_under(t, "sequence_compressor_resampler."), 99755008u);
  EXPECT_EQ(evolla_numel_under(t, ".adapter."), 8u * 201355266u);
  EXPECT_EQ(total_of(t) - evolla_numel_under(t, "protein_encoder.") - evolla_numel_under(t, ".adapter."),
            8030261248u);
  EXPECT_EQ(t.arch.architecture, "EvollaForProteinText2Text");
  EXPECT_EQ(t.arch.num_layers, 32u);
  // Adapters end every fourth layer (32 // 8): layers 3, 7, ..., 31.
  EXPECT_EQ(find_tensor(t, "model.layers.2.adapter.gate_attention"), nullptr);
  ASSERT_NE(find_tensor(t, "model.layers.31.adapter.key_protein.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.3.adapter.ff.fc1.weight")->shape, (Shape{16384, 4096}));
  // The adapter's gates are its own parameters: the state dict lists them before its modules.
  EXPECT_EQ(tensor_index(t, "model.layers.3.adapter.gate_ffw") + 1,
            tensor_index(t, "model.layers.3.adapter.query.weight"));
  EXPECT_EQ(tensor_index(t, "model.layers.3.post_attention_layernorm.weight") + 1,
            tensor_index(t, "model.layers.3.adapter.gate_attention"));
  // EvollaModel registers the protein encoder between embed_tokens and the decoder layers.
  EXPECT_EQ(tensor_index(t, "model.embed_tokens.weight"), 0u);
  EXPECT_EQ(tensor_index(t, "model.protein_encoder.model.embeddings.word_embeddings.weight"), 1u);
  EXPECT_EQ(find_tensor(t, "model.protein_encoder.model.embeddings.word_embeddings.weight")->shape,
            (Shape{446, 1280}));
  EXPECT_EQ(find_tensor(t, "model.protein_encoder.model.embeddings.position_embeddings.weight"), nullptr);
  // Each SaProt self-attention keeps its rotary inv_freq (64 / 2), a persistent buffer, after value.
  const std::string attention = "model.protein_encoder.model.encoder.layer.32.attention.self.";
  const TemplateTensor* inv_freq = find_tensor(t, attention + "rotary_embeddings.inv_freq");
  ASSERT_NE(inv_freq, nullptr);
  EXPECT_EQ(inv_freq->kind, TensorKind::Buffer);
  EXPECT_EQ(inv_freq->shape, (Shape{32}));
  EXPECT_EQ(tensor_index(t, attention + "value.bias") + 1,
            tensor_index(t, attention + "rotary_embeddings.inv_freq"));
  const std::string resampler = "model.protein_encoder.sequence_compressor_resampler.";
  EXPECT_EQ(find_tensor(t, resampler + "latents")->shape, (Shape{64, 1280}));
  EXPECT_EQ(find_tensor(t, resampler + "layers.5.0.to_kv.weight")->shape, (Shape{1024, 1280}));
  EXPECT_EQ(find_tensor(t, resampler + "protein_projector.weight")->shape, (Shape{4096, 1280}));
  EXPECT_EQ(tensor_index(t, resampler + "norm.bias") + 1,
            tensor_index(t, resampler + "protein_projector.weight"));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, (Shape{128256, 4096}));
  EXPECT_TRUE(find_tensor(t, "lm_head.weight")->tied_to.empty());
  expect_every_tensor_placed(t);
}

// 358,792 as EvollaModel's modules add up for the small config.
TEST(ProteinText, EvollaModelWithALearnedPositionTable) {
  const ModelTemplate t = template_of(evolla_small_config());
  EXPECT_EQ(total_of(t), 358792u);
  EXPECT_EQ(tensor_index(t, "embed_tokens.weight"), 0u);
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  for (int i = 0; i < 4; ++i)
    EXPECT_NE(find_tensor(t, "layers." + std::to_string(i) + ".adapter.gate_attention"), nullptr) << i;
  EXPECT_EQ(find_tensor(t, "layers.0.adapter.out_proj.bias"), nullptr);  // aligner_enable_bias false
  EXPECT_NE(find_tensor(t, "layers.0.self_attn.o_proj.bias"), nullptr);  // attention_bias true
  EXPECT_EQ(find_tensor(t, "protein_encoder.model.embeddings.position_embeddings.weight")->shape,
            (Shape{50, 32}));
  EXPECT_NE(find_tensor(t, "protein_encoder.model.embeddings.layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "protein_encoder.model.encoder.layer.0.attention.self.rotary_embeddings.inv_freq"),
            nullptr);
  EXPECT_EQ(find_tensor(t, "protein_encoder.sequence_compressor_resampler.layers.1.1.fc1.weight")->shape,
            (Shape{96, 32}));
  expect_every_tensor_placed(t);
  expect_reads_cleanly(evolla_small_config());
}

TEST(ProteinText, EvollaRefusesWhatTransformersWouldNotBuildAsModelled) {
  EXPECT_EQ(refusal_of(R"({"model_type":"evolla","architectures":["EvollaForCausalLM"]})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"evolla","tie_word_embeddings":true})").field, "tie_word_embeddings");
  EXPECT_EQ(refusal_of(R"({"model_type":"evolla","aligner_num_add_layers":0})").field,
            "aligner_num_add_layers");
  EXPECT_EQ(
      refusal_of(
          R"({"model_type":"evolla","protein_encoder_config":{"position_embedding_type":"relative_key"}})")
          .field,
      "protein_encoder_config.position_embedding_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"evolla","protein_encoder_config":{"hidden_size":100}})").field,
            "accepted");  // 100 splits into SaProt's 20 heads
  EXPECT_EQ(refusal_of(R"({"model_type":"evolla","protein_encoder_config":{"hidden_size":130}})").field,
            "protein_encoder_config.num_attention_heads");
}

}  // namespace
}  // namespace ma::test
