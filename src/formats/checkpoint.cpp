#include "formats/checkpoint.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "formats/safetensors.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// Header reads are latency-bound on small files; two workers per core hide the syscall and page-cache time.
size_t worker_count(size_t files) {
  size_t hw = std::max<unsigned>(1, std::thread::hardware_concurrency());
  return std::min(files, std::min<size_t>(hw, 8));
}

std::vector<SafetensorsHeader> read_headers_parallel(const std::vector<fs::path>& paths) {
  std::vector<SafetensorsHeader> out(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < paths.size();) {
      try {
        out[i] = read_safetensors_header(paths[i].string());
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  size_t n = worker_count(paths.size());
  std::vector<std::thread> threads;
  for (size_t t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  // Deterministic: report the first failing file in shard order.
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

void cross_check_index(const Checkpoint& ck, const std::string& index_name) {
  std::unordered_map<std::string_view, uint32_t> listed;
  listed.reserve(ck.index->weight_map.size());
  for (const auto& [name, shard] : ck.index->weight_map) listed.emplace(name, shard);
  size_t found = 0;
  for (const StoredTensor& t : ck.tensors) {
    auto it = listed.find(t.name);
    if (it == listed.end())
      throw Error(ErrorKind::Malformed, ck.files[t.file_index].name, "tensor '" + printable(t.name) + "'",
                  "stored in this shard but missing from " + index_name);
    if (it->second != t.file_index)
      throw Error(ErrorKind::Malformed, ck.files[t.file_index].name, "tensor '" + printable(t.name) + "'",
                  "stored in this shard but " + index_name + " places it in " + ck.index->shards[it->second]);
    ++found;
  }
  if (found != listed.size()) {
    std::unordered_map<std::string_view, bool> stored;
    for (const StoredTensor& t : ck.tensors) stored.emplace(t.name, true);
    for (const auto& [name, shard] : ck.index->weight_map)
      if (!stored.count(name))
        throw Error(ErrorKind::Malformed, index_name, "weight_map['" + printable(name) + "']",
                    "tensor is not in its shard " + ck.index->shards[shard]);
  }
}

}  // namespace

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
      for (uint32_t i = 0; i < ck.index->shards.size(); ++i) ck.files.push_back({ck.index->shards[i], 0, 0, {}});
      ck.tensors.reserve(ck.index->weight_map.size());
      for (const auto& [name, shard] : ck.index->weight_map) {
        StoredTensor t;
        t.name = name;
        t.file_index = shard;
        ck.tensors.push_back(std::move(t));
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

  std::vector<SafetensorsHeader> headers = read_headers_parallel(paths);
  size_t total = 0;
  for (const auto& h : headers) total += h.tensors.size();
  ck.tensors.reserve(total);
  for (uint32_t i = 0; i < headers.size(); ++i) {
    CheckpointFile f;
    f.name = files.index ? ck.index->shards[i] : paths[i].filename().string();
    f.size = headers[i].file_size;
    f.header_length = headers[i].header_length;
    f.metadata = std::move(headers[i].metadata);
    ck.files.push_back(std::move(f));
    for (StoredTensor& t : headers[i].tensors) {
      t.file_index = i;
      ck.tensors.push_back(std::move(t));
    }
  }
  ck.headers_read = true;
  if (ck.index) {
    cross_check_index(ck, ck.index_name);
  } else if (headers.size() > 1) {
    // Unsharded directory with several files: a name stored twice would make counts ambiguous.
    std::unordered_map<std::string_view, uint32_t> seen;
    for (const StoredTensor& t : ck.tensors)
      if (auto [it, ok] = seen.emplace(t.name, t.file_index); !ok)
        throw Error(ErrorKind::Malformed, ck.files[t.file_index].name, "tensor '" + printable(t.name) + "'",
                    "also stored in " + ck.files[it->second].name);
  }
  return ck;
}

}  // namespace ma
