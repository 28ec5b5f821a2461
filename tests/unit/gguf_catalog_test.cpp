// Which GGUF models a Hub repository's file list holds and which one a selector names (hub/gguf_catalog.h):
// files at any depth (a folder per quantization), split parts beside their first part, sizes unknown when a
// part is missing, and the selector read as llama.cpp's -hf and Ollama read a tag — the quantization exactly
// before any looser reading, so Q6_K beside Q6_K_L and F16 beside BF16 can be chosen.
#include "hub/gguf_catalog.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "hub/model_info.h"
#include "repo_listing.h"

namespace ma::test {
namespace {

// The path of the model chosen, or "error N: message" with the exit code of the error thrown.
std::string catalog_pick(const GgufCatalog& c, const std::string& selector) {
  try {
    return c.choose(selector, ":" + selector).path;
  } catch (const Error& e) {
    return "error " + std::to_string(e.exit_code()) + ": " + e.message();
  }
}

// bartowski's layout: Q6_K beside Q6_K_L, F16 beside BF16, each quantization one top-level file.
const std::vector<RepoFile> kTagsRepo = repo_listing({{"README.md", 10},
                                                      {"tiny-BF16.gguf", 2000},
                                                      {"tiny-F16.gguf", 2000},
                                                      {"tiny-Q6_K.gguf", 1000},
                                                      {"tiny-Q6_K_L.gguf", 1100}});

TEST(GgufCatalog, TheQuantizationTagIsMatchedExactlyBeforeAnyLooserReading) {
  const GgufCatalog c(kTagsRepo, "org/tags-GGUF");
  ASSERT_EQ(c.models().size(), 4u);
  EXPECT_EQ(catalog_pick(c, "Q6_K"), "tiny-Q6_K.gguf");
  EXPECT_EQ(catalog_pick(c, "q6_k"), "tiny-Q6_K.gguf");  // case-insensitive, as Ollama's tags
  EXPECT_EQ(catalog_pick(c, "Q6_K_L"), "tiny-Q6_K_L.gguf");
  EXPECT_EQ(catalog_pick(c, "F16"), "tiny-F16.gguf");
  EXPECT_EQ(catalog_pick(c, "bf16"), "tiny-BF16.gguf");
  // The file's stem and name, with or without ".gguf".
  EXPECT_EQ(catalog_pick(c, "tiny-Q6_K"), "tiny-Q6_K.gguf");
  EXPECT_EQ(catalog_pick(c, "tiny-Q6_K.gguf"), "tiny-Q6_K.gguf");
  // A word two models share is ambiguous: a usage error naming both; no match at all is "not found".
  const std::string q6 = catalog_pick(c, "Q6");
  EXPECT_EQ(q6.rfind("error 2: ", 0), 0u) << q6;
  EXPECT_NE(q6.find("tiny-Q6_K.gguf (1000 B)"), std::string::npos) << q6;
  EXPECT_NE(q6.find("tiny-Q6_K_L.gguf (1.07 KiB)"), std::string::npos) << q6;
  EXPECT_EQ(q6.find("F16"), std::string::npos) << q6;
  const std::string q2 = catalog_pick(c, "Q2_K");
  EXPECT_EQ(q2.rfind("error 8: org/tags-GGUF: :Q2_K: no GGUF model matches 'Q2_K'", 0), 0u) << q2;
}

TEST(GgufCatalog, AWordOfThePathThenAnyUniquePartOfIt) {
  const std::vector<RepoFile> files = repo_listing({{"Meta-Llama-3-8B-Instruct-Q4_K_M.gguf", 5},
                                                    {"Meta-Llama-3-8B-Instruct-Q8_0.gguf", 9},
                                                    {"Meta-Llama-3-8B-Instruct-Q4_K_M-imat.gguf", 5}});
  const GgufCatalog c(files, "org/m");
  // "Q4_K_M" is the tag of the first only (the third's tag is "imat"), so that one is chosen.
  EXPECT_EQ(catalog_pick(c, "Q4_K_M"), "Meta-Llama-3-8B-Instruct-Q4_K_M.gguf");
  // A word: "q8" bounded by '-' and '_' in one name only.
  EXPECT_EQ(catalog_pick(c, "q8"), "Meta-Llama-3-8B-Instruct-Q8_0.gguf");
  EXPECT_EQ(catalog_pick(c, "imat"), "Meta-Llama-3-8B-Instruct-Q4_K_M-imat.gguf");
  // No tag or word: a part of one name only.
  EXPECT_EQ(catalog_pick(c, "8_0"), "Meta-Llama-3-8B-Instruct-Q8_0.gguf");
  EXPECT_EQ(catalog_pick(c, "K_M-im"), "Meta-Llama-3-8B-Instruct-Q4_K_M-imat.gguf");
  // A part of two names: ambiguous.
  EXPECT_EQ(catalog_pick(c, "_K").rfind("error 2: ", 0), 0u);
}

// unsloth's layout: a folder per quantization, a split model's parts inside it, and a projector beside.
TEST(GgufCatalog, ModelsInFoldersWithTheirSplitPartsBeside) {
  const std::vector<RepoFile> files = repo_listing({{"README.md", 3},
                                                    {"Q4_K_M/big-Q4_K_M-00001-of-00002.gguf", 700},
                                                    {"Q4_K_M/big-Q4_K_M-00002-of-00002.gguf", 300},
                                                    {"Q8_0/tiny-Q8_0.gguf", 1500},
                                                    {"UD-Q2_K_XL/big-UD-Q2_K_XL-00001-of-00002.gguf", 100},
                                                    {"UD-Q2_K_XL/big-UD-Q2_K_XL-00002-of-00002.gguf", 50},
                                                    {"BF16/mmproj-big-BF16.gguf", 80}});
  const GgufCatalog c(files, "org/folders-GGUF");
  std::vector<std::string> models;
  for (const RepoFile* m : c.models()) models.push_back(m->path);
  EXPECT_EQ(models, (std::vector<std::string>{"Q4_K_M/big-Q4_K_M-00001-of-00002.gguf", "Q8_0/tiny-Q8_0.gguf",
                                              "UD-Q2_K_XL/big-UD-Q2_K_XL-00001-of-00002.gguf"}));
  const RepoFile& split = *c.models().front();
  std::vector<std::string> parts;
  for (const RepoFile* p : c.parts(split)) parts.push_back(p->path);
  EXPECT_EQ(parts, (std::vector<std::string>{"Q4_K_M/big-Q4_K_M-00001-of-00002.gguf",
                                             "Q4_K_M/big-Q4_K_M-00002-of-00002.gguf"}));
  EXPECT_EQ(c.bytes(split), std::optional<uint64_t>(700 + 300));
  EXPECT_EQ(catalog_pick(c, "Q8_0"), "Q8_0/tiny-Q8_0.gguf");
  EXPECT_EQ(catalog_pick(c, "Q4_K_M"), "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf");
  EXPECT_EQ(catalog_pick(c, "UD-Q2_K_XL"), "UD-Q2_K_XL/big-UD-Q2_K_XL-00001-of-00002.gguf");
  EXPECT_EQ(catalog_pick(c, "Q2_K_XL"), "UD-Q2_K_XL/big-UD-Q2_K_XL-00001-of-00002.gguf");
  // Any part's path names its split model; a projector is no model.
  EXPECT_EQ(catalog_pick(c, "Q4_K_M/big-Q4_K_M-00002-of-00002.gguf"),
            "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf");
  EXPECT_EQ(catalog_pick(c, "BF16").rfind("error 8: ", 0), 0u);
  EXPECT_EQ(gguf_quantization_tag("Q4_K_M/big-Q4_K_M-00001-of-00002.gguf"), "Q4_K_M");
  EXPECT_EQ(gguf_quantization_tag("mistral-7b-instruct-v0.2.Q5_K_S.gguf"), "Q5_K_S");
  EXPECT_EQ(gguf_quantization_tag("Q8_0.gguf"), "Q8_0");
}

// A split model missing a part, or a listing without sizes: the size is unknown, never the parts present.
TEST(GgufCatalog, ASizeIsUnknownWhenAPartIsMissingOrUnsized) {
  const std::vector<RepoFile> files = repo_listing({{"tiny-Q4_K_M.gguf", 851264},
                                                    {"tiny-Q3_K-00001-of-00002.gguf", 1405000},
                                                    {"tiny-Q8_0.gguf", std::nullopt}});
  const GgufCatalog c(files, "org/badrow-GGUF");
  ASSERT_EQ(c.models().size(), 3u);
  EXPECT_EQ(c.bytes(*c.models()[0]), std::optional<uint64_t>(851264));
  EXPECT_EQ(c.bytes(*c.models()[1]), std::nullopt);
  EXPECT_EQ(c.bytes(*c.models()[2]), std::nullopt);
  try {
    c.parts(*c.models()[1]);
    ADD_FAILURE() << "a missing part must be named";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_NE(e.message().find("tiny-Q3_K-00002-of-00002.gguf is not in the repository"), std::string::npos)
        << e.message();
  }
  const std::string several = catalog_pick(c, "tiny");
  EXPECT_NE(several.find("tiny-Q3_K-00001-of-00002.gguf (size unknown)"), std::string::npos) << several;
}

// Without its first part a split model was passed over, listed nowhere: it stands by its first part's name,
// once for all its other parts, and that part is named as missing.
TEST(GgufCatalog, AModelMissingItsFirstPartIsListedByIt) {
  const std::vector<RepoFile> files = repo_listing({{"tiny-Q3_K-00002-of-00003.gguf", 1400000},
                                                    {"tiny-Q3_K-00003-of-00003.gguf", 1400000},
                                                    {"tiny-Q8_0.gguf", 9000}});
  const GgufCatalog c(files, "org/nofirst-GGUF");
  ASSERT_EQ(c.models().size(), 2u);
  EXPECT_EQ(c.models()[0]->path, "tiny-Q3_K-00001-of-00003.gguf");
  EXPECT_EQ(c.bytes(*c.models()[0]), std::nullopt);
  try {
    c.parts(*c.models()[0]);
    ADD_FAILURE() << "a missing first part must be named";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_NE(e.message().find("split part 1: tiny-Q3_K-00001-of-00003.gguf is not in the repository"),
              std::string::npos)
        << e.message();
  }
  EXPECT_EQ(catalog_pick(c, "Q8_0"), "tiny-Q8_0.gguf");
}

TEST(GgufCatalog, ARepositoryWithoutGgufAnswersNotFound) {
  const std::vector<RepoFile> files = repo_listing({{"config.json", 10}, {"model.safetensors", 100}});
  const GgufCatalog c(files, "org/tiny-llama");
  EXPECT_TRUE(c.models().empty());
  const std::string r = catalog_pick(c, "nonexistent.gguf");
  EXPECT_EQ(r,
            "error 8: org/tiny-llama: :nonexistent.gguf: no GGUF model matches 'nonexistent.gguf': the "
            "repository holds no GGUF file");
}

// Of two names that differ only in case, the exact one is taken; the case-insensitive reading is ambiguous.
TEST(GgufCatalog, AnExactPathWinsOverItsCaseInsensitiveTwin) {
  const std::vector<RepoFile> files = repo_listing({{"m-Q8_0.gguf", 1}, {"m-q8_0.gguf", 2}});
  const GgufCatalog c(files, "org/m");
  EXPECT_EQ(catalog_pick(c, "m-q8_0.gguf"), "m-q8_0.gguf");
  EXPECT_EQ(catalog_pick(c, "m-Q8_0.gguf"), "m-Q8_0.gguf");
  EXPECT_EQ(catalog_pick(c, "Q8_0").rfind("error 2: ", 0), 0u);
  const std::string only = [&] {
    try {
      return c.only().path;
    } catch (const Error& e) {
      return e.message();
    }
  }();
  EXPECT_NE(only.find("holds 2 GGUF models"), std::string::npos) << only;
}

}  // namespace
}  // namespace ma::test
