// A repository's ONNX models in folders as its listing describes them (path, transformers.js dtype, size):
// the table the report's Metadata shows beside a model it read from elsewhere, and the whole answer for a
// repository with nothing else to report (ONNX Runtime GenAI's, which hold no config.json), on the console
// and as JSON under the same names.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_writer.h"
#include "hub/onnx_choice.h"
#include "report/run_info.h"

namespace ma {

// The first `most` models as table rows (File, dtype, Size): "-" where the name says no dtype, "?" where the
// listing gives no size (never the part of it that is listed).
std::vector<std::vector<std::string>> onnx_model_rows(const std::vector<ListedOnnxModel>& models,
                                                      size_t most);
inline const std::vector<std::string> kOnnxModelColumns = {"File", "dtype", "Size"};
// What the dtype and size columns mean.
inline constexpr std::string_view kOnnxModelsFootnote =
    "dtype: transformers.js's, by the file name (model_fp16.onnx fp16, the model they vary fp32); size: the "
    "graph and the data named after it";

// The models as a JSON array of {path, dtype, size_bytes}.
void write_onnx_models_json(JsonWriter& w, const std::vector<ListedOnnxModel>& models);

std::string render_onnx_models_console(const std::vector<ListedOnnxModel>& models, std::string_view repo,
                                       bool color);
std::string render_onnx_models_json(const std::vector<ListedOnnxModel>& models, std::string_view repo,
                                    const RunInfo& run);

}  // namespace ma
