#include "hub/remote_model.h"

#include <algorithm>
#include <array>
#include <mutex>

#include "core/error.h"
#include "core/parallel.h"
#include "core/units.h"
#include "formats/safetensors_index.h"
#include "formats/weight_format.h"
#include "hub/content_hash.h"
#include "hub/gguf_catalog.h"
#include "hub/hub_api.h"
#include "hub/hub_cache.h"
#include "hub/hub_http.h"
#include "hub/models_on_disk.h"
#include "hub/onnx_choice.h"
#include "hub/remote_header.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

constexpr std::array<std::string_view, 7> kModelFiles = {"config.json",
                                                         "generation_config.json",
                                                         "genai_config.json",
                                                         "model.safetensors.index.json",
                                                         "pytorch_model.bin.index.json",
                                                         "hf_quant_config.json",
                                                         "quantize_config.json"};
constexpr std::array<std::string_view, 6> kTokenizerFiles = {
    "tokenizer.json",      "tokenizer_config.json", "special_tokens_map.json",
    "chat_template.jinja", "chat_template.json",    "quant_config.json"};

bool top_level(std::string_view path) {
  return path.find('/') == std::string_view::npos;
}

// A top-level .safetensors file that is not a PEFT adapter's: the model's weights in safetensors.
bool holds_model_safetensors(const HubModelInfo& info) {
  return std::any_of(info.files.begin(), info.files.end(), [](const RepoFile& f) {
    return top_level(f.path) && f.path.ends_with(".safetensors") && f.path.rfind("adapter_", 0) != 0;
  });
}

// A cached header is exactly its 8-byte length prefix plus that many bytes; anything else (a file cut short
// by a crash or a full disk) is fetched again rather than reported as a malformed checkpoint.
bool complete_header(std::string_view prefix) {
  if (prefix.size() < 8) return false;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(prefix[static_cast<size_t>(i)]);
  return n == prefix.size() - 8;
}

// The answer's etag, which names a small file when the listing does not.
const std::string& served_etag(const HubResult& r, const std::string& where) {
  const std::string* etag = r.file_etag();
  if (!etag) throw Error(ErrorKind::Network, where, "ETag", "incomplete metadata from server: no etag");
  return *etag;
}

// Everything one analysis needs from the Hub, with or without a network.
class Assembler {
 public:
  Assembler(const RepoRef& ref, const HubSettings& settings, const RemoteOptions& options, HubHttp* http)
      : ref_(ref), settings_(settings), options_(options), http_(http), cache_(settings.cache_root, ref.id) {}

  RemoteModel online() {
    RemoteModel m;
    m.info =
        options_.listed ? *options_.listed : fetch_model_info(*http_, ref_, cache_, nullptr, &m.warnings);
    assemble(m);
    return m;
  }

  RemoteModel cached(const std::string& why) {
    std::string commit =
        is_commit_hash(ref_.revision) ? ref_.revision : cache_.read_ref(ref_.revision).value_or("");
    if (commit.empty())
      throw Error(ErrorKind::NotFound, ref_.id + "@" + ref_.revision, "", "not in the cache and " + why);
    auto body = cache_.read_info(commit);
    if (!body) return snapshot_as_is(commit, why);
    RemoteModel m;
    m.info = parse_model_info(std::move(*body), (cache_.repo_dir() / "modelanalyzer/info").string());
    assemble(m);
    if (!missing_.empty()) {
      std::string list;
      for (const std::string& f : missing_) list += (list.empty() ? "" : ", ") + f;
      throw Error(ErrorKind::NotFound, ref_.id + "@" + ref_.revision, "",
                  why + "; not in the cache: " + list);
    }
    return m;
  }

 private:
  // A snapshot another tool (huggingface_hub's snapshot_download, from_pretrained) wrote: no file list of
  // ours beside it, but the files themselves are there. Read as a local model: what is on disk is what there
  // is (files that tool did not download are simply absent).
  RemoteModel snapshot_as_is(const std::string& commit, const std::string& why) {
    const std::filesystem::path dir = cache_.snapshot_dir(commit);
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw Error(ErrorKind::NotFound, ref_.id + "@" + ref_.revision, "",
                  "its files are not in the cache and " + why);
    RemoteModel m;
    // A model the user named is chosen from the files there, as from a listing; several models are listed
    // from the files on disk when a listing is the answer.
    ModelOnDisk on_disk = open_model_on_disk(
        dir, options_.gguf_file ? options_.gguf_file : options_.onnx_file, options_.list_models, ref_.id,
        "the repository", options_.gguf_file ? selector_spelling() : onnx_spelling());
    m.files = std::move(on_disk.files);
    m.gguf_models = std::move(on_disk.gguf_models);
    m.onnx_models = std::move(on_disk.onnx_models);
    m.notes = std::move(on_disk.notes);
    m.files.display_name = ref_.id + (ref_.explicit_revision ? "@" + ref_.revision : "");
    m.info.id = ref_.id;
    m.info.commit = commit;
    m.notes.push_back(ref_.id + "@" + ref_.revision + ": " + why +
                      "; read from the files of the cache snapshot " + commit.substr(0, 12) +
                      " as they are (no file list: the Hub's metadata is unknown)");
    return m;
  }

  std::string file_url(const std::string& commit, const std::string& path) const {
    return resolve_url(settings_, ref_.id, commit, path);
  }

  // A small file into the cache snapshot (or found there); false when offline and absent. Online, a cached
  // file the listing names a hash for must still be that hash's bytes (download's rule): a damaged one (cut
  // short by a crash, rewritten by another tool) is fetched again and replaces it, where it was read as it
  // was (a config cut short read as a malformed model).
  bool small_file(const HubModelInfo& info, const RepoFile& f, RemoteStats& stats) {
    if (const auto p = cache_.snapshot_file(info.commit, f.path))
      if (!http_ || f.listed_hash().empty() || cache_.intact(f.listed_hash(), *p, f.size)) {
        std::lock_guard lock(mutex_);
        ++stats.files_cached;
        return true;
      }
    if (!http_) return false;
    // The same bytes under another commit's snapshot (a README edit made a new commit): linked, not fetched
    // (huggingface_hub's rule). A cache we cannot link in falls through to the fetch, which reports it.
    if (!f.listed_hash().empty()) {
      std::optional<std::filesystem::path> linked;
      try {
        linked = cache_.link_blob(f.listed_hash(), info.commit, f.path, f.size);
      } catch (const Error&) {
      }
      if (linked) {
        std::lock_guard lock(mutex_);
        ++stats.files_cached;
        return true;
      }
    }
    HttpRequest req;
    // Decoded bytes: a compression bomb stops here too. One byte more than the listing promises is already
    // a consistency failure (download's rule), so a listed 234-byte config is not read for 64 MiB.
    const bool listed_small = f.size && *f.size < kMaxSmallFile;
    req.max_body = listed_small ? *f.size + 1 : kMaxSmallFile;
    req.accept_compressed = true;  // a 4 MB index is ~10x smaller gzipped
    HubTarget t{ref_.id, info.commit, f.path};
    HubResult r = http_->fetch(file_url(info.commit, f.path), std::move(req), t);
    const std::string where = ref_.id + "/" + f.path;
    if (r.response.capped && !listed_small) throw Error(ErrorKind::Limit, where, "", "larger than 64 MiB");
    if (f.size && r.response.body.size() != *f.size)
      throw Error(ErrorKind::Network, where, "body",
                  "consistency check failed: expected " + std::to_string(*f.size) + " bytes, received " +
                      (r.response.capped ? "more" : std::to_string(r.response.body.size())));
    const std::string* commit = r.hub_header("x-repo-commit");
    if (commit && checked_commit(*commit, where) != info.commit)
      throw Error(ErrorKind::Network, where, "X-Repo-Commit", "the server answered for another commit");
    // Every later run and every Python tool trusts what lands in the shared cache: the bytes must hash to the
    // name the listing gives them (else to the answer's etag), and are stored under that name.
    const std::string hash =
        checked_etag(!f.listed_hash().empty() ? f.listed_hash() : served_etag(r, where), where);
    require_content_hash(where, hash, content_hash_of(r.response.body, hash));
    // Stamped as verified, as it was hashed just now: the next run does not hash it again.
    cache_.mark_verified(hash, cache_.store_blob(r.response.body, hash, info.commit, f.path));
    std::lock_guard lock(mutex_);
    ++stats.files_downloaded;
    return true;
  }

  // The weight files whose headers (PyTorch files: whose two ends) the analysis reads, with the tensors an
  // index names in each (0: not known) to size the first reads.
  struct WeightFile {
    const RepoFile* file;
    uint64_t tensors = 0, name_bytes = 0;
  };

  // The files `files.format` names: an index's shards, else (no index) the top-level .safetensors files
  // (PEFT adapter weights only when nothing else is there), else the one top-level PyTorch checkpoint
  // (pytorch_model.bin among several), as in a local directory; sets the format of unindexed files.
  std::vector<WeightFile> weight_files(const HubModelInfo& info, LocalModelFiles& files) {
    std::vector<WeightFile> out;
    if (files.index) {
      files.parsed_index = std::make_shared<const SafetensorsIndex>(
          parse_safetensors_index(read_file_bytes(*files.index, kMaxIndexBytes), files.index->string()));
      const SafetensorsIndex& idx = *files.parsed_index;
      std::vector<uint64_t> count(idx.shards.size()), name_bytes(idx.shards.size());
      for (const auto& [name, shard] : idx.weight_map) {
        ++count[shard];
        name_bytes[shard] += name.size();
      }
      for (size_t s = 0; s < idx.shards.size(); ++s) {
        const RepoFile* f = info.file(idx.shards[s]);
        if (!f)
          throw Error(ErrorKind::NotFound, files.index->string(), "shard " + idx.shards[s],
                      "named by the index but not in the repository");
        out.push_back({f, count[s], name_bytes[s]});
      }
      return out;
    }
    std::vector<WeightFile> adapters, torch;
    bool onnx = false;
    for (const RepoFile& f : info.files) {
      if (!top_level(f.path)) continue;
      if (f.path.ends_with(".safetensors"))
        (f.path.rfind("adapter_", 0) == 0 ? adapters : out).push_back({&f});
      if (is_torch_checkpoint_name(f.path)) torch.push_back({&f});
      onnx = onnx || f.path.ends_with(".onnx");
    }
    if (out.empty()) out = std::move(adapters);
    if (!out.empty()) {
      files.format = CheckpointFormat::Safetensors;
      return out;
    }
    // Beside an ONNX model a .bin file is usually its external data; of several PyTorch files only
    // transformers' pytorch_model.bin is known to be the model's (the others stay unread, as named).
    if (onnx || torch.empty()) return out;
    if (torch.size() > 1)
      std::erase_if(torch, [](const WeightFile& w) { return w.file->path != "pytorch_model.bin"; });
    if (!torch.empty()) files.format = CheckpointFormat::Pytorch;
    return torch;
  }

  // The ONNX model of a repository holding no other weights: its one top-level .onnx file (model.onnx among
  // several), read as onnx_weights says; else its one model in a folder, read from there (as a local
  // directory's is); several models in folders are offered in a note (--file names one).
  std::vector<WeightFile> onnx_file(const HubModelInfo& info, LocalModelFiles& files, RemoteModel& m) {
    const RepoFile* onnx = repository_onnx_model(info.files);
    if (onnx && onnx->path.find('/') != std::string::npos) {
      if (const std::string why = onnx_unread_reason(info, *onnx); !why.empty())
        m.notes.push_back(onnx->path + " is not read: " + why);
      else
        named_onnx_model(info, *onnx, files, m);
      return {};  // read from its folder, or not read
    }
    if (!onnx) {
      // A listing shows them (the report's Metadata, or the listing itself): no note to repeat it.
      if (options_.list_models) return {};
      if (const std::string in_folders = onnx_model_paths(onnx_models_in_folders(info.files));
          !in_folders.empty())
        m.notes.push_back("the repository's ONNX models are in folders (" + in_folders +
                          "): name one with --file to read it");
      return {};
    }
    if (!onnx_weights(info, *onnx, files, m)) return {};
    return {{onnx}};
  }

  // Why the .onnx file `f` cannot be read without downloading it: not on disk, and not between 1 byte and
  // kMaxOnnxFetchBytes (a larger one holds its initializers inline: it is the weights). Empty: it can be.
  std::string onnx_unread_reason(const HubModelInfo& info, const RepoFile& f) {
    if ((f.size && *f.size > 0 && *f.size <= kMaxOnnxFetchBytes) || cache_.snapshot_file(info.commit, f.path))
      return "";
    return (f.size ? with_thousands(*f.size) + " bytes" : std::string("its size is not listed")) +
           ", and an ONNX graph is fetched whole when it holds 1 to " +
           std::to_string(kMaxOnnxFetchBytes >> 20) +
           " MiB (its initializers are inline): download it to read its tensors";
  }

  // Whether the .onnx file `f` is read (else a note says why). When it is, sets the format and the listing's
  // sizes of the files of its folder, which its external data files are checked against.
  bool onnx_weights(const HubModelInfo& info, const RepoFile& f, LocalModelFiles& files, RemoteModel& m) {
    if (const std::string why = onnx_unread_reason(info, f); !why.empty()) {
      m.notes.push_back(f.path + " is not read: " + why);
      return false;
    }
    files.format = CheckpointFormat::Onnx;
    const std::string folder = fs::path(f.path).parent_path().generic_string();
    const std::string prefix = folder.empty() ? "" : folder + "/";
    for (const RepoFile& listed : info.files)
      if (listed.size && listed.path.starts_with(prefix))
        files.listed_sizes[listed.path.substr(prefix.size())] = *listed.size;
    return true;
  }

  // The ONNX model the user named (--file), read from its folder as a local .onnx file is from its own.
  // Named, a file that cannot be read is an error, not a note: the report would describe another model.
  void named_onnx_model(const HubModelInfo& info, const RepoFile& f, LocalModelFiles& files, RemoteModel& m) {
    if (const std::string why = onnx_unread_reason(info, f); !why.empty())
      throw Error(ErrorKind::Limit, ref_.id + "/" + f.path, "size",
                  why + " (modelanalyzer download " + ref_.id + " --file " + f.path + ")");
    onnx_weights(info, f, files, m);
    if (!header(info, WeightFile{&f}, files, m.stats)) note_missing("header of " + f.path);
    const fs::path path(f.path);
    for (FetchedHeader& h : files.fetched_headers)
      if (h.name == f.path) h.name = path.filename().string();
    files.root /= path.parent_path();
    files.weight_files.push_back(files.root / path.filename());
  }

  enum class HeaderSource { OnDisk, Read, Missing };

  // The header of one weight file: nothing to read when a full download is in the snapshot (it is read from
  // disk like any local model); else the header cache, when `complete(bytes, file size)` accepts what it
  // holds; else `fetch()` (range requests), checked against the listing's etag and cached. Missing when
  // offline.
  template <typename Complete, typename Fetch>
  HeaderSource weight_header(const HubModelInfo& info, const RepoFile& f, Complete complete, Fetch fetch,
                             FetchedHeader& h, RemoteStats& stats) {
    if (cache_.snapshot_file(info.commit, f.path)) return HeaderSource::OnDisk;
    h = FetchedHeader{f.path, "", f.size.value_or(0)};
    // The key of the cached header: the listing's hash, else what an earlier read of this commit found.
    std::optional<HubCache::HeaderKey> key;
    if (!f.lfs_sha256.empty() && f.size)
      key = HubCache::HeaderKey{f.lfs_sha256, *f.size};
    else if (f.lfs_sha256.empty())
      key = cache_.read_header_key(info.commit, f.path);
    std::optional<std::string> cached;
    if (key) cached = cache_.read_header(key->etag);
    if (cached && complete(*cached, key->file_size)) {
      h.file_size = key->file_size;
      h.prefix = std::move(*cached);
      std::lock_guard lock(mutex_);
      ++stats.headers_cached;
    } else {
      if (!http_) return HeaderSource::Missing;
      RemoteHeader rh = fetch();
      // A served SHA-1 (a mirror's git etag) is another kind of hash than the listing's: it says nothing.
      if (!f.lfs_sha256.empty() && rh.etag.size() == f.lfs_sha256.size() && rh.etag != f.lfs_sha256)
        throw Error(ErrorKind::Network, ref_.id + "/" + f.path, "X-Linked-Etag",
                    "the file changed between the listing and the read (etag differs); run again");
      if (!f.lfs_sha256.empty()) {
        cache_.write_header(f.lfs_sha256, rh.prefix);
      } else if (rh.etag.size() == 64) {
        cache_.write_header(rh.etag, rh.prefix);
        cache_.write_header_key(info.commit, f.path, {rh.etag, rh.file_size});
      }
      h.prefix = std::move(rh.prefix);
      h.file_size = rh.file_size;
      std::lock_guard lock(mutex_);
      ++stats.headers_fetched;
    }
    std::lock_guard lock(mutex_);
    stats.header_bytes += h.prefix.size();
    return HeaderSource::Read;
  }

  // A safetensors file's header (one or two range requests sized by the guess), or a PyTorch file's two ends
  // (remote_header.h), as `files.format` says. False when offline and absent.
  bool header(const HubModelInfo& info, const WeightFile& w, LocalModelFiles& files, RemoteStats& stats) {
    const RepoFile& f = *w.file;
    const std::string url = file_url(info.commit, f.path);
    const HubTarget target{ref_.id, info.commit, f.path};
    FetchedHeader h;
    const HeaderSource got =
        files.format == CheckpointFormat::Onnx
            ? weight_header(
                  info, f, [](std::string_view bytes, uint64_t size) { return bytes.size() == size; },
                  [&] { return fetch_onnx_model(*http_, url, f.size.value_or(0), target); }, h, stats)
        : files.format == CheckpointFormat::Pytorch
            ? weight_header(
                  info, f, torch_ends_complete,
                  [&] {
                    return fetch_torch_ends(*http_, url, torch_ends_guess(w.tensors, w.name_bytes), f.size,
                                            target, &torch_budget_);
                  },
                  h, stats)
            : weight_header(
                  info, f, [](std::string_view prefix, uint64_t) { return complete_header(prefix); },
                  [&] {
                    const uint64_t guess =
                        w.tensors ? header_guess(w.tensors, w.name_bytes) : kUnknownHeaderGuess;
                    return fetch_safetensors_header(*http_, url, guess, f.size, target, &safetensors_budget_);
                  },
                  h, stats);
    if (got == HeaderSource::Read) {
      std::lock_guard lock(mutex_);
      files.fetched_headers.push_back(std::move(h));
    }
    return got != HeaderSource::Missing;
  }

  // How the user named the ONNX model, for errors.
  std::string onnx_spelling() const {
    return ref_.file && options_.onnx_file && *ref_.file == *options_.onnx_file ? "the URL's file" : "--file";
  }

  // How the user named the GGUF model, for errors: as they wrote it.
  std::string selector_spelling() const {
    if (ref_.gguf_model) return ":" + *ref_.gguf_model;
    if (ref_.file && options_.gguf_file && *ref_.file == *options_.gguf_file) return "the URL's file";
    return "--file";
  }

  // One GGUF part's header, by range requests that grow until it parses. Sets `fetched` unless the file is on
  // disk; false when offline and absent.
  bool gguf_header(const HubModelInfo& info, const RepoFile& f, std::optional<FetchedHeader>& fetched,
                   RemoteStats& stats) {
    FetchedHeader h;
    const HeaderSource got = weight_header(
        info, f, gguf_header_complete,
        [&] {
          return fetch_gguf_header(*http_, file_url(info.commit, f.path), f.size,
                                   {ref_.id, info.commit, f.path}, &gguf_budget_);
        },
        h, stats);
    if (got == HeaderSource::Read) fetched = std::move(h);
    return got != HeaderSource::Missing;
  }

  // A repository of GGUF files (the "-GGUF" repos of llama.cpp users): the chosen model's parts, headers
  // only. `chosen` is the model a selector named, else the only one (several are listed, or refused).
  void gguf_model(const HubModelInfo& info, const GgufCatalog& ggufs, const RepoFile* chosen,
                  LocalModelFiles& files, RemoteModel& m) {
    RemoteStats& stats = m.stats;
    if (!chosen && ggufs.models().size() > 1 && options_.list_models) {
      list_gguf_models(info, ggufs, m);
      return;
    }
    const RepoFile& first = chosen ? *chosen : ggufs.only();
    const std::vector<const RepoFile*> parts = ggufs.parts(first);
    m.weight_bytes = ggufs.bytes(first);
    // The other quantizations are choices, not unread copies of these weights.
    std::erase_if(files.unread_weights, [](const fs::path& p) { return p.extension() == ".gguf"; });
    std::vector<std::optional<FetchedHeader>> fetched(parts.size());
    parallel_for_threads(parts.size(), settings_.parallel_requests, [&](size_t i) {
      if (!gguf_header(info, *parts[i], fetched[i], stats)) note_missing("header of " + parts[i]->path);
    });
    files.format = CheckpointFormat::Gguf;
    // A model in a folder (one per quantization) is read from that folder, as a local GGUF file from its
    // own: the checkpoint names each part by its file name in `root` (its parts are all beside the first).
    if (const fs::path folder = fs::path(first.path).parent_path(); !folder.empty()) files.root /= folder;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string name = fs::path(parts[i]->path).filename().string();
      files.weight_files.push_back(files.root / name);
      if (fetched[i]) {
        fetched[i]->name = name;
        files.fetched_headers.push_back(std::move(*fetched[i]));
      }
    }
    files.config.reset();  // a GGUF file carries its own configuration, as locally
  }

  // Every model of a repository of quantizations with its parts' headers (fetched in parallel, cached like
  // any header): what a listing needs to say each one's type mix and bits per weight.
  void list_gguf_models(const HubModelInfo& info, const GgufCatalog& ggufs, RemoteModel& m) {
    const std::vector<const RepoFile*>& models = ggufs.models();
    std::vector<std::pair<size_t, const RepoFile*>> parts;  // (model, part)
    m.gguf_models.resize(models.size());
    // One model that cannot be read (a part missing, a header refused, cut short or over a cap) is named in
    // the listing; the others are still listed.
    for (size_t k = 0; k < models.size(); ++k) {
      m.gguf_models[k].file = models[k]->path;  // with its folder: a folder per quantization is common
      m.gguf_models[k].bytes = ggufs.bytes(*models[k]);
      try {
        for (const RepoFile* p : ggufs.parts(*models[k])) parts.emplace_back(k, p);
      } catch (const Error& e) {
        if (!is_input_fault(e)) throw;  // the network, the token, Ctrl-C: the whole listing's, not a row's
        m.gguf_models[k].error = e;
      }
    }
    std::vector<std::optional<FetchedHeader>> fetched(parts.size());
    std::vector<std::optional<Error>> failed(parts.size());
    parallel_for_threads(parts.size(), settings_.parallel_requests, [&](size_t i) {
      try {
        if (!gguf_header(info, *parts[i].second, fetched[i], m.stats))
          note_missing("header of " + parts[i].second->path);
      } catch (const Error& e) {
        if (!is_input_fault(e)) throw;  // the network, the token, Ctrl-C: the whole listing's, not a row's
        failed[i] = e;
      }
    });
    // Over the budget of all headers together is the listing's fault, not one row's.
    if (std::optional<Error> over = gguf_budget_.refusal()) throw *over;
    for (size_t i = 0; i < parts.size(); ++i)
      if (failed[i] && !m.gguf_models[parts[i].first].error) m.gguf_models[parts[i].first].error = failed[i];
    for (size_t i = 0; i < parts.size(); ++i) {
      GgufModelChoice& c = m.gguf_models[parts[i].first];
      if (fetched[i])
        c.parts.push_back(std::move(*fetched[i]));
      else if (auto local = cache_.snapshot_file(info.commit, parts[i].second->path))
        c.parts_on_disk.push_back(*local);
    }
  }

  void note_missing(std::string what) {
    std::lock_guard lock(mutex_);
    missing_.push_back(std::move(what));
  }

  void assemble(RemoteModel& m) {
    const HubModelInfo& info = m.info;
    const GgufCatalog ggufs(info.files, ref_.id);
    // A GGUF model the user named is the model, whatever else the repository holds (the safetensors of the
    // original beside its quantizations): chosen before anything is fetched, so a name that matches nothing
    // costs no request, and nothing else is read or reported under its name.
    const RepoFile* chosen =
        options_.gguf_file ? &ggufs.choose(*options_.gguf_file, selector_spelling()) : nullptr;
    const RepoFile* onnx_named =
        options_.onnx_file ? &choose_onnx_model(info.files, *options_.onnx_file, ref_.id, onnx_spelling())
                           : nullptr;
    std::vector<const RepoFile*> small;
    for (const RepoFile& f : info.files)
      if (is_analysis_file(f.path, options_.skip_tokenizer)) small.push_back(&f);
    // A named ONNX model's folder may hold its genai_config.json (ONNX Runtime GenAI keeps one per target).
    if (onnx_named)
      for (const RepoFile* c : onnx_companions(info.files, *onnx_named))
        if (c->path.ends_with("genai_config.json") && !top_level(c->path)) small.push_back(c);
    parallel_for_threads(small.size(), settings_.parallel_requests, [&](size_t i) {
      if (!small_file(info, *small[i], m.stats)) note_missing(small[i]->path);
    });

    LocalModelFiles& files = m.files;
    files.root = cache_.snapshot_dir(info.commit);
    files.display_name = ref_.id + (ref_.explicit_revision ? "@" + ref_.revision : "");
    auto present = [&](std::string_view name) {
      return cache_.snapshot_file(info.commit, std::string(name));
    };
    if (auto p = present("config.json")) files.config = *p;
    if (chosen) {
      gguf_model(info, ggufs, chosen, files, m);
    } else if (onnx_named) {
      named_onnx_model(info, *onnx_named, files, m);
    } else {
      other_weights(info, ggufs, files, m);
    }
    if (!files.config && files.format == CheckpointFormat::None && m.gguf_models.empty() &&
        missing_.empty()) {
      // Nothing to report but ONNX models in folders: listed when a listing is the answer.
      if (options_.list_models) m.onnx_models = listed_onnx_models(info.files);
      if (m.onnx_models.empty()) {
        const std::string in_folders = onnx_model_paths(onnx_models_in_folders(info.files));
        throw Error(ErrorKind::NotFound, files.display_name, "",
                    "the repository holds no config.json, index, .safetensors or GGUF file" +
                        (in_folders.empty() ? std::string()
                                            : "; its ONNX models are in folders (" + in_folders +
                                                  "): name one with --file to read it"));
      }
    }
    if (http_) {
      m.stats.requests = http_->client().requests();
      m.stats.bytes_received = http_->client().bytes_received();
    }
  }

  // No GGUF model named: an index and its shards, else top-level safetensors files, else the repository's
  // GGUF models (at any depth).
  void other_weights(const HubModelInfo& info, const GgufCatalog& ggufs, LocalModelFiles& files,
                     RemoteModel& m) {
    auto present = [&](std::string_view name) {
      return cache_.snapshot_file(info.commit, std::string(name));
    };
    if (auto p = present("model.safetensors.index.json")) {
      files.index = *p;
      files.format = CheckpointFormat::Safetensors;
    } else if (auto q = present("pytorch_model.bin.index.json"); q && !holds_model_safetensors(info)) {
      // Safetensors come first, as in a local directory: a repository converted to safetensors may keep
      // its PyTorch index.
      files.index = *q;
      files.index_is_pytorch = true;
      files.format = CheckpointFormat::Pytorch;
    }
    // Other formats' copies: at the top, as a local directory's; GGUF files at any depth, where the Hub's
    // GGUF repositories keep a folder per quantization.
    if (!files.index)
      for (const RepoFile& f : info.files)
        if (f.path.ends_with(".gguf") ||
            (top_level(f.path) && (is_torch_checkpoint_name(f.path) || f.path.ends_with(".onnx"))))
          files.unread_weights.push_back(files.root / f.path);

    std::vector<WeightFile> weights = weight_files(info, files);
    // ONNX comes last, as in a local directory: a repository's GGUF files are the model before its export.
    if (!files.index && weights.empty() && ggufs.models().empty()) weights = onnx_file(info, files, m);
    if (files.format != CheckpointFormat::Onnx && !weights.empty()) {
      std::vector<const RepoFile*> read;
      for (const WeightFile& w : weights) read.push_back(w.file);
      m.weight_bytes = listed_bytes(read);
    }
    parallel_for_threads(weights.size(), settings_.parallel_requests, [&](size_t i) {
      if (!header(info, weights[i], files, m.stats)) note_missing("header of " + weights[i].file->path);
    });
    if (!files.index)
      for (const WeightFile& w : weights) {
        files.weight_files.push_back(files.root / w.file->path);
        std::erase(files.unread_weights, files.weight_files.back());  // a PyTorch file read, not unread
      }
    if (!files.index && weights.empty() && !ggufs.models().empty())
      gguf_model(info, ggufs, nullptr, files, m);
  }

  const RepoRef& ref_;
  const HubSettings& settings_;
  const RemoteOptions& options_;
  HubHttp* http_;
  HubCache cache_;
  std::mutex mutex_;
  std::vector<std::string> missing_;
  HeaderBudget gguf_budget_{kMaxGgufHeaderBytesInAll};  // every GGUF header fetched, together
  HeaderBudget torch_budget_{kMaxTorchEndsBytesInAll, "PyTorch checkpoint layout"};  // every file's two ends
  HeaderBudget safetensors_budget_{kMaxSafetensorsHeaderBytesInAll, "safetensors header"};
};

}  // namespace

bool is_analysis_file(std::string_view path, bool skip_tokenizer) {
  for (std::string_view f : kModelFiles)
    if (path == f) return true;
  if (!skip_tokenizer)
    for (std::string_view f : kTokenizerFiles)
      if (path == f) return true;
  return false;
}

RemoteModel open_remote_model(const RepoRef& ref, const HubSettings& settings, const RemoteOptions& options) {
  if (settings.offline) return Assembler(ref, settings, options, nullptr).cached("offline (HF_HUB_OFFLINE)");
  HubHttp http(settings);
  try {
    return Assembler(ref, settings, options, &http).online();
  } catch (const Error& e) {
    // The Hub is unreachable or failing, not refusing: a cached snapshot of the revision still answers.
    if (e.kind() != ErrorKind::Network) throw;
    RemoteModel m;
    try {
      m = Assembler(ref, settings, options, nullptr).cached("the Hub is unreachable");
    } catch (const Error&) {
      throw e;
    }
    m.warnings.push_back(std::string("the Hub could not be reached (") + e.what() +
                         "); using the cached snapshot " + m.info.commit);
    return m;
  }
}

}  // namespace ma
