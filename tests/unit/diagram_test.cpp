// The architecture diagram (--visualize): SVG well-formed and escaped, the layer pattern as the layers say,
// PNG bytes of the requested size written atomically, and real configs rendered in both styles.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <regex>
#include <vector>

#include "analysis/model_report.h"
#include "analyzed_model.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/diagram_canvas.h"
#include "report/diagram_model.h"
#include "report/diagram_png.h"
#include "report/diagram_svg.h"
#include "report_test_support.h"
#include "svg_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

// Checks that tags nest and close in order and that every '&' starts an entity; returns "" when well-formed,
// else what is wrong. Enough for what our writer emits (no CDATA, no comments, no DOCTYPE).
std::string xml_problem(const std::string& doc) {
  std::vector<std::string> open;
  size_t i = 0;
  bool root_seen = false;
  while (i < doc.size()) {
    if (doc[i] == '&') {
      static const std::regex entity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
      if (!std::regex_search(doc.substr(i, 12), entity)) return "bare & at " + std::to_string(i);
      ++i;
      continue;
    }
    if (doc[i] == '>') return "bare > at " + std::to_string(i);
    if (doc[i] != '<') {
      ++i;
      continue;
    }
    const size_t end = doc.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    const std::string tag = doc.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(i);
    // Attribute values must be quoted and free of raw '<' and '&' that is not an entity (checked above for
    // '<').
    if (tag.front() == '?') {
      if (tag.back() != '?') return "bad processing instruction";
    } else if (tag.front() == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return "</" + name + "> does not close <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    } else {
      const std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
      if (open.empty() && root_seen) return "second root element <" + name + ">";
      root_seen = true;
      if (tag.back() != '/') open.push_back(name);
    }
    i = end + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return root_seen ? "" : "no root element";
}

// xmllint (libxml2-utils, installed by scripts/install-deps.sh) as the independent judge, when present.
void expect_xmllint_accepts(const std::string& svg) {
  if (!test::have_xmllint()) GTEST_SKIP() << "xmllint not installed";
  EXPECT_TRUE(test::xmllint_accepts(svg)) << "xmllint rejects the SVG";
}

// <rect .../> elements filled with `colour`.
size_t count_rects(const std::string& svg, const std::string& colour) {
  const std::regex rect("<rect [^>]*fill=\"" + colour + "\"/>");
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(svg.begin(), svg.end(), rect), std::sregex_iterator()));
}

// A softmax-attention layer with heads (so its kind is known), sliding over `window` tokens when non-zero.
LayerSpec attention_layer(AttentionKind kind, Ffn ffn = Ffn::Dense, uint64_t window = 0) {
  LayerSpec l;
  l.attention.kind = kind;
  l.attention.heads = 32;
  l.attention.kv_heads = kind == AttentionKind::Mha ? 32 : 8;
  l.attention.window = window;
  l.attention.span = window ? Span::Sliding : Span::Full;
  l.ffn.kind = ffn;
  return l;
}

LayerSpec layer(Mixer mixer, Ffn ffn) {
  LayerSpec l;
  l.mixer = mixer;
  l.ffn.kind = ffn;
  return l;
}

// A report whose record has one decoder stack of `layers`.
void set_layers(ModelReport& r, std::vector<LayerSpec> layers) {
  r.arch.stacks.clear();
  r.arch.add_stack(StackRole::Decoder, "model.layers").layers = std::move(layers);
  r.layer_summary = summarize_layers(r.arch.layers());
}

// A Llama-3.1-8B-shaped report, the numbers typed in from its config.json.
ModelReport llama_report() {
  ModelReport r;
  r.identity.model_id = "meta-llama/Llama-3.1-8B";
  r.identity.kind = "causal-lm";
  r.architecture.architecture_type = "decoder-only";
  r.architecture.num_hidden_layers = 32;
  r.architecture.hidden_size = 4096;
  r.architecture.intermediate_size = 14336;
  r.architecture.num_attention_heads = 32;
  r.architecture.num_key_value_heads = 8;
  r.architecture.vocab_size = 128256;
  r.architecture.max_position_embeddings = 131072;
  r.architecture.norm_type = "rmsnorm";
  set_layers(r, std::vector<LayerSpec>(32, attention_layer(AttentionKind::Gqa)));
  r.parameters.total = 8030261248;
  return r;
}

// A Nemotron-H-shaped hybrid: "M-M*-MM" style pattern of Mamba-2, MoE and attention layers.
ModelReport hybrid_report() {
  ModelReport r;
  r.identity.model_id = "example/hybrid";
  r.architecture.architecture_type = "hybrid (ssm+attention)";
  const std::string pattern = "MEMEM*EMEMEM*E";  // M mamba2, E moe, * attention
  std::vector<LayerSpec> layers;
  for (char c : pattern) {
    if (c == 'M') layers.push_back(layer(Mixer::Mamba2, Ffn::None));
    if (c == 'E') layers.push_back(layer(Mixer::None, Ffn::Moe));
    if (c == '*') layers.push_back(attention_layer(AttentionKind::Gqa, Ffn::None));
  }
  set_layers(r, std::move(layers));
  return r;
}

TEST(DiagramTest, SimpleSvgIsWellFormedAndNamesTheModelAndItsLayers) {
  const std::string svg = render_diagram_svg(llama_report(), DiagramStyle::Simple);
  EXPECT_EQ(xml_problem(svg), "");
  expect_xmllint_accepts(svg);
  EXPECT_NE(svg.find("meta-llama/Llama-3.1-8B"), std::string::npos);
  EXPECT_NE(svg.find("32 × Decoder layer"), std::string::npos);
  EXPECT_NE(svg.find("8.03B"), std::string::npos);    // parameters, human form
  EXPECT_NE(svg.find("32 / 8"), std::string::npos);   // heads / KV heads
  EXPECT_NE(svg.find("131,072"), std::string::npos);  // context
  EXPECT_NE(svg.find("Grouped-query attention"), std::string::npos);
  EXPECT_NE(svg.find("4,096 → 14,336 → 4,096"), std::string::npos);         // hidden → FFN → hidden
  EXPECT_NE(svg.find("width=\"1600\" height=\"900\""), std::string::npos);  // 16:9
}

TEST(DiagramTest, DetailedSvgShowsEveryLayerAndUnknownsAsDashes) {
  const std::string svg = render_diagram_svg(llama_report(), DiagramStyle::Detailed);
  EXPECT_EQ(xml_problem(svg), "");
  expect_xmllint_accepts(svg);
  EXPECT_NE(svg.find("32 layers: 0-31"), std::string::npos);
  EXPECT_NE(svg.find("GQA attention  ×32"), std::string::npos);
  EXPECT_NE(svg.find("MLP  ×32"), std::string::npos);
  // 32 layers, each an attention part over an MLP part: 64 strip rectangles in the two part colours.
  // + three chips: the legend's, the layer card's header and the stack's list of kinds.
  EXPECT_EQ(count_rects(svg, "#2563eb"), 32u + 3u);
  EXPECT_EQ(count_rects(svg, "#64748b"), 32u + 3u);
  // No memory analysis in this report: its values are unknown, not zero.
  EXPECT_NE(svg.find(">—</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">0 B<"), std::string::npos);
}

TEST(DiagramTest, HybridPatternIsDrawnLayerByLayerWithALegend) {
  const ModelReport r = hybrid_report();
  const diagram::DiagramModel m = diagram::build_diagram_model(r);
  // The pattern "MEMEM*EMEMEM*E" has 6 M, 6 E and 2 *; it is one 7-layer unit twice.
  ASSERT_EQ(m.cells.size(), 14u);
  EXPECT_EQ(m.period, 7u);
  ASSERT_EQ(m.kinds.size(), 3u);
  EXPECT_EQ(m.kinds[0].title, "Mamba-2");
  EXPECT_EQ(m.kinds[0].indices.size(), 6u);
  EXPECT_EQ(m.kinds[1].title, "MoE");
  EXPECT_EQ(m.kinds[2].title, "Attention");
  EXPECT_EQ(m.kinds[2].indices, (std::vector<uint32_t>{5, 12}));
  for (DiagramStyle style : {DiagramStyle::Simple, DiagramStyle::Detailed}) {
    const std::string svg = render_diagram_svg(r, style);
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_NE(svg.find("14 layers"), std::string::npos);
    if (style == DiagramStyle::Detailed) {  // the legend of the strip, with counts
      EXPECT_NE(svg.find("Mamba-2  ×6"), std::string::npos);
      EXPECT_NE(svg.find("MoE  ×6"), std::string::npos);
      EXPECT_NE(svg.find("GQA attention  ×2"), std::string::npos);
    } else {  // one line per kind of layer
      EXPECT_NE(svg.find("6 × Mamba-2"), std::string::npos);
      EXPECT_NE(svg.find("6 × MoE"), std::string::npos);
      EXPECT_NE(svg.find("2 × Attention   (layers 5,12)"), std::string::npos);
    }
  }
}

TEST(DiagramTest, RepeatPeriod) {
  using diagram::LayerCell;
  const LayerCell a{0, 1}, b{2, 1}, c{-1, 1};
  EXPECT_EQ(diagram::repeat_period({}), 0u);
  EXPECT_EQ(diagram::repeat_period({a}), 1u);
  EXPECT_EQ(diagram::repeat_period(std::vector<LayerCell>(48, a)), 1u);
  // Gemma-3: five sliding-window layers, then one global, eight times.
  std::vector<LayerCell> gemma;
  for (int rep = 0; rep < 8; ++rep) {
    for (int i = 0; i < 5; ++i) gemma.push_back(a);
    gemma.push_back(b);
  }
  EXPECT_EQ(diagram::repeat_period(gemma), 6u);
  // DeepSeek-V3: three dense layers, then 58 MoE layers: no repeating unit.
  std::vector<LayerCell> deepseek(3, a);
  deepseek.insert(deepseek.end(), 58, c);
  EXPECT_EQ(diagram::repeat_period(deepseek), 0u);
  EXPECT_EQ(diagram::repeat_period({a, b, a}), 0u);  // a unit must repeat at least twice
}

TEST(DiagramTest, MarkupInTheModelIdIsEscaped) {
  ModelReport r = llama_report();
  r.identity.model_id = "evil<&>\"'/model\x01</svg>";
  for (DiagramStyle style : {DiagramStyle::Simple, DiagramStyle::Detailed}) {
    const std::string svg = render_diagram_svg(r, style);
    EXPECT_EQ(xml_problem(svg), "");
    expect_xmllint_accepts(svg);
    EXPECT_NE(svg.find("evil&lt;&amp;&gt;&quot;&apos;/model&lt;/svg&gt;"), std::string::npos);
    EXPECT_EQ(svg.find("<&>"), std::string::npos);
    EXPECT_EQ(svg.find('\x01'), std::string::npos);  // control bytes are not XML
  }
  EXPECT_EQ(diagram::xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
}

TEST(DiagramTest, LongLabelsAreCutToFit) {
  const std::string id(300, 'W');
  const std::string cut = diagram::ellipsize(id, 30, true, 500);
  EXPECT_LT(diagram::text_width(cut, 30, true), 500.0);
  EXPECT_EQ(cut.substr(cut.size() - 3), "…");
  // A cut never splits a multi-byte character.
  const std::string arrows = diagram::ellipsize("→→→→→→→→→→", 10, false, 45);
  EXPECT_EQ(arrows, "→→→…");
  ModelReport r = llama_report();
  r.identity.model_id = id;
  const std::string svg = render_diagram_svg(r, DiagramStyle::Simple);
  EXPECT_EQ(svg.find(id + "</text>"), std::string::npos);  // not drawn across the whole slide
  EXPECT_NE(svg.find("WWW…"), std::string::npos);
}

using test::png_size;

TEST(DiagramTest, PngHasTheSignatureAndTheRequestedSize) {
  const std::string svg = render_diagram_svg(llama_report(), DiagramStyle::Detailed);
  test::TempDir dir;
  write_diagram_png(svg, dir / "d.png");
  const std::string png = test::read_file(dir / "d.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(png_size(png), std::make_pair(1600u, 900u));
  EXPECT_GT(png.size(), 20000u);  // a drawing, not an empty canvas
  EXPECT_EQ(png_size(render_diagram_png(svg, 3200)), std::make_pair(3200u, 1800u));
  EXPECT_EQ(png_size(render_diagram_png(svg, 800)), std::make_pair(800u, 450u));
  // Only the final file is left: the temporary one was renamed.
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(DiagramTest, SvgOrPngByExtension) {
  const std::string svg = render_diagram_svg(hybrid_report(), DiagramStyle::Simple);
  test::TempDir dir;
  write_diagram_file(svg, dir / "a.SVG");
  write_diagram_file(svg, dir / "a.png");
  EXPECT_EQ(test::read_file(dir / "a.SVG"), svg);
  EXPECT_EQ(test::read_file(dir / "a.png").substr(1, 3), "PNG");
}

TEST(DiagramTest, UnreadableSvgIsAnErrorAndWritesNothing) {
  test::TempDir dir;
  try {
    write_diagram_png("<svg", dir / "bad.png");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.png"));
  EXPECT_THROW(render_diagram_png(render_diagram_svg(llama_report(), DiagramStyle::Simple), 20000), Error);
}

TEST(DiagramTest, EmptyReportStillDraws) {
  const ModelReport r;
  for (DiagramStyle style : {DiagramStyle::Simple, DiagramStyle::Detailed}) {
    const std::string svg = render_diagram_svg(r, style);
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_NE(svg.find("Unnamed model"), std::string::npos);
    EXPECT_NO_THROW(render_diagram_png(svg));
  }
}

// A report built from config text written here (no shared data needed).
ModelReport report_of(const std::string& config_json, const std::string& id) {
  return test::report_of_config_text(config_json, id);
}

// A T5 with 4 encoder and 6 decoder layers: both stacks drawn, the decoder's cross-attention as its own
// sub-layer, the encoder feeding it; not "6 layers" as if the encoder did not exist.
TEST(DiagramTest, EncoderDecoderDrawsBothStacksAndCrossAttention) {
  const ModelReport r = report_of(R"({"model_type": "t5", "d_model": 64, "d_kv": 16, "d_ff": 128,
      "num_heads": 4, "num_layers": 4, "num_decoder_layers": 6, "vocab_size": 100})",
                                  "tiny-t5");
  const diagram::DiagramModel m = diagram::build_diagram_model(r);
  ASSERT_TRUE(m.encoder);
  EXPECT_EQ(m.encoder->lines.front(), "4 layers · 64 wide · 4 heads");
  EXPECT_TRUE(m.cross_attention);
  EXPECT_EQ(m.num_layers, 6u);
  ASSERT_EQ(m.kinds.size(), 1u);
  EXPECT_EQ(m.kinds[0].title, "Attention + Cross-attention + MLP");
  for (DiagramStyle style : {DiagramStyle::Simple, DiagramStyle::Detailed}) {
    const std::string svg = render_diagram_svg(r, style);
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_NE(svg.find(">Encoder<"), std::string::npos);
    EXPECT_NE(svg.find(">Cross-attention<"), std::string::npos);
    EXPECT_NE(svg.find("6 × Decoder layer"), std::string::npos);
  }
  EXPECT_NE(render_diagram_svg(r, DiagramStyle::Simple).find(">4 + 6<"), std::string::npos);
}

// LLaVA-1.5: the vision tower (24 layers of 1,024, patch 14 at 336 px) and the projector before the
// embedding; decoder-only models have neither box.
TEST(DiagramTest, VisionLanguageDrawsTowerAndProjector) {
  const auto llava = test::load_shared("hf-configs/liuhaotian__llava-v1.5-7b");
  if (!llava) GTEST_SKIP() << "no ../shared/data";
  const ModelReport r = build_model_report(llava->inventory, llava->files, llava->options);
  const diagram::DiagramModel m = diagram::build_diagram_model(r);
  ASSERT_EQ(m.towers.size(), 2u);
  EXPECT_EQ(m.towers[0].title, "Vision tower");
  EXPECT_EQ(m.towers[0].lines[0], "24 layers · 1,024 wide · 16 heads");
  EXPECT_EQ(m.towers[0].lines[1], "patch 14 · 336 px");
  EXPECT_EQ(m.towers[1].title, "Projector");
  EXPECT_FALSE(m.encoder);
  const std::string detailed = render_diagram_svg(r, DiagramStyle::Detailed);
  EXPECT_NE(detailed.find(">Vision tower<"), std::string::npos);
  EXPECT_NE(detailed.find(">Projector<"), std::string::npos);
  EXPECT_NE(detailed.find("token ids + images"), std::string::npos);
  EXPECT_TRUE(diagram::build_diagram_model(llama_report()).towers.empty());
}

// Real configs: the stack's layer count as each config.json states it (num_hidden_layers, n_layer for gpt2).
struct RealModel {
  std::string dir;
  uint64_t layers;
};

class DiagramRealConfigs : public ::testing::TestWithParam<RealModel> {};

TEST_P(DiagramRealConfigs, RendersBothStyles) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const RealModel& p = GetParam();
  std::filesystem::path dir = *data / "hf-configs" / p.dir;
  if (!std::filesystem::exists(dir)) dir = *data / "synthetic-configs" / p.dir;
  ReportOptions options;
  options.model_id = p.dir;
  const LocalModelFiles files = locate_local_model(dir.string());
  const Inventory inv = build_inventory(files);
  ModelReport r = build_model_report(inv, files, options);
  // The identity section names the model; this test is about the drawing, so it names it itself if needed.
  if (r.identity.model_id.empty()) r.identity.model_id = p.dir;
  ASSERT_EQ(r.arch.layers().size(), p.layers);
  const char* out = std::getenv("MA_DIAGRAM_OUT");  // keep the PNGs for a look, when asked to
  for (DiagramStyle style : {DiagramStyle::Simple, DiagramStyle::Detailed}) {
    const std::string svg = render_diagram_svg(r, style);
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_NE(svg.find(diagram::xml_escape(p.dir)), std::string::npos);
    const std::string n = std::to_string(p.layers);
    if (style == DiagramStyle::Detailed)
      EXPECT_NE(svg.find(n + " layers"), std::string::npos);
    else
      EXPECT_NE(svg.find(">" + n + "<"), std::string::npos);  // the Layers statistic
    const std::string png = render_diagram_png(svg);
    EXPECT_EQ(png_size(png), std::make_pair(1600u, 900u));
    if (out) {
      const std::string name = p.dir + (style == DiagramStyle::Simple ? "-simple.png" : "-detailed.png");
      write_diagram_png(svg, std::filesystem::path(out) / name);
      write_diagram_file(svg, std::filesystem::path(out) / (name.substr(0, name.size() - 4) + ".svg"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, DiagramRealConfigs,
                         ::testing::Values(RealModel{"meta-llama__Meta-Llama-3.1-8B", 32},
                                           RealModel{"deepseek-ai__DeepSeek-V3", 61},
                                           RealModel{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 52},
                                           RealModel{"gemma-3-12b-text-shape", 48},
                                           RealModel{"openai-community__gpt2", 12},
                                           RealModel{"google-bert__bert-base-uncased", 12},
                                           RealModel{"ibm-granite__granite-3.1-1b-a400m-instruct", 24},
                                           RealModel{"jamba-v0.1-shape", 32}),
                         [](const ::testing::TestParamInfo<RealModel>& param) {
                           std::string n = param.param.dir;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace ma
