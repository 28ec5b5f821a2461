// The Hub flags every command that takes a MODEL accepts, as option-table entries, and their help paragraph.
#pragma once
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

// --revision, --file, --offline, --token, --token-file, --trust-endpoint.
void add_hub_options(CommandSpec& spec, HubArgs& hub);

}  // namespace ma::cli
