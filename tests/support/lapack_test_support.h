// Tests of the analyses that run on LAPACK (spectrum, embeddings): LAPACK is loaded at run time, and a test
// that needs it skips, visibly, where it cannot be.
#pragma once
#include <string>

#include "analysis/lapack.h"
#include "core/error.h"

namespace ma::test {

// Why LAPACK cannot be used here (lapack::require's message); empty when it can.
inline std::string lapack_missing() {
  try {
    lapack::require();
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace ma::test

// In a test body: skips the test, naming why, where LAPACK cannot be loaded.
#define SKIP_WITHOUT_LAPACK() \
  if (const std::string why_ = ::ma::test::lapack_missing(); !why_.empty()) GTEST_SKIP() << why_
