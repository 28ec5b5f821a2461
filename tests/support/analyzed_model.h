// A model directory read the way the commands read it: its files, the inventory and the report (no
// tokenizer), for tests and benchmarks of the analyses that start from a report (perf, plan, serve).
#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "analysis/model_report.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {

// The inventory of a model path, as the commands build it.
inline Inventory inventory_of(const std::filesystem::path& p) {
  return build_inventory(locate_local_model(p.string()));
}

struct AnalyzedModel {
  LocalModelFiles files;
  Inventory inv;
  ModelReport report;
};

inline std::unique_ptr<AnalyzedModel> analyze_dir(const std::filesystem::path& dir, ReportOptions o = {}) {
  auto m = std::make_unique<AnalyzedModel>();
  m->files = locate_local_model(dir.string());
  m->inv = build_inventory(m->files);
  o.skip_tokenizer = true;
  m->report = build_model_report(m->inv, m->files, o);
  return m;
}

// The report of a model given by its config.json text alone, written to a directory of its own.
inline ModelReport report_of_config_text(const std::string& config_json, const std::string& id) {
  TempDir dir;
  write_file(dir / "config.json", config_json);
  ReportOptions o;
  o.model_id = id;
  return analyze_dir(dir.path(), o)->report;
}

}  // namespace ma::test

// In a test (gtest and test_support.h included): ../shared/data/hf-configs/<name> analysed into `var`, or the
// test skipped, visibly, without the shared data; `data_` is the data's path for the test's other files.
#define LOAD_CONFIG_OR_SKIP(var, name)                           \
  auto data_ = ::ma::test::shared_data();                        \
  if (!data_) GTEST_SKIP() << "../shared/data is not available"; \
  auto var = ::ma::test::analyze_dir(*data_ / "hf-configs" / (name))
