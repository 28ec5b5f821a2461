// Sesame's CSM, its depth decoder alone and Kyutai's Mimi codec alone (model/families/csm.cpp,
// mimi_codec.cpp): the counts transformers 5 builds, the layout of the three parts, where their tensors sit
// and the configs they refuse.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

uint64_t values_under(const ModelTemplate& t, const std::string& prefix, TensorKind kind) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == kind && x.tied_to.empty() && x.name.rfind(prefix, 0) == 0) n += numel(x.shape);
  return n;
}

void expect_nothing_in_other(const ModelTemplate& t) {
  expect_every_tensor_placed(t);
}

// CsmConfig's defaults are sesame/csm-1b's sizes (with CsmDepthDecoderConfig's and MimiConfig's,
// kyutai/mimi's). 1,766,514,497: CsmForConditionalGeneration's parameters under transformers 5 (a
// module-by-module mirror of modeling_csm.py on the meta device): backbone with its heads 1,374,429,184,
// depth decoder 312,776,704, Mimi 79,308,609. The two code tables are both counted: transformers 5 ties
// _tied_weights_keys only when tie_word_embeddings is true, and CsmConfig forces it to false.
TEST(Csm, DefaultsCountAsTransformersBuildsThem) {
  const std::string csm = R"({"model_type":"csm"})";
  EXPECT_EQ(parameters_of(csm), 1'766'514'497u);
  const ModelTemplate t = template_of(csm);
  EXPECT_EQ(t.arch.architecture, "CsmForConditionalGeneration");
  EXPECT_EQ(t.tensors.front().name, "lm_head.weight");
  EXPECT_EQ(t.tensors.front().shape, (Shape{2051, 2048}));
  EXPECT_EQ(t.tensors[1].name, "embed_text_tokens.weight");
  EXPECT_EQ(t.tensors[1].shape, (Shape{128256, 2048}));
  const TemplateTensor* backbone_codes =
      find_tensor(t, "backbone_model.embed_tokens.embed_audio_tokens.weight");
  const TemplateTensor* depth_codes = find_tensor(t, "depth_decoder.model.embed_tokens.weight");
  ASSERT_NE(backbone_codes, nullptr);
  ASSERT_NE(depth_codes, nullptr);
  EXPECT_EQ(backbone_codes->shape, (Shape{32 * 2051, 2048}));
  EXPECT_EQ(depth_codes->shape, (Shape{32 * 2051, 2048}));  // backbone_hidden_size wide
  EXPECT_EQ(backbone_codes->tied_to, "");
  EXPECT_EQ(depth_codes->tied_to, "");
  // Llama 3.2 1B's layers (GQA 32 / 8) in the backbone; 8 heads of 128 over 2 KV heads in the depth decoder.
  EXPECT_EQ(find_tensor(t, "backbone_model.layers.15.self_attn.k_proj.weight")->shape, (Shape{512, 2048}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.model.layers.3.self_attn.k_proj.weight")->shape,
            (Shape{256, 1024}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.model.layers.3.mlp.down_proj.weight")->shape, (Shape{1024, 8192}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.model.inputs_embeds_projector.weight")->shape, (Shape{1024, 2048}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.codebooks_head.weight")->shape, (Shape{31, 1024, 2051}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.model.layers.4.self_attn.q_proj.weight"), nullptr);
  // The codec is built and counted; its codebooks are buffers.
  EXPECT_EQ(values_under(t, "codec_model.", TensorKind::Parameter), 79'308'609u);
  EXPECT_EQ(values_under(t, "codec_model.", TensorKind::Buffer), 16'842'784u);
  EXPECT_EQ(values_under(t, "depth_decoder.", TensorKind::Parameter), 312'776'704u);
  // The backbone without the two audio-code ends (code table and lm_head) is Llama 3.2 1B: 1,235,814,400
  // (meta-llama/Llama-3.2-1B, 1.23B).
  EXPECT_EQ(values_under(t, "embed_text_tokens.", TensorKind::Parameter) +
                values_under(t, "backbone_model.layers.", TensorKind::Parameter) +
                values_under(t, "backbone_model.norm.", TensorKind::Parameter),
            1'235'814'400u);
  // The backbone is the decoder stack; the depth decoder (31 steps over at most 33 positions per frame) is
  // none, the codec's two transformers are audio stacks.
  ASSERT_NE(t.arch.stack(StackRole::Decoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->path, "backbone_model.layers");
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 16u);
  EXPECT_EQ(t.arch.stacks.size(), 3u);
  expect_nothing_in_other(t);
  EXPECT_EQ(place_tensor("depth_decoder.codebooks_head.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("codec_model.quantizer.acoustic_residual_vector_quantizer.input_proj.weight").block,
            Block::Audio);
}

// A small CSM with every option transformers reads: biases, head_dim, null KV heads (as many as the query
// heads), its own depth decoder and codec. 3,030,969 parameters and 4,356 buffer values as the mirror builds
// it; CsmBackboneModel alone (two layers, attention_bias): 138,457,088.
constexpr const char* kSmallCsm = R"({"model_type":"csm","architectures":["CsmForConditionalGeneration"],
    "num_codebooks":8,"vocab_size":100,"text_vocab_size":500,"hidden_size":256,"intermediate_size":512,
    "num_hidden_layers":3,"num_attention_heads":4,"num_key_value_heads":null,"head_dim":48,
    "attention_bias":true,"mlp_bias":true,"tie_codebooks_embeddings":false,
    "depth_decoder_config":{"model_type":"csm_depth_decoder_model","num_codebooks":8,
      "backbone_hidden_size":256,"vocab_size":100,"hidden_size":128,"intermediate_size":384,
      "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":1,"attention_bias":true},
    "codec_config":{"model_type":"mimi","hidden_size":64,"num_filters":8,"upsampling_ratios":[4,2],
      "num_hidden_layers":2,"intermediate_size":128,"num_attention_heads":4,"num_key_value_heads":2,
      "codebook_size":64,"codebook_dim":16,"num_quantizers":4,"vector_quantization_hidden_dimension":32,
      "upsample_groups":64,"frame_rate":750,"use_conv_shortcut":true}})";

TEST(Csm, VariantsAndTheBackboneAlone) {
  EXPECT_EQ(parameters_of(kSmallCsm), 3'030'969u);
  const ModelTemplate t = template_of(kSmallCsm);
  EXPECT_EQ(find_tensor(t, "backbone_model.layers.0.self_attn.k_proj.weight")->shape, (Shape{192, 256}));
  EXPECT_EQ(find_tensor(t, "backbone_model.layers.2.mlp.up_proj.bias")->shape, (Shape{512}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.model.layers.1.self_attn.o_proj.bias")->shape, (Shape{128}));
  EXPECT_EQ(find_tensor(t, "depth_decoder.model.layers.1.mlp.up_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "depth_decoder.codebooks_head.weight")->shape, (Shape{7, 128, 100}));
  EXPECT_EQ(find_tensor(t, "codec_model.upsample.conv.weight")->shape, (Shape{64, 1, 8}));
  EXPECT_EQ(values_under(t, "", TensorKind::Buffer), 4'356u);
  expect_nothing_in_other(t);
  expect_reads_cleanly(kSmallCsm);

  const std::string backbone = R"({"model_type":"csm","architectures":["CsmBackboneModel"],
      "num_hidden_layers":2,"num_codebooks":4,"attention_bias":true})";
  EXPECT_EQ(parameters_of(backbone), 138'457'088u);
  const ModelTemplate b = template_of(backbone);
  EXPECT_EQ(b.tensors.front().name, "embed_tokens.embed_audio_tokens.weight");
  EXPECT_EQ(b.tensors.front().shape, (Shape{4 * 2051, 2048}));
  EXPECT_EQ(find_tensor(b, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(b, "layers.1.self_attn.q_proj.bias")->shape, (Shape{2048}));
}

// CsmDepthDecoderConfig's defaults: 312,776,704 parameters in CsmDepthDecoderForCausalLM (the same as inside
// CSM); CsmDepthDecoderModel has no codebooks_head: 140,992 for this small one.
TEST(CsmDepthDecoder, CausalLmAndBareModel) {
  const std::string depth = R"({"model_type":"csm_depth_decoder_model"})";
  EXPECT_EQ(parameters_of(depth), 312'776'704u);
  const ModelTemplate t = template_of(depth);
  EXPECT_EQ(t.arch.architecture, "CsmDepthDecoderForCausalLM");
  EXPECT_EQ(t.tensors.front().name, "model.embed_tokens.weight");
  EXPECT_EQ(t.tensors.back().name, "codebooks_head.weight");
  EXPECT_EQ(t.tensors[t.tensors.size() - 2].name, "model.inputs_embeds_projector.weight");
  ASSERT_NE(t.arch.stack(StackRole::Decoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 4u);
  expect_nothing_in_other(t);

  const std::string bare =
      R"({"model_type":"csm_depth_decoder_model","architectures":["CsmDepthDecoderModel"],
      "num_codebooks":4,"backbone_hidden_size":96,"vocab_size":50,"hidden_size":64,"intermediate_size":128,
      "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":4,"mlp_bias":true,"head_dim":32})";
  EXPECT_EQ(parameters_of(bare), 140'992u);
  const ModelTemplate b = template_of(bare);
  EXPECT_EQ(find_tensor(b, "embed_tokens.weight")->shape, (Shape{200, 96}));
  EXPECT_EQ(find_tensor(b, "layers.0.self_attn.q_proj.weight")->shape, (Shape{128, 64}));
  EXPECT_EQ(find_tensor(b, "codebooks_head.weight"), nullptr);
}

// MimiConfig's defaults are kyutai/mimi's: 79,308,609 parameters and 16,842,784 buffer values (the codebooks'
// initialized / cluster_usage / embed_sum), 96,151,393 in all: the model card's 96.2M.
TEST(Mimi, KyutaiMimiAlone) {
  const std::string mimi = R"({"model_type":"mimi"})";
  EXPECT_EQ(parameters_of(mimi), 79'308'609u);
  const ModelTemplate t = template_of(mimi);
  EXPECT_EQ(t.arch.architecture, "MimiModel");
  EXPECT_EQ(values_under(t, "", TensorKind::Buffer), 16'842'784u);
  EXPECT_EQ(t.tensors.front().name, "encoder.layers.0.conv.weight");
  EXPECT_EQ(find_tensor(t, "downsample.conv.weight")->shape, (Shape{512, 512, 4}));
  EXPECT_EQ(find_tensor(t, "quantizer.semantic_residual_vector_quantizer.layers.0.codebook.embed_sum")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(t.arch.stacks.size(), 2u);
  expect_nothing_in_other(t);
  EXPECT_EQ(place_tensor("downsample.conv.weight").block, Block::Audio);
  EXPECT_EQ(place_tensor("upsample.conv.weight").block, Block::Audio);
  EXPECT_EQ(place_tensor("quantizer.acoustic_residual_vector_quantizer.output_proj.weight").block,
            Block::Audio);
  EXPECT_EQ(place_tensor("encoder_transformer.layers.3.self_attn_layer_scale.scale").block, Block::Attention);
  EXPECT_EQ(place_tensor("decoder_transformer.layers.3.mlp_layer_scale.scale").block, Block::Mlp);
  // Two semantic codebooks, codebook_dim null (hidden_size), the SEANet's 1,200 Hz frames (24000 / 20)
  // resampled to 600 Hz (kernel 4): 572,705 parameters and 198,150 buffer values, as the mirror builds them.
  const std::string variant =
      R"({"model_type":"mimi","hidden_size":128,"num_filters":16,"upsampling_ratios":[5,4],
      "num_hidden_layers":2,"intermediate_size":256,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,
      "codebook_size":256,"codebook_dim":null,"num_quantizers":6,"num_semantic_quantizers":2,
      "vector_quantization_hidden_dimension":128,"upsample_groups":128,"frame_rate":600,"attention_bias":true,
      "num_residual_layers":2})";
  EXPECT_EQ(parameters_of(variant), 572'705u);
  EXPECT_EQ(values_under(template_of(variant), "", TensorKind::Buffer), 198'150u);
}

TEST(Csm, RefusesWhatTransformersRejects) {
  // Both config classes raise on tie_word_embeddings true.
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","tie_word_embeddings":true})").field, "tie_word_embeddings");
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","depth_decoder_config":{"tie_word_embeddings":true}})").field,
            "depth_decoder_config.tie_word_embeddings");
  EXPECT_EQ(refusal_of(R"({"model_type":"csm_depth_decoder_model","tie_word_embeddings":true})").field,
            "tie_word_embeddings");
  // AutoConfig.for_model(**codec_config) needs model_type.
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","codec_config":{"hidden_size":512}})").field,
            "codec_config.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","codec_config":{"model_type":"encodec"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","num_codebooks":0})").field, "num_codebooks");
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","codec_config":{"model_type":"mimi",
      "num_semantic_quantizers":32}})")
                .field,
            "codec_config.num_semantic_quantizers");
  EXPECT_EQ(refusal_of(R"({"model_type":"csm","architectures":["CsmDepthDecoderForCausalLM"]})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"mimi","architectures":["MimiForCausalLM"]})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
