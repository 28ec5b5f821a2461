// A Hub URL of a file's page (/blob/REV/FILE) or download (/resolve/REV/FILE) names that file, not only the
// repository: `download` fetches that one file and the report analyses the GGUF model it names. The parts
// come percent-decoded, as the browser's address bar writes them, and the file must stay inside the
// repository.
#include <gtest/gtest.h>

#include "core/error.h"
#include "hub/repo_ref.h"
#include "test_support.h"

namespace ma::test {
namespace {

TEST(RepoRefFile, ResolveAndBlobUrlsNameTheirFile) {
  auto r = parse_repo_ref("https://huggingface.co/org/tiny-GGUF/resolve/main/tiny-Q8_0.gguf");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, "org/tiny-GGUF");
  EXPECT_EQ(r->revision, "main");
  EXPECT_EQ(r->file, "tiny-Q8_0.gguf");
  EXPECT_FALSE(r->gguf_model);
  r = parse_repo_ref("hf.co/org/tiny-GGUF/blob/v2/Q4_K_M/big-Q4_K_M-00001-of-00002.gguf");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->revision, "v2");
  EXPECT_EQ(r->file, "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf");
  // Canonical repos without an organization.
  r = parse_repo_ref("https://huggingface.co/gpt2/blob/main/config.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, "gpt2");
  EXPECT_EQ(r->file, "config.json");
  // The Hub's own spelling of a pull request's revision and of a space; the query string is no part of it.
  r = parse_repo_ref("https://huggingface.co/org/m/resolve/refs%2Fpr%2F1/sub%20dir/a.gguf?download=true");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->revision, "refs/pr/1");
  EXPECT_EQ(r->file, "sub dir/a.gguf");
}

TEST(RepoRefFile, TheRepositoryAndAFolderNameNoFile) {
  for (const char* url : {"https://huggingface.co/org/m", "https://huggingface.co/org/m/tree/main",
                          "https://huggingface.co/org/m/tree/main/Q4_K_M",
                          "https://huggingface.co/org/m/resolve/main/", "org/m@main", "org/m-GGUF:Q4_K_M"}) {
    auto r = parse_repo_ref(url);
    ASSERT_TRUE(r) << url;
    EXPECT_FALSE(r->file) << url;
  }
}

TEST(RepoRefFile, AFileThatLeavesTheRepositoryIsRefused) {
  for (const char* url : {"https://huggingface.co/org/m/resolve/main/%2E%2E/%2E%2E/etc/passwd",
                          "https://huggingface.co/org/m/blob/main/a//b.gguf",
                          "https://huggingface.co/org/m/blob/main/a%0Ab.gguf"})
    EXPECT_EQ(error_kind_of([&] { parse_repo_ref(url); }), ErrorKind::Unsafe) << url;
}

}  // namespace
}  // namespace ma::test
