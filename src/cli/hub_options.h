// The Hub flags every command that takes a MODEL accepts, as option-table entries, and their help paragraph.
#pragma once
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

// --revision, --offline, --token, --token-file, --trust-endpoint; and --file for the commands that analyse
// one model of a repository (download takes --include instead).
void add_hub_options(CommandSpec& spec, HubArgs& hub, bool choose_file = true);

}  // namespace ma::cli
