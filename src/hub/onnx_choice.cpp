#include "hub/onnx_choice.h"

#include <utility>

#include "core/error.h"
#include "core/text.h"

namespace ma {
namespace {

std::string_view folder_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view file_name_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// At most a handful of paths, then how many more: a note or an error stays one line.
std::string some_paths(const std::vector<const RepoFile*>& files) {
  std::vector<std::string> paths;
  for (const RepoFile* f : files) paths.push_back(f->path);
  return onnx_model_paths(paths);
}

}  // namespace

const RepoFile* repository_onnx_model(const std::vector<RepoFile>& files) {
  const RepoFile* only = nullptr;
  size_t at_top = 0;
  for (const RepoFile& f : files) {
    if (!f.path.ends_with(".onnx") || !folder_of(f.path).empty()) continue;
    if (f.path == "model.onnx") return &f;
    only = &f;
    ++at_top;
  }
  if (at_top) return at_top == 1 ? only : nullptr;
  const std::vector<const RepoFile*> in_folders = onnx_models_in_folders(files);
  return in_folders.size() == 1 ? in_folders.front() : nullptr;
}

const RepoFile& choose_onnx_model(const std::vector<RepoFile>& files, std::string_view name,
                                  const std::string& repo, std::string_view spelled,
                                  std::string_view holder) {
  std::vector<const RepoFile*> onnx, named;
  for (const RepoFile& f : files) {
    if (!f.path.ends_with(".onnx")) continue;
    if (f.path == name) return f;
    onnx.push_back(&f);
    if (file_name_of(f.path) == name) named.push_back(&f);
  }
  if (named.size() == 1) return *named.front();
  const std::string shown = "'" + printable(name, 200) + "'";
  if (named.size() > 1)
    throw Error(ErrorKind::Usage, repo, std::string(spelled),
                shown + " is the name of " + std::to_string(named.size()) + " ONNX models (" +
                    some_paths(named) + "): name one by its path");
  throw Error(ErrorKind::NotFound, repo, std::string(spelled),
              "no ONNX model is " + shown +
                  (onnx.empty() ? ": " + std::string(holder) + " holds no .onnx file"
                                : "; " + std::string(holder) + "'s: " + some_paths(onnx)));
}

std::vector<const RepoFile*> onnx_companions(const std::vector<RepoFile>& files, const RepoFile& model) {
  const std::string_view folder = folder_of(model.path), own = file_name_of(model.path);
  std::vector<const RepoFile*> out;
  for (const RepoFile& f : files) {
    if (&f == &model || folder_of(f.path) != folder) continue;
    const std::string_view name = file_name_of(f.path);
    // Data named after the model (model.onnx_data), not another model (model.onnx.onnx would be one).
    const bool data = name.size() > own.size() && name.starts_with(own) && !name.ends_with(".onnx");
    if (data || name == "genai_config.json") out.push_back(&f);
  }
  return out;
}

std::vector<const RepoFile*> onnx_models_in_folders(const std::vector<RepoFile>& files) {
  std::vector<const RepoFile*> out;
  for (const RepoFile& f : files)
    if (f.path.ends_with(".onnx") && !folder_of(f.path).empty()) out.push_back(&f);
  return out;
}

ListedOnnxModel listed_onnx_model(const std::vector<RepoFile>& files, const RepoFile& model) {
  return {model.path, std::string(transformers_js_dtype(files, model)), onnx_listed_bytes(files, model)};
}

std::vector<ListedOnnxModel> listed_onnx_models(const std::vector<RepoFile>& files) {
  std::vector<ListedOnnxModel> out;
  for (const RepoFile* f : onnx_models_in_folders(files)) out.push_back(listed_onnx_model(files, *f));
  return out;
}

std::string onnx_model_paths(const std::vector<const RepoFile*>& models) {
  return some_paths(models);
}

std::string onnx_model_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> shown;
  for (const std::string& p : paths) shown.push_back(printable(p, 200));
  return first_and_more(shown, 6);
}

std::optional<uint64_t> onnx_listed_bytes(const std::vector<RepoFile>& files, const RepoFile& model) {
  std::vector<const RepoFile*> parts = {&model};
  for (const RepoFile* c : onnx_companions(files, model))
    if (file_name_of(c->path) != "genai_config.json") parts.push_back(c);  // brought along, not data
  return listed_bytes(parts);
}

std::string_view transformers_js_dtype(const std::vector<RepoFile>& files, const RepoFile& model) {
  // transformers.js's DEFAULT_DTYPE_SUFFIX_MAPPING (src/utils/dtypes.js), fp32's empty suffix aside.
  static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
      {"_fp16", "fp16"}, {"_int8", "int8"},   {"_uint8", "uint8"}, {"_quantized", "q8"},
      {"_q4", "q4"},     {"_q4f16", "q4f16"}, {"_bnb4", "bnb4"}};
  const std::string_view path = model.path;
  const std::string_view stem = path.substr(0, path.size() - std::string_view(".onnx").size());
  for (const auto& [suffix, dtype] : kSuffixes)
    if (file_name_of(stem).size() > suffix.size() && stem.ends_with(suffix)) return dtype;
  for (const RepoFile& f : files)
    for (const auto& [suffix, dtype] : kSuffixes)
      if (f.path == std::string(stem) + std::string(suffix) + ".onnx") return "fp32";
  return "";
}

}  // namespace ma
