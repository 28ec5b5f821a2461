#include "analysis/tensor_pairing.h"

#include <map>
#include <tuple>
#include <unordered_map>

#include "model/tensor_placement.h"

namespace ma {
namespace {

// The expert a per-expert name belongs to ("...mlp.experts.12.up_proj.weight" -> 12); -1 for none.
int64_t expert_of(std::string_view name) {
  constexpr std::string_view kExperts = ".experts.";
  const size_t at = name.find(kExperts);
  if (at == std::string_view::npos) return -1;
  int64_t e = 0;
  size_t i = at + kExperts.size();
  if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && e < (int64_t{1} << 40); ++i)
    e = e * 10 + (name[i] - '0');
  return e;
}

std::string_view last_component(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

using Place =
    std::tuple<int64_t, Block, std::string, std::string, int64_t>;  // layer, block, role, suffix, expert

Place place_of(const PairedSide& s) {
  const TensorPlacement p = place_tensor(s.tensor);
  return {p.layer ? static_cast<int64_t>(*p.layer) : -1, p.block, p.role,
          std::string(last_component(s.tensor)), s.slice >= 0 ? s.slice : expert_of(s.tensor)};
}

}  // namespace

std::vector<PairedSide> paired_sides(const LocalModelFiles& files, const Checkpoint& ck, bool split_experts) {
  std::vector<PairedSide> out;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) {
      PairedSide s;
      s.name = s.tensor = t.name;
      s.file = files.root / f.name;
      s.offset = f.data_start + t.data_begin;
      s.dtype = t.dtype;
      s.shape = t.shape;
      s.numel = t.numel;
      s.in_order = !t.strided && !t.permuted;
      s.encoded = t.encoded;
      const bool stacked = split_experts && t.shape.size() == 3 && t.shape[0] > 1 &&
                           place_tensor(t.name).block == Block::MoeExpert && expert_of(t.name) < 0;
      if (!stacked) {
        out.push_back(std::move(s));
        continue;
      }
      // One slice per expert: whole rows of whole blocks, so each starts at a block boundary.
      const uint64_t experts = t.shape[0];
      const Shape slice{t.shape[1], t.shape[2]};
      const uint64_t slice_numel = t.shape[1] * t.shape[2];
      const uint64_t slice_bytes = dtype_bytes(slice_numel, t.dtype);
      for (uint64_t e = 0; e < experts; ++e) {
        PairedSide part = s;
        part.name = t.name + "[" + std::to_string(e) + "]";
        part.slice = static_cast<int64_t>(e);
        part.offset = s.offset + e * slice_bytes;
        part.shape = slice;
        part.numel = slice_numel;
        out.push_back(std::move(part));
      }
    }
  return out;
}

TensorPairs pair_by_name(const std::vector<PairedSide>& a, const std::vector<PairedSide>& b) {
  TensorPairs out;
  std::unordered_map<std::string_view, size_t> in_b;
  for (size_t i = 0; i < b.size(); ++i) in_b.emplace(b[i].name, i);
  std::vector<bool> used(b.size(), false);
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = in_b.find(a[i].name);
    if (it == in_b.end()) {
      out.only_a.push_back(i);
      continue;
    }
    used[it->second] = true;
    out.pairs.emplace_back(i, it->second);
  }
  for (size_t j = 0; j < b.size(); ++j)
    if (!used[j]) out.only_b.push_back(j);
  return out;
}

TensorPairs pair_by_place(const std::vector<PairedSide>& a, const std::vector<PairedSide>& b) {
  struct Group {
    std::vector<size_t> a, b;
  };
  std::map<Place, Group> groups;
  std::vector<Place> order;  // A's order of first appearance
  for (size_t i = 0; i < a.size(); ++i) {
    Place p = place_of(a[i]);
    auto [it, added] = groups.try_emplace(p);
    if (added) order.push_back(p);
    it->second.a.push_back(i);
  }
  for (size_t j = 0; j < b.size(); ++j) groups[place_of(b[j])].b.push_back(j);

  TensorPairs out;
  std::vector<bool> used_a(a.size(), false), used_b(b.size(), false);
  for (const Place& p : order) {
    const Group& g = groups[p];
    if (g.a.size() == 1 && g.b.size() == 1) {  // shapes are the caller's to check
      out.pairs.emplace_back(g.a[0], g.b[0]);
      used_a[g.a[0]] = used_b[g.b[0]] = true;
      continue;
    }
    // Several at one place: pair within each shape; n x n of one shape is for the caller to settle.
    std::map<Shape, Group> by_shape;
    for (size_t i : g.a) by_shape[a[i].shape].a.push_back(i);
    for (size_t j : g.b) by_shape[b[j].shape].b.push_back(j);
    for (const auto& [shape, s] : by_shape) {
      if (s.a.size() == 1 && s.b.size() == 1) {
        out.pairs.emplace_back(s.a[0], s.b[0]);
        used_a[s.a[0]] = used_b[s.b[0]] = true;
      } else if (s.a.size() == s.b.size() && !s.a.empty()) {
        std::vector<std::pair<size_t, size_t>> candidates;
        for (size_t i : s.a)
          for (size_t j : s.b) candidates.emplace_back(i, j);
        out.ambiguous.push_back(std::move(candidates));
        for (size_t i : s.a) used_a[i] = true;
        for (size_t j : s.b) used_b[j] = true;
      }
    }
  }
  for (size_t i = 0; i < a.size(); ++i)
    if (!used_a[i]) out.only_a.push_back(i);
  for (size_t j = 0; j < b.size(); ++j)
    if (!used_b[j]) out.only_b.push_back(j);
  return out;
}

}  // namespace ma
