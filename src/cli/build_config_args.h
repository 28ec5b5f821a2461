// Command-line options of `modelanalyzer build-config MODEL --out FILE.json --gaps DIR`.
#pragma once
#include <string>

#include "analysis/builder/config_validation.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

struct BuildConfigArgs {
  std::string model;
  CommonFlags common;
  std::string out;            // --out: the config file
  std::string gaps;           // --gaps: the directory of the gap reports
  std::string target_layers;  // --target-layers: a catalogue file replacing Mantile's classes
  std::string claims;         // --claims: a PARAM_COUNTS.tsv of published counts ("" : the one beside MODEL)
  Expectations expect;        // --expect-params, --expect-layers, --tolerance
  HubArgs hub;
};

CommandSpec build_config_spec(BuildConfigArgs& a);
BuildConfigArgs parse_build_config_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
