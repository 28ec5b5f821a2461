#include "hub/download.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "core/error.h"
#include "core/glob.h"
#include "core/parallel.h"
#include "hub/content_hash.h"
#include "hub/hub_api.h"
#include "hub/hub_cache.h"
#include "hub/hub_http.h"
#include "hub/model_info.h"
#include "hub/repo_ref.h"
#include "hub/stale_temp.h"

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

class Downloader {
 public:
  Downloader(const RepoRef& ref, const HubSettings& settings, const DownloadOptions& options)
      : ref_(ref),
        settings_(settings),
        options_(options),
        http_(settings),
        cache_(settings.cache_root, ref.id) {}

  DownloadResult run() {
    HubModelInfo info = fetch_model_info(http_, ref_, cache_, options_.cancel);
    const std::vector<const RepoFile*> wanted = wanted_files(info);
    progress_.files_total = wanted.size();
    for (const RepoFile* f : wanted) progress_.bytes_total += f->size.value_or(0);
    sweep_stale_temps(wanted);
    report();
    parallel_for_threads(wanted.size(), options_.parallel_files, [&](size_t i) { fetch(info, *wanted[i]); });
    return result_;
  }

  // HF_HUB_OFFLINE / --offline: nothing is fetched. The revision's snapshot answers when the cached file list
  // says every wanted file is there, whole (the same check as online); else the missing files are named.
  DownloadResult run_offline() {
    const std::string where = ref_.id + "@" + ref_.revision;
    const std::string commit =
        is_commit_hash(ref_.revision) ? ref_.revision : cache_.read_ref(ref_.revision).value_or("");
    std::optional<std::string> body = commit.empty() ? std::nullopt : cache_.read_info(commit);
    if (!body)
      throw Error(ErrorKind::NotFound, where, "",
                  "offline (HF_HUB_OFFLINE), and the cache holds no file list of this revision");
    const HubModelInfo info =
        parse_model_info(std::move(*body), (cache_.repo_dir() / "modelanalyzer/info").string());
    std::string missing;
    for (const RepoFile* f : wanted_files(info)) {
      validate_repo_filename(f->path, "file list of " + ref_.id);
      const std::string etag = checked_etag(f->listed_hash(), ref_.id + "/" + f->path);
      if (f->size && present(info, *f, etag))
        ++result_.files_present;
      else
        missing += (missing.empty() ? "" : ", ") + f->path;
    }
    if (!missing.empty())
      throw Error(ErrorKind::NotFound, where, "", "offline (HF_HUB_OFFLINE); not in the cache: " + missing);
    return result_;
  }

 private:
  // The files of the listing --include and --exclude select; sets where they go.
  std::vector<const RepoFile*> wanted_files(const HubModelInfo& info) {
    result_.commit = info.commit;
    result_.root = options_.out_dir ? *options_.out_dir : cache_.snapshot_dir(info.commit);
    std::vector<const RepoFile*> wanted;
    for (const RepoFile& f : info.files)
      if (selected(f.path)) wanted.push_back(&f);
    if (wanted.empty())
      throw Error(ErrorKind::NotFound, ref_.id, "--include", "no file of the repository matches");
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

  void add_progress(uint64_t bytes, uint64_t files) {
    std::lock_guard lock(mutex_);
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

  // Already there and complete: skip. Complete means the listed size and the listed hash: a file of the right
  // size with other bytes (a flipped bit, a tampered copy) is downloaded again. In --out every present file
  // is hashed on each run: it is the user's directory, where files get edited and where we leave no stamps.
  // In the cache a blob is hashed once, then trusted while its stamp holds (HubCache::verified): rehashing
  // gigabytes on every run is what users complain about.
  bool present(const HubModelInfo& info, const RepoFile& f, const std::string& etag) const {
    std::error_code ec;
    if (options_.out_dir) {
      const fs::path p = *options_.out_dir / f.path;
      return fs::is_regular_file(p, ec) && fs::file_size(p, ec) == *f.size &&
             file_content_hash(p, etag) == etag;
    }
    const auto p = cache_.snapshot_file(info.commit, f.path);
    return p && cache_.intact(etag, *p, f.size);  // a damaged file is downloaded again, replacing the blob
  }

  void fetch(const HubModelInfo& info, const RepoFile& f) {
    validate_repo_filename(f.path, "file list of " + ref_.id);
    const std::string where = ref_.id + "/" + f.path;
    // The file list names each file's hash: LFS files by SHA-256, the rest by git blob SHA-1.
    const std::string etag = checked_etag(f.listed_hash(), where);
    if (!f.size) throw Error(ErrorKind::Network, where, "size", "the file list gives no size");
    const uint64_t expected = *f.size;
    if (present(info, f, etag)) {
      add_progress(expected, 1);
      std::lock_guard lock(mutex_);
      ++result_.files_present;
      return;
    }
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
        r = http_.fetch(resolve_url(settings_, ref_.id, info.commit, f.path), req,
                        {ref_.id, info.commit, f.path});
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

DownloadResult download_repo(const RepoRef& ref, const HubSettings& settings,
                             const DownloadOptions& options) {
  Downloader d(ref, settings, options);
  return settings.offline ? d.run_offline() : d.run();
}

}  // namespace ma
