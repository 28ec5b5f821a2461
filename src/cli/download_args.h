// Command-line options of `modelanalyzer download MODEL`.
#pragma once
#include <string>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "hub/download.h"

namespace ma::cli {

struct DownloadArgs {
  std::string model;
  CommonFlags common;
  HubArgs hub;
  DownloadOptions options;  // include / exclude globs, --out
  bool needed = false;      // --needed: only what an analysis reads (hub/download_choice.h)
};

CommandSpec download_spec(DownloadArgs& a);
DownloadArgs parse_download_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
