// An encoder-decoder is two stacks: a T5 with 4 encoder and 6 decoder layers reports both (architecture
// fields, the layer map in JSON, the Layers section), its decoder layers as attention + cross-attention +
// dense, never "layers 6" as if the encoder did not exist.
#include <gtest/gtest.h>

#include "analysis/model_report.h"
#include "core/json.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/model_report_render.h"
#include "test_support.h"

namespace ma {
namespace {

ModelReport tiny_t5() {
  test::TempDir dir;
  test::write_file(dir / "config.json", R"({"model_type": "t5", "d_model": 64, "d_kv": 16, "d_ff": 128,
      "num_heads": 4, "num_layers": 4, "num_decoder_layers": 6, "vocab_size": 100})");
  const LocalModelFiles files = locate_local_model(dir.path().string());
  ReportOptions options;
  options.model_id = "tiny-t5";
  return build_model_report(build_inventory(files), files, options);
}

TEST(EncoderDecoderReport, JsonListsBothStacksLayerByLayer) {
  const ModelReport r = tiny_t5();
  const json::Document d =
      json::Document::parse(render_report_json(r, RunInfo{"now", "modelanalyzer test"}), "report");
  const json::Value& a = *d.root().find("architecture");
  EXPECT_EQ(a.find("encoder_layers")->as_uint(), 4u);
  EXPECT_EQ(a.find("decoder_layers")->as_uint(), 6u);
  const json::Value& decoder = *d.root().find("layers");
  const json::Value& encoder = *d.root().find("encoder_layer_map");
  ASSERT_EQ(decoder.items().size(), 6u);
  ASSERT_EQ(encoder.items().size(), 4u);
  EXPECT_EQ(decoder.items()[0].find("type")->as_string(), "attention+cross-attention+dense");
  EXPECT_EQ(encoder.items()[0].find("type")->as_string(), "attention+dense");
}

TEST(EncoderDecoderReport, ConsoleAndMarkdownNameEachStack) {
  const ModelReport r = tiny_t5();
  const std::string console = render_report_console(r, {}, false);
  EXPECT_NE(console.find("4 encoder + 6 decoder"), std::string::npos) << console;
  EXPECT_NE(console.find("4 x attention+dense (encoder)"), std::string::npos) << console;
  EXPECT_NE(console.find("6 x attention+cross-attention+dense (decoder)"), std::string::npos) << console;
  const std::string md = render_report_markdown(r, RunInfo{"now", "modelanalyzer test"});
  EXPECT_NE(md.find("| attention+dense (encoder) | 4 | 0-3 |"), std::string::npos) << md;
}

TEST(EncoderDecoderReport, DecoderOnlyModelsHaveNoEncoderMap) {
  test::TempDir dir;
  test::write_file(dir / "config.json", test::tiny_llama_config("2"));
  const LocalModelFiles files = locate_local_model(dir.path().string());
  const ModelReport r = build_model_report(build_inventory(files), files, {});
  const json::Document d =
      json::Document::parse(render_report_json(r, RunInfo{"now", "modelanalyzer test"}), "report");
  EXPECT_TRUE(d.root().find("encoder_layer_map")->is_null());
  EXPECT_EQ(render_report_console(r, {}, false).find("(decoder)"), std::string::npos);
}

}  // namespace
}  // namespace ma
