#include "formats/checkpoint.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/checked.h"
#include "core/error.h"
#include "core/name_index.h"
#include "core/parallel.h"
#include "core/units.h"
#include "formats/gguf.h"
#include "formats/safetensors.h"
#include "formats/torch_checkpoint.h"
#include "io/byte_source.h"
#include "io/contained_path.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// The index must agree with the shards: every tensor a shard stores is listed for that shard. Runs in the
// worker that just parsed the shard; `listed` marks what was found so the caller can report what was not.
void check_shard_against_index(const SafetensorsIndex& idx, const std::string& index_name,
                               const fs::path& root, uint32_t shard, const std::vector<StoredTensor>& tensors,
                               std::vector<uint8_t>& listed) {
  const std::string file = (root / idx.shards[shard]).string();  // the path, as every other error gives it
  // A shard's tensors are nearly always listed one after another in its own order (both sorted by name, or
  // both in model order), so the entry after the last one found is tried before the hash index: it is read
  // in sequence where a lookup costs two cache misses (DeepSeek-V3's 46,183: 10 of 75 ms of CPU). Names
  // in the index are unique, so an equal name there is the one the lookup would find.
  uint32_t next = 0;
  for (const StoredTensor& t : tensors) {
    std::optional<uint32_t> pos;
    if (next < idx.weight_map.size() && idx.weight_map[next].first == t.name)
      pos = next;
    else
      pos = idx.find(t.name);
    if (!pos)
      throw Error(ErrorKind::Malformed, file, "tensor '" + printable(t.name) + "'",
                  "stored in this shard but missing from " + index_name);
    if (idx.weight_map[*pos].second != shard)
      throw Error(ErrorKind::Malformed, file, "tensor '" + printable(t.name) + "'",
                  "stored in this shard but " + index_name + " places it in " +
                      idx.shards[idx.weight_map[*pos].second]);
    listed[*pos] = 1;  // distinct positions per tensor: no two workers write the same byte
    next = *pos + 1;
  }
}

// Several unindexed files in one directory: a name stored twice would make counts ambiguous. `paths[i]` is
// the path of ck.files[i], which the error gives as every other error does.
void reject_names_in_two_files(const Checkpoint& ck, const std::vector<fs::path>& paths) {
  std::vector<const StoredTensor*> all;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) all.push_back(&t);
  NameIndex names(
      static_cast<uint32_t>(all.size()),
      [](const void* c, uint32_t i) {
        return std::string_view(static_cast<const StoredTensor* const*>(c)[i]->name);
      },
      all.data());
  if (auto dup = names.first_duplicate()) {
    const StoredTensor& t = *all[*dup];
    throw Error(ErrorKind::Malformed, paths.at(t.file_index).string(), "tensor '" + printable(t.name) + "'",
                "also stored in " + paths.at(all[*names.find(t.name)]->file_index).string());
  }
}

}  // namespace

size_t Checkpoint::tensor_count() const {
  size_t n = 0;
  for (const CheckpointFile& f : files) n += f.tensors.size();
  return n;
}

namespace {

// A .safetensors file of the model's directory; `plain`: the entry itself is a regular file, not a link to
// one (the listing's file type, no syscall), so it is there and inside the directory by construction.
struct ListedShard {
  fs::path path;
  bool plain = false;
  bool operator<(const ListedShard& o) const { return path < o.path; }
};

// The directory's .safetensors files, in name order.
std::vector<ListedShard> safetensors_in(const fs::path& dir) {
  std::vector<ListedShard> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".safetensors" && e.is_regular_file(ec))
      out.push_back({e.path(), !e.is_symlink(ec)});
  std::sort(out.begin(), out.end());
  return out;
}

// A header fetched from the Hub, validated exactly like one read from disk.
SafetensorsHeader parse_fetched(const FetchedHeader& f) {
  uint64_t n = safetensors_header_length(std::string_view(f.prefix).substr(0, 64), f.file_size, f.name);
  if (f.prefix.size() < 8 + n)
    throw Error(ErrorKind::Malformed, f.name, "header",
                "the fetched prefix is shorter than the header it declares");
  return parse_safetensors_header(std::string_view(f.prefix).substr(8, n), f.file_size, f.name);
}

const FetchedHeader* fetched(const LocalModelFiles& files, std::string_view name) {
  for (const FetchedHeader& f : files.fetched_headers)
    if (f.name == name) return &f;
  return nullptr;
}

// Every shard of the index from fetched headers; none fetched means an index-only view.
std::vector<SafetensorsHeader> fetched_shards(const LocalModelFiles& files, const Checkpoint& ck) {
  const std::vector<std::string>& shards = ck.index->shards;
  if (files.fetched_headers.empty() || files.index_is_pytorch) return {};
  std::vector<const FetchedHeader*> found(shards.size());
  for (size_t s = 0; s < shards.size(); ++s)
    if (!(found[s] = fetched(files, shards[s])))
      throw Error(ErrorKind::NotFound, files.index->string(), "shard " + shards[s],
                  "named by the index but its header was not fetched");
  std::vector<SafetensorsHeader> headers(shards.size());
  parallel_for(shards.size(), [&](size_t s) { headers[s] = parse_fetched(*found[s]); });
  return headers;
}

// Refuses (Error Unsafe, naming the index entry) a shard the index names that is present but resolves outside
// the model's directory once symbolic links are followed: a link in the directory (a cloned repository may
// hold one) must not let an index name any file on the machine. A Hub cache snapshot's links into its repo's
// blobs/ stay inside (resolves_inside_model, the rule ONNX external data follows). A name that cannot be
// resolved (a looping link) is left to the open that follows, which names what is wrong with it.
void check_shard_inside(const LocalModelFiles& files, const std::string& shard) {
  const fs::path p = files.root / shard;
  std::error_code ec;
  // A plain file named without a folder is inside by construction: one lstat, where resolving every shard's
  // path cost DeepSeek-V3's 163 shards 1,500 syscalls (2-3 ms of a 28 ms inventory).
  if (shard.find('/') == std::string::npos && fs::is_regular_file(fs::symlink_status(p, ec))) return;
  const fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st) || resolves_inside_model(p, files.root)) return;
  throw Error(ErrorKind::Unsafe, files.index->string(), "shard '" + printable(shard) + "'",
              "named by the index, but resolves outside the model's directory (through a symbolic link)");
}

// Index-only view: the index tells which tensors exist and where, the template supplies their shapes.
void names_from_index(Checkpoint& ck) {
  for (uint32_t i = 0; i < ck.index->shards.size(); ++i) {
    CheckpointFile f;
    f.name = ck.index->shards[i];
    ck.files.push_back(std::move(f));
  }
  for (const auto& [name, shard] : ck.index->weight_map) {
    StoredTensor t;
    t.name = std::string(name);
    t.file_index = shard;
    ck.files[shard].tensors.push_back(std::move(t));
  }
}

// Parses the index while the directory's shards are already being read (DeepSeek-V3's index is ~4 MB of
// JSON: parsing it alone would leave the other cores idle), then keeps the headers of the shards it names.
// Returns an empty vector when none of its shards is present (index-only view).
std::vector<SafetensorsHeader> read_indexed_shards(const LocalModelFiles& files, Checkpoint& ck) {
  if (!files.fetched_headers.empty()) {
    ck.index_name = files.index->filename().string();
    ck.index = files.parsed_index ? *files.parsed_index
                                  : parse_safetensors_index(read_file_bytes(*files.index, kMaxIndexBytes),
                                                            files.index->string());
    return fetched_shards(files, ck);
  }
  const std::vector<ListedShard> local =
      files.index_is_pytorch ? std::vector<ListedShard>{} : safetensors_in(files.root);
  std::vector<SafetensorsHeader> early(local.size());
  ParallelLoop<> loop(local.size(), metadata_threads(), [&](NoState&, size_t i) {
    early[i] = read_safetensors_header(local[i].path.string());
  });
  ck.index_name = files.index->filename().string();
  ck.index = parse_safetensors_index(read_file_bytes(*files.index, kMaxIndexBytes), files.index->string());
  const std::vector<std::exception_ptr>& errors = loop.finish();

  const std::vector<std::string>& shards = ck.index->shards;
  std::vector<SafetensorsHeader> headers(shards.size());
  std::vector<size_t> late;  // named shards not read early (in a subdirectory)
  size_t present = 0;
  for (size_t s = 0; s < shards.size(); ++s) {
    ListedShard key{files.root / shards[s]};
    auto it = std::lower_bound(local.begin(), local.end(), key);
    const bool listed = it != local.end() && it->path == key.path;
    // A plain file the listing holds, named without a folder, is there and inside: no lstat each
    // (DeepSeek-V3's 163 shards took 326 of them on this serial stretch).
    if (!(listed && it->plain && shards[s].find('/') == std::string::npos)) {
      if (!path_is_present(key.path)) continue;
      check_shard_inside(files, shards[s]);
    }
    if (listed) {
      size_t k = static_cast<size_t>(it - local.begin());
      if (errors[k]) std::rethrow_exception(errors[k]);  // shard order: the first failing shard is reported
      headers[s] = std::move(early[k]);
      ++present;
      continue;
    }
    late.push_back(s);
    ++present;
  }
  if (present == 0 || files.index_is_pytorch) return {};
  if (present != shards.size())
    for (size_t s = 0; s < shards.size(); ++s) {
      if (!path_is_present(files.root / shards[s]))
        throw Error(ErrorKind::NotFound, files.index->string(), "shard " + shards[s],
                    "named by the index but missing from the directory");
    }
  parallel_for(late.size(), [&](size_t i) {
    headers[late[i]] = read_safetensors_header((files.root / shards[late[i]]).string());
  });
  return headers;
}

void check_index_complete(const Checkpoint& ck, const fs::path& index, const std::vector<uint8_t>& listed) {
  for (size_t i = 0; i < listed.size(); ++i)
    if (!listed[i])
      throw Error(ErrorKind::Malformed, index.string(),
                  "weight_map['" + printable(ck.index->weight_map[i].first) + "']",
                  "tensor is not in its shard " + ck.index->shards[ck.index->weight_map[i].second]);
}

// One PyTorch checkpoint as a CheckpointFile: the tensors of its state dict under their names in it; what
// else it holds (a training checkpoint's optimizer state) becomes a note.
CheckpointFile torch_file(const ByteSource& src, TorchRead what, std::string name, uint32_t index,
                          std::string& format, std::vector<std::string>& notes) {
  TorchCheckpoint tc = read_torch_checkpoint(src, what);
  CheckpointFile f;
  f.name = std::move(name);
  f.size = src.size();
  const std::string prefix = tc.state_dict_path.empty() ? "" : tc.state_dict_path + ".";
  uint64_t other = 0;
  // Storage sharing among the state dict's own tensors (an optimizer's state holds storages of its own): the
  // first tensor of a storage carries all its bytes, a later one none; a later one that is the same view
  // (offset, shape, strides) is a tie, which names the tensor it repeats.
  // Looked up, not searched: a storage may be viewed by a million tensors.
  std::unordered_set<std::string_view> storages;
  std::unordered_map<std::string, std::string> first_of_view;  // view_key -> the first tensor's name
  for (const TorchCheckpointTensor& t : tc.tensors) {
    if (t.path.compare(0, prefix.size(), prefix) != 0) {
      ++other;
      continue;
    }
    StoredTensor s;
    s.name = t.path.substr(prefix.size());
    s.dtype = t.dtype;
    s.numel = numel(t.shape);
    s.shape = t.shape;
    s.data_begin = t.data_begin;
    // A strided view's bytes count as numel x size, which an expanded view of 2^62 elements overflows.
    const std::optional<uint64_t> bytes = checked_mul(s.numel, dtype_bits(t.dtype) / 8);
    if (!bytes || !checked_add(t.data_begin, *bytes))
      throw Error(ErrorKind::Limit, src.name(), "tensor '" + printable(s.name) + "'",
                  "its elements' bytes overflow 64 bits");
    s.data_end = t.data_begin + *bytes;
    s.file_index = index;
    s.strided = !t.dense;
    s.permuted = t.dense && !t.contiguous;
    s.shares_storage = !storages.insert(t.storage_key).second;
    if (!s.shares_storage) s.storage_bytes = t.storage_numel * (dtype_bits(t.dtype) / 8);
    const auto [first, is_first] =
        first_of_view.try_emplace(view_key(t.storage_key, t.storage_offset, t.shape, t.stride), s.name);
    if (!is_first) {
      s.tied = true;
      f.ties.push_back({static_cast<uint32_t>(f.tensors.size()), first->second});
    }
    f.tensors.push_back(std::move(s));
  }
  format = tc.format;
  if (other)
    notes.push_back(f.name + ": " + std::to_string(other) + " tensors outside its state dict" +
                    (prefix.empty() ? "" : " '" + tc.state_dict_path + "'") +
                    " (a training checkpoint's optimizer state, ...) are not the model's and not counted");
  return f;
}

// PyTorch checkpoints: the files an index names, or the directory's.
void read_torch_files(const LocalModelFiles& files, Checkpoint& ck) {
  std::vector<fs::path> paths = files.weight_files;
  if (files.index) {
    ck.index_name = files.index->filename().string();
    ck.index = parse_safetensors_index(read_file_bytes(*files.index, kMaxIndexBytes), files.index->string());
    size_t present = 0;
    for (const std::string& shard : ck.index->shards) {
      if (path_is_present(files.root / shard)) {
        check_shard_inside(files, shard);
        ++present;
      }
      paths.push_back(files.root / shard);
    }
    // A Hub model's shards are each downloaded (in its snapshot) or read from their fetched ends.
    const bool remote = !files.fetched_headers.empty();
    if (present == 0 && !remote) {
      names_from_index(ck);
      return;
    }
    for (size_t s = 0; s < paths.size(); ++s) {
      if (!path_is_present(paths[s]) && !fetched(files, ck.index->shards[s]))
        throw Error(ErrorKind::NotFound, files.index->string(), "shard " + ck.index->shards[s],
                    remote ? "named by the index but neither downloaded nor its ends fetched"
                           : "named by the index but missing from the directory");
    }
  }
  ck.files.resize(paths.size());
  std::vector<std::string> formats(paths.size());
  std::vector<std::vector<std::string>> notes(paths.size());
  parallel_for(paths.size(), [&](size_t i) {
    const std::string name = files.index ? ck.index->shards[i] : paths[i].filename().string();
    const auto index = static_cast<uint32_t>(i);
    const FetchedHeader* f = fetched(files, name);
    if (!f) {
      ck.files[i] = torch_file(FileSource(paths[i]), TorchRead::Data, name, index, formats[i], notes[i]);
      return;
    }
    // A Hub file: its head and tail, fetched by range requests, hold its layout (remote_header.h).
    const std::string where = files.display_name + "/" + name;
    const std::optional<HeadAndTail> ends = unpack_head_tail(f->prefix);
    if (!ends) throw Error(ErrorKind::Malformed, where, "fetched ends", "not a head and a tail");
    try {
      ck.files[i] = torch_file(HeadTailSource(ends->head, ends->tail, f->file_size, where), TorchRead::Layout,
                               name, index, formats[i], notes[i]);
    } catch (const BytesNotFetched&) {
      throw Error(ErrorKind::Malformed, where, "fetched ends",
                  "the checkpoint's layout reads bytes between the head and the tail fetched");
    }
  });
  ck.format = formats.empty() ? "pytorch" : formats.front();
  for (auto& n : notes) ck.notes.insert(ck.notes.end(), n.begin(), n.end());
  ck.headers_read = true;
  if (ck.index) {
    std::vector<uint8_t> listed(ck.index->weight_map.size(), 0);
    for (uint32_t i = 0; i < ck.files.size(); ++i)
      check_shard_against_index(*ck.index, ck.index_name, files.root, i, ck.files[i].tensors, listed);
    check_index_complete(ck, *files.index, listed);
    ck.index->forget_names();
  } else if (ck.files.size() > 1) {
    reject_names_in_two_files(ck, paths);
  }
}

// A GGUF model's parts: each its own header and tensors; the first part's metadata describes the model, and
// a split model's parts must agree on how many they are and which each is (split.count, split.no).
void read_gguf_files(const LocalModelFiles& files, Checkpoint& ck) {
  const size_t n = files.weight_files.size();
  std::vector<GgufFile> parts(n);
  parallel_for(n, [&](size_t i) {
    const std::string name = files.weight_files[i].lexically_relative(files.root).string();
    for (const FetchedHeader& h : files.fetched_headers)
      if (h.name == name) {  // a Hub file: its header, fetched by range requests
        try {
          parts[i] = read_gguf(PrefixSource(h.prefix, h.file_size, files.display_name + "/" + name));
        } catch (const BytesNotFetched&) {
          throw Error(ErrorKind::Malformed, files.display_name + "/" + name, "header",
                      "the fetched header is incomplete");
        }
        return;
      }
    parts[i] = read_gguf(FileSource(files.weight_files[i]));
  });
  for (size_t i = 0; i < n; ++i) {
    if (n > 1) {
      const auto count = parts[i].uint_value("split.count");
      const auto no = parts[i].uint_value("split.no");
      if (count != n || no != i)
        throw Error(ErrorKind::Malformed, files.weight_files[i].string(), "split.count / split.no",
                    "part " + std::to_string(i + 1) + " of " + std::to_string(n) +
                        " by its name, but its header says " +
                        (no ? "part " + std::to_string(*no + 1) : std::string("no part number")) + " of " +
                        (count ? std::to_string(*count) : std::string("an unstated number")));
    }
    CheckpointFile f;
    f.name = files.weight_files[i].filename().string();
    f.size = parts[i].file_size;
    f.header_length = parts[i].header.size();
    f.data_start = parts[i].data_start;
    f.tensors.reserve(parts[i].tensors.size());
    for (GgufTensorInfo& t : parts[i].tensors) {
      StoredTensor s;
      s.name = std::move(t.name);
      s.dtype = t.dtype;
      s.numel = numel(t.shape);
      s.shape = std::move(t.shape);
      s.data_begin = t.offset;
      s.data_end = t.offset + t.bytes;
      s.file_index = static_cast<uint32_t>(i);
      f.tensors.push_back(std::move(s));
    }
    parts[i].tensors.clear();
    ck.files.push_back(std::move(f));
  }
  ck.format = "gguf";
  ck.headers_read = true;
  ck.gguf = std::make_shared<const GgufFile>(std::move(parts.front()));
  if (n > 1) {
    // The first part announces how many tensors the parts hold together; llama.cpp refuses a model whose
    // parts hold another number (a part of another split, or one cut short), and so do we.
    if (const auto announced = ck.gguf->uint_value("split.tensors.count");
        announced && *announced != ck.tensor_count())
      throw Error(ErrorKind::Malformed, files.weight_files[0].string(), "split.tensors.count",
                  "announces " + std::to_string(*announced) + " tensors but the " + std::to_string(n) +
                      " parts hold " + std::to_string(ck.tensor_count()));
    reject_names_in_two_files(ck, files.weight_files);
  }
}

// An ONNX model: the .onnx file (file 0, its inline initializers) and the external data files it names,
// which must stay inside the model's directory once symbolic links are followed (a Hub cache snapshot's
// links into its blobs/ do). A Hub model's .onnx may have been fetched whole instead (remote_header.h), and
// its external data files not downloaded are then sized by the repository's listing.
void read_onnx_file(const LocalModelFiles& files, Checkpoint& ck) {
  const fs::path& path = files.weight_files.at(0);
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const std::string name = path.filename().string();
  const FetchedHeader* remote = fetched(files, name);
  const std::string where = remote ? files.display_name + "/" + name : path.string();
  std::map<std::string, uint64_t> sizes;  // each external data file's, as the read found it
  OnnxExternalSize external_size = [&](const std::string& location) -> std::optional<uint64_t> {
    const fs::path p = dir / location;
    if (!path_is_present(p)) {
      const std::string listed =
          (dir.lexically_relative(files.root) / location).lexically_normal().generic_string();
      const auto it = files.listed_sizes.find(listed);
      if (it == files.listed_sizes.end()) return std::nullopt;
      return sizes[location] = it->second;
    }
    // A name that cannot be followed (a looping link) or a directory (".", "sub") holds no bytes, wherever
    // it leads: the open names what it is. Anything else must resolve inside before it is opened.
    std::error_code status_error;
    const fs::file_status st = fs::status(p, status_error);
    if (!status_error && !fs::is_directory(st) && !resolves_inside_model(p, dir))
      throw Error(ErrorKind::Unsafe, where, "external data '" + printable(location) + "'",
                  "resolves outside the model's directory (a symbolic link)");
    try {
      return sizes[location] = FileSource(p).size();
    } catch (const Error& e) {  // a directory, a FIFO: named as the model's field, as the other checks are
      throw Error(e.kind(), where, "external data '" + printable(location) + "'", e.rule());
    }
  };
  auto model = std::make_shared<OnnxModel>(
      remote ? read_onnx(PrefixSource(remote->prefix, remote->file_size, where), external_size)
             : read_onnx(FileSource(path), external_size));
  CheckpointFile main;
  main.name = name;
  std::error_code ec;
  main.size = remote ? remote->file_size : fs::file_size(path, ec);
  ck.files.push_back(std::move(main));
  for (const std::string& location : model->external_files) {
    CheckpointFile f;
    f.name = location;
    f.size = sizes[location];
    ck.files.push_back(std::move(f));
  }
  for (StoredTensor& t : model->initializers) ck.files[t.file_index].tensors.push_back(std::move(t));
  model->initializers.clear();
  ck.format = "onnx";
  ck.headers_read = true;
  if (model->sparse_initializers)
    ck.notes.push_back(std::to_string(model->sparse_initializers) +
                       " sparse initializers are not read (counted in no figure)");
  if (model->subgraph_initializers)
    ck.notes.push_back(std::to_string(model->subgraph_initializers) +
                       " initializers inside If / Loop / Scan bodies are not read (counted in no figure)");
  ck.onnx = std::move(model);
}

// A model's safetensors files, or the shards its index names (cross-checked with it).
void read_safetensors_files(const LocalModelFiles& files, Checkpoint& ck) {
  std::vector<SafetensorsHeader> headers;
  if (files.index) {
    headers = read_indexed_shards(files, ck);
    if (headers.empty()) {
      names_from_index(ck);
      return;
    }
    std::vector<uint8_t> listed(ck.index->weight_map.size(), 0);
    parallel_for(headers.size(), [&](size_t i) {
      const auto file = static_cast<uint32_t>(i);
      for (StoredTensor& t : headers[i].tensors) t.file_index = file;
      check_shard_against_index(*ck.index, ck.index_name, files.root, file, headers[i].tensors, listed);
    });
    check_index_complete(ck, *files.index, listed);
    ck.index->forget_names();
  } else {
    headers.resize(files.weight_files.size());
    parallel_for(headers.size(), [&](size_t i) {
      const FetchedHeader* f = fetched(files, files.weight_files[i].filename().string());
      headers[i] = f ? parse_fetched(*f) : read_safetensors_header(files.weight_files[i].string());
      for (StoredTensor& t : headers[i].tensors) t.file_index = static_cast<uint32_t>(i);
    });
  }
  for (uint32_t i = 0; i < headers.size(); ++i) {  // each tensor already knows its file (set above)
    CheckpointFile f;
    f.name = files.index ? ck.index->shards[i] : files.weight_files[i].filename().string();
    f.size = headers[i].file_size;
    f.header_length = headers[i].header_length;
    f.data_start = 8 + f.header_length;
    f.metadata = std::move(headers[i].metadata);
    f.tensors = std::move(headers[i].tensors);
    ck.files.push_back(std::move(f));
  }
  ck.headers_read = true;
  if (!ck.index && headers.size() > 1) reject_names_in_two_files(ck, files.weight_files);
}

}  // namespace

// One reader per checkpoint format; adding a format is one reader and one case here.
Checkpoint read_checkpoint(const LocalModelFiles& files) {
  Checkpoint ck;
  switch (files.format) {
    case CheckpointFormat::Pytorch:
      read_torch_files(files, ck);
      break;
    case CheckpointFormat::Gguf:
      read_gguf_files(files, ck);
      break;
    case CheckpointFormat::Onnx:
      read_onnx_file(files, ck);
      break;
    case CheckpointFormat::Safetensors:
    case CheckpointFormat::None:  // a config alone: no files, nothing stored
      read_safetensors_files(files, ck);
      break;
  }
  // Each tensor's elements fit 64 bits (every reader checks), but their sum need not: five PyTorch views of
  // 2^62 elements each (an expanded zero tensor costs 4 bytes) wrapped the parameter count to 2^62. Checked
  // once here, every total after it (parameters, buffers, per layer) is a part of this one.
  uint64_t elements = 0;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors)
      if (const std::optional<uint64_t> sum = checked_add(elements, t.numel))
        elements = *sum;
      else
        throw Error(ErrorKind::Limit, files.display_name, "tensors",
                    "their elements add up past 2^64 (at '" + printable(t.name) + "')");
  return ck;
}

void check_value_read_budget(const LocalModelFiles& files, const Checkpoint& ck) {
  uint64_t file_bytes = 0, covered = 0;
  for (const CheckpointFile& f : ck.files) {
    file_bytes += f.size;
    for (const StoredTensor& t : f.tensors)
      if (!t.strided) covered += t.bytes();  // an expanded (stride-0) view is never read: no cost
  }
  const uint64_t budget = kValueReadFactor * file_bytes + (uint64_t{64} << 20);
  if (covered > budget)
    throw Error(ErrorKind::Limit, files.display_name, "",
                "its tensors cover " + with_thousands(covered) + " bytes, more than " +
                    std::to_string(kValueReadFactor) + " x its files' " + with_thousands(file_bytes) +
                    " bytes + 64 MiB (views sharing their storage, each to be read again): values not read");
}

}  // namespace ma
