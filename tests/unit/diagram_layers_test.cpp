// What the architecture diagram says about the layers, checked against the configs and tensors it was drawn
// from: each attention variant's own heads, head dim and rotary base (Gemma-4's full layers are not its
// sliding ones), the data flow of post-norm and sandwich-norm layers, per-layer FFN widths, state-space
// mixers without an MLP or a context limit, a vision encoder's patches and classes, soft-capped attention and
// a LoRA adapter's projections.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "analysis/peft_adapter.h"
#include "analyzed_model.h"
#include "core/units.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/diagram_model.h"
#include "report/diagram_parts.h"
#include "report/diagram_svg.h"
#include "test_support.h"

namespace ma {
namespace {

bool draws_text(const std::string& svg, const std::string& text) {
  return svg.find(">" + diagram::xml_escape(text) + "<") != std::string::npos;
}

bool svg_mentions(const std::string& svg, const std::string& text) {
  return svg.find(diagram::xml_escape(text)) != std::string::npos;
}

// The report the tool builds for a config written here (no shared data needed).
ModelReport report_from_config(const std::string& config_json, const std::string& id) {
  return test::report_of_config_text(config_json, id);
}

// The report of a model under ../shared/data; null (the caller skips) without the data.
std::unique_ptr<ModelReport> shared_report(const std::string& relative) {
  const auto data = test::shared_data();
  if (!data || !std::filesystem::exists(*data / relative)) return nullptr;
  const LocalModelFiles files = locate_local_model((*data / relative).string());
  const Inventory inv = build_inventory(files);
  ReportOptions options;
  options.model_id = relative;
  options.skip_tokenizer = true;
  return std::make_unique<ModelReport>(build_model_report(inv, files, options));
}

// A softmax-attention layer of its own shape, sliding over `window` tokens when non-zero.
LayerSpec shaped_attention(uint64_t kv_heads, uint64_t head_dim, uint64_t window) {
  LayerSpec l;
  l.attention.kind = AttentionKind::Gqa;
  l.attention.heads = 32;
  l.attention.kv_heads = kv_heads;
  l.attention.head_dim = head_dim;
  l.attention.window = window;
  l.attention.span = window ? Span::Sliding : Span::Full;
  l.ffn.kind = Ffn::Dense;
  return l;
}

// A decoder of `layers` with the report-wide values of its first layer, as the analyses set them.
ModelReport decoder_of(std::vector<LayerSpec> layers) {
  ModelReport r;
  r.identity.model_id = "example/layers";
  r.identity.kind = "causal-lm";
  r.architecture.architecture_type = "decoder-only";
  r.architecture.hidden_size = 1024;
  r.architecture.intermediate_size = 4096;
  r.architecture.norm_type = "rmsnorm";
  r.architecture.num_hidden_layers = layers.size();
  r.architecture.num_attention_heads = layers.front().attention.heads;
  r.architecture.num_key_value_heads = layers.front().attention.kv_heads;
  r.architecture.head_dim = layers.front().attention.head_dim;
  r.arch.add_stack(StackRole::Decoder, "model.layers").layers = std::move(layers);
  return r;
}

// <rect> elements as (x, y, width, height), in document order, each with the text drawn right after it.
struct DrawnBox {
  double x, y, w, h;
  std::string text;
};
std::vector<DrawnBox> boxes_with_text(const std::string& svg) {
  static const std::regex box(
      R"re(<rect x="([-0-9.]+)" y="([-0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"[^>]*/>\n<text[^>]*>([^<]*)</text>)re");
  std::vector<DrawnBox> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), box); it != std::sregex_iterator(); ++it)
    out.push_back(
        {std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4]), (*it)[5]});
  return out;
}

// The points of every <polyline> of `stroke` and `width`, in document order.
std::vector<std::vector<double>> polylines(const std::string& svg, const std::string& stroke,
                                           const std::string& width) {
  static const std::regex line(
      R"re(<polyline points="([^"]*)" fill="none" stroke="([^"]*)" stroke-width="([^"]*)")re");
  std::vector<std::vector<double>> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line); it != std::sregex_iterator(); ++it) {
    if ((*it)[2] != stroke || (*it)[3] != width) continue;
    std::string points = (*it)[1];
    for (char& c : points)
      if (c == ',') c = ' ';
    std::vector<double> xy;
    std::istringstream in(points);
    for (double v; in >> v;) xy.push_back(v);
    out.push_back(xy);
  }
  return out;
}

// A card line too long for its box breaks at its " · " separators, never inside a fact.
TEST(DiagramLayers, LongLinesBreakBetweenFacts) {
  const std::string line = "10× full: 4 KV · dim 512 · K = V · RoPE θ 1,000,000 (proportional)";
  const double width = diagram::text_width("10× full: 4 KV · dim 512 · K = V", 12) + 1;
  EXPECT_EQ(
      diagram::wrap_at_dots(line, width, 12),
      (std::vector<std::string>{"10× full: 4 KV · dim 512 · K = V", "RoPE θ 1,000,000 (proportional)"}));
  EXPECT_EQ(diagram::wrap_at_dots(line, 2000, 12), std::vector<std::string>{line});  // fits: as it is
}

// Gemma-4-shaped: five sliding layers of 16 KV heads of 256, then a full one of 4 KV heads of 512 with K = V,
// twice; the sliding layers rotate with base 10,000, the full ones with 1,000,000 "proportional".
TEST(DiagramLayers, EachAttentionVariantShowsItsOwnShapeAndRotaryBase) {
  std::vector<LayerSpec> layers;
  for (int unit = 0; unit < 2; ++unit) {
    for (int i = 0; i < 5; ++i) layers.push_back(shaped_attention(16, 256, 1024));
    layers.push_back(shaped_attention(4, 512, 0));
    layers.back().attention.keys_are_values = true;
  }
  ModelReport r = decoder_of(layers);
  r.architecture.position_embedding = "rope";
  r.architecture.rope = RopeSpec{"proportional", 1e6, std::nullopt, std::nullopt, 0.25, 10000.0};
  const diagram::DiagramModel m = diagram::build_diagram_model(r);
  ASSERT_EQ(m.kinds.size(), 1u);
  const std::vector<diagram::AttentionVariant> v = diagram::attention_variants(r, m, m.kinds[0]);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].layers, 10u);
  EXPECT_EQ(v[0].kv_heads.text(), "16");
  EXPECT_EQ(v[1].kv_heads.text(), "4");
  EXPECT_EQ(v[1].head_dim.text(), "512");

  const std::string detailed = render_diagram_svg(r, DiagramStyle::Detailed);
  EXPECT_TRUE(svg_mentions(detailed, "10× sliding 1,024: 16 KV · dim 256 · RoPE θ 10,000")) << detailed;
  EXPECT_TRUE(svg_mentions(detailed, "2× full: 4 KV · dim 512 · K = V")) << detailed;
  EXPECT_TRUE(svg_mentions(detailed, "RoPE θ 1,000,000 (proportional)"));
  EXPECT_FALSE(svg_mentions(detailed, "16 KV · dim 256 · RoPE θ 1,000,000"))
      << "the sliding layers' base is 10,000";
  const std::string simple = render_diagram_svg(r, DiagramStyle::Simple);
  EXPECT_TRUE(draws_text(simple, "32 / 4-16"));
  EXPECT_TRUE(draws_text(simple, "32 heads · 4-16 KV · dim 256-512"));
}

// Llama-4-shaped: chunked layers in both kinds of layer (dense and MoE), full ones among the MoE layers only;
// each card counts the variants among its own layers.
TEST(DiagramLayers, VariantsAreCountedWithinTheirKindOfLayer) {
  std::vector<LayerSpec> layers;
  for (int unit = 0; unit < 2; ++unit)
    for (int i = 0; i < 4; ++i) {
      LayerSpec l = shaped_attention(8, 128, i == 3 ? 0 : 8192);
      if (l.attention.window) l.attention.span = Span::Chunked;
      l.ffn.kind = i % 2 ? Ffn::Moe : Ffn::Dense;
      layers.push_back(l);
    }
  const std::string svg = render_diagram_svg(decoder_of(layers), DiagramStyle::Detailed);
  EXPECT_TRUE(draws_text(svg, "4× Chunked GQA (8,192)")) << svg;                     // layers 0, 2, 4, 6
  EXPECT_TRUE(draws_text(svg, "2× Chunked GQA (8,192) · 2× GQA attention")) << svg;  // 1, 5 and 3, 7
  EXPECT_FALSE(svg_mentions(svg, "6× Chunked"));
}

// The real Gemma-4 31B: its full layers keep num_global_key_value_heads of global_head_dim each.
TEST(DiagramLayers, Gemma4FullLayersShowTheGlobalHeadsOfTheConfig) {
  const auto r = shared_report("hf-configs/google__gemma-4-31B-it");
  if (!r) GTEST_SKIP() << "no ../shared/data (hf-configs/google__gemma-4-31B-it)";
  const json::Document config =
      test::parse_json_file(*test::shared_data() / "hf-configs/google__gemma-4-31B-it/config.json");
  const json::Value& text = *config.root().find("text_config");
  const uint64_t global_kv = *text.find("num_global_key_value_heads")->as_uint();
  const uint64_t global_dim = *text.find("global_head_dim")->as_uint();
  const uint64_t kv = *text.find("num_key_value_heads")->as_uint();
  const uint64_t dim = *text.find("head_dim")->as_uint();
  const double local_theta =
      text.find("rope_parameters")->find("sliding_attention")->find("rope_theta")->as_double();
  const std::string svg = render_diagram_svg(*r, DiagramStyle::Detailed);
  EXPECT_TRUE(
      svg_mentions(svg, "full: " + with_thousands(global_kv) + " KV · dim " + with_thousands(global_dim)))
      << svg;
  EXPECT_TRUE(svg_mentions(svg, ": " + with_thousands(kv) + " KV · dim " + with_thousands(dim) +
                                    " · RoPE θ " + plain_number(local_theta)));
}

// Post-norm (BERT): h = LN(x + f(x)); the next sub-layer and its residual both read h, the norm's output.
TEST(DiagramLayers, PostNormResidualsAndRowsLeaveAfterTheNorm) {
  const ModelReport r = report_from_config(
      R"({"model_type":"bert","architectures":["BertForMaskedLM"],"hidden_size":64,"num_hidden_layers":2,
          "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"max_position_embeddings":64})",
      "tiny-bert");
  ASSERT_TRUE(r.arch.post_norm);
  // Detailed: the second sub-layer's residual (the second grey elbow) leaves below the first LayerNorm.
  const std::string detailed = render_diagram_svg(r, DiagramStyle::Detailed);
  std::vector<DrawnBox> norms;
  for (const DrawnBox& b : boxes_with_text(detailed))
    if (b.text == "LayerNorm" && b.w <= 150) norms.push_back(b);
  ASSERT_EQ(norms.size(), 2u);
  const auto residuals = polylines(detailed, "#94a3b8", "1.5");
  ASSERT_EQ(residuals.size(), 2u);
  EXPECT_GT(residuals[1][1], norms[0].y + norms[0].h) << "the residual branches before the LayerNorm";
  EXPECT_LT(residuals[1][1], norms[1].y);
  // Simple: the connector into the MLP row starts at the bottom of the attention row's LayerNorm.
  const std::string simple = render_diagram_svg(r, DiagramStyle::Simple);
  std::vector<DrawnBox> row_norms;
  for (const DrawnBox& b : boxes_with_text(simple))
    if (b.text == "LayerNorm") row_norms.push_back(b);
  ASSERT_GE(row_norms.size(), 1u);
  std::vector<double> connector;
  for (const auto& xy : polylines(simple, "#64748b", "2"))
    if (xy.size() >= 8) connector = xy;
  ASSERT_FALSE(connector.empty());
  EXPECT_NEAR(connector[0], row_norms[0].x + row_norms[0].w / 2, 0.2);  // SVG numbers have one decimal
  EXPECT_NEAR(connector[1], row_norms[0].y + row_norms[0].h, 0.2);
}

// Gemma-2/3/4 norm each sub-layer's output too, before the add: four norms per layer, the add after the
// second.
TEST(DiagramLayers, SandwichNormsAreDrawnBeforeEachAdd) {
  ModelReport r = decoder_of(std::vector<LayerSpec>(4, shaped_attention(8, 256, 0)));
  r.arch.attention_softcap = 50;
  diagram::DiagramModel m = diagram::build_diagram_model(r);
  m.norms.after_part = true;
  for (const std::string& svg : {diagram::render_detailed(r, m), diagram::render_simple(r, m)}) {
    std::vector<DrawnBox> norms;
    for (const DrawnBox& b : boxes_with_text(svg))
      if (b.text == "RMSNorm") norms.push_back(b);
    ASSERT_EQ(norms.size(), 4u) << svg;
    // The first add's circle comes after the attention's post-norm (below it, or right of it).
    static const std::regex circle(R"re(<circle cx="([-0-9.]+)" cy="([-0-9.]+)")re");
    std::smatch add;
    ASSERT_TRUE(std::regex_search(svg, add, circle));
    const double ax = std::stod(add[1]), ay = std::stod(add[2]);
    EXPECT_TRUE(ay > norms[1].y + norms[1].h || ax > norms[1].x + norms[1].w);
  }
  EXPECT_TRUE(draws_text(diagram::render_detailed(r, m), "scores soft-capped at 50"));
}

// Where the norms sit comes from the tensors: Gemma-2's layers hold input_layernorm,
// post_attention_layernorm, pre_feedforward_layernorm and post_feedforward_layernorm (four norms, two before
// and two after the sub-layers); OLMo-2's only post_attention_layernorm and post_feedforward_layernorm (its
// sub-layers' outputs); Llama's input_layernorm and post_attention_layernorm (both inputs).
TEST(DiagramLayers, NormPlacementFollowsTheLayersNorms) {
  const auto gemma = shared_report("fixtures/tiny-gemma2");
  const auto olmo = shared_report("synthetic-configs/olmo-2-7b-shape");
  const auto llama = shared_report("fixtures/tiny-llama");
  if (!gemma || !olmo || !llama)
    GTEST_SKIP() << "no ../shared/data (tiny-gemma2, olmo-2-7b-shape, tiny-llama)";
  EXPECT_TRUE(gemma->arch.norm_before_sublayer && gemma->arch.norm_after_sublayer);
  EXPECT_TRUE(!olmo->arch.norm_before_sublayer && olmo->arch.norm_after_sublayer);
  EXPECT_TRUE(llama->arch.norm_before_sublayer && !llama->arch.norm_after_sublayer);
  const auto norm_boxes = [](const ModelReport& r) {
    size_t n = 0;
    for (const DrawnBox& b : boxes_with_text(render_diagram_svg(r, DiagramStyle::Detailed)))
      n += b.text == "RMSNorm";
    return n;
  };
  EXPECT_EQ(norm_boxes(*gemma), 4u);
  EXPECT_EQ(norm_boxes(*olmo), 2u);
  EXPECT_EQ(norm_boxes(*llama), 2u);
}

// The soft-cap of Gemma-2's config (attn_logit_softcapping) on its attention card.
TEST(DiagramLayers, Gemma2AttentionShowsTheConfigSoftCap) {
  const auto r = shared_report("synthetic-configs/gemma-2-9b-shape");
  if (!r) GTEST_SKIP() << "no ../shared/data (synthetic-configs/gemma-2-9b-shape)";
  const json::Document config =
      test::parse_json_file(*test::shared_data() / "synthetic-configs/gemma-2-9b-shape/config.json");
  const double cap = config.root().find("attn_logit_softcapping")->as_double();
  EXPECT_TRUE(draws_text(render_diagram_svg(*r, DiagramStyle::Detailed),
                         "scores soft-capped at " + plain_number(cap)));
}

// DeciLM (Nemotron-Super-49B): every layer its own FFN width; each kind shows the range of its layers'.
TEST(DiagramLayers, LayersOfDifferentWidthsShowTheirRange) {
  std::vector<LayerSpec> layers(4, shaped_attention(8, 128, 0));
  const uint64_t widths[] = {2816, 28672, 14336, 5632};
  for (size_t i = 0; i < layers.size(); ++i) layers[i].ffn.intermediate = widths[i];
  LayerSpec mlp_only;
  mlp_only.mixer = Mixer::None;
  mlp_only.ffn.intermediate = 3584;
  layers.push_back(mlp_only);
  ModelReport r = decoder_of(layers);
  r.architecture.intermediate_size = 28672;  // the widest, as the record's model-wide value
  const std::string svg = render_diagram_svg(r, DiagramStyle::Detailed);
  EXPECT_TRUE(draws_text(svg, "1,024 → 2,816-28,672 → 1,024")) << svg;  // the attention layers
  EXPECT_TRUE(draws_text(svg, "1,024 → 3,584 → 1,024"));                // the attention-free one
  EXPECT_FALSE(draws_text(svg, "1,024 → 28,672 → 1,024"));
  EXPECT_TRUE(draws_text(render_diagram_svg(r, DiagramStyle::Simple), "FFN 2,816-28,672"));
}

// Mamba: no MLP, no KV cache, no context limit; its mixer's d_inner (expand x hidden), d_state, conv and dt
// rank from the config, and the totals that need a context say so.
TEST(DiagramLayers, StateSpaceModelShowsItsMixerAndNoCacheOrLimit) {
  const ModelReport r = report_from_config(
      R"({"model_type":"mamba","architectures":["MambaForCausalLM"],"hidden_size":64,"num_hidden_layers":2,
          "vocab_size":100,"state_size":16,"expand":2,"conv_kernel":4,"time_step_rank":8})",
      "tiny-mamba");
  const std::string simple = render_diagram_svg(r, DiagramStyle::Simple);
  EXPECT_FALSE(svg_mentions(simple, "FFN")) << "Mamba has no MLP";
  EXPECT_TRUE(draws_text(simple, "no MLP · d_inner 128"));  // expand 2 x hidden 64
  EXPECT_TRUE(draws_text(simple, "no limit"));
  EXPECT_TRUE(svg_mentions(simple, "state only"));
  EXPECT_FALSE(draws_text(simple, "—"));
  const std::string detailed = render_diagram_svg(r, DiagramStyle::Detailed);
  EXPECT_TRUE(draws_text(detailed, "d_inner 128 · d_state 16"));
  EXPECT_TRUE(draws_text(detailed, "conv 4 · dt rank 8"));
  EXPECT_TRUE(draws_text(detailed, "none (state only)"));
  EXPECT_TRUE(draws_text(detailed, "pass --context"));
  EXPECT_FALSE(svg_mentions(detailed, "× — tokens"));
}

// ViT: no vocabulary; the embedding projects patch_size² pixel patches, (image_size / patch_size)² of them
// plus [CLS]; the classifier maps to classes.
TEST(DiagramLayers, VisionEncoderShowsPatchesAndClasses) {
  const ModelReport r = report_from_config(
      R"({"model_type":"vit","architectures":["ViTForImageClassification"],"hidden_size":64,
          "num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"image_size":32,"patch_size":8,
          "num_labels":10})",
      "tiny-vit");
  for (DiagramStyle style : {DiagramStyle::Simple, DiagramStyle::Detailed}) {
    const std::string svg = render_diagram_svg(r, style);
    EXPECT_TRUE(draws_text(svg, "patch 8×8 → 64")) << svg;
    EXPECT_TRUE(draws_text(svg, "16 patches + [CLS]"));  // (32 / 8)² and the class token
    EXPECT_FALSE(svg_mentions(svg, "— × 64"));
    EXPECT_FALSE(svg_mentions(svg, "→ —"));
  }
  EXPECT_TRUE(draws_text(render_diagram_svg(r, DiagramStyle::Simple), "32 × 32 px"));
  EXPECT_TRUE(draws_text(render_diagram_svg(r, DiagramStyle::Detailed), "64 → class logits"));
}

// A PEFT LoRA adapter: its rank, alpha and target projections (adapter_config.json) on the diagram.
TEST(DiagramLayers, LoraAdapterIsMarkedOnItsProjections) {
  // As the summary command reports an adapter: its base model's report, with the adapter beside it.
  const auto r = shared_report("fixtures/tiny-llama");
  if (!r || !std::filesystem::exists(*test::shared_data() / "fixtures/tiny-llama-lora"))
    GTEST_SKIP() << "no ../shared/data (fixtures/tiny-llama, fixtures/tiny-llama-lora)";
  r->adapter =
      summarize_adapter(locate_local_model((*test::shared_data() / "fixtures/tiny-llama-lora").string()));
  const json::Document config =
      test::parse_json_file(*test::shared_data() / "fixtures/tiny-llama-lora/adapter_config.json");
  const uint64_t rank = *config.root().find("r")->as_uint();
  const double alpha = config.root().find("lora_alpha")->as_double();
  std::string targets;
  for (const json::Value& t : config.root().find("target_modules")->items())
    targets += (targets.empty() ? "" : ", ") + std::string(t.as_string());
  const std::string svg = render_diagram_svg(*r, DiagramStyle::Detailed);
  EXPECT_TRUE(draws_text(svg, "LoRA r " + std::to_string(rank) + ": " + targets)) << svg;
  EXPECT_TRUE(draws_text(svg, "LoRA adapter, r " + std::to_string(rank) + " · α " + plain_number(alpha)));
}

}  // namespace
}  // namespace ma
