// A model directory built into a simulator config the way `build-config` builds it, and its entries looked
// up by name, for the build-config tests.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "analysis/builder/simulator_config.h"
#include "formats/model_files.h"
#include "model/inventory.h"

namespace ma::test {

struct BuiltSimulatorConfig {
  LocalModelFiles files;
  Inventory inv;
  SimulatorConfig cfg;
};

inline std::unique_ptr<BuiltSimulatorConfig> build_simulator_config_of(
    const std::filesystem::path& dir, const LayerCatalogue& catalogue = default_layer_catalogue()) {
  auto b = std::make_unique<BuiltSimulatorConfig>();
  b->files = locate_local_model(dir.string());
  b->inv = build_inventory(b->files);
  b->cfg = build_simulator_config(b->inv, dir.string(), catalogue);
  return b;
}

inline bool has_simulator_entry(const SimulatorConfig& c, const std::string& name) {
  for (const LayerTypeEntry& e : c.layer_types)
    if (e.name == name) return true;
  return false;
}

// The entry named `name`; a failure listing the entries there are when there is none.
inline const LayerTypeEntry& simulator_entry(const SimulatorConfig& c, const std::string& name) {
  for (const LayerTypeEntry& e : c.layer_types)
    if (e.name == name) return e;
  std::string names;
  for (const LayerTypeEntry& e : c.layer_types) names += " " + e.name;
  ADD_FAILURE() << "no entry " << name << "; entries:" << names;
  return c.layer_types.front();
}

}  // namespace ma::test
