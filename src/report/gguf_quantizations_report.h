// The listing of a repository of GGUF quantizations (`modelanalyzer org/name-GGUF` without --file): one row
// per model with its file type, size, bits per weight and type mix, on the console and as JSON under the same
// names.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analysis/gguf_quantizations.h"
#include "report/run_info.h"

namespace ma {

std::string render_gguf_quantizations_console(const std::vector<GgufQuantization>& models,
                                              std::string_view repo, bool color);
std::string render_gguf_quantizations_json(const std::vector<GgufQuantization>& models, std::string_view repo,
                                           const RunInfo& run);

}  // namespace ma
