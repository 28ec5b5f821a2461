// A checkpoint whose tensor shapes contradict config.json (here a vocabulary resized after the config was
// written): transformers refuses to load it, so the report says so once, with both parameter counts, instead
// of one warning per tensor and a count labelled exact that describes no loadable model.
#include <gtest/gtest.h>

#include "analysis/parameter_counts.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {
namespace {

// The template's tensors for `config`, stored (as holes) with `stored_vocab` rows wherever it predicts
// `config_vocab` rows.
void write_checkpoint(const TempDir& dir, const std::string& config, uint64_t config_vocab,
                      uint64_t stored_vocab) {
  write_file(dir / "config.json", config);
  std::vector<TensorToWrite> tensors;
  for (const TemplateTensor& t : build_template(ModelConfig::parse(config, "config.json")).tensors) {
    if (!t.tied_to.empty() || t.kind != TensorKind::Parameter) continue;
    Shape shape = t.shape;
    if (!shape.empty() && shape[0] == config_vocab) shape[0] = stored_vocab;
    tensors.push_back({t.name, DType::F32, shape, {}});
  }
  write_safetensors(dir / "model.safetensors", tensors);
}

size_t warnings_naming(const Inventory& inv, std::string_view part) {
  size_t n = 0;
  for (const std::string& w : inv.warnings) n += w.find(part) != std::string::npos;
  return n;
}

TEST(ShapeContradiction, OneWarningWithBothCounts) {
  TempDir dir;
  write_checkpoint(dir, tiny_llama_config("2"), 100, 120);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_EQ(inv.shape_contradictions, 2u) << "embedding and untied LM head";
  EXPECT_EQ(inv.warnings.size(), 1u);
  ASSERT_EQ(warnings_naming(inv, "contradicts config.json in 2 tensor shapes"), 1u);
  const ParameterCounts p = count_parameters(inv);
  ASSERT_TRUE(p.as_stored);
  EXPECT_EQ(*p.as_stored, p.total + 2 * 20 * 64) << "20 more rows of 64 in the embedding and in the head";
  EXPECT_EQ(warnings_naming(inv, "will not load as configured"), 1u);
}

TEST(ShapeContradiction, AgreeingShapesCountExactly) {
  TempDir dir;
  write_checkpoint(dir, tiny_llama_config("2"), 100, 100);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_EQ(inv.shape_contradictions, 0u);
  EXPECT_TRUE(inv.warnings.empty());
  EXPECT_FALSE(count_parameters(inv).as_stored);
}

}  // namespace
}  // namespace ma::test
