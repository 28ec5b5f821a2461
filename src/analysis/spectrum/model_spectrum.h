// `modelanalyzer spectrum`: the singular values of every weight matrix of a checkpoint (2-D tensors, and each
// expert of a 3-D stacked expert tensor as its own matrix; other 3-D and wider tensors, kernels, are listed
// as skipped), streamed one matrix at a time — memory stays at one matrix in float32 plus LAPACK's workspace,
// whatever the checkpoint's size — with what they say (spectral_metrics.h), the matrix's mean / std /
// sparsity for seed 004's CSV, and its place in the layer map.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "analysis/module_class.h"
#include "analysis/spectrum/singular_values.h"
#include "analysis/spectrum/spectral_metrics.h"

namespace ma {

struct SpectrumOptions {
  SpectrumMethod method = SpectrumMethod::Svd;
  RandomizedOptions randomized;     // --rank-k K (with its oversampling, power iterations, seed)
  double energy = 0.9;              // --energy
  std::optional<double> tolerance;  // --rank-tol
  double eps = 1e-6;                // |x| <= eps counts toward sparsity (seed 004)
  // Called after each matrix (matrices done, of `total`); from the calling thread.
  std::function<void(size_t done, size_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set: stops between matrices, throws Error(LocalIO)
};

struct MatrixSpectrum {
  std::string name;        // the tensor's; "name[e]" for expert e of a stacked expert tensor
  std::string local_name;  // inside its layer, without ".weight": "mlp.experts.3.down_proj"; else the name
  DType dtype = DType::F32;
  std::string
      scaled_by;  // a float8 weight's scale tensor: the matrix is code x scale (analysis/block_scale.h)
  uint64_t rows = 0, cols = 0;
  std::optional<uint32_t> layer;
  std::string block, role;
  ModuleClass module_class = ModuleClass::Other;
  double mean = 0, var = 0, std = 0, sparsity = 0, frobenius_norm = 0;
  SingularValues singular_values;
  SpectralMetrics metrics;
  double seconds = 0;  // reading, decoding and the decomposition
};

struct ModelSpectrum {
  std::string model_id;
  SpectrumMethod method = SpectrumMethod::Svd;
  RandomizedOptions randomized;
  double energy = 0.9;
  std::optional<double> tolerance;
  double eps = 0;
  std::string library;  // the LAPACK that ran
  std::vector<MatrixSpectrum> matrices;
  std::vector<std::string> skipped;  // "name: why" (1-D tensors are not matrices and are not listed)
  // The first matrix skipped for what it holds, as listed: NaN or Inf, a permuted view whose order on disk
  // is not known, or a LAPACK routine that failed on it (not for being empty, a scale or a kernel).
  std::optional<std::string> first_non_finite;
  double seconds = 0;
};

// The matrices of `plan` (stats' tensor selection), in checkpoint order; a 2-D PyTorch view stored transposed
// is read in its logical order (matrix_reader.h). Each matrix is scaled by a power of two before the
// decomposition (singular_values.cpp), so no magnitude a float32 can hold overflows the Gram matrix or the
// sketch; a LAPACK failure on one matrix skips it, named, and the run goes on. Throws Error(Unsupported)
// without LAPACK, Error(LocalIO/Malformed) on read failures.
ModelSpectrum compute_model_spectrum(const PlannedScan& plan, const SpectrumOptions& options);

}  // namespace ma
