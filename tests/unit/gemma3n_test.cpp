// Gemma 3n (model/families/gemma3n.cpp, gemma3n_towers.cpp): its language model counted on the sizes of
// google/gemma-3n-E2B and -E4B (transformers' convert_gemma3n_weights.py: E2B 30 layers of MLP width 8,192
// with 10 KV-shared ones, E4B Gemma3nTextConfig's defaults) and compared with the sizes llama.cpp's
// conversions report; the composite with its MobileNetV5 and audio conformer against the figures Google and
// timm give for them.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string e2b(const std::string& widths = "8192") {
  return R"({"model_type":"gemma3n_text","num_hidden_layers":30,"num_kv_shared_layers":10,
      "intermediate_size":)" +
         widths + "}";
}

// Ollama lists gemma3n:e2b at 4.46B and e4b at 6.87B: llama.cpp's conversion of the Hub checkpoints, which
// store every layer's keys and values. transformers (5.6 on) builds none for the KV-shared layers and drops
// them on load: 10 x (2 x 512 x 2048 + 256) = 20,974,080 fewer in E2B, 15 x that in E4B.
TEST(Gemma3n, CountsAsTransformersBuildsItAndStoresAsTheCheckpoints) {
  const ModelTemplate small = template_of(e2b());
  const ParameterCounts c = counts_of(e2b());
  EXPECT_EQ(c.total, 4'435'182'688u);
  EXPECT_EQ((disk_totals(small).elements + 5'000'000) / 10'000'000, 446u);
  EXPECT_EQ(disk_totals(small).elements - c.total, 10u * (2 * 512 * 2048 + 256));
  const std::string large = R"({"model_type":"gemma3n_text"})";
  EXPECT_EQ(parameters_of(large), 6'835'235'568u);
  EXPECT_EQ((disk_totals(template_of(large)).elements + 5'000'000) / 10'000'000, 687u);
  // The per-layer embedding table: 262,144 rows of 30 layers x 256.
  EXPECT_EQ(find_tensor(small, "model.embed_tokens_per_layer.weight")->shape, Shape({262144, 7680}));
  EXPECT_EQ(find_tensor(small, "model.altup_projections.2.weight")->shape, Shape({2048, 2048}));
  EXPECT_EQ(find_tensor(small, "model.altup_projections.3.weight"), nullptr);
  EXPECT_EQ(find_tensor(small, "model.layers.0.altup.prediction_coefs.weight")->shape, Shape({16, 4}));
  EXPECT_EQ(find_tensor(small, "model.layers.0.altup.correct_output_scale")->shape, Shape({2048}));
  EXPECT_EQ(find_tensor(small, "model.layers.0.laurel.linear_left.weight")->shape, Shape({64, 2048}));
  EXPECT_EQ(find_tensor(small, "model.layers.19.self_attn.k_proj.weight")->kind, TensorKind::Parameter);
  EXPECT_EQ(find_tensor(small, "model.layers.20.self_attn.k_proj.weight")->kind, TensorKind::Extra);
  EXPECT_TRUE(small.arch.tie_word_embeddings);
}

// The KV-shared layers read an earlier layer's cache: only the first 20 of E2B's 30 layers add keys and
// values, and every fifth layer attends fully.
TEST(Gemma3n, SharedLayersAddNothingToTheCache) {
  const ModelTemplate t = template_of(e2b());
  const KvCachePlan kv = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 0);
  EXPECT_EQ(kv.per_token, 20u * 2 * 2 * 256 * 2);
  EXPECT_EQ(t.arch.layers()[4].attention.window, 0u);
  EXPECT_EQ(t.arch.layers()[0].attention.window, 512u);
  EXPECT_TRUE(t.arch.layers()[20].attention.shares_cache);
}

// MatFormer slices (E2B-to-E4B mixes) give each layer its own MLP width; a list of the wrong length or a
// zero width is refused.
TEST(Gemma3n, PerLayerMlpWidths) {
  std::string widths = "[";
  for (int i = 0; i < 30; ++i) widths += std::string(i ? "," : "") + (i < 15 ? "8192" : "16384");
  const ModelTemplate t = template_of(e2b(widths + "]"));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.up_proj.weight")->shape, Shape({8192, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.29.mlp.up_proj.weight")->shape, Shape({16384, 2048}));
  EXPECT_EQ(t.arch.layers()[29].ffn.intermediate, 16384u);
  EXPECT_THROW(template_of(e2b("[8192, 8192]")), Error);
  std::string zero = "[0";
  for (int i = 1; i < 30; ++i) zero += ",8192";
  EXPECT_THROW(template_of(e2b(zero + "]")), Error);
  EXPECT_THROW(template_of(R"({"model_type":"gemma3n_text","num_hidden_layers":4,"num_kv_shared_layers":4})"),
               Error);
}

// The shape fields of google/gemma-3n-E2B-it's config.json (the audio block as published for E4B-it, the
// same for both sizes); `text` adds E4B's.
std::string composite(const std::string& text) {
  return R"({"model_type":"gemma3n","architectures":["Gemma3nForConditionalGeneration"],
      "torch_dtype":"bfloat16","text_config":{"model_type":"gemma3n_text","hidden_size":2048,
      "num_attention_heads":8,"num_key_value_heads":2,"head_dim":256,"vocab_size":262400,
      "vocab_size_per_layer_input":262144,"hidden_size_per_layer_input":256,"laurel_rank":64,
      "altup_num_inputs":4,)" +
         text + R"(},
      "vision_config":{"architecture":"mobilenetv5_300m_enc","hidden_size":2048,"model_type":"gemma3n_vision",
      "vocab_offset":262144,"vocab_size":128},
      "audio_config":{"conf_attention_chunk_size":12,"conf_attention_context_left":13,
      "conf_attention_context_right":0,"conf_conv_kernel_size":5,"conf_num_attention_heads":8,
      "conf_num_hidden_layers":12,"hidden_size":1536,"input_feat_size":128,"model_type":"gemma3n_audio",
      "sscp_conv_channel_size":[128,32],"sscp_conv_kernel_size":[[3,3],[3,3]],
      "sscp_conv_stride_size":[[2,2],[2,2]],"vocab_offset":262272,"vocab_size":128}})";
}
const std::string kE2bText = R"("num_hidden_layers":30,"intermediate_size":8192,"num_kv_shared_layers":10)";
const std::string kE4bText = R"("num_hidden_layers":35,"intermediate_size":16384,"num_kv_shared_layers":15)";

// Parameters and tensors of a template's tensors whose names start with `prefix`.
DiskTotals under(const ModelTemplate& t, const std::string& prefix) {
  DiskTotals d;
  for (const TemplateTensor& x : t.tensors)
    if (x.name.starts_with(prefix)) {
      ++d.tensors;
      d.elements += numel(x.shape);
    }
  return d;
}

// timm 1.0.29's mobilenetv5_300m_enc, instantiated: 548 tensors of 294,126,912 parameters, 81 layer scales
// and one bias (the stem's, which Google's converter writes as zeros). The audio encoder, instantiated from
// transformers' own classes: 269 tensors of 681,348,640 (Google's documentation: "~0.68B" for audio).
TEST(Gemma3n, TowersAreTimmsMobileNetV5AndTheAudioConformer) {
  const ModelTemplate t = template_of(composite(kE2bText));
  const DiskTotals vision = under(t, "model.vision_tower.timm_model.");
  EXPECT_EQ(vision.tensors, 548u);
  EXPECT_EQ(vision.elements, 294'126'912u);
  size_t gammas = 0, biases = 0;
  for (const TemplateTensor& x : t.tensors) {
    if (!x.name.starts_with("model.vision_tower.")) continue;
    gammas += x.name.ends_with("layer_scale.gamma");
    biases += x.name.ends_with(".bias");
  }
  EXPECT_EQ(gammas, 81u);
  EXPECT_EQ(biases, 1u);
  EXPECT_EQ(find_tensor(t, "model.vision_tower.timm_model.msfa.ffn.pw_exp.conv.weight")->shape,
            Shape({3840, 1920, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.timm_model.blocks.2.21.attn.key.down_conv.weight")->shape,
            Shape({640, 1, 3, 3}));
  const DiskTotals audio = under(t, "model.audio_tower.");
  EXPECT_EQ(audio.tensors, 269u);
  EXPECT_EQ(audio.elements, 681'348'640u);
  // Two stride-2 convolutions over 128 mel bins, each padding the frequency axis by one a side: 64, then 32
  // bins of 32 channels into the projection. 80 bins give 40, then 20.
  EXPECT_EQ(find_tensor(t, "model.audio_tower.subsample_conv_projection.input_proj_linear.weight")->shape,
            Shape({1536, 1024}));
  std::string eighty = composite(kE2bText);
  eighty.replace(eighty.find(R"("input_feat_size":128)"), 21, R"("input_feat_size":80)");
  EXPECT_EQ(
      find_tensor(template_of(eighty), "model.audio_tower.subsample_conv_projection.input_proj_linear.weight")
          ->shape,
      Shape({1536, 640}));
  EXPECT_EQ(place_tensor("model.embed_audio.embedding_projection.weight").block, Block::Audio);
  EXPECT_EQ(place_tensor("model.embed_vision.embedding_projection.weight").block, Block::VisionProjector);
  EXPECT_EQ(place_tensor("model.vision_tower.timm_model.blocks.3.4.pw_exp.conv.weight").block, Block::Vision);
}

// The model cards give raw parameter counts of 5B (E2B) and 8B (E4B): what the checkpoints store, the
// KV-shared layers' keys and values included, the tied head not stored. Google's documentation puts E2B's
// "effective" load at 1.91B: the text model without its two embedding tables.
TEST(Gemma3n, CompositeMatchesThePublishedSizes) {
  for (const auto& [text, billions] : {std::pair{kE2bText, 5u}, std::pair{kE4bText, 8u}}) {
    const ModelTemplate t = template_of(composite(text));
    const DiskTotals disk = disk_totals(t);
    EXPECT_EQ((disk.elements + 500'000'000) / 1'000'000'000, billions) << text;
    // transformers builds none of the shared layers' k_proj, v_proj and k_norm.
    const uint64_t shared = text == kE2bText ? 10 : 15;
    EXPECT_EQ(disk.elements - parameters_of(composite(text)), shared * (2 * 512 * 2048 + 256)) << text;
    EXPECT_TRUE(t.arch.tie_word_embeddings);
  }
  const ModelTemplate e2b = template_of(composite(kE2bText));
  const uint64_t text_on_disk = disk_totals(e2b).elements - under(e2b, "model.vision_tower.").elements -
                                under(e2b, "model.audio_tower.").elements -
                                under(e2b, "model.embed_").elements;
  const uint64_t tables = 262400u * 2048 + 262144u * 30 * 256;
  EXPECT_EQ((text_on_disk - tables + 5'000'000) / 10'000'000, 191u);
  // Ollama's text-only gemma3n:e2b, 4.46B: the same text model.
  EXPECT_EQ((text_on_disk + 5'000'000) / 10'000'000, 446u);
}

TEST(Gemma3n, RefusesTowersItCannotBuild) {
  const auto error_of = [](const std::string& from, const std::string& to) {
    const Refusal r = refusal_of(replaced(composite(kE2bText), from, to));
    return std::pair{r.kind, r.field};
  };
  EXPECT_EQ(error_of("mobilenetv5_300m_enc", "mobilenetv5_base").first, ErrorKind::Unsupported);
  EXPECT_EQ(error_of(R"("vocab_offset":262144)", R"("model_args":{"drop_rate":0.1})").first,
            ErrorKind::Unsupported);
  EXPECT_EQ(error_of("[[3,3],[3,3]]", "[[3,3]]"),
            std::pair(ErrorKind::Malformed, std::string("audio_config.sscp_conv_kernel_size")));
  EXPECT_EQ(error_of("[[3,3],[3,3]]", "[[3,3],[3,4096]]").first, ErrorKind::Malformed);
  EXPECT_EQ(error_of(R"("conf_num_attention_heads":8)", R"("conf_num_attention_heads":7)").second,
            "audio_config.conf_num_attention_heads");
}

}  // namespace
}  // namespace ma::test
