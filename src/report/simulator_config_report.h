// The built simulator config as the file Mantile reads (JSON in its schema, docs/schema/
// mantile-config.schema.json) and as a short console table with the validation result.
#pragma once
#include <string>

#include "analysis/builder/config_validation.h"
#include "analysis/builder/simulator_config.h"

namespace ma {

std::string render_simulator_config_json(const SimulatorConfig& cfg, const ConfigValidation& validation);
std::string render_simulator_config_console(const SimulatorConfig& cfg, const ConfigValidation& validation,
                                            bool color);

}  // namespace ma
