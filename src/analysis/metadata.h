// Where a model came from and what the Hub says about it (seed 002's METADATA section): author, downloads,
// likes, license, gated, the exact commit analysed and the size of its weight files. Absent for a local
// model, where none of it is known.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

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
};

}  // namespace ma
