// What a model argument names on the Hub: a repository (its id, as users type it, browse it or copy its URL),
// at a revision, perhaps one GGUF model of it (":Q4_K_M") or one file (/blob/REV/FILE, /resolve/REV/FILE,
// percent-decoded as the browser's address bar writes them). Ids, revisions and file names must stay inside
// the repository (N22, N23); what has no shape of a repo id is a local path, never sent to the Hub.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "hub/repo_ref.h"
#include "test_support.h"

namespace ma::test {
namespace {

// An argument and the reference it must parse to.
struct RefCase {
  const char* arg;
  const char* id;
  const char* revision = "main";
  std::optional<std::string> file = std::nullopt;
  std::optional<std::string> gguf_model = std::nullopt;
};

void expect_ref(const RefCase& c) {
  const std::optional<RepoRef> r = parse_repo_ref(c.arg);
  ASSERT_TRUE(r) << c.arg;
  EXPECT_EQ(r->id, c.id) << c.arg;
  EXPECT_EQ(r->revision, c.revision) << c.arg;
  EXPECT_EQ(r->file, c.file) << c.arg;
  EXPECT_EQ(r->gguf_model, c.gguf_model) << c.arg;
}

TEST(RepoRef, AcceptsTheFormsUsersType) {
  for (const RefCase& c : {
           RefCase{"gpt2", "gpt2"},
           RefCase{"meta-llama/Llama-2-7b-hf@refs/pr/1", "meta-llama/Llama-2-7b-hf", "refs/pr/1"},
           RefCase{"https://huggingface.co/Qwen/Qwen3-4B/tree/v1.0", "Qwen/Qwen3-4B", "v1.0"},
           RefCase{"hf.co/openai-community/gpt2", "openai-community/gpt2"},
           // Canonical repos without an organization, as the browser shows them.
           RefCase{"https://huggingface.co/gpt2/tree/main", "gpt2"},
           RefCase{"https://huggingface.co/bert-base-uncased/blob/v1/config.json", "bert-base-uncased", "v1",
                   "config.json"},
           RefCase{"https://huggingface.co/org/tree/tree/main", "org/tree"},  // a repo named "tree"
       })
    expect_ref(c);
}

// ":NAME" after the id or the revision picks one GGUF model, as llama.cpp's -hf and Ollama's hf.co/ names
// spell it; it is never part of the revision (a git ref holds no ':').
TEST(RepoRef, AColonSuffixNamesOneGgufModel) {
  for (const RefCase& c : {
           RefCase{"bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "bartowski/Llama-3.2-1B-Instruct-GGUF",
                   "main", std::nullopt, "Q4_K_M"},
           RefCase{"org/name-GGUF@v2:q8_0", "org/name-GGUF", "v2", std::nullopt, "q8_0"},
           RefCase{"hf.co/org/name-GGUF:IQ4_XS", "org/name-GGUF", "main", std::nullopt, "IQ4_XS"},
           RefCase{"https://huggingface.co/gpt2", "gpt2"},
       })
    expect_ref(c);
  // Anything else with a colon is a local path (a file not yet written, a typo): never sent to the Hub.
  for (const char* local : {"out/model:v2.gguf", "org/name:", "org/name:Q4 K", "my run:v1.bin"})
    EXPECT_FALSE(parse_repo_ref(local)) << local;
}

TEST(RepoRef, ResolveAndBlobUrlsNameTheirFile) {
  for (const RefCase& c : {
           RefCase{"https://huggingface.co/org/tiny-GGUF/resolve/main/tiny-Q8_0.gguf", "org/tiny-GGUF",
                   "main", "tiny-Q8_0.gguf"},
           RefCase{"hf.co/org/tiny-GGUF/blob/v2/Q4_K_M/big-Q4_K_M-00001-of-00002.gguf", "org/tiny-GGUF", "v2",
                   "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf"},
           // Canonical repos without an organization.
           RefCase{"https://huggingface.co/gpt2/blob/main/config.json", "gpt2", "main", "config.json"},
           // The Hub's own spelling of a pull request's revision and of a space; the query string is no part
           // of it.
           RefCase{"https://huggingface.co/org/m/resolve/refs%2Fpr%2F1/sub%20dir/a.gguf?download=true",
                   "org/m", "refs/pr/1", "sub dir/a.gguf"},
       })
    expect_ref(c);
}

TEST(RepoRef, TheRepositoryAndAFolderNameNoFile) {
  for (const char* url : {"https://huggingface.co/org/m", "https://huggingface.co/org/m/tree/main",
                          "https://huggingface.co/org/m/tree/main/Q4_K_M",
                          "https://huggingface.co/org/m/resolve/main/", "org/m@main", "org/m-GGUF:Q4_K_M"}) {
    auto r = parse_repo_ref(url);
    ASSERT_TRUE(r) << url;
    EXPECT_FALSE(r->file) << url;
  }
}

TEST(RepoRef, AFileThatLeavesTheRepositoryIsRefused) {
  for (const char* url : {"https://huggingface.co/org/m/resolve/main/%2E%2E/%2E%2E/etc/passwd",
                          "https://huggingface.co/org/m/blob/main/a//b.gguf",
                          "https://huggingface.co/org/m/blob/main/a%0Ab.gguf"})
    EXPECT_EQ(error_kind_of([&] { parse_repo_ref(url); }), ErrorKind::Unsafe) << url;
}

TEST(RepoRef, LocalLookingPathsAreNotRepoIds) {
  for (const char* p : {"./model", "/abs/model", "~/m", "a/b/c.json", "my model", "file:///x"})
    EXPECT_FALSE(parse_repo_ref(p)) << p;
}

TEST(RepoRef, RejectsIdsAndRevisionsThatEscape) {  // N22
  for (const char* bad :
       {"a--b", "a..b", "org/-name", "org/name.", "gpt2@../../x", "gpt2@refs/../../x", "gpt2@"})
    EXPECT_EQ(error_kind_of([&] { parse_repo_ref(bad); }), ErrorKind::Usage) << bad;
  EXPECT_EQ(error_kind_of([&] { parse_repo_ref(std::string(97, 'a')); }), ErrorKind::Usage);
  // The line names the revision as written, escaped where it holds what a terminal would act on.
  for (const auto& [arg, line] : std::vector<std::pair<std::string, std::string>>{
           {"gpt2@", "revision '': empty: a revision is a branch, a tag or a commit"},
           {"gpt2@a/../b", "revision 'a/../b': an empty, '.' or '..' segment"},
           {"gpt2@a\x1b", "revision 'a\\x1b': control character or '\\'"}}) {
    try {
      parse_repo_ref(arg);
      ADD_FAILURE() << arg << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), line) << arg;
    }
  }
  EXPECT_EQ(error_kind_of([&] { parse_repo_ref("https://user:hf_x@huggingface.co/gpt2"); }),
            ErrorKind::Usage);  // T5
  EXPECT_EQ(url_quote("refs/pr/1", false), "refs%2Fpr%2F1");
  EXPECT_EQ(url_quote("sub dir/a+b.json", true), "sub%20dir/a%2Bb.json");
}

TEST(RepoRef, RepoFileNamesStayInsideTheRepo) {  // N23
  for (const char* bad : {"../x", "/etc/passwd", "C:x", "\\\\srv\\share\\x", "a/../../b", "a//b", ""})
    EXPECT_EQ(error_kind_of([&] { validate_repo_filename(bad, "test"); }), ErrorKind::Unsafe) << bad;
  EXPECT_EQ(error_kind_of([&] { validate_repo_filename("onnx/model.onnx", "test"); }), ErrorKind::Internal);
}

}  // namespace
}  // namespace ma::test
