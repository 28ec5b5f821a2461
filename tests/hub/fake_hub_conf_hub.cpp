// The fake Hub's "hub" server block: one exact location per served URL, plus prefix locations for what is
// not found, the gated and redirect-loop repos, and the shared error locations.
#include "fake_hub_conf_hub.h"

#include <utility>

#include "fake_hub_conf_text.h"
#include "fake_hub_hash.h"

namespace ma::test::detail {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCdnQuery = "?X-Amz-Signature=SECRETSIG&Expires=1";

// What a repo's locations run before their own work: the private-repo auth guards (rewrite phase) and, for
// the limited modes, the limiter (preaccess phase).
struct Guard {
  std::vector<std::string> statements;
  bool limited = false;
};

Guard auth_guard(const RepoPlan& r) {
  Guard g;
  if (r.mode == Mode::Private)
    g.statements = {"if ($ma_auth = none) { rewrite ^ /__ma/unauthorized/anonymous last; }",
                    "if ($ma_auth = invalid) { rewrite ^ /__ma/unauthorized/invalid last; }"};
  return g;
}

// Each rate-limited repo answers 429 with its own headers (FakeRepo::limit_headers).
std::string too_many_location(const RepoPlan& r) {
  return "@ma_429_" + std::to_string(r.index);
}

Guard resolve_guard(const RepoPlan& r) {
  Guard g = auth_guard(r);
  if (!is_limited(r.mode)) return g;
  const bool too_many = r.mode == Mode::RateLimited;
  g.limited = true;
  g.statements.push_back("limit_req zone=ma_limit_" + std::to_string(r.index) + ";");
  g.statements.push_back(std::string("limit_req_status ") + (too_many ? "429" : "503") + ";");
  g.statements.push_back(too_many ? "error_page 429 " + too_many_location(r) + ";"
                                  : "error_page 503 @ma_503;");
  return g;
}

class HubServerWriter {
 public:
  HubServerWriter(const Layout& lay, std::string endpoint, std::string cdn_origin)
      : lay_(lay), endpoint_(std::move(endpoint)), cdn_origin_(std::move(cdn_origin)) {}

  std::string server(const std::vector<RepoPlan>& repos, uint16_t port) {
    for (const RepoPlan& r : repos) repo_locations(r);
    return "  server {\n    listen 127.0.0.1:" + std::to_string(port) + ";\n    server_name hub;\n    root " +
           nginx_quote(lay_.empty_root().string()) +
           ";\n    default_type application/json;\n    access_log " + nginx_quote(lay_.hub_log().string()) +
           " ma_hub;\n" + shared_locations() + locations_ + "  }\n";
  }

 private:
  void repo_locations(const RepoPlan& r) {
    api_locations(r);
    if (r.mode == Mode::RateLimited)
      locations_ += location(too_many_location(r),
                             {reply_statements({429, error_body("Too many requests"), r.limit_headers})});
    if (r.mode == Mode::Gated)
      gated_location(r);
    else if (r.mode == Mode::RedirectLoop)
      redirect_loop_location(r);
    else
      resolve_locations(r);
  }

  void api_locations(const RepoPlan& r) {
    const std::string base = "/api/models/" + r.id;
    const Guard g = auth_guard(r);
    for (const std::string& uri : {base, base + "/revision/main", base + "/revision/" + r.commit})
      file_location(exact(uri), g, lay_.api_json(r), "application/json", {});
    reply_location(prefix(base + "/revision/"), g, revision_not_found());
  }

  void resolve_locations(const RepoPlan& r) {
    const Guard g = resolve_guard(r);
    for (const std::string& rev : {std::string("main"), r.commit}) {
      const std::string base = "/" + r.id + "/resolve/" + rev + "/";
      for (const FilePlan& f : r.files) file_at_revision(r, f, exact(base + f.file.path), g);
      reply_location(prefix(base), g, entry_not_found(r));
      // /raw/ serves a file as git stores it: an LFS file's pointer text. (The JS client HEADs it to learn
      // whether a file exists.)
      const std::string raw = "/" + r.id + "/raw/" + rev + "/";
      for (const FilePlan& f : r.files) {
        if (!f.file.lfs) {
          file_at_revision(r, f, exact(raw + f.file.path), g);
          continue;
        }
        reply_location(exact(raw + f.file.path), g,
                       {200, lfs_pointer(f.etag, f.size), {{"X-Repo-Commit", r.commit}}});
      }
      reply_location(prefix(raw), g, entry_not_found(r));
    }
    reply_location(prefix("/" + r.id + "/resolve/"), g, revision_not_found());
  }

  void file_at_revision(const RepoPlan& r, const FilePlan& f, const std::string& match, const Guard& g) {
    if (f.file.lfs) {
      reply_location(match, g, lfs_redirect(r, f));
      return;
    }
    const std::vector<Header> headers = {{"X-Repo-Commit", r.commit}, {"ETag", quoted_etag(f.etag)}};
    file_location(match, g, lay_.hub_file(r, f), content_type(f.file.path), headers);
  }

  // 401 without a token, 403 with one (a token without access), never the file.
  void gated_location(const RepoPlan& r) {
    const std::string restricted = "Access to model " + r.id + " is restricted";
    const std::string anonymous =
        restricted + ". You must have access to it and be authenticated to access it. Please log in.";
    const std::string denied = restricted +
                               " and you are not in the authorized list. Visit https://huggingface.co/" +
                               r.id + " to ask for access.";
    const auto headers = [&](const std::string& message) {
      return std::vector<Header>{
          {"X-Repo-Commit", r.commit}, {"X-Error-Code", "GatedRepo"}, {"X-Error-Message", message}};
    };
    locations_ += location(prefix("/" + r.id + "/resolve/"),
                           {"if ($http_authorization = \"\") { " +
                                reply_statements({401, error_body(anonymous), headers(anonymous)}) + " }",
                            reply_statements({403, error_body(denied), headers(denied)})});
  }

  void redirect_loop_location(const RepoPlan& r) {
    const Reply loop{302, endpoint_ + "$request_uri", {{"X-Repo-Commit", r.commit}}};
    locations_ += location(prefix("/" + r.id + "/resolve/"), {reply_statements(loop)});
  }

  Reply lfs_redirect(const RepoPlan& r, const FilePlan& f) const {
    return {302,
            cdn_origin_ + cdn_uri(r, f) + kCdnQuery,
            {{"X-Repo-Commit", r.commit},
             {"X-Linked-Etag", quoted_etag(f.etag)},
             {"X-Linked-Size", std::to_string(f.size)},
             {"ETag", quoted_etag(f.etag)}}};
  }

  static Reply entry_not_found(const RepoPlan& r) {
    return {404,
            error_body("Entry not found"),
            {{"X-Error-Code", "EntryNotFound"},
             {"X-Error-Message", "Entry not found"},
             {"X-Repo-Commit", r.commit}}};
  }

  static Reply revision_not_found() {
    return {404,
            error_body("Invalid rev id"),
            {{"X-Error-Code", "RevisionNotFound"}, {"X-Error-Message", "Invalid rev id"}}};
  }

  static std::string content_type(const std::string& path) {
    return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0 ? "application/json"
                                                                              : "application/octet-stream";
  }

  // A static file: nginx's own ETag (mtime-size) is replaced by ours; add_header sets the response's etag, so
  // If-Range with it still works.
  void file_location(const std::string& match, const Guard& g, const fs::path& file, const std::string& type,
                     const std::vector<Header>& headers) {
    std::vector<std::string> st = g.statements;
    st.push_back("default_type " + type + ";");
    st.push_back("etag off;");
    for (const auto& [name, value] : headers) st.push_back(add_header(name, value));
    st.push_back("alias " + nginx_quote(file.string()) + ";");
    locations_ += location(match, st);
  }

  // A `return` runs in the rewrite phase, before limit_req: behind a limiter it moves into a named location
  // that try_files (which runs after the limiter) falls back to.
  void reply_location(const std::string& match, const Guard& g, const Reply& reply) {
    std::vector<std::string> st = g.statements;
    if (!g.limited) {
      st.push_back(reply_statements(reply));
      locations_ += location(match, st);
      return;
    }
    const std::string name = "@ma_reply_" + std::to_string(named_count_++);
    st.push_back("try_files /.ma-never " + name + ";");
    locations_ += location(match, st) + location(name, {reply_statements(reply)});
  }

  std::string shared_locations() const {
    const std::string not_found = "Repository not found";
    const std::string invalid = "Invalid credentials in Authorization header";
    return location(
               exact("/__ma/unauthorized/anonymous"),
               {"internal;",
                reply_statements({401,
                                  error_body(not_found),
                                  {{"X-Error-Code", "RepoNotFound"}, {"X-Error-Message", not_found}}})}) +
           location(
               exact("/__ma/unauthorized/invalid"),
               {"internal;", reply_statements({401, error_body(invalid), {{"X-Error-Message", invalid}}})}) +
           location("@ma_503", {reply_statements({503, error_body("Service temporarily unavailable"), {}})}) +
           location("/",
                    {reply_statements({404,
                                       error_body(not_found),
                                       {{"X-Error-Code", "RepoNotFound"}, {"X-Error-Message", not_found}}})});
  }

  const Layout& lay_;
  std::string endpoint_, cdn_origin_;
  std::string locations_;
  int named_count_ = 0;
};

}  // namespace

std::string hub_server(const Layout& lay, const std::vector<RepoPlan>& repos, uint16_t port,
                       const std::string& endpoint, const std::string& cdn_origin) {
  return HubServerWriter(lay, endpoint, cdn_origin).server(repos, port);
}

}  // namespace ma::test::detail
