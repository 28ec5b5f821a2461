#include "hub/download.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/glob.h"
#include "core/parallel.h"
#include "core/text.h"
#include "hub/content_hash.h"
#include "hub/file_metadata.h"
#include "hub/hub_api.h"
#include "hub/hub_cache.h"
#include "hub/hub_http.h"
#include "hub/model_info.h"
#include "hub/repo_ref.h"
#include "hub/stale_temp.h"
#include "io/atomic_file.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

constexpr int kMaxResumes = 5;

// A temp file that removes itself unless kept. It holds an exclusive flock from just after its creation until
// it is closed, after the rename into place: a concurrent download's sweep of stale temp files
// (stale_temp.h) sees it is live even from another PID namespace, where our pid means nothing.
class TempFile {
 public:
  explicit TempFile(fs::path path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error(ErrorKind::LocalIO, path_.string(), "",
                  std::string("cannot create the download file: ") + std::strerror(errno));
    // Best effort: where flock is unsupported (ENOLCK, EINVAL) the sweep goes by the pid alone.
    (void)::flock(fd_, LOCK_EX | LOCK_NB);
  }
  ~TempFile() {
    // Removed before the lock goes, so a sweep never sees it unlocked while it is still ours.
    if (!kept_) {
      std::error_code ec;
      fs::remove(path_, ec);
    }
    if (fd_ >= 0) ::close(fd_);
  }
  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error(ErrorKind::LocalIO, path_.string(), "",
                    std::string("write failed: ") + std::strerror(errno));
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
  void truncate() {
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0)
      throw Error(ErrorKind::LocalIO, path_.string(), "", "cannot restart the download file");
  }
  // Flushed, and still open: the lock is held until the file is in place (closed by the destructor).
  void finish() {
    if (::fsync(fd_) != 0)
      throw Error(ErrorKind::LocalIO, path_.string(), "", "cannot flush the download file (disk full?)");
  }
  void keep() { kept_ = true; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
  bool kept_ = false;
};

// A listing that names both `a` and `a/b` cannot be written anywhere (a file cannot also be a folder): the
// server's listing is inconsistent, which is said as such (exit 6), not as a local disk failure when the
// second write meets the first. Only conflicts that touch a file this run writes are refused.
void refuse_download_path_conflicts(const HubModelInfo& info, const std::vector<const RepoFile*>& wanted,
                                    const std::string& source) {
  std::unordered_set<std::string_view> files;
  std::unordered_map<std::string_view, std::string_view> folders;  // folder -> a listed path inside it
  for (const RepoFile& f : info.files) {
    const std::string_view p = f.path;
    files.insert(p);
    for (size_t slash = p.find('/'); slash != std::string_view::npos; slash = p.find('/', slash + 1))
      folders.emplace(p.substr(0, slash), p);
  }
  for (const RepoFile* f : wanted) {
    const std::string_view p = f->path;
    std::string_view file, inside;
    if (const auto it = folders.find(p); it != folders.end()) {
      file = p;
      inside = it->second;
    }
    for (size_t slash = p.find('/'); file.empty() && slash != std::string_view::npos;
         slash = p.find('/', slash + 1))
      if (files.count(p.substr(0, slash))) {
        file = p.substr(0, slash);
        inside = p;
      }
    if (!file.empty())
      throw Error(ErrorKind::Network, source, "siblings['" + std::string(inside) + "']",
                  "the server's file list names both '" + std::string(file) + "' and '" +
                      std::string(inside) + "': a file cannot also be a folder (an inconsistent listing)");
  }
}

class Downloader {
 public:
  Downloader(const RepoRef& ref, const HubSettings& settings, const DownloadOptions& options)
      : ref_(ref),
        settings_(settings),
        options_(options),
        http_(settings),
        cache_(settings.cache_root, ref.id) {}

  DownloadResult run() {
    HubModelInfo info;
    try {
      info = options_.listed ? *options_.listed
                             : fetch_model_info(http_, ref_, cache_, options_.cancel, &result_.warnings);
    } catch (const Error& e) {
      // The Hub unreachable or failing, not refusing: a cached snapshot of the revision still answers, with
      // a warning (the report's rule). Only the listing decides: once it came, a failed file is a failure.
      if (e.kind() != ErrorKind::Network) throw;
      return from_cache_after(e);
    }
    const std::vector<const RepoFile*> wanted = wanted_files(info);
    progress_.files_total = wanted.size();
    for (const RepoFile* f : wanted) progress_.bytes_total += f->size.value_or(0);
    sweep_stale_temps(wanted);
    report();
    parallel_for_threads(wanted.size(), options_.parallel_files, [&](size_t i) { fetch(info, *wanted[i]); });
    return result_;
  }

  // HF_HUB_OFFLINE / --offline, or the Hub unreachable (`why` says which): nothing is fetched. With our file
  // list of the revision, its snapshot (or --out) answers when every wanted file is there, whole (the same
  // check as online); else the missing files are named, with the directory that lacks them. Without one (a
  // snapshot huggingface_hub wrote), the snapshot answers as it is, as snapshot_download(local_files_only)
  // does, with a note.
  DownloadResult run_cached(const std::string& why) {
    const std::string where = ref_.id + "@" + ref_.revision;
    const std::string commit = cache_.commit_of(ref_.revision).value_or("");
    if (commit.empty())
      throw Error(ErrorKind::NotFound, where, "", why + ", and the cache does not hold this revision");
    std::optional<std::string> body = cache_.read_info(commit);
    if (!body) return snapshot_as_is(commit, why);
    const HubModelInfo info =
        parse_model_info(std::move(*body), (cache_.repo_dir() / "modelanalyzer/info").string());
    std::string missing;
    for (const RepoFile* f : wanted_files(info)) {
      validate_repo_filename(f->path, "file list of " + ref_.id);
      if (present_cached(info, *f))
        ++result_.files_present;
      else
        missing += (missing.empty() ? "" : ", ") + f->path;
    }
    if (!missing.empty())
      throw Error(
          ErrorKind::NotFound, where, "",
          why + "; not in " + (options_.out_dir ? options_.out_dir->string() : "the cache") + ": " + missing);
    return result_;
  }

 private:
  DownloadResult from_cache_after(const Error& unreachable) {
    try {
      run_cached("the Hub is unreachable");
    } catch (const Error&) {
      throw unreachable;  // the cache cannot answer either: the network's failure is the one to tell
    }
    result_.warnings.insert(result_.warnings.begin(), "the Hub could not be reached (" +
                                                          unreachable.message() +
                                                          "); using the cached snapshot " + result_.commit);
    return result_;
  }

  // A snapshot without our file list: its files as they are. Each must still be sound (a link into this
  // repo's blobs/, not dangling); whether the revision has more files is unknown, and the note says so.
  DownloadResult snapshot_as_is(const std::string& commit, const std::string& why) {
    const std::string where = ref_.id + "@" + ref_.revision;
    const fs::path dir = cache_.snapshot_dir(commit);
    std::error_code ec;
    if (options_.out_dir || !fs::is_directory(dir, ec))
      throw Error(ErrorKind::NotFound, where, "",
                  why + ", and the cache holds no file list of this revision" +
                      (options_.out_dir && fs::is_directory(dir, ec)
                           ? " (only a snapshot another tool wrote: run without --out to use it)"
                           : ""));
    std::string missing;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      std::error_code entry_ec;
      if (fs::is_directory(it->symlink_status(entry_ec))) continue;
      const std::string path = it->path().lexically_relative(dir).generic_string();
      if (!selected(path)) continue;
      if (cache_.snapshot_file(commit, path))
        ++result_.files_present;
      else
        missing += (missing.empty() ? "" : ", ") + path;  // a dangling link: its blob was deleted
    }
    if (!missing.empty())
      throw Error(ErrorKind::NotFound, where, "",
                  why + "; not in the cache (links to deleted blobs): " + missing);
    if (result_.files_present == 0)
      throw Error(ErrorKind::NotFound, where, options_.include.empty() ? "" : "--include",
                  why + "; no file of the cache snapshot " + commit.substr(0, 12) + " matches");
    result_.commit = commit;
    result_.root = dir;
    result_.notes.push_back(where + ": " + why + "; the files of the cache snapshot " + commit.substr(0, 12) +
                            " as they are (no file list: whether they are all of the revision's is unknown)");
    return result_;
  }

  // The files of the listing --include and --exclude select; sets where they go.
  std::vector<const RepoFile*> wanted_files(const HubModelInfo& info) {
    result_.commit = info.commit;
    result_.root = options_.out_dir ? *options_.out_dir : cache_.snapshot_dir(info.commit);
    std::vector<const RepoFile*> wanted;
    for (const RepoFile& f : info.files)
      if (selected(f.path)) wanted.push_back(&f);
    if (wanted.empty())
      throw Error(ErrorKind::NotFound, ref_.id, "--include", "no file of the repository matches");
    refuse_download_path_conflicts(info, wanted, "file list of " + ref_.id + "@" + info.commit);
    return wanted;
  }

  bool selected(const std::string& path) const {
    bool in = options_.include.empty();
    for (const std::string& g : options_.include) in = in || glob_match(g, path);
    for (const std::string& g : options_.exclude) in = in && !glob_match(g, path);
    return in;
  }

  void report() {
    if (options_.progress) options_.progress(progress_);
  }

  void add_progress(uint64_t bytes, uint64_t files, uint64_t more_total = 0) {
    std::lock_guard lock(mutex_);
    progress_.bytes_total += more_total;
    progress_.bytes_done += bytes;
    progress_.files_done += files;
    report();
  }

  // A SIGKILLed run cannot remove its temp files: sweep those of dead processes where this run writes — the
  // repo's blobs/, or in --out only the temp files of the files this run writes there.
  void sweep_stale_temps(const std::vector<const RepoFile*>& wanted) const {
    if (!options_.out_dir) {
      cache_.sweep_stale_temp_blobs();
      return;
    }
    std::map<fs::path, std::set<std::string, std::less<>>> names;  // directory -> names written there
    for (const RepoFile* f : wanted) {
      const fs::path p = *options_.out_dir / f->path;
      names[p.parent_path()].insert(p.filename().string());
    }
    for (const auto& dir_names : names) {
      const auto& written = dir_names.second;  // (clang 14 cannot capture a structured binding)
      sweep_stale_incomplete(dir_names.first,
                             [&written](std::string_view stem) { return written.count(stem) > 0; });
    }
  }

  // Already there and complete: skip. Complete means the size (when known) and the hash: a file of the right
  // size with other bytes (a flipped bit, a tampered copy) is downloaded again. In --out every present file
  // is hashed on each run: it is the user's directory, where files get edited and where we leave no stamps.
  // In the cache a blob is hashed once, then trusted while its stamp holds (HubCache::verified): rehashing
  // gigabytes on every run is what users complain about. A blob already in blobs/ that the snapshot does not
  // link yet (another commit's download, a Python tool's) is linked, not fetched: huggingface_hub's rule,
  // without which every new commit of a repo (a README edit, a tag) downloaded all its weights again.
  // Offline (`link` false) nothing is written: only the snapshot's own entries count, as for
  // huggingface_hub's local_files_only.
  bool present(const HubModelInfo& info, const RepoFile& f, const std::string& etag,
               std::optional<uint64_t> size, bool link = true) const {
    std::error_code ec;
    if (options_.out_dir) {
      const fs::path p = *options_.out_dir / f.path;
      return fs::is_regular_file(p, ec) && (!size || fs::file_size(p, ec) == *size) &&
             file_content_hash(p, etag) == etag;
    }
    if (const auto p = cache_.snapshot_file(info.commit, f.path))
      return cache_.intact(etag, *p, size);  // a damaged file is downloaded again, replacing the blob
    return link && cache_.link_blob(etag, info.commit, f.path, size).has_value();
  }

  // present() with no network: the listing's hash, else (a listing without hashes) the blob the snapshot
  // links to; with neither, the file being there is all that can be checked.
  bool present_cached(const HubModelInfo& info, const RepoFile& f) const {
    std::string etag;
    if (!f.listed_hash().empty())
      etag = checked_etag(f.listed_hash(), ref_.id + "/" + f.path);
    else if (!options_.out_dir)
      etag = cache_.snapshot_etag(info.commit, f.path).value_or("");
    if (!etag.empty()) return present(info, f, etag, f.size, /*link=*/false);
    std::error_code ec;
    if (options_.out_dir) {
      const fs::path p = *options_.out_dir / f.path;
      return fs::is_regular_file(p, ec) && (!f.size || fs::file_size(p, ec) == *f.size);
    }
    return cache_.snapshot_file(info.commit, f.path).has_value();
  }

  void fetch(const HubModelInfo& info, const RepoFile& f) {
    validate_repo_filename(f.path, "file list of " + ref_.id);
    const std::string where = ref_.id + "/" + f.path;
    const std::string url = resolve_url(settings_, ref_.id, info.commit, f.path);
    // The file list names each file's hash: LFS files by SHA-256, the rest by git blob SHA-1. A listing
    // without them (a mirror's) leaves the blob an earlier download linked, else the server's headers.
    const bool listed = !f.listed_hash().empty();
    std::string etag = listed              ? checked_etag(f.listed_hash(), where)
                       : !options_.out_dir ? cache_.snapshot_etag(info.commit, f.path).value_or("")
                                           : std::string();
    std::optional<uint64_t> size = f.size;
    bool have = !etag.empty() && present(info, f, etag, size);
    if (!have && (!listed || !size)) {
      // huggingface_hub's metadata request: X-Linked-Etag / ETag and X-Linked-Size / Content-Length.
      const FileMetadata m =
          fetch_file_metadata(http_, url, {ref_.id, info.commit, f.path}, where, options_.cancel);
      if (!listed) etag = m.etag;
      if (!size) {
        size = m.size;
        add_progress(0, 0, m.size);
      }
      have = present(info, f, etag, size);
    }
    if (have) {
      add_progress(size.value_or(0), 1);
      std::lock_guard lock(mutex_);
      ++result_.files_present;
      return;
    }
    const uint64_t expected = *size;  // listed, else stated by the metadata request above
    fs::path temp_path;
    if (options_.out_dir) {
      fs::path final_path = *options_.out_dir / f.path;
      std::error_code ec;
      fs::create_directories(final_path.parent_path(), ec);
      if (ec)
        throw Error(ErrorKind::LocalIO, final_path.parent_path().string(), "",
                    "cannot create: " + ec.message());
      temp_path = final_path;
      temp_path += "." + std::to_string(getpid()) + ".incomplete";
    } else {
      temp_path = cache_.temp_blob(etag);
    }
    TempFile temp(temp_path);
    ContentHash hash(etag, expected);
    uint64_t written = 0, received = 0;  // in the file so far; in this attempt
    HttpRequest req;
    req.cancel = options_.cancel;  // Ctrl-C stops a stalled transfer too, not only between chunks
    req.max_body = expected + 1;   // one byte more than promised is already a consistency failure
    // A server that ignores Range on a resumed request (200, not 206) sends the whole file again: it starts
    // over before its first byte is written after the part already here (N9).
    req.on_sink_start = [&](int status) {
      if (status != 200 || written == 0) return;
      temp.truncate();
      hash.reset();
      written = 0;
      add_progress(0, 0);
    };
    req.sink = [&](std::string_view chunk) {
      if (options_.cancel && options_.cancel->load())
        throw Error(ErrorKind::LocalIO, where, "", "interrupted");
      temp.write(chunk);
      hash.update(chunk);
      written += chunk.size();
      received += chunk.size();
      add_progress(chunk.size(), 0);
    };
    for (int attempt = 0;; ++attempt) {
      const uint64_t resume_from = written;
      received = 0;
      req.range.reset();
      if (resume_from > 0) req.range = ByteRange{resume_from, kOpenEnded};
      HubResult r;
      try {
        r = http_.fetch(url, req, {ref_.id, info.commit, f.path});
      } catch (const TransientNetworkError&) {  // a failure another try would meet is not resumed
        if (received == 0 || attempt >= kMaxResumes) throw;
        std::lock_guard lock(mutex_);
        ++result_.resumed;
        continue;  // bytes arrived before the connection broke: resume from there
      }
      // The listing's hash decides. A served etag that is not a content hash (a mirror's "5f2b1c-49e20"), or
      // one of another kind (SHA-1 beside the listing's SHA-256), says nothing about these bytes; the hash
      // of what arrived is checked below either way.
      const std::string* raw_etag = r.file_etag();
      const std::optional<std::string> server_etag = raw_etag ? content_etag(*raw_etag) : std::nullopt;
      if (server_etag && server_etag->size() == etag.size() && *server_etag != etag)
        throw Error(ErrorKind::Network, where, "ETag",
                    "the file changed on the server since it was listed; run again");
      break;
    }
    if (written != expected)
      throw Error(ErrorKind::Network, where, "body",
                  "consistency check failed: expected " + std::to_string(expected) + " bytes, received " +
                      std::to_string(written));
    require_content_hash(where, etag, hash.hex_digest());
    temp.finish();
    if (options_.out_dir) {
      std::error_code ec;
      fs::rename(temp.path(), *options_.out_dir / f.path, ec);
      if (ec)
        throw Error(ErrorKind::LocalIO, (*options_.out_dir / f.path).string(), "",
                    "cannot move into place: " + ec.message());
    } else {
      cache_.mark_verified(etag, cache_.commit_blob(temp.path(), etag, info.commit, f.path));  // hashed above
    }
    temp.keep();
    add_progress(0, 1);
    std::lock_guard lock(mutex_);
    ++result_.files_downloaded;
    result_.bytes_downloaded += written;
  }

  const RepoRef& ref_;
  const HubSettings& settings_;
  const DownloadOptions& options_;
  HubHttp http_;
  HubCache cache_;
  std::mutex mutex_;
  DownloadProgress progress_;
  DownloadResult result_;
};

}  // namespace

namespace {

// Empty folders under `dir` and `dir` itself, deepest first; anything holding a file stays (fs::remove takes
// only an empty folder).
void remove_empty_download_dirs(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> folders;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code entry_ec;
    if (fs::is_directory(it->symlink_status(entry_ec))) folders.push_back(it->path());
  }
  for (auto it = folders.rbegin(); it != folders.rend(); ++it) fs::remove(*it, ec);
  fs::remove(dir, ec);
}

// Which repository a --out directory holds, written there by the download that filled it: a second
// repository downloaded into it would overwrite the first's config.json and tokenizer and mix their weights
// into one directory no analysis can tell apart (seed 004's users download several models under one folder).
// Hidden, like huggingface_hub's .cache/huggingface/ in a local dir; no weight, so no analysis reads it.
fs::path out_repository_marker(const fs::path& out) {
  return out / ".modelanalyzer" / "repository";
}

void refuse_another_repository(const RepoRef& ref, const fs::path& out) {
  std::error_code ec;
  const fs::path marker = out_repository_marker(out);
  if (!fs::is_regular_file(marker, ec)) return;
  std::string held = read_small_file(marker, 1024);
  while (!held.empty() && (held.back() == '\n' || held.back() == '\r')) held.pop_back();
  if (ascii_lower(held) == ascii_lower(ref.id)) return;
  throw Error(ErrorKind::Usage, out.string(), "--out",
              "holds " + printable(held, 200) + ", downloaded there; " + ref.id +
                  "'s files would overwrite its config.json and mix their weights with its: choose another "
                  "directory (such as " +
                  (out / ref.id).string() + ")");
}

}  // namespace

DownloadResult download_repo(const RepoRef& ref, const HubSettings& settings,
                             const DownloadOptions& options) {
  // A failed download into a --out it created takes the folder away again when nothing landed in it (a 401,
  // a 404, Ctrl-C): a failed command leaves no trace, as for every other output.
  std::error_code ec;
  const bool new_out = options.out_dir && !fs::exists(fs::symlink_status(*options.out_dir, ec));
  if (options.out_dir) refuse_another_repository(ref, *options.out_dir);
  try {
    Downloader d(ref, settings, options);
    DownloadResult r = settings.offline ? d.run_cached("offline (HF_HUB_OFFLINE)") : d.run();
    if (options.out_dir) {
      fs::create_directories(out_repository_marker(*options.out_dir).parent_path(), ec);
      write_file_atomically(out_repository_marker(*options.out_dir), ref.id + "\n");
    }
    return r;
  } catch (...) {
    if (new_out) remove_empty_download_dirs(*options.out_dir);
    throw;
  }
}

}  // namespace ma
