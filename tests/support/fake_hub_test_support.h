// Building repos for the fake Hub (tests/hub) in a line: the fake Hub's own tests, unit and end to end.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "fake_hub.h"

namespace ma::test {

inline FakeFile fake_file(const std::string& path, std::string content, bool lfs = false) {
  FakeFile f;
  f.path = path;
  f.content = std::move(content);
  f.lfs = lfs;
  return f;
}

inline FakeRepo fake_repo(const std::string& id, const std::string& mode, std::vector<FakeFile> files) {
  FakeRepo r;
  r.id = id;
  r.mode = mode;
  r.files = std::move(files);
  return r;
}

}  // namespace ma::test
