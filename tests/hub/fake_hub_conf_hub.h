// The fake Hub's "hub" server block: per repo and mode, the model-info API, /resolve/ and /raw/ locations,
// and the auth guards and limiters in front of them (the modes are described atop fake_hub.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fake_hub_layout.h"
#include "fake_hub_plan.h"

namespace ma::test::detail {

// `endpoint` is the hub's own origin (redirect loops), `cdn_origin` the target of LFS redirects.
std::string hub_server(const Layout& lay, const std::vector<RepoPlan>& repos, uint16_t port,
                       const std::string& endpoint, const std::string& cdn_origin);

}  // namespace ma::test::detail
