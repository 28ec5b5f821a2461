// The picture of a plan (plan --plot): the bytes on each device as stacked bars under its capacity over the
// layers by device, or, where the plan relies on it, llama.cpp's CPU offload.
#pragma once
#include <string>

#include "analysis/plan/plan.h"

namespace ma {

std::string render_plan_svg(const Plan& p);

}  // namespace ma
