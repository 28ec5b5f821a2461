#include "formats/checkpoint.h"

#include <algorithm>

#include "core/error.h"
#include "core/name_index.h"
#include "core/parallel.h"
#include "formats/safetensors.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// The index must agree with the shards: every tensor a shard stores is listed for that shard. Runs in the
// worker that just parsed the shard; `listed` marks what was found so the caller can report what was not.
void check_shard_against_index(const SafetensorsIndex& idx, const std::string& index_name, uint32_t shard,
                               const SafetensorsHeader& h, std::vector<uint8_t>& listed) {
  const std::string& file = idx.shards[shard];
  for (const StoredTensor& t : h.tensors) {
    auto pos = idx.find(t.name);
    if (!pos)
      throw Error(ErrorKind::Malformed, file, "tensor '" + printable(t.name) + "'",
                  "stored in this shard but missing from " + index_name);
    if (idx.weight_map[*pos].second != shard)
      throw Error(ErrorKind::Malformed, file, "tensor '" + printable(t.name) + "'",
                  "stored in this shard but " + index_name + " places it in " + idx.shards[idx.weight_map[*pos].second]);
    listed[*pos] = 1;  // distinct positions per tensor: no two workers write the same byte
  }
}

// Several unindexed files in one directory: a name stored twice would make counts ambiguous.
void reject_names_in_two_files(const Checkpoint& ck) {
  std::vector<const StoredTensor*> all;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) all.push_back(&t);
  NameIndex names(
      static_cast<uint32_t>(all.size()),
      [](const void* c, uint32_t i) { return std::string_view(static_cast<const StoredTensor* const*>(c)[i]->name); },
      all.data());
  if (auto dup = names.first_duplicate()) {
    const StoredTensor& t = *all[*dup];
    throw Error(ErrorKind::Malformed, ck.files[t.file_index].name, "tensor '" + printable(t.name) + "'",
                "also stored in " + ck.files[all[*names.find(t.name)]->file_index].name);
  }
}

}  // namespace

size_t Checkpoint::tensor_count() const {
  size_t n = 0;
  for (const CheckpointFile& f : files) n += f.tensors.size();
  return n;
}

Checkpoint read_checkpoint(const LocalModelFiles& files) {
  Checkpoint ck;
  std::vector<fs::path> paths = files.safetensors;
  if (files.index) {
    ck.index_name = files.index->filename().string();
    ck.index = parse_safetensors_index(read_small_file(*files.index, kMaxIndexBytes), files.index->string());
    std::vector<fs::path> shards;
    size_t present = 0;
    for (const std::string& s : ck.index->shards) {
      shards.push_back(files.root / s);
      std::error_code ec;
      if (fs::exists(shards.back(), ec)) ++present;
    }
    if (present == 0 || files.index_is_pytorch) {
      // Names only: the index tells which tensors exist and where, the template supplies shapes.
      for (uint32_t i = 0; i < ck.index->shards.size(); ++i) ck.files.push_back({ck.index->shards[i], 0, 0, {}, {}});
      for (const auto& [name, shard] : ck.index->weight_map) {
        StoredTensor t;
        t.name = std::string(name);
        t.file_index = shard;
        ck.files[shard].tensors.push_back(std::move(t));
      }
      return ck;
    }
    if (present != shards.size()) {
      for (size_t i = 0; i < shards.size(); ++i) {
        std::error_code ec;
        if (!fs::exists(shards[i], ec))
          throw Error(ErrorKind::NotFound, files.index->string(), "shard " + ck.index->shards[i],
                      "named by the index but missing from the directory");
      }
    }
    paths = std::move(shards);
  }

  std::vector<SafetensorsHeader> headers(paths.size());
  std::vector<uint8_t> listed(ck.index ? ck.index->weight_map.size() : 0, 0);
  parallel_for(paths.size(), [&](size_t i) {
    headers[i] = read_safetensors_header(paths[i].string());
    if (ck.index) check_shard_against_index(*ck.index, ck.index_name, static_cast<uint32_t>(i), headers[i], listed);
  });
  for (size_t i = 0; i < listed.size(); ++i)
    if (!listed[i])
      throw Error(ErrorKind::Malformed, ck.index_name, "weight_map['" + printable(ck.index->weight_map[i].first) + "']",
                  "tensor is not in its shard " + ck.index->shards[ck.index->weight_map[i].second]);
  for (uint32_t i = 0; i < headers.size(); ++i) {
    CheckpointFile f;
    f.name = files.index ? ck.index->shards[i] : paths[i].filename().string();
    f.size = headers[i].file_size;
    f.header_length = headers[i].header_length;
    f.metadata = std::move(headers[i].metadata);
    f.tensors = std::move(headers[i].tensors);
    for (StoredTensor& t : f.tensors) t.file_index = i;
    ck.files.push_back(std::move(f));
  }
  ck.headers_read = true;
  if (!ck.index && headers.size() > 1) reject_names_in_two_files(ck);
  return ck;
}

}  // namespace ma
