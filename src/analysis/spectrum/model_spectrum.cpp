#include "analysis/spectrum/model_spectrum.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "analysis/lapack.h"
#include "analysis/matrix_reader.h"
#include "core/dtype.h"
#include "core/error.h"
#include "io/file_source.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

constexpr const char* kNonFinite = "holds NaN or Inf, which have no singular values";

struct MatrixShape {
  uint64_t count = 1, rows = 0, cols = 0;  // count > 1: a stacked expert tensor [count, rows, cols]
};

// A 2-D tensor is a matrix, unless it holds a quantization's scales; a 3-D one only when it stacks experts
// ([experts, rows, cols]): other 3-D tensors are kernels (Mamba's conv1d [channels, 1, width]), not a pile of
// matrices.
std::optional<MatrixShape> matrix_shape(const ScanItem& item) {
  const Shape& shape = item.shape;
  const Block block = place_tensor(item.name).block;
  if (block == Block::Quantization) return std::nullopt;  // scales (block FP8's [rows/128, cols/128]), not W
  if (shape.size() == 2) return MatrixShape{1, shape[0], shape[1]};
  if (shape.size() == 3 && (block == Block::MoeExpert || block == Block::SharedExpert))
    return MatrixShape{shape[0], shape[1], shape[2]};
  return std::nullopt;
}

// A float narrower than float32 as rounding to it moves a value: by at most u = 2^-(fraction bits + 1) of it
// from the smallest normal 2^emin up, by at most half the subnormal spacing 2^(emin - fraction bits - 1)
// below. None for float32 and wider (no storage rounding beyond the SVD's own), integers and block types
// (their rounding is not relative), and E8M0 (a scale type: powers of two only).
struct StorageRounding {
  double roundoff, min_normal, subnormal_half_spacing;
};
std::optional<StorageRounding> storage_rounding(DType t) {
  const std::optional<int> emin = dtype_min_normal_exponent(t);
  if (!emin || dtype_bits(t) >= 32) return std::nullopt;
  const int bits = static_cast<int>(dtype_fraction_bits(t).value_or(0));
  return StorageRounding{std::ldexp(1.0, -bits - 1), std::ldexp(1.0, *emin),
                         std::ldexp(1.0, *emin - bits - 1)};
}

// What storage_rank needs (spectral_metrics.h): u, a bound on ‖ |W| ‖₂, and ‖Δ‖_F for the values that may
// have been stored below the smallest normal (times the largest scale of a float8 weight: the bound needs no
// per-element scale). From `w` before the decomposition destroys it.
void add_storage_rounding(const ScanItem& item, const std::vector<float>& w, uint64_t rows, uint64_t cols,
                          MetricInputs& in) {
  const std::optional<StorageRounding> r = storage_rounding(item.dtype);
  if (!r) return;
  double scale = 1;
  if (item.scale) {
    scale = 0;
    for (float v : item.scale->scales) scale = std::max(scale, std::fabs(double(v)));
  }
  const double small = r->min_normal * scale;
  uint64_t below = 0;
  for (float x : w) below += std::fabs(double(x)) < small;
  in.storage_roundoff = r->roundoff;
  in.abs_spectral_norm = abs_spectral_norm_bound(w.data(), rows, cols);
  in.storage_floor = r->subnormal_half_spacing * scale * std::sqrt(static_cast<double>(below));
}

// The spectrum of one matrix, or, in `why_not`, why it has none: NaN or Inf in it make the decomposition
// meaningless, and LAPACK may fail on a matrix (a routine that does not converge). Either is skipped, named,
// while the model's other matrices are analysed.
std::optional<MatrixSpectrum> analyse(const ScanItem& item, const MatrixShape& m, uint64_t expert,
                                      std::vector<float>& w, const FileSource& file, ElementDecoder& decoder,
                                      const SpectrumOptions& o, std::string& why_not) {
  const auto start = std::chrono::steady_clock::now();
  MatrixSpectrum r;
  r.name = m.count > 1 ? item.name + "[" + std::to_string(expert) + "]" : item.name;
  r.dtype = item.dtype;
  if (item.scale) r.scaled_by = item.scale->tensor;
  r.rows = m.rows;
  r.cols = m.cols;
  const uint64_t numel = m.rows * m.cols;
  read_elements_as_float(file, item, expert * numel, numel, w, decoder);
  if (item.scale) item.scale->apply(expert * numel, w.data(), static_cast<size_t>(numel));  // W, not codes
  // Mean, variance and sparsity over the elements. The variance is the mean squared deviation from the mean
  // (a second pass over the matrix in memory): E[x²] - mean² cancels where the mean dwarfs the spread.
  double sum = 0, sum_sq = 0;
  uint64_t near_zero = 0;
  for (float x : w) {
    if (!std::isfinite(x)) {
      why_not = kNonFinite;
      return std::nullopt;
    }
    sum += x;
    sum_sq += double(x) * x;
    near_zero += std::fabs(x) <= o.eps;
  }
  const double n = static_cast<double>(numel);
  r.mean = sum / n;
  double deviations = 0;
  for (float x : w) deviations += (double(x) - r.mean) * (double(x) - r.mean);
  r.var = deviations / n;
  r.std = std::sqrt(r.var);
  r.sparsity = static_cast<double>(near_zero) / n;
  r.frobenius_norm = std::sqrt(sum_sq);
  MetricInputs in;
  in.rows = m.rows;
  in.cols = m.cols;
  in.frobenius_squared = sum_sq;
  add_storage_rounding(item, w, m.rows, m.cols, in);
  try {
    r.singular_values = singular_values(w, m.rows, m.cols, o.method, o.randomized);
  } catch (const Error& e) {
    // A routine that rejected or could not finish this one matrix (lapack.cpp: the routine as the field); a
    // missing LAPACK was refused before the first matrix.
    if (e.kind() == ErrorKind::Unsupported) throw;
    why_not = "LAPACK could not decompose it (" + e.field() + ": " + e.rule() + ")";
    return std::nullopt;
  }
  in.energy = o.energy;
  in.tolerance = o.tolerance;
  r.metrics = spectral_metrics(r.singular_values, in);
  const TensorPlacement p = place_tensor(item.name);
  r.local_name = r.name;
  if (p.layer) {
    // "model.layers.12.mlp.experts.3.down_proj.weight[1]" -> "mlp.experts.3.down_proj[1]"
    const size_t after_index = r.name.find('.', size_t{p.stack_length} + 1);
    if (after_index != std::string::npos) r.local_name = r.name.substr(after_index + 1);
    if (const size_t at = r.local_name.find(".weight"); at != std::string::npos) r.local_name.erase(at, 7);
  }
  r.layer = p.layer;
  r.block = std::string(block_name(p.block));
  r.role = p.role;
  r.module_class = module_class(p.block, p.role);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

ModelSpectrum compute_model_spectrum(const PlannedScan& plan, const SpectrumOptions& o) {
  lapack::require();
  const auto start = std::chrono::steady_clock::now();
  ModelSpectrum out;
  out.method = o.method;
  out.randomized = o.randomized;
  out.energy = o.energy;
  out.tolerance = o.tolerance;
  out.eps = o.eps;
  out.library = lapack::library_name();
  size_t total = 0;
  for (const ScanItem& item : plan.items)
    if (const auto m = matrix_shape(item)) total += m->count;
  std::vector<float> w;
  ElementDecoder decoder;
  size_t done = 0;
  for (const ScanItem& item : plan.items) {
    const std::optional<MatrixShape> m = matrix_shape(item);
    if (!m) {
      if (place_tensor(item.name).block == Block::Quantization)
        out.skipped.push_back(item.name + ": a quantization scale, not a weight matrix");
      else if (item.shape.size() > 2)
        out.skipped.push_back(item.name + ": " + std::to_string(item.shape.size()) + "-D, not a matrix");
      continue;
    }
    if (m->rows == 0 || m->cols == 0) {
      out.skipped.push_back(item.name + ": empty");
      done += m->count;
      continue;
    }
    // A permuted view whose order on disk is not known: its rows and columns cannot be told apart, and a
    // spectrum of scrambled elements would be silently wrong (a 2-D transpose is read in order).
    if (const std::string why = why_not_row_major(item); !why.empty()) {
      out.skipped.push_back(item.name + ": " + why);
      if (!out.first_non_finite) out.first_non_finite = out.skipped.back();
      done += m->count;
      continue;
    }
    const FileSource file(item.file);
    for (uint64_t e = 0; e < m->count; ++e) {
      if (o.cancel && o.cancel->load())
        throw Error(ErrorKind::LocalIO, item.file.string(), item.name, "interrupted");
      std::string why_not;
      if (std::optional<MatrixSpectrum> one = analyse(item, *m, e, w, file, decoder, o, why_not))
        out.matrices.push_back(std::move(*one));
      else {
        out.skipped.push_back((m->count > 1 ? item.name + "[" + std::to_string(e) + "]" : item.name) + ": " +
                              why_not);
        if (!out.first_non_finite) out.first_non_finite = out.skipped.back();
      }
      if (o.progress) o.progress(++done, total);
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace ma
