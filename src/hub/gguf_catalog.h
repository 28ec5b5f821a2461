// The GGUF models of a Hub repository's file list, as the Hub's file viewer and llama.cpp's -hf see them:
// every .gguf at any depth that stands for a model (a single file, or the first part of a split one: large
// quantizations live in a folder each, "Q4_K_M/name-Q4_K_M-00001-of-00003.gguf"; mmproj projectors aside),
// each model's parts (in the first part's folder), their bytes, and the one model a selector names
// (":Q4_K_M", --file NAME, a /blob/ or /resolve/ URL's file).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hub/model_info.h"

namespace ma {

class GgufCatalog {
 public:
  // `files` must outlive the catalog; `repo` names the repository in errors, and `holder` what it is there
  // ("the directory" for a local one read as a repository).
  GgufCatalog(const std::vector<RepoFile>& files, std::string repo, std::string holder = "the repository");

  GgufCatalog(const GgufCatalog&) = delete;  // models_ may point into absent_first_parts_
  GgufCatalog& operator=(const GgufCatalog&) = delete;
  GgufCatalog(GgufCatalog&&) = default;  // a node map's elements keep their addresses when it moves

  // In the list's order; empty when the repository holds no GGUF model. A split model whose first part is
  // not listed stands there by that part's name (its size unknown), so that it is named as missing, as a
  // model missing a later part is, not passed over.
  const std::vector<const RepoFile*>& models() const { return models_; }

  // Every part of the model `first` stands for, in part order. Looked up by hash: a hostile listing of
  // 99,999 parts must not cost 99,999 scans of the file list. Throws Error(NotFound) naming a missing part.
  std::vector<const RepoFile*> parts(const RepoFile& first) const;
  // The bytes of all its parts; nullopt when a part is missing or the list gives no size for one (a total
  // of the parts that are there would pass for the model's size).
  std::optional<uint64_t> bytes(const RepoFile& first) const;

  // The model `selector` names, case-insensitively, the most exact reading first (llama.cpp's -hf and
  // Ollama match the quantization tag, so ":Q6_K" beside Q6_K_L and ":F16" beside BF16 are not ambiguous):
  //   1. the path of one of its files, its file name, or either without ".gguf" (and a split suffix);
  //   2. its quantization tag (gguf_quantization_tag);
  //   3. a word of its path (bounded by the start, the end, '/', '-', '.' or '_');
  //   4. any part of its path.
  // The first reading any model answers decides. `spelled` is how the user gave the choice (":Q4_K_M",
  // "--file"), for errors. Throws Error(NotFound) when no model matches (or the repository holds none),
  // Error(Usage) naming the models when several match alike.
  const RepoFile& choose(std::string_view selector, std::string_view spelled) const;
  // No selector: the only model; several are refused with Error(Usage), listed with their sizes.
  const RepoFile& only() const;

  // "a.gguf (1.20 GiB), b.gguf (size unknown)", at most a screenful.
  std::string listing(const std::vector<const RepoFile*>& models) const;

 private:
  std::string repo_, holder_;
  std::vector<const RepoFile*> models_;
  std::unordered_map<std::string_view, const RepoFile*> by_path_;
  std::unordered_map<std::string, RepoFile> absent_first_parts_;  // by path; in models_, never in by_path_
};

// The quantization tag of a GGUF file's name: what follows the last '-' or '.' of its stem (the name without
// its folder, ".gguf" and a split suffix "-00001-of-00003"). "Q4_K_M" for "Llama-3-8B.Q4_K_M.gguf" and
// "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf", "BF16" for "tiny-BF16.gguf"; the whole stem when it has neither.
std::string gguf_quantization_tag(std::string_view path);

}  // namespace ma
