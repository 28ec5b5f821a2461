#include "model/unloaded_tensors.h"

#include <string_view>
#include <unordered_set>

#include "model/tensor_placement.h"

namespace ma {

std::vector<bool> unloaded_tensors(const Inventory& inv) {
  std::vector<bool> out(inv.tensors.size(), false);
  std::unordered_set<std::string_view> modules;
  for (size_t i = 0; i < inv.tensors.size(); ++i) {
    const InventoryTensor& t = inv.tensors[i];
    if (!t.stored || t.kind != TensorKind::Extra) continue;
    out[i] = true;
    if (!module_of(t.name).empty()) modules.insert(module_of(t.name));
  }
  if (modules.empty()) return out;
  for (size_t i = 0; i < inv.tensors.size(); ++i) {
    const InventoryTensor& t = inv.tensors[i];
    if (t.stored && t.kind == TensorKind::QuantizationScale && modules.count(module_of(t.name)))
      out[i] = true;
  }
  return out;
}

}  // namespace ma
