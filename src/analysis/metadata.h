// Where a model came from and what the Hub says about it (seed 002's METADATA section): author, downloads,
// likes, license, gated, the exact commit analysed, the size of its weight files and the ONNX models it
// offers in folders. Absent for a local model, where none of it is known.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hub/onnx_choice.h"

namespace ma {

struct ModelMetadata {
  std::string repo_id;
  std::string revision;  // as asked ("main", a tag, a commit)
  std::string commit;    // what it resolved to
  std::string author;
  std::optional<uint64_t> downloads;
  std::optional<uint64_t> likes;
  std::string license;  // empty when the repo declares none
  std::string gated;    // "false", "auto", "manual"
  std::string pipeline_tag;
  std::string last_modified;
  std::optional<uint64_t> weight_files_bytes;  // the weight files the analysis read headers of, whole
  std::vector<ListedOnnxModel> onnx_models;    // when the analysis read no ONNX model
};

}  // namespace ma
