// Console summary of a model (the default command): identity, exact parameters, layer map, checkpoint.
#pragma once
#include <string>

#include "report/tensors_report.h"

namespace ma {

std::string render_summary_console(const TensorsReport& r, bool color);

}  // namespace ma
