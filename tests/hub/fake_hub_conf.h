// The fake Hub's whole nginx.conf: main section, shared http settings (log formats, temp paths, the auth map,
// the limiter zones), the hub server and the CDN server.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fake_hub_layout.h"
#include "fake_hub_plan.h"

namespace ma::test::detail {

struct ConfigInputs {
  const Layout& lay;
  const std::vector<RepoPlan>& repos;
  const std::string& token;
  uint16_t hub_port, cdn_port;
};

// "http://127.0.0.1:<port>"
std::string origin(uint16_t port);

std::string render_config(const ConfigInputs& in);

}  // namespace ma::test::detail
