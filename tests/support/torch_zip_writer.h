// PyTorch zip checkpoints built in memory, laid out as torch.save lays them out (data.pkl first, a stored
// member per storage, the central directory last): for the tests of the zip reader, of the layout read from a
// file's two ends, and of the Hub client that reads those ends by range requests.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ma::test {

// One member of a zip built here: its name and bytes, and what a hostile archive may make of them.
struct ZipMember {
  std::string name, data;
  std::string local_name{};  // what its local header names; empty: the same as `name`
  uint16_t flags = 0;        // general purpose bits (1: encrypted)
  // The size the central directory says it holds (its local header says the true one): a directory that
  // lies, e.g. running a member on over the members after it. Default: data's size.
  std::optional<uint64_t> listed_size{};
};

// A stored (uncompressed) zip of `members` in order, each a 30-byte local header, its name and its bytes,
// then the central directory and its end record; CRCs left 0 (the readers do not check them).
std::string stored_zip(const std::vector<ZipMember>& members);

// The pickle (protocol 2, as torch.save writes it) of a state dict of 1-D float32 tensors, in order: each
// name maps to a tensor of its element count in a storage of its own, keyed "0", "1", ... by position.
std::string float_state_dict_pickle(const std::vector<std::pair<std::string, uint32_t>>& tensors);

// A whole checkpoint of those tensors: "archive/data.pkl", then "archive/data/<key>" with each storage's
// elements (every byte `fill`).
std::string float_torch_zip(const std::vector<std::pair<std::string, uint32_t>>& tensors, char fill = '\0');

}  // namespace ma::test
