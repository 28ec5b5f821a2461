// An index and the shards it names must agree tensor for tensor. Each shard's tensors are first looked for
// right after the previous one's entry in the index, then by name (formats/checkpoint.cpp): neither the
// tensors read nor the errors may depend on the order either side lists them in.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;  // tensor, shard

// a.safetensors holds x, y, z; b.safetensors holds u, v; the index lists `entries` in their order.
void write_model(const TempDir& dir, const Entries& entries) {
  write_safetensors(dir / "a.safetensors",
                    {{"x", DType::F32, {2}, {}}, {"y", DType::F32, {3}, {}}, {"z", DType::F32, {4}, {}}});
  write_safetensors(dir / "b.safetensors", {{"u", DType::F32, {5}, {}}, {"v", DType::F32, {6}, {}}});
  std::string map;
  for (const auto& [tensor, shard] : entries)
    map += (map.empty() ? "" : ",") + ("\"" + tensor + "\":\"" + shard + "\"");
  write_file(dir / "model.safetensors.index.json", "{\"weight_map\":{" + map + "}}");
}

Entries agreeing(const std::vector<std::string>& order) {
  Entries e;
  for (const std::string& t : order)
    e.emplace_back(t, t == "u" || t == "v" ? "b.safetensors" : "a.safetensors");
  return e;
}

std::string error_of(const TempDir& dir) {
  try {
    build_inventory(locate_local_model(dir.path().string()));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed) << e.what();
    return e.what();
  }
  return "";
}

TEST(IndexShardAgreement, EveryListingOrderReadsTheSameTensors) {
  for (const std::vector<std::string>& order : {std::vector<std::string>{"x", "y", "z", "u", "v"},
                                                {"v", "u", "z", "y", "x"},
                                                {"u", "x", "v", "y", "z"},
                                                {"z", "x", "y", "v", "u"}}) {
    TempDir dir;
    write_model(dir, agreeing(order));
    const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
    std::set<std::pair<std::string, uint64_t>> seen;
    for (const InventoryTensor& t : inv.tensors) seen.insert({t.name, t.parameters});
    EXPECT_EQ(seen,
              (std::set<std::pair<std::string, uint64_t>>{{"u", 5}, {"v", 6}, {"x", 2}, {"y", 3}, {"z", 4}}))
        << "index order " << order[0] << order[1] << order[2] << order[3] << order[4];
  }
}

TEST(IndexShardAgreement, EachDisagreementIsNamed) {
  struct Case {
    Entries entries;
    std::string expected;
  };
  const std::vector<Case> cases = {
      // y follows x in the index, as in its shard, but the index places it in the other shard
      {{{"x", "a.safetensors"},
        {"y", "b.safetensors"},
        {"z", "a.safetensors"},
        {"u", "b.safetensors"},
        {"v", "b.safetensors"}},
       "tensor 'y': stored in this shard but model.safetensors.index.json places it in b.safetensors"},
      // z is stored but not listed
      {{{"x", "a.safetensors"}, {"y", "a.safetensors"}, {"u", "b.safetensors"}, {"v", "b.safetensors"}},
       "tensor 'z': stored in this shard but missing from model.safetensors.index.json"},
      // w is listed but not stored
      {{{"x", "a.safetensors"},
        {"y", "a.safetensors"},
        {"w", "a.safetensors"},
        {"z", "a.safetensors"},
        {"u", "b.safetensors"},
        {"v", "b.safetensors"}},
       "weight_map['w']: tensor is not in its shard a.safetensors"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    write_model(dir, c.entries);
    const std::string e = error_of(dir);
    EXPECT_NE(e.find(c.expected), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace ma::test
