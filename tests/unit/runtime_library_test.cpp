// Libraries loaded on first use (core/runtime_library.h): what is missing is named, first failure first, so
// the feature's one error line can say what to install.
#include "core/runtime_library.h"

#include <gtest/gtest.h>

namespace ma {
namespace {

TEST(RuntimeLibraries, NamesTheFirstMissingLibraryOrSymbol) {
  RuntimeLibraries libs;
  void* c = libs.open("libc.so.6");
  ASSERT_NE(c, nullptr);
  using Strlen = unsigned long (*)(const char*);
  Strlen fn = nullptr;
  libs.bind(c, "strlen", fn);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn("four"), 4u);
  EXPECT_EQ(libs.missing(), "");
  libs.bind(c, "no_such_symbol_anywhere", fn);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(libs.missing(), "no_such_symbol_anywhere");
  EXPECT_EQ(libs.open("libno-such-library.so.9"), nullptr);
  EXPECT_EQ(libs.missing(), "no_such_symbol_anywhere") << "the first failure is the one reported";
}

TEST(RuntimeLibraries, SymbolsOfAMissingLibraryStayUnset) {
  RuntimeLibraries libs;
  void* lib = libs.open("libno-such-library.so.9");
  void (*fn)() = nullptr;
  libs.bind(lib, "anything", fn);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(libs.missing(), "libno-such-library.so.9");
}

}  // namespace
}  // namespace ma
