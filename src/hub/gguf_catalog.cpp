#include "hub/gguf_catalog.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "core/text.h"
#include "core/units.h"
#include "formats/gguf_split.h"

namespace ma {
namespace {

constexpr size_t kCatalogListedModels = 24;  // an error line lists at most these, then "and N more"

std::string catalog_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view catalog_file_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The path without ".gguf" and, for a part of a split model, without "-00001-of-00003": what names the model.
std::string_view catalog_path_stem(std::string_view path) {
  if (gguf_split_name(path)) return path.substr(0, path.size() - 20);
  return path.ends_with(".gguf") ? path.substr(0, path.size() - 5) : path;
}

bool catalog_word_edge(char c) {
  return c == '/' || c == '-' || c == '.' || c == '_';
}

// `word` occurs in `text` with an edge (or the text's start or end) on both sides.
bool catalog_has_word(std::string_view text, std::string_view word) {
  if (word.empty()) return false;
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || catalog_word_edge(text[at - 1])) && (end == text.size() || catalog_word_edge(text[end])))
      return true;
  }
  return false;
}

}  // namespace

std::string gguf_quantization_tag(std::string_view path) {
  const std::string_view stem = catalog_file_name(catalog_path_stem(path));
  const size_t cut = stem.find_last_of("-.");
  return std::string(cut == std::string_view::npos ? stem : stem.substr(cut + 1));
}

GgufCatalog::GgufCatalog(const std::vector<RepoFile>& files, std::string repo, std::string holder)
    : repo_(std::move(repo)), holder_(std::move(holder)) {
  for (const RepoFile& f : files) by_path_.emplace(f.path, &f);
  for (const RepoFile& f : files) {
    if (!f.path.ends_with(".gguf")) continue;
    const std::string_view name = catalog_file_name(f.path);
    if (is_gguf_model_entry(name)) {
      models_.push_back(&f);
      continue;
    }
    const std::optional<GgufSplitName> split = gguf_split_name(f.path);
    if (!split || name.starts_with("mmproj")) continue;
    std::string first = gguf_part_name(split->prefix, 1, split->count);
    if (by_path_.count(first) || absent_first_parts_.count(first)) continue;
    // Keyed by hash, as parts() is: a hostile listing of 99,999 orphan parts costs no scan per part.
    const RepoFile& absent =
        absent_first_parts_.emplace(first, RepoFile{first, std::nullopt, {}, {}}).first->second;
    models_.push_back(&absent);
  }
}

std::vector<const RepoFile*> GgufCatalog::parts(const RepoFile& first) const {
  const std::optional<GgufSplitName> split = gguf_split_name(first.path);
  if (!split) return {&first};
  std::vector<const RepoFile*> out;
  for (unsigned k = 1; k <= split->count; ++k) {
    // The prefix keeps the first part's folder: the parts are looked up beside it.
    const std::string name = gguf_part_name(split->prefix, k, split->count);
    const auto it = by_path_.find(name);
    if (it == by_path_.end())
      throw Error(ErrorKind::NotFound, repo_ + "/" + first.path, "split part " + std::to_string(k),
                  name + " is not in " + holder_);
    out.push_back(it->second);
  }
  return out;
}

std::optional<uint64_t> GgufCatalog::bytes(const RepoFile& first) const {
  try {
    return listed_bytes(parts(first));
  } catch (const Error&) {
    return std::nullopt;  // a part missing from the listing
  }
}

std::string GgufCatalog::listing(const std::vector<const RepoFile*>& models) const {
  std::vector<std::string> rows(models.size());  // those past the shown ones only counted
  for (size_t k = 0; k < models.size() && k < kCatalogListedModels; ++k) {
    const std::optional<uint64_t> b = bytes(*models[k]);
    rows[k] =
        printable(models[k]->path, 200) + " (" + (b ? human_bytes(*b) : std::string("size unknown")) + ")";
  }
  return first_and_more(rows, kCatalogListedModels);
}

const RepoFile& GgufCatalog::only() const {
  if (models_.empty()) throw Error(ErrorKind::NotFound, repo_, "", holder_ + " holds no GGUF model");
  if (models_.size() == 1) return *models_.front();
  throw Error(ErrorKind::Usage, repo_, "",
              "holds " + std::to_string(models_.size()) + " GGUF models: " + listing(models_) +
                  "; choose one with --file NAME (a file name, or a quantization such as Q4_K_M)");
}

const RepoFile& GgufCatalog::choose(std::string_view selector, std::string_view spelled) const {
  const std::string shown = "'" + printable(selector) + "'";
  if (models_.empty())
    throw Error(ErrorKind::NotFound, repo_, std::string(spelled),
                "no GGUF model matches " + shown + ": " + holder_ + " holds no GGUF file");
  // The model a file of the list belongs to (any part names its split model); nullptr for another file.
  auto model_of = [&](std::string_view path, const RepoFile* file) -> const RepoFile* {
    if (const std::optional<GgufSplitName> split = gguf_split_name(path)) {
      const auto it = by_path_.find(gguf_part_name(split->prefix, 1, split->count));
      file = it == by_path_.end() ? nullptr : it->second;
    }
    return file && std::find(models_.begin(), models_.end(), file) != models_.end() ? file : nullptr;
  };
  // 0. A path exactly as listed (a URL's file; two names that differ only in case).
  if (const auto exact = by_path_.find(selector); exact != by_path_.end())
    if (const RepoFile* m = model_of(exact->first, exact->second)) return *m;
  const std::string want = catalog_lower(selector);
  std::vector<const RepoFile*> hits;
  auto hit = [&](const RepoFile* m) {
    if (m && std::find(hits.begin(), hits.end(), m) == hits.end()) hits.push_back(m);
  };
  // 1. A file of the model by its path or name, with or without ".gguf".
  for (const auto& [path, file] : by_path_) {
    if (!path.ends_with(".gguf")) continue;
    const std::string_view stem = catalog_path_stem(path);
    if (catalog_lower(path) == want || catalog_lower(catalog_file_name(path)) == want ||
        catalog_lower(stem) == want || catalog_lower(catalog_file_name(stem)) == want)
      hit(model_of(path, file));
  }
  // by_path_ is unordered: the models in the list's order.
  std::stable_sort(hits.begin(), hits.end(), [&](const RepoFile* a, const RepoFile* b) {
    return std::find(models_.begin(), models_.end(), a) < std::find(models_.begin(), models_.end(), b);
  });
  // 2-4. The quantization tag, a word of the path, any part of it.
  if (hits.empty())
    for (const RepoFile* m : models_)
      if (catalog_lower(gguf_quantization_tag(m->path)) == want) hit(m);
  if (hits.empty())
    for (const RepoFile* m : models_)
      if (catalog_has_word(catalog_lower(catalog_path_stem(m->path)), want)) hit(m);
  if (hits.empty())
    for (const RepoFile* m : models_)
      if (!want.empty() && catalog_lower(m->path).find(want) != std::string::npos) hit(m);
  if (hits.size() == 1) return *hits.front();
  if (hits.empty())
    throw Error(ErrorKind::NotFound, repo_, std::string(spelled),
                "no GGUF model matches " + shown + "; " + holder_ + " holds " + listing(models_));
  throw Error(ErrorKind::Usage, repo_, std::string(spelled),
              shown + " matches " + std::to_string(hits.size()) + " GGUF models alike: " + listing(hits) +
                  "; name one by its file");
}

}  // namespace ma
