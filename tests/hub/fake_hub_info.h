// The model-info JSON the fake Hub serves at /api/models/{id}: defaults, the repo's extra members, siblings.
#pragma once

#include <string>

#include "fake_hub_plan.h"

namespace ma::test::detail {

// Defaults, then info_json_fields, then siblings; a default named in info_json_fields is left out.
std::string model_info_json(const RepoPlan& r);

}  // namespace ma::test::detail
