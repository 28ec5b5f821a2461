// The fake Hub: plans each repo (commit, etags, sizes), writes the served tree and an nginx.conf with one
// exact `location =` per served URL (fast to start even with hundreds of shards), runs nginx and reads its
// logs back. This file ties the pieces together; each piece is its own file under tests/hub/:
//   fake_hub_plan      modes, repo and file plans (commit, etags, blob ids)
//   fake_hub_validate  what may reach nginx.conf (ids, paths, token, work_dir)
//   fake_hub_hash      sha256, sha1, git blob ids, LFS pointer text
//   fake_hub_info      model-info JSON
//   fake_hub_layout    paths under work_dir
//   fake_hub_tree      the served tree (sparse files, damaged blobs)
//   fake_hub_conf      the whole nginx.conf and its CDN server
//   fake_hub_conf_hub  its hub server (locations per repo and mode, guards, limiters)
//   fake_hub_conf_text its building blocks (quoting, headers, returns, locations)
//   fake_hub_nginx     the nginx process (binary, inherited listeners, start/wait/stop, one plain request)
//   fake_hub_log       access-log parsing
//   fake_hub_text, fake_hub_io   small text and file helpers
//   fake_hub_from_directory      repo_from_directory
//
// Served layout under work_dir:
//   www/api/{key}.json          model info of a repo ({key} = "models--org--name")
//   www/hub/{key}/{path}        non-LFS files, aliased by /{id}/resolve/{main|commit}/{path}
//   www/cdn/{key}/{sha256}      LFS blobs, served at /lfs/{sha256}, or at /lfs/{key}/{sha256} for the modes
//                               that change what the CDN serves (ignore_range, truncated, corrupt, slow)
//   hub_access.log, cdn_access.log, error.log, nginx.conf, nginx.pid, nginx.stdout, nginx.stderr, tmp/
//
// Fault modes in nginx terms:
//   gated         one prefix location per repo: 401 without Authorization, else 403
//                 (X-Error-Code: GatedRepo).
//   private       every location of the repo starts with `if` guards on $ma_auth (a case-sensitive map of
//                 the Authorization header) that rewrite to internal 401 locations.
//   rate_limited  `limit_req` (30r/m, burst 0) in every resolve location; 429 goes to the repo's own
//                 @ma_429_{index}, which adds its limit_headers (Retry-After: 2 by default).
//   flaky         the same limiter with 503 (@ma_503, no Retry-After). limit_req runs after the rewrite
//                 phase, where `return` would already have answered, so these repos' returns (302s, 404s)
//                 are moved into named locations reached by try_files, which runs after the limiter.
//   ignore_range  `max_ranges 0` on the repo's CDN locations.   slow: `limit_rate 256k` there.
//   truncated     the blob on disk lacks its last 64 bytes.     corrupt: its middle byte is inverted.
//   redirect_loop one prefix location per repo answering 302 to {endpoint}$request_uri.
#include "fake_hub.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include "fake_hub_conf.h"
#include "fake_hub_io.h"
#include "fake_hub_layout.h"
#include "fake_hub_log.h"
#include "fake_hub_nginx.h"
#include "fake_hub_plan.h"
#include "fake_hub_tree.h"
#include "fake_hub_validate.h"

namespace ma::test {

namespace fs = std::filesystem;
using detail::Clock;
using detail::kPollInterval;

namespace {

// The requests settle() sends: answered 404 by the hub server's catch-all location, and never in log().
constexpr std::string_view kSettleUri = "/__ma/settled/";
constexpr auto kSettleTimeout = std::chrono::seconds(10);

bool is_settle_request(const LogEntry& e) {
  return e.server == "hub" && e.uri.rfind(kSettleUri, 0) == 0;
}

}  // namespace

struct FakeHub::Impl {
  detail::Layout lay;
  std::string token;
  std::vector<detail::RepoPlan> repos;
  uint16_t hub_port = 0, cdn_port = 0;
  detail::NginxProcess nginx;
  uint64_t hub_log_from = 0, cdn_log_from = 0;  // where log() starts: the logs' ends at the last clear_log()
  unsigned settle_count = 0;

  // Once a request sent now is in the hub's access log, so is every request nginx answered before it: nginx
  // logs a request in the same step that sends its last byte, and its one worker (worker_processes 1) takes
  // one step at a time. A request still being answered (a slow transfer, one whose client went away unseen)
  // may be logged later.
  void settle() {
    if (!nginx.running()) return;
    const std::string uri = std::string(kSettleUri) + std::to_string(settle_count++);
    if (!detail::get_to_the_end(hub_port, uri))
      throw std::runtime_error("FakeHub: nginx did not answer " + uri);
    for (const auto deadline = Clock::now() + kSettleTimeout;;) {
      for (const LogEntry& e : detail::parse_access_log(lay.hub_log(), hub_log_from))
        if (e.uri == uri) return;
      if (Clock::now() >= deadline) throw std::runtime_error("FakeHub: nginx did not log " + uri);
      std::this_thread::sleep_for(kPollInterval);
    }
  }

  const detail::RepoPlan& repo(const std::string& id) const {
    for (const detail::RepoPlan& r : repos)
      if (r.id == id) return r;
    throw std::out_of_range("FakeHub: no repo " + id);
  }

  void prepare_tree() {
    detail::write_served_tree(lay, repos);
    for (const fs::path& p : {lay.pid_file(), lay.hub_log(), lay.cdn_log()}) fs::remove(p);
    hub_log_from = cdn_log_from = 0;
  }
};

bool FakeHub::available() {
  return !detail::find_nginx().empty();
}

FakeHub::FakeHub(std::filesystem::path work_dir, std::string valid_token) : impl_(std::make_unique<Impl>()) {
  fs::create_directories(work_dir);
  impl_->lay.work = fs::absolute(work_dir).lexically_normal();
  detail::validate_config_path(impl_->lay.work);
  detail::validate_token(valid_token);
  impl_->token = std::move(valid_token);
}

FakeHub::~FakeHub() {
  try {
    stop();
  } catch (...) {  // a destructor must not throw; nginx is killed by its group at worst
  }
}

void FakeHub::add_repo(FakeRepo repo) {
  if (impl_->nginx.running()) throw std::logic_error("FakeHub: add_repo after start()");
  detail::RepoPlan plan = detail::plan_repo(std::move(repo), impl_->repos.size());
  for (const detail::RepoPlan& r : impl_->repos)
    if (r.key == plan.key) throw std::invalid_argument("FakeHub: repo " + plan.id + " clashes with " + r.id);
  impl_->repos.push_back(std::move(plan));
}

void FakeHub::start() {
  if (impl_->nginx.running()) throw std::logic_error("FakeHub: already started");
  const std::string binary = detail::find_nginx();
  if (binary.empty()) throw std::runtime_error("FakeHub: nginx not found");
  impl_->prepare_tree();
  const detail::Listeners listeners(2);  // nginx holds its own copies once started
  impl_->hub_port = listeners.port(0);
  impl_->cdn_port = listeners.port(1);
  detail::write_whole_file(impl_->lay.conf(), detail::render_config({impl_->lay, impl_->repos, impl_->token,
                                                                     impl_->hub_port, impl_->cdn_port}));
  impl_->nginx.start(binary, impl_->lay, listeners);
}

void FakeHub::stop() {
  impl_->nginx.stop();
}

std::string FakeHub::endpoint() const {
  if (impl_->hub_port == 0) throw std::logic_error("FakeHub: endpoint() before start()");
  return detail::origin(impl_->hub_port);
}

std::string FakeHub::cdn_origin() const {
  if (impl_->cdn_port == 0) throw std::logic_error("FakeHub: cdn_origin() before start()");
  return detail::origin(impl_->cdn_port);
}

std::vector<LogEntry> FakeHub::log() const {
  impl_->settle();
  std::vector<LogEntry> all = detail::parse_access_log(impl_->lay.hub_log(), impl_->hub_log_from);
  std::erase_if(all, is_settle_request);
  std::vector<LogEntry> cdn = detail::parse_access_log(impl_->lay.cdn_log(), impl_->cdn_log_from);
  all.insert(all.end(), std::make_move_iterator(cdn.begin()), std::make_move_iterator(cdn.end()));
  return all;
}

std::vector<LogEntry> FakeHub::wait_for_log(size_t count, std::chrono::milliseconds timeout) const {
  const auto deadline = Clock::now() + timeout;
  std::vector<LogEntry> entries = log();
  while (entries.size() < count && Clock::now() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
    entries = log();
  }
  return entries;
}

void FakeHub::clear_log() {
  impl_->settle();
  const auto end_of = [](const fs::path& p) -> uint64_t {
    std::error_code ec;
    const uintmax_t size = fs::file_size(p, ec);
    return ec ? 0 : size;
  };
  impl_->hub_log_from = end_of(impl_->lay.hub_log());
  impl_->cdn_log_from = end_of(impl_->lay.cdn_log());
}

std::string FakeHub::commit_of(const std::string& repo_id) const {
  return impl_->repo(repo_id).commit;
}

std::string FakeHub::etag_of(const std::string& repo_id, const std::string& path) const {
  for (const detail::FilePlan& f : impl_->repo(repo_id).files)
    if (f.file.path == path) return f.etag;
  throw std::out_of_range("FakeHub: no file " + path + " in " + repo_id);
}

}  // namespace ma::test
