// LAPACK and BLAS for `spectrum` and `embeddings`, loaded when first used (dlopen of liblapack.so.3 /
// libblas.so.3, which Debian's alternatives point at OpenBLAS once libopenblas0-pthread is installed): every
// other command starts without OpenBLAS's thread pool, and a machine without LAPACK still runs the rest.
// Matrices are column-major float32 (one product also float64), as LAPACK's Fortran interface takes them
// (LP64: 32-bit dimensions).
#pragma once
#include <cstdint>
#include <string>

namespace ma::lapack {

// Throws Error(Unsupported) naming the library or symbol missing, with the Debian package to install.
void require();
// Which library answered ("OpenBLAS 0.3.21 ..." when it says, else the file name).
std::string library_name();

// Singular values of the m x n matrix `a` (destroyed), descending, into `s` (min(m, n)); ?gesdd, no vectors.
void singular_values(int64_t m, int64_t n, float* a, float* s);
// Eigenvalues of the symmetric n x n matrix whose upper triangle `a` holds (destroyed), ascending; ?syevd.
void symmetric_eigenvalues(int64_t n, float* a, float* w);
// c (n x n, upper triangle) = aᵀa when `transpose` (a is k x n), else a aᵀ (a is n x k); ?syrk.
void gram(bool transpose, int64_t n, int64_t k, const float* a, int64_t lda, float* c);
// c = op(a) op(b), op = transpose or not: c is m x n, the shared dimension k; ?gemm.
void multiply(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, const float* a,
              int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);
// The same in float64 (?gemm's d): what a float32 product's rounding would spoil (silhouette distances).
void multiply(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, const double* a,
              int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc);
// Replaces the m x n matrix `a` (m >= n) by the orthonormal Q of its QR factorization; ?geqrf + ?orgqr.
void orthonormalize(int64_t m, int64_t n, float* a);

}  // namespace ma::lapack
