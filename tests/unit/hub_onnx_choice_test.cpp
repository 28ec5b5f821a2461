// The ONNX models of a Hub repository's file list (hub/onnx_choice.h) as its listing offers them: the dtype
// transformers.js loads each as by its file name, and each one's size with the data named after it.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hub/model_info.h"
#include "hub/onnx_choice.h"
#include "repo_listing.h"

namespace ma::test {
namespace {

const RepoFile& listed(const std::vector<RepoFile>& files, const std::string& path) {
  for (const RepoFile& f : files)
    if (f.path == path) return f;
  throw std::logic_error(path + " is not in the listing");
}

// onnx-community's layout: the model, its dtype variants beside it, each with its data or inline.
TEST(HubOnnxChoice, TransformersJsDtypesAreReadFromTheFileNames) {
  const std::vector<RepoFile> files = repo_listing({{"config.json", 700},
                                                    {"onnx/model.onnx", 400},
                                                    {"onnx/model.onnx_data", 2'000'000},
                                                    {"onnx/model_fp16.onnx", 410},
                                                    {"onnx/model_fp16.onnx_data", 1'000'000},
                                                    {"onnx/model_quantized.onnx", 500'000},
                                                    {"onnx/model_int8.onnx", 500'000},
                                                    {"onnx/model_uint8.onnx", 500'000},
                                                    {"onnx/model_q4.onnx", 300'000},
                                                    {"onnx/model_q4f16.onnx", 260'000},
                                                    {"onnx/model_bnb4.onnx", 280'000},
                                                    {"onnx/model_O1.onnx", 2'000'000},
                                                    {"cpu/model.onnx", 123}});
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"onnx/model.onnx", "fp32"},
      {"onnx/model_fp16.onnx", "fp16"},
      {"onnx/model_quantized.onnx", "q8"},
      {"onnx/model_int8.onnx", "int8"},
      {"onnx/model_uint8.onnx", "uint8"},
      {"onnx/model_q4.onnx", "q4"},
      {"onnx/model_q4f16.onnx", "q4f16"},
      {"onnx/model_bnb4.onnx", "bnb4"},
      // An optimum optimization level is not a transformers.js dtype; a model alone varies nothing.
      {"onnx/model_O1.onnx", ""},
      {"cpu/model.onnx", ""}};
  for (const auto& [path, dtype] : expected)
    EXPECT_EQ(transformers_js_dtype(files, listed(files, path)), dtype) << path;

  // Listed in order, below the top level only.
  std::vector<std::string> in_folders;
  for (const RepoFile* f : onnx_models_in_folders(files)) in_folders.push_back(f->path);
  ASSERT_EQ(in_folders.size(), expected.size());
  EXPECT_EQ(in_folders.front(), "onnx/model.onnx");
  EXPECT_EQ(in_folders.back(), "cpu/model.onnx");
}

TEST(HubOnnxChoice, AModelsSizeIsItsGraphAndTheDataNamedAfterIt) {
  const std::vector<RepoFile> files =
      repo_listing({{"onnx/model.onnx", 400},
                    {"onnx/model.onnx_data", 2'000'000},
                    {"onnx/model.onnx_data_1", 1'000'000},
                    {"onnx/model_fp16.onnx", 410},  // another model: not model.onnx's data
                    {"onnx/genai_config.json", 900},
                    {"onnx/int8_weights.bin", 77},  // named by some graph only: not counted by name
                    {"model.onnx_data", 5}});       // another folder
  EXPECT_EQ(onnx_listed_bytes(files, listed(files, "onnx/model.onnx")), 3'000'400u);
  EXPECT_EQ(onnx_listed_bytes(files, listed(files, "onnx/model_fp16.onnx")), 410u);
  // A size the listing does not give makes the whole unknown, never the part that is listed.
  const std::vector<RepoFile> unsized =
      repo_listing({{"m/model.onnx", 400}, {"m/model.onnx_data", std::nullopt}});
  EXPECT_EQ(onnx_listed_bytes(unsized, listed(unsized, "m/model.onnx")), std::nullopt);
}

// The model an analysis reads, as of a local directory: the top-level .onnx file, or model.onnx among
// several; else the only model in a folder. Several in folders are choices, not it; one in a folder is not
// it beside several at the top.
TEST(HubOnnxChoice, TheModelIsTheOnlyOneOrModelOnnx) {
  auto model = [](const std::vector<RepoFile>& files) {
    const RepoFile* f = repository_onnx_model(files);
    return f ? f->path : std::string("none");
  };
  EXPECT_EQ(model(repo_listing({{"config.json", 1}, {"decoder.onnx", 2}, {"onnx/model.onnx", 3}})),
            "decoder.onnx");
  EXPECT_EQ(model(repo_listing({{"encoder.onnx", 1}, {"model.onnx", 2}, {"model.onnx_data", 3}})),
            "model.onnx");
  EXPECT_EQ(model(repo_listing({{"encoder.onnx", 1}, {"decoder.onnx", 2}})), "none");
  EXPECT_EQ(model(repo_listing({{"encoder.onnx", 1}, {"decoder.onnx", 2}, {"onnx/model.onnx", 3}})), "none");
  EXPECT_EQ(model(repo_listing({{"onnx/model.onnx", 1}, {"onnx/model.onnx_data", 2}})), "onnx/model.onnx");
  EXPECT_EQ(model(repo_listing({{"onnx/model.onnx", 1}, {"onnx/model_fp16.onnx", 2}})), "none");
}

}  // namespace
}  // namespace ma::test
