#include "analysis/lapack.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/runtime_library.h"

namespace ma::lapack {
namespace {

// The Fortran interfaces, with gfortran's hidden lengths of character arguments at the end.
using Gesdd = void (*)(const char*, const int*, const int*, float*, const int*, float*, float*, const int*,
                       float*, const int*, float*, const int*, int*, int*, size_t);
using Syevd = void (*)(const char*, const char*, const int*, float*, const int*, float*, float*, const int*,
                       int*, const int*, int*, size_t, size_t);
using Syrk = void (*)(const char*, const char*, const int*, const int*, const float*, const float*,
                      const int*, const float*, float*, const int*, size_t, size_t);
using Gemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                      const float*, const int*, const float*, const int*, const float*, float*, const int*,
                      size_t, size_t);
using Dgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                       const double*, const int*, const double*, const int*, const double*, double*,
                       const int*, size_t, size_t);
using Geqrf = void (*)(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
using Orgqr = void (*)(const int*, const int*, const int*, float*, const int*, const float*, float*,
                       const int*, int*);
using ConfigText = char* (*)();
using SetThreads = void (*)(int);
using GetThreads = int (*)();

struct Library {
  Gesdd gesdd = nullptr;
  Syevd syevd = nullptr;
  Syrk syrk = nullptr;
  Gemm gemm = nullptr;
  Dgemm dgemm = nullptr;
  Geqrf geqrf = nullptr;
  Orgqr orgqr = nullptr;
  SetThreads set_threads = nullptr;  // OpenBLAS only
  int threads = 1;                   // OpenBLAS's own choice at load (one per core)
  std::string name;
  RuntimeLibraries libs;

  Library() {
    void* lapack = libs.open("liblapack.so.3");
    if (!lapack) return;
    // OpenBLAS's liblapack.so.3 carries BLAS too; the reference LAPACK needs libblas.so.3 beside it.
    void* blas = dlsym(lapack, "sgemm_") ? lapack : libs.open("libblas.so.3");
    libs.bind(lapack, "sgesdd_", gesdd);
    libs.bind(lapack, "ssyevd_", syevd);
    libs.bind(lapack, "sgeqrf_", geqrf);
    libs.bind(lapack, "sorgqr_", orgqr);
    libs.bind(blas, "ssyrk_", syrk);
    libs.bind(blas, "sgemm_", gemm);
    libs.bind(blas, "dgemm_", dgemm);
    auto config = blas ? reinterpret_cast<ConfigText>(dlsym(blas, "openblas_get_config")) : nullptr;
    name = config ? std::string(config()) : "reference LAPACK/BLAS (liblapack.so.3)";
    set_threads = blas ? reinterpret_cast<SetThreads>(dlsym(blas, "openblas_set_num_threads")) : nullptr;
    const auto get_threads =
        blas ? reinterpret_cast<GetThreads>(dlsym(blas, "openblas_get_num_threads")) : nullptr;
    if (get_threads) threads = std::max(1, get_threads());
  }
};

const Library& library() {
  static const Library lib;
  return lib;
}

// OpenBLAS's worker threads spin while they wait: on a small problem they cost more than they give (below
// this many multiply-adds one thread runs it; above, OpenBLAS's own count, one per core or
// OPENBLAS_NUM_THREADS). On a busy machine they spin against each other: the test suite, two tests at once
// on two cores, sets OPENBLAS_NUM_THREADS=1 (a 512 x 512 decomposition took 43 s instead of 1 s).
constexpr double kThreadedWork = 1e7;

void size_threads(double work) {
  const Library& lib = library();
  if (lib.set_threads) lib.set_threads(work < kThreadedWork ? 1 : lib.threads);
}

// LAPACK's LP64 interface takes 32-bit dimensions.
int dim(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw Error(ErrorKind::Limit, "", what, "a matrix dimension beyond LAPACK's 32-bit integers");
  return static_cast<int>(v);
}

void check(int info, const char* routine) {
  if (info < 0)
    throw Error(ErrorKind::Internal, "", routine, "argument " + std::to_string(-info) + " rejected");
  if (info > 0)
    throw Error(ErrorKind::Malformed, "", routine, "did not converge (info " + std::to_string(info) + ")");
}

// LAPACK returns a workspace size as a float: round up, never below one.
int workspace(float query) {
  return query < 1 ? 1 : static_cast<int>(query + 0.5f) + 1;
}

}  // namespace

void require() {
  const Library& lib = library();
  if (!lib.libs.missing().empty())
    throw Error(
        ErrorKind::Unsupported, lib.libs.missing(), "LAPACK",
        "spectrum and embeddings need LAPACK and BLAS: apt-get install libopenblas0-pthread (or liblapack3)");
}

std::string library_name() {
  require();
  return library().name;
}

void singular_values(int64_t m64, int64_t n64, float* a, float* s) {
  require();
  const int m = dim(m64, "rows"), n = dim(n64, "cols");
  size_threads(double(m) * n * std::min(m, n));
  int info = 0, lwork = -1, one = 1;
  float query = 0, dummy = 0;
  std::vector<int> iwork(8 * static_cast<size_t>(std::min(m, n)));
  library().gesdd("N", &m, &n, a, &m, s, &dummy, &one, &dummy, &one, &query, &lwork, iwork.data(), &info, 1);
  check(info, "sgesdd");
  lwork = workspace(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  library().gesdd("N", &m, &n, a, &m, s, &dummy, &one, &dummy, &one, work.data(), &lwork, iwork.data(), &info,
                  1);
  check(info, "sgesdd");
}

void symmetric_eigenvalues(int64_t n64, float* a, float* w) {
  require();
  const int n = dim(n64, "n");
  size_threads(double(n) * n * n);
  int info = 0, lwork = -1, liwork = -1, iquery = 0;
  float query = 0;
  library().syevd("N", "U", &n, a, &n, w, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  check(info, "ssyevd");
  lwork = workspace(query);
  liwork = iquery < 1 ? 1 : iquery;
  std::vector<float> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  library().syevd("N", "U", &n, a, &n, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  check(info, "ssyevd");
}

void gram(bool transpose, int64_t n64, int64_t k64, const float* a, int64_t lda64, float* c) {
  require();
  const int n = dim(n64, "n"), k = dim(k64, "k"), lda = dim(lda64, "lda");
  size_threads(double(n) * n * k);
  const float alpha = 1, beta = 0;
  library().syrk("U", transpose ? "T" : "N", &n, &k, &alpha, a, &lda, &beta, c, &n, 1, 1);
}

namespace {

// The body of both multiply overloads: C = op(A) op(B) by `gemm`, BLAS's sgemm or dgemm (LAPACK loaded).
template <typename T, typename Gemm>
void multiply_by(Gemm gemm, bool transpose_a, bool transpose_b, int64_t m64, int64_t n64, int64_t k64,
                 const T* a, int64_t lda64, const T* b, int64_t ldb64, T* c, int64_t ldc64) {
  const int m = dim(m64, "m"), n = dim(n64, "n"), k = dim(k64, "k");
  const int lda = dim(lda64, "lda"), ldb = dim(ldb64, "ldb"), ldc = dim(ldc64, "ldc");
  size_threads(double(m) * n * k);
  const T alpha = 1, beta = 0;
  gemm(transpose_a ? "T" : "N", transpose_b ? "T" : "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc,
       1, 1);
}

}  // namespace

void multiply(bool transpose_a, bool transpose_b, int64_t m64, int64_t n64, int64_t k64, const float* a,
              int64_t lda64, const float* b, int64_t ldb64, float* c, int64_t ldc64) {
  require();
  multiply_by(library().gemm, transpose_a, transpose_b, m64, n64, k64, a, lda64, b, ldb64, c, ldc64);
}

void multiply(bool transpose_a, bool transpose_b, int64_t m64, int64_t n64, int64_t k64, const double* a,
              int64_t lda64, const double* b, int64_t ldb64, double* c, int64_t ldc64) {
  require();
  multiply_by(library().dgemm, transpose_a, transpose_b, m64, n64, k64, a, lda64, b, ldb64, c, ldc64);
}

void orthonormalize(int64_t m64, int64_t n64, float* a) {
  require();
  const int m = dim(m64, "m"), n = dim(n64, "n");
  size_threads(double(m) * n * n);
  int info = 0, lwork = -1;
  float query = 0;
  std::vector<float> tau(static_cast<size_t>(n));
  library().geqrf(&m, &n, a, &m, tau.data(), &query, &lwork, &info);
  check(info, "sgeqrf");
  float query2 = 0;
  library().orgqr(&m, &n, &n, a, &m, tau.data(), &query2, &lwork, &info);
  check(info, "sorgqr");
  lwork = workspace(std::max(query, query2));
  std::vector<float> work(static_cast<size_t>(lwork));
  library().geqrf(&m, &n, a, &m, tau.data(), work.data(), &lwork, &info);
  check(info, "sgeqrf");
  library().orgqr(&m, &n, &n, a, &m, tau.data(), work.data(), &lwork, &info);
  check(info, "sorgqr");
}

}  // namespace ma::lapack
