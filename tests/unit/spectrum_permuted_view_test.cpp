// A PyTorch view saved transposed (`W.t()`, strides (1, rows)) holds its elements column by column: spectrum
// and embeddings read it in its logical row-major order (analysis/matrix_reader.h), and skip, naming it, a
// permuted view wider than 2-D whose order on disk is not carried. Reading the bytes as row-major scrambled
// the matrix: a rank-5 q_proj.t() came out rank 24, an embedding's outlier row was lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/element_decoder.h"
#include "analysis/embedding/embedding_analysis.h"
#include "analysis/matrix_reader.h"
#include "analysis/model_weight_stats.h"
#include "analysis/spectrum/model_spectrum.h"
#include "core/error.h"
#include "core/json.h"
#include "formats/model_files.h"
#include "io/file_source.h"
#include "lapack_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// `values` as raw float32 bytes in a file of their own.
fs::path permuted_view_raw_file(const test::TempDir& dir, const std::string& name,
                                const std::vector<double>& values) {
  const fs::path file = dir / name;
  std::ofstream(file, std::ios::binary) << test::f32_bytes(values);
  return file;
}

// W[i][j] = a_i * b_j (rank 1, σ₁ = ‖a‖·‖b‖) as torch stores W.t().t(): the bytes of its transpose, column j
// of W after column j - 1.
struct PermutedViewRankOne {
  std::vector<double> a = {1, 2, 3}, b = {1, -1, 2, 0.5};
  std::vector<double> row_major() const {
    std::vector<double> w;
    for (double ai : a)
      for (double bj : b) w.push_back(ai * bj);
    return w;
  }
  std::vector<double> column_major() const {
    std::vector<double> w;
    for (double bj : b)
      for (double ai : a) w.push_back(ai * bj);
    return w;
  }
};

TEST(PermutedView, ReaderGathersATransposedViewInRowMajorOrder) {
  test::TempDir dir;
  const PermutedViewRankOne w;
  const fs::path file = permuted_view_raw_file(dir, "wt.bin", w.column_major());
  ScanItem item{"model.layers.0.self_attn.q_proj.weight", file, 0, 12 * 4, DType::F32, Shape{3, 4}, 12, {}};
  item.permuted = true;
  const FileSource source(file);
  ElementDecoder decoder;
  std::vector<float> out;
  read_elements_as_float(source, item, 0, 12, out, decoder);
  const std::vector<double> expected = w.row_major();
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "element " << i;
  // A range inside it: elements 5..9 of the row-major order (row 1 from column 1, row 2 to column 1).
  read_elements_as_float(source, item, 5, 5, out, decoder);
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(out[i], expected[5 + i]) << "element " << 5 + i;
  // A permuted 3-D view: its order is not known, so it is refused rather than read wrong.
  ScanItem wide{"experts", file, 0, 12 * 4, DType::F32, Shape{1, 3, 4}, 12, {}};
  wide.permuted = true;
  EXPECT_FALSE(why_not_row_major(wide).empty());
  EXPECT_TRUE(why_not_row_major(item).empty());
  EXPECT_THROW(read_elements_as_float(source, wide, 0, 12, out, decoder), Error);
}

// The rank-1 matrix stored transposed is rank 1 with σ₁ = ‖a‖·‖b‖ (its bytes read row-major are rank 3); a
// permuted stacked-expert tensor is skipped with the reason, the rest analysed.
TEST(PermutedView, SpectrumOfATransposedViewIsTheMatrixs) {
  SKIP_WITHOUT_LAPACK();
  test::TempDir dir;
  const PermutedViewRankOne w;
  const fs::path file = permuted_view_raw_file(dir, "wt.bin", w.column_major());
  PlannedScan plan;
  plan.items.push_back(
      {"model.layers.0.self_attn.q_proj.weight", file, 0, 12 * 4, DType::F32, Shape{3, 4}, 12, {}, true});
  plan.items.push_back(
      {"model.layers.0.mlp.experts.gate_up_proj", file, 0, 12 * 4, DType::F32, Shape{1, 3, 4}, 12, {}, true});
  for (size_t i = 0; i < plan.items.size(); ++i) {
    plan.trainable.push_back(true);
    plan.counted_parameters.push_back(12);
    plan.counted_bytes.push_back(48);
  }
  const ModelSpectrum s = compute_model_spectrum(plan, SpectrumOptions{});
  ASSERT_EQ(s.matrices.size(), 1u);
  const MatrixSpectrum& m = s.matrices[0];
  EXPECT_EQ(m.rows, 3u);
  EXPECT_EQ(m.cols, 4u);
  EXPECT_EQ(m.metrics.actual_rank, 1u) << "read as row-major bytes it is rank 3";
  double na = 0, nb = 0;
  for (double v : w.a) na += v * v;
  for (double v : w.b) nb += v * v;
  EXPECT_NEAR(m.metrics.spectral_norm, std::sqrt(na * nb), 1e-5 * std::sqrt(na * nb));
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].find("model.layers.0.mlp.experts.gate_up_proj"), std::string::npos) << s.skipped[0];
  EXPECT_NE(s.skipped[0].find("not in row-major order"), std::string::npos) << s.skipped[0];
}

// torch.save itself: a transposed embedding whose row 7 was scaled by 50 through the view, and a rank-5
// q_proj saved as q.t(). Planned as `spectrum` and `embeddings` plan them, both come out as torch sees them.
TEST(PermutedView, TorchTransposedViewsKeepTheirRowsAndRank) {
  SKIP_WITHOUT_LAPACK();
  if (!test::python_imports("torch")) GTEST_SKIP() << test::kPython << " with torch is not installed";
  test::TempDir dir;
  const fs::path file = dir / "pytorch_model.bin";
  const std::string script =
      "import json, sys, torch\n"
      "torch.manual_seed(0)\n"
      "base = torch.randn(16, 40)\n"
      "emb = base.t()\n"
      "emb[7] *= 50\n"
      "q = (torch.randn(24, 5) @ torch.randn(5, 32)).t()\n"
      "torch.save({'model.embed_tokens.weight': emb, 'model.layers.0.self_attn.q_proj.weight': q}, "
      "sys.argv[1])\n"
      "n = emb.double().norm(dim=1)\n"
      "print(json.dumps({'strides': [list(emb.stride()), list(q.stride())],\n"
      "  'sigma': torch.linalg.svdvals(q.double()).tolist(), 'rank': int(torch.linalg.matrix_rank(q)),\n"
      "  'argmax': int(n.argmax()), 'max_norm': float(n.max())}))\n";
  test::write_file(dir / "write.py", script);
  const test::CommandResult py = test::run_shell(std::string(test::kPython) + " " +
                                                 test::quoted(dir / "write.py") + " " + test::quoted(file));
  ASSERT_EQ(py.exit_code, 0) << py.err;
  const json::Document ref = json::Document::parse(py.out, "torch");
  ASSERT_EQ(ref.root().find("strides")->items()[1].items()[0].as_uint(), 1u) << "q.t() is a transposed view";

  ModelWeightsInput in;
  in.model = locate_local_model(file.string());
  std::vector<std::string> warnings;
  const PlannedScan plan = plan_scan(in, StatsSelection{}, warnings);
  ASSERT_EQ(plan.items.size(), 2u);
  for (const ScanItem& item : plan.items) EXPECT_TRUE(item.permuted) << item.name;

  const ModelSpectrum s = compute_model_spectrum(plan, SpectrumOptions{});
  const MatrixSpectrum* q = nullptr;
  for (const MatrixSpectrum& m : s.matrices)
    if (m.name == "model.layers.0.self_attn.q_proj.weight") q = &m;
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->rows, 32u);
  EXPECT_EQ(q->cols, 24u);
  EXPECT_EQ(q->metrics.actual_rank, ref.root().find("rank")->as_uint()) << "torch says 5; row-major bytes 24";
  const std::vector<double>& sigma = q->singular_values.values;
  const auto& ref_sigma = ref.root().find("sigma")->items();
  ASSERT_EQ(sigma.size(), ref_sigma.size());
  for (size_t i = 0; i < sigma.size(); ++i)
    EXPECT_NEAR(sigma[i], ref_sigma[i].as_double(), 1e-5 * sigma[0]) << "σ_" << i;

  EmbeddingOptions eo;
  eo.k_min = eo.k_max = 2;
  const EmbeddingAnalysis e = analyse_embeddings(plan, {}, eo, file.string());
  EXPECT_EQ(e.rows, 40u);
  EXPECT_EQ(e.cols, 16u);
  ASSERT_FALSE(e.outliers.empty());
  EXPECT_EQ(e.outliers[0].row, ref.root().find("argmax")->as_uint()) << "row 7, scaled through the view";
  const double max_norm = ref.root().find("max_norm")->as_double();
  EXPECT_NEAR(e.norms.max, max_norm, 1e-5 * max_norm);
}

}  // namespace
}  // namespace ma
