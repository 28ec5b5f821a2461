#include "model/model_template.h"

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "core/json.h"

namespace ma {

std::string_view tensor_kind_name(TensorKind k) {
  static constexpr std::string_view kNames[] = {"parameter", "buffer", "extra", "quantization-scale"};
  static_assert(std::size(kNames) == static_cast<size_t>(TensorKind::QuantizationScale) + 1);
  static_assert(
      std::all_of(std::begin(kNames), std::end(kNames), json::quotes_as_is));  // JSON rows copy them
  return kNames[static_cast<size_t>(k)];
}

void ModelTemplate::charge(uint64_t n) {
  entries += n;
  if (entries > kMaxTemplateEntries || n > kMaxTemplateEntries)
    throw Error(ErrorKind::Limit, "", arch.model_type,
                "the config implies more than " + std::to_string(kMaxTemplateEntries) + " tensors");
}

TemplateTensor& ModelTemplate::add(std::string name, Shape shape) {
  charge(1);
  TemplateTensor& t = tensors.emplace_back();
  t.name = std::move(name);
  t.shape = std::move(shape);
  return t;
}

TemplateTensor& ModelTemplate::tie(std::string name, const std::string& target) {
  for (const TemplateTensor& t : tensors) {
    if (t.name == target) {
      TemplateTensor& copy = add(std::move(name), t.shape);
      copy.tied_to = target;
      copy.stored = false;
      return copy;
    }
  }
  throw Error(ErrorKind::Internal, "", name, "tied to unknown tensor " + target);
}

std::string PerExpertPieces::name(uint32_t expert, size_t part) const {
  return prefix + "." + std::to_string(first + expert) + "." + parts[part].suffix;
}

void ModelTemplate::order_modules(std::initializer_list<std::string_view> module_prefixes) {
  std::vector<size_t> slots;                     // where the listed modules' tensors sit now
  std::vector<std::pair<size_t, size_t>> moved;  // (rank of its prefix, index) of each
  for (size_t i = 0; i < tensors.size(); ++i) {
    size_t rank = 0;
    for (std::string_view p : module_prefixes) {
      if (tensors[i].name.starts_with(p)) break;
      ++rank;
    }
    if (rank == module_prefixes.size()) continue;
    slots.push_back(i);
    moved.emplace_back(rank, i);
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TemplateTensor> taken;
  taken.reserve(moved.size());
  for (const auto& m : moved) taken.push_back(std::move(tensors[m.second]));
  for (size_t k = 0; k < slots.size(); ++k) tensors[slots[k]] = std::move(taken[k]);
}

void ModelTemplate::rename_on_disk(std::string_view memory_prefix, std::string_view disk_prefix) {
  auto rename = [&](std::string& n) {
    if (n.compare(0, memory_prefix.size(), memory_prefix) == 0)
      n = std::string(disk_prefix) + n.substr(memory_prefix.size());
  };
  for (TemplateTensor& t : tensors) {
    if (t.fused_on_disk) continue;
    if (t.per_expert) {
      rename(t.per_expert->prefix);
      continue;
    }
    if (t.disk.empty()) t.disk.push_back({t.name, t.shape, std::nullopt, std::nullopt});
    for (DiskPiece& p : t.disk) rename(p.name);
  }
}

void ModelTemplate::rename_module(std::string_view from, std::string_view to) {
  auto rename = [&](std::string& n) {
    if (n.starts_with(from)) n = std::string(to) + n.substr(from.size());
  };
  for (TemplateTensor& t : tensors) {
    rename(t.name);
    if (!t.tied_to.empty()) rename(t.tied_to);  // an untied tensor has no target to move
    for (DiskPiece& p : t.disk) rename(p.name);
    if (t.per_expert) rename(t.per_expert->prefix);
  }
  for (KnownExtra& e : known_extras) rename(e.prefix);
  for (StackSpec& s : arch.stacks) rename(s.path);
}

std::vector<DiskTensor> disk_form(const ModelTemplate& t) {
  std::vector<DiskTensor> out;
  out.reserve(t.tensors.size());
  for (size_t i = 0; i < t.tensors.size(); ++i) {
    const TemplateTensor& tt = t.tensors[i];
    if (!tt.stored || tt.fused_on_disk) continue;
    if (tt.per_expert) {
      for (uint32_t e = 0; e < tt.per_expert->experts; ++e)
        for (size_t p = 0; p < tt.per_expert->parts.size(); ++p)
          out.push_back({tt.per_expert->name(e, p), tt.per_expert->parts[p].shape, i});
    } else if (tt.disk.empty()) {
      out.push_back({tt.name, tt.shape, i});
    } else {
      for (const DiskPiece& p : tt.disk) out.push_back({p.name, p.shape, i});
    }
  }
  return out;
}

}  // namespace ma
