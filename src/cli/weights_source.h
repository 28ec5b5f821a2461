// Where the commands that read every weight (stats, spectrum) find them: a local path, or a Hub id whose
// weights are already downloaded into the cache.
#pragma once
#include <string>

#include "cli/model_source.h"
#include "formats/model_files.h"

namespace ma::cli {

// Throws Error(NotFound) for a Hub id whose cache holds only headers, naming the download command.
LocalModelFiles local_weights(const std::string& model, const HubArgs& hub);

}  // namespace ma::cli
