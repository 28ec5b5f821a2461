// Where the fake Hub's files live under its work_dir (the layout is drawn atop fake_hub.cpp).
#pragma once

#include <filesystem>

#include "fake_hub_plan.h"

namespace ma::test::detail {

struct Layout {
  std::filesystem::path work;
  std::filesystem::path www() const { return work / "www"; }
  std::filesystem::path empty_root() const { return www() / "empty"; }
  std::filesystem::path api_json(const RepoPlan& r) const { return www() / "api" / (r.key + ".json"); }
  std::filesystem::path hub_file(const RepoPlan& r, const FilePlan& f) const {
    return www() / "hub" / r.key / f.file.path;
  }
  std::filesystem::path blob(const RepoPlan& r, const FilePlan& f) const {
    return www() / "cdn" / r.key / f.etag;
  }
  std::filesystem::path conf() const { return work / "nginx.conf"; }
  std::filesystem::path pid_file() const { return work / "nginx.pid"; }
  std::filesystem::path error_log() const { return work / "error.log"; }
  std::filesystem::path hub_log() const { return work / "hub_access.log"; }
  std::filesystem::path cdn_log() const { return work / "cdn_access.log"; }
  std::filesystem::path tmp() const { return work / "tmp"; }
};

}  // namespace ma::test::detail
